package lifecycle

import (
	"fmt"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/types"
	corev1 "k8s.io/api/core/v1"

	. "github.com/podlifecycle/conformance/framework/match"
	"github.com/podlifecycle/conformance/framework/observe"
	"github.com/podlifecycle/conformance/framework/suite"
)

// fivePhases are the values the docs give status.phase.
var fivePhases = []corev1.PodPhase{corev1.PodPending, corev1.PodRunning, corev1.PodSucceeded, corev1.PodFailed, corev1.PodUnknown}

var _ = Describe("Pod phase values", func() {
	// The four pods run at once and are waited for in turn.
	It("are only the five documented ones, and the cluster produces Pending, Running, Succeeded and Failed",
		Label("PL-14", "PL-2"), suite.Timeout(4*podStartBound), func(ctx SpecContext) {
			ns := env.Namespace(ctx)
			pending := shellPod("pending", corev1.RestartPolicyAlways, "sleep 3600")
			// .invalid is reserved (RFC 2606): the pull fails on every machine, offline or not.
			pending.Spec.Containers[0].Image = "registry.invalid/podlifecycle/absent:1"
			built := []struct {
				pod   *corev1.Pod
				phase corev1.PodPhase
				also  types.GomegaMatcher // what shows the kubelet, not only the API server, set the phase
			}{
				// The API server writes Pending at creation; the kubelet's own Pending
				// carries the container's image pull failure.
				{pending, corev1.PodPending, Or(HaveContainerState("main", "Waiting", "ErrImagePull"), HaveContainerState("main", "Waiting", "ImagePullBackOff"))},
				{shellPod("running", corev1.RestartPolicyAlways, "sleep 3600"), corev1.PodRunning, HaveContainerState("main", "Running", "")},
				{shellPod("succeeded", corev1.RestartPolicyNever, "exit 0"), corev1.PodSucceeded, HaveContainerState("main", "Terminated", "Completed")},
				{shellPod("failed", corev1.RestartPolicyNever, "exit 1"), corev1.PodFailed, HaveContainerState("main", "Terminated", "Error")},
			}
			var tls []*observe.Timeline
			for _, b := range built {
				tls = append(tls, env.Run(ctx, ns, b.pod))
			}
			for i, b := range built {
				Eventually(tls[i].Pod).WithContext(ctx).WithTimeout(podStartBound).Should(And(HavePhase(b.phase), b.also),
					"PL-14: the cluster produces %s for pod %s", b.phase, b.pod.Name)
			}

			// A cluster that wrote any other value ("", a kubectl STATUS such as
			// Completed or CrashLoopBackOff) fails here, on the status that carried it.
			seen := map[corev1.PodPhase][]string{}
			for _, tl := range tls {
				for _, e := range tl.Entries() {
					if e.Pod == nil {
						continue
					}
					Expect(e.Pod.Status.Phase).To(BeElementOf(fivePhases), "PL-2: pod %s at %s:\n%s", tl.Name, e.Seen.Format("15:04:05.000"), tl)
					if !slices.Contains(seen[e.Pod.Status.Phase], tl.Name) {
						seen[e.Pod.Status.Phase] = append(seen[e.Pod.Status.Phase], tl.Name)
					}
				}
			}
			AddReportEntry("phases seen", phasesReport(seen))
		})
})

// phasesReport lists, for each of the five phases, the pods seen in it, and says why
// Unknown is not among them.
func phasesReport(seen map[corev1.PodPhase][]string) string {
	var b strings.Builder
	for _, p := range fivePhases {
		if len(seen[p]) > 0 {
			fmt.Fprintf(&b, "%s: %s\n", p, strings.Join(seen[p], ", "))
		}
	}
	if len(seen[corev1.PodUnknown]) == 0 {
		b.WriteString("Unknown: not produced. No pod built here can have it: the docs tie it to a node the control plane " +
			"cannot reach, and k8s.io/api v0.37.2 marks it deprecated, not set since 2015; a lost node's pods become Failed (PL-10).\n")
	}
	return b.String()
}
