package gated

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/podlifecycle/conformance/framework/facts"
	. "github.com/podlifecycle/conformance/framework/match"
	"github.com/podlifecycle/conformance/framework/observe"
	"github.com/podlifecycle/conformance/framework/suite"
)

// stopSignalUSR1Image is busybox:1.28 with `STOPSIGNAL SIGUSR1` (images/build.sh).
const stopSignalUSR1Image = "podlifecycle/busybox-stopsignal-usr1:1"

// stopSignalPod is the docs' custom stop signal example, with busybox running the
// marking script in place of container-image:latest (which no registry here has):
//
//	spec:
//	  os:
//	    name: linux
//	  containers:
//	    - name: my-container
//	      image: container-image:latest
//	      lifecycle:
//	        stopSignal: SIGUSR1
func stopSignalPod(name string, signal corev1.Signal) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.PodSpec{
			OS:                            &corev1.PodOS{Name: corev1.Linux},
			TerminationGracePeriodSeconds: ptr.To[int64](10),
			Containers: []corev1.Container{{
				Name: "my-container", Image: "busybox:1.28",
				Command: []string{"sh", "-c", observe.StopperScript("my-container", map[string]string{
					"TERM": observe.ExitNow, "USR1": observe.ExitNow, "USR2": observe.ExitNow})},
				Lifecycle: &corev1.Lifecycle{StopSignal: ptr.To(signal)},
			}},
		},
	}
}

var stopSignalsOn = []facts.Requirement{
	facts.APIServerGate("ContainerStopSignals", true), facts.KubeletGate("ContainerStopSignals", true, ""),
}

var _ = Describe("Custom stop signal [ContainerStopSignals]", func() {
	// The table's body waits for the pod, its start marker and deleteAndRead, in every
	// entry.
	stopTimeout := suite.Timeout(suite.PodStartBound, startMarkBound, stopBound, logEndBound)
	DescribeTable("lifecycle.stopSignal is the signal the container gets", Label("TM-7"),
		func(ctx SpecContext, image string, signal corev1.Signal, notSent string) {
			env.Require(stopSignalsOn...)
			ns := env.Namespace(ctx)
			pod := env.Hold(ns, stopSignalPod("custom-stop-signal", signal))
			pod.Spec.Containers[0].Image = image
			pod.Spec.NodeSelector = map[string]string{corev1.LabelHostname: nodeWithKubeletGate("ContainerStopSignals")}
			tl := env.Run(ctx, ns, pod)
			Eventually(tl.Pod).WithContext(ctx).WithTimeout(suite.PodStartBound).Should(HavePhase(corev1.PodRunning))
			// Followed from the start: a deleted pod's logs go with its containers.
			f := env.FollowMarkers(ctx, ns, pod.Name, "my-container")
			Eventually(f.Log).WithContext(ctx).WithTimeout(startMarkBound).Should(HaveMarked(observe.StartOf("my-container")))
			Expect(tl.Pod().Spec.Containers[0].Lifecycle.StopSignal).To(HaveValue(Equal(signal)), "the API server keeps the field")

			log := deleteAndRead(ctx, ns, tl, f)
			Expect(log).To(HaveMarked(observe.SignalTo("my-container", string(signal))), "TM-7: the container gets lifecycle.stopSignal")
			Expect(log).NotTo(HaveMarked(observe.SignalTo("my-container", notSent)), "TM-7: … instead of %s", notSent)
		},
		Entry("the docs' example: SIGUSR1 instead of the default TERM", stopTimeout, "busybox:1.28", corev1.SIGUSR1, "TERM"),
		Entry("SIGUSR2 overrides the image's STOPSIGNAL SIGUSR1", stopTimeout, stopSignalUSR1Image, corev1.SIGUSR2, "USR1"),
	)

	DescribeTable("the API server validates lifecycle.stopSignal against spec.os.name", Label("TM-7"),
		func(ctx SpecContext, os *corev1.PodOS, signal corev1.Signal, rejection string) {
			env.Require(facts.APIServerGate("ContainerStopSignals", true))
			ns := env.Namespace(ctx)
			pod := stopSignalPod("validated", signal)
			pod.Spec.OS = os
			_, err := env.Client.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
			if rejection == "" {
				Expect(err).NotTo(HaveOccurred())
				return
			}
			Expect(err).To(MatchError(ContainSubstring(rejection)))
			AddReportEntry("API error", err.Error())
		},
		Entry("no spec.os.name: rejected", suite.Timeout(), nil, corev1.SIGUSR1, "spec.containers[0].lifecycle.stopSignal: Forbidden: may not be set for containers with empty `spec.os.name`"),
		Entry("windows, SIGUSR1: rejected", suite.Timeout(), &corev1.PodOS{Name: corev1.Windows}, corev1.SIGUSR1, `spec.containers[0].lifecycle.stopSignal: Unsupported value: "SIGUSR1": supported values: "SIGKILL", "SIGTERM"`),
		Entry("windows, SIGKILL: accepted", suite.Timeout(), &corev1.PodOS{Name: corev1.Windows}, corev1.SIGKILL, ""),
		Entry("windows, SIGTERM: accepted", suite.Timeout(), &corev1.PodOS{Name: corev1.Windows}, corev1.SIGTERM, ""),
	)
})

// nodeWithKubeletGate names a schedulable node whose kubelet has gate on.
func nodeWithKubeletGate(gate string) string {
	GinkgoHelper()
	for _, n := range env.Facts.Nodes {
		if n.KubeletGates[gate] && n.Schedulable(env.Facts.Nodes) {
			return n.Name
		}
	}
	Fail("no schedulable node has " + gate + " on in its kubelet")
	return ""
}

// startMarkBound: a running container's first marker reaches its followed log within
// seconds; 10 s bounds it on a loaded machine.
const startMarkBound = 10 * time.Second

// stopBound is the pod's 10 s grace, the kubelet's 2 s minimum and its sync (20 s);
// logEndBound: the kubelet's log stream of a container ends shortly after it exits.
const (
	stopBound   = 32 * time.Second
	logEndBound = 10 * time.Second
)

// deleteAndRead deletes a held pod, waits for a terminal phase and returns the
// containers' markers as f followed them. Its waits take stopBound, then logEndBound.
func deleteAndRead(ctx context.Context, ns string, tl *observe.Timeline, f *suite.MarkerFollower) observe.Log {
	GinkgoHelper()
	Expect(env.Client.CoreV1().Pods(ns).Delete(ctx, tl.Name, metav1.DeleteOptions{})).To(Succeed())
	Eventually(tl.Pod).WithContext(ctx).WithTimeout(stopBound).Should(Or(HavePhase(corev1.PodSucceeded), HavePhase(corev1.PodFailed)))
	log, err := f.Wait(logEndBound)
	AddReportEntry("markers", log.String(), ReportEntryVisibilityFailureOrVerbose)
	Expect(err).NotTo(HaveOccurred())
	return log
}
