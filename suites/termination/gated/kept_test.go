package gated

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"

	"github.com/podlifecycle/conformance/framework/observe"
	"github.com/podlifecycle/conformance/framework/suite"
)

// keptWindow: three PodGC loops (gcCheckPeriod, 20 s, in pkg/controller/podgc of
// k8s.io/kubernetes v1.37.2; wait.UntilWithContext runs gc once every period) plus
// podGCBound's 10 s for a loop that runs late, so at least three gcTerminated passes
// fall inside it.
const keptWindow = 3*podGCPeriod + 10*time.Second

// Slow (over a minute of waiting), and so never beside TM-14's spec, which makes eight
// terminated pods: the threshold counts the terminated pods of the whole cluster. In
// the Slow run the only others on this cluster are lifecycle/nodeloss's, which PodGC
// marks Failed and deletes at once (at most two at a time), so three of this spec's
// stay at or below the threshold of five; the premise is checked on every poll.
var _ = Describe("Terminated pods below terminated-pod-gc-threshold", Label("Slow"), func() {
	It("stay in the API, Succeeded or Failed, until a person or a controller deletes them", Label("TM-18"),
		suite.Timeout(2*podGCBound, terminalBound, keptWindow), func(ctx SpecContext) {
			threshold := terminatedPodGCThreshold(ctx)
			ns := env.Namespace(ctx)
			want := map[string]corev1.PodPhase{"succeeded-0": corev1.PodSucceeded, "succeeded-1": corev1.PodSucceeded, "failed-0": corev1.PodFailed}
			Expect(len(want)).To(BeNumerically("<", threshold), "the spec's pods alone must stay below the threshold")
			// PodGC deletes only when the cluster-wide count exceeds the threshold: the
			// other terminated pods must leave room for these three.
			count := func(names []string) int { return len(names) }
			Eventually(terminatedPods).WithContext(ctx).WithArguments("").WithTimeout(2*podGCBound).WithPolling(time.Second).
				Should(WithTransform(count, BeNumerically("<=", threshold-len(want))), "terminated pods of earlier specs should be gone (namespace deletion, or PodGC)")

			var tls []*observe.Timeline
			for name, phase := range want {
				pod := succeeding(name)
				if phase == corev1.PodFailed {
					pod.Spec.Containers[0].Command = []string{"false"} // exit 1, restartPolicy Never
				}
				tls = append(tls, env.Run(ctx, ns, pod))
			}
			Eventually(phasesOf).WithContext(ctx).WithArguments(tls).WithTimeout(terminalBound).Should(Equal(want))

			// A cluster that deletes terminated pods below the threshold (a PodGC that
			// ignores it, a TTL of its own) shows a pod missing here, its timeline ending
			// in "pod deleted from the API".
			Consistently(func(g Gomega) {
				all, err := terminatedPods(ctx, "")
				g.Expect(err).NotTo(HaveOccurred())
				g.Expect(len(all)).To(BeNumerically("<=", threshold),
					"premise broken, not TM-18: %d terminated pods in the cluster (%v), above the threshold PodGC may delete these", len(all), all)
				g.Expect(phasesOf(tls)).To(Equal(want), "TM-18: Succeeded and Failed pods stay in the API below the threshold of %d", threshold)
			}).WithContext(ctx).WithTimeout(keptWindow).WithPolling(time.Second).Should(Succeed())
			// A deletion after the last poll still shows in the watch.
			for _, tl := range tls {
				Expect(tl.Deleted()).To(BeFalse(), "TM-18: pod %s left the API:\n%s", tl.Name, tl)
			}
		})
})

// phasesOf maps each timeline's pod to the phase it has now; a pod not in the API is
// missing from the map.
func phasesOf(tls []*observe.Timeline) map[string]corev1.PodPhase {
	out := map[string]corev1.PodPhase{}
	for _, tl := range tls {
		if p := tl.Pod(); p != nil {
			out[tl.Name] = p.Status.Phase
		}
	}
	return out
}
