package gated

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/podlifecycle/conformance/framework/drift"
	. "github.com/podlifecycle/conformance/framework/match"
	"github.com/podlifecycle/conformance/framework/suite"
)

// podGCPeriod is the PodGC controller's loop period (gcCheckPeriod, 20 s, in
// pkg/controller/podgc); a pod it should delete is gone within one period plus the
// delete's round trip (podGCBound).
const (
	podGCPeriod = 20 * time.Second
	podGCBound  = podGCPeriod + 10*time.Second
	// terminalBound bounds a short pod's way to its terminal phase: its start
	// (PodStartBound), then the kubelet's write of the phase once the container has
	// exited, which took 20 s on this 2-core machine with three clusters up (the Slow
	// run of 2026-12-06: Terminated at +25.6 s, Succeeded at +46.1 s); a kubelet that
	// never writes the phase still fails.
	terminalBound = suite.PodStartBound + 30*time.Second
)

var _ = Describe("PodGC", func() {
	It("deletes the oldest terminated pods above terminated-pod-gc-threshold", Label("TM-14"), suite.Timeout(2*podGCBound, terminalBound, 2*time.Second, suite.PodStartBound+podGCBound), func(ctx SpecContext) {
		threshold := terminatedPodGCThreshold(ctx)
		ns := env.Namespace(ctx)
		// The threshold counts terminated pods of the whole cluster: start from none, so
		// that the pods this spec makes are the only ones PodGC may choose from.
		Eventually(terminatedPods).WithContext(ctx).WithArguments("").WithTimeout(2*podGCBound).Should(BeEmpty(),
			"terminated pods of earlier specs should be gone (namespace deletion, or PodGC)")

		// Old pods first, then, a creation second later (PodGC orders by
		// creationTimestamp, which has whole seconds), threshold new ones.
		const old = 3
		create := func(prefix string, n int) {
			for i := range n {
				_, err := env.Client.CoreV1().Pods(ns).Create(ctx, succeeding(fmt.Sprintf("%s-%d", prefix, i)), metav1.CreateOptions{})
				Expect(err).NotTo(HaveOccurred())
			}
		}
		created := time.Now()
		create("old", old)
		Eventually(terminatedPods).WithContext(ctx).WithArguments(ns).WithTimeout(terminalBound).Should(HaveLen(old))
		Eventually(func() time.Duration { return time.Since(newestCreation(ctx, ns)) }).WithContext(ctx).
			WithTimeout(2 * time.Second).Should(BeNumerically(">", time.Second))
		create("new", threshold)

		// Until PodGC runs, old+threshold pods are terminated; then the old ones go. The
		// wait ends when the new ones have terminated and no more than threshold are left
		// (PodGC deletes a pass's pods in parallel, so a listing can catch it half-way),
		// or at the bound, whichever comes first, and fails nothing: the old article's
		// time limit would leave them all for now.
		terminated := names("old", old)
		_ = wait.PollUntilContextTimeout(ctx, time.Second, suite.PodStartBound+podGCBound, true, func(ctx context.Context) (bool, error) {
			got, err := terminatedPods(ctx, ns)
			if err != nil {
				return false, nil
			}
			terminated = got
			// Done once every new pod has terminated and PodGC's pass has left threshold.
			allNew := !slices.ContainsFunc(names("new", threshold), func(n string) bool { return !slices.Contains(got, n) })
			return allNew && len(got) <= threshold, nil
		})
		suite.Answer(drift.Question[bool]{
			Topic:    "what triggers pod garbage collection",
			Claims:   map[string]bool{"a-count-above-the-threshold": true, "a-time-limit": false},
			Measured: slices.Equal(terminated, names("new", threshold)),
			Evidence: fmt.Sprintf("terminated pods left in %s: %v, of %d old and %d new (threshold %d), %s after the first was created", ns, terminated, old, threshold, threshold, time.Since(created).Round(time.Second)),
		})
		Expect(terminated).To(ConsistOf(names("new", threshold)), "TM-14: PodGC keeps the %d newest terminated pods and deletes the %d oldest", threshold, old)
	})

	It("marks an unscheduled terminating pod Failed and deletes it", Label("TM-14"), suite.Timeout(suite.PodStartBound, podGCBound), func(ctx SpecContext) {
		ns := env.Namespace(ctx)
		// Nothing can take this pod; the finalizer keeps it in the API once deleted, so
		// PodGC's verdict can be read.
		pod := env.Hold(ns, succeeding("unschedulable"))
		pod.Spec.NodeSelector = map[string]string{"podlifecycle.io/no-such-node": "true"}
		tl := env.Run(ctx, ns, pod)
		Eventually(tl.Pod).WithContext(ctx).WithTimeout(suite.PodStartBound).Should(HaveCondition(corev1.PodScheduled, corev1.ConditionFalse, "Unschedulable"))
		Expect(env.Client.CoreV1().Pods(ns).Delete(ctx, pod.Name, metav1.DeleteOptions{})).To(Succeed())
		Eventually(tl.Pod).WithContext(ctx).WithTimeout(podGCBound).Should(HavePhase(corev1.PodFailed),
			"TM-14: PodGC marks an unscheduled terminating pod Failed before deleting it")
		Expect(tl.Pod().Spec.NodeName).To(BeEmpty())
		Expect(tl.Pod().DeletionTimestamp).NotTo(BeNil())
	})
})

