package lifecycle

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/podlifecycle/conformance/framework/observe"
	"github.com/podlifecycle/conformance/framework/suite"
)

const podStartBound = suite.PodStartBound

// secretRetryBound bounds how long after a missing Secret appears a container waiting
// for it starts: the pod worker's retry after a failed sync (10 s, plus up to 50 %
// jitter) and the start of a container whose image is present, on a loaded machine.
const secretRetryBound = 30 * time.Second

// terminationBound bounds how long a pod whose containers exit promptly on TERM takes
// to reach a terminal phase after deletion: kubelet sync, TERM, status update; well
// under the default 30 s grace period, which is the documented upper bound.
const terminationBound = 30 * time.Second

// shellPod is a one-container busybox pod running script with mark() defined.
func shellPod(name string, policy corev1.RestartPolicy, script string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.PodSpec{
			RestartPolicy: policy,
			Containers: []corev1.Container{{
				Name: "main", Image: "busybox:1.28",
				Command: []string{"sh", "-c", observe.MarkShell("main") + script},
			}},
		},
	}
}

// deletePod deletes a pod with the given grace period (nil: the pod's own).
func deletePod(ctx context.Context, ns, name string, grace *int64) {
	GinkgoHelper()
	Expect(env.Client.CoreV1().Pods(ns).Delete(ctx, name, metav1.DeleteOptions{GracePeriodSeconds: grace})).To(Succeed())
}