// succeeding is a pod whose one container exits 0 at once.
func succeeding(name string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.PodSpec{
			RestartPolicy: corev1.RestartPolicyNever,
			Containers:    []corev1.Container{{Name: "main", Image: "busybox:1.28", Command: []string{"true"}}},
		},
	}
}

func names(prefix string, n int) []string {
	var out []string
	for i := range n {
		out = append(out, fmt.Sprintf("%s-%d", prefix, i))
	}
	return out
}

// terminatedPods lists the names of the pods in ns ("": every namespace) that are in a
// terminal phase, as PodGC counts them.
func terminatedPods(ctx context.Context, ns string) ([]string, error) {
	pods, err := env.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	var out []string
	for _, p := range pods.Items {
		if p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			out = append(out, p.Name)
		}
	}
	slices.Sort(out)
	return out, nil
}

func newestCreation(ctx context.Context, ns string) time.Time {
	GinkgoHelper()
	pods, err := env.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	Expect(err).NotTo(HaveOccurred())
	var newest time.Time
	for _, p := range pods.Items {
		if p.CreationTimestamp.After(newest) {
			newest = p.CreationTimestamp.Time
		}
	}
	return newest
}

// terminatedPodGCThreshold reads --terminated-pod-gc-threshold from the controller
// manager's static pod. The suite's kind config sets it, so its absence means the
// cluster is not the one this suite asked for.
func terminatedPodGCThreshold(ctx context.Context) int {
	GinkgoHelper()
	pods, err := env.Client.CoreV1().Pods("kube-system").List(ctx, metav1.ListOptions{LabelSelector: "component=kube-controller-manager"})
	Expect(err).NotTo(HaveOccurred())
	for _, p := range pods.Items {
		for _, arg := range p.Spec.Containers[0].Command {
			if v, ok := strings.CutPrefix(arg, "--terminated-pod-gc-threshold="); ok {
				n, err := strconv.Atoi(v)
				Expect(err).NotTo(HaveOccurred(), "parsing %s", arg)
				return n
			}
		}
	}
	if env.Cluster.Provider == "kind" {
		Fail("misconfigured cluster: kind-configs/backoff-profiles.yaml sets --terminated-pod-gc-threshold=5, but the kube-controller-manager pod has no such flag")
	}
	Skip("needs a low --terminated-pod-gc-threshold on kube-controller-manager (its default, 12500, is not reachable in a test); none is set")
	return 0
}
