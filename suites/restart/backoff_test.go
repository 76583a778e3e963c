package restart

import (
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/podlifecycle/conformance/framework/backoff"
	"github.com/podlifecycle/conformance/framework/crashloop"
	"github.com/podlifecycle/conformance/framework/drift"
	"github.com/podlifecycle/conformance/framework/facts"
	. "github.com/podlifecycle/conformance/framework/match"
	"github.com/podlifecycle/conformance/framework/observe"
	"github.com/podlifecycle/conformance/framework/suite"
)

var _ = Describe("Crash-loop backoff", suite.LongRunning, func() {
	// RS-6 is the default backoff, so it is checked where the kubelet's settings are the
	// defaults (defaultBackoffNode): the delays expected are the statement's own, not
	// whatever the node's gates document (a FEATURE_GATES override that turns
	// ReduceDefaultCrashLoopBackOffDecay on everywhere skips it, with the reason).
	It("restarts at once after the first crash, then after 10 s, 20 s, 40 s (the kubelet's documented delays)", Label("RS-6", "RS-8"), suite.Timeout(crashLoopBound(defaultDelays(4), 0)), func(ctx SpecContext) {
		node := defaultBackoffNode()
		tl := env.Run(ctx, env.Namespace(ctx), crashloop.CrashLooper(node))
		expected := defaultDelays(4)
		loop := crashloop.MeasureLoop(ctx, env, tl, len(expected), backoff.Budget(expected))
		// The pages' two readings of the first delay, told apart by the first restart:
		// at once (0) or after 10 s, each within the tolerance model (the kubelet's
		// detection of the first exit measured: backoff.BoundsDetected).
		suite.Answer(drift.Question[time.Duration]{
			Topic:    "delay of the first restart",
			Claims:   map[string]time.Duration{"at-once": 0, "after-ten-seconds": 10 * time.Second},
			Measured: loop.Delays[0],
			Same: func(claimed, measured time.Duration) bool {
				return loop.Within(0, claimed)
			},
			Evidence: fmt.Sprintf("delays on %s: %v, the first exit reported by the kubelet %s after it; the kubelet's CreateContainer calls after %v", crashloop.NodeAndSettings(node), loop.Delays, loop.Detected[0], loop.Called),
		})
		crashloop.CheckDelays(tl, "RS-6", crashloop.NodeAndSettings(node), expected, loop)
	})

	It("keeps the delay to its pod: the same pod made again on the same node restarts at once, then after 10 s", Label("RS-6"), suite.Timeout(crashLoopBound(longestDelays.Expected(3), 0), podStartBound, crashLoopBound(longestDelays.Expected(2), 0)), func(ctx SpecContext) {
		node := defaultBackoffNode()
		ns := env.Namespace(ctx)
		looper := crashloop.CrashLooper(node)
		tl := env.Run(ctx, ns, looper)
		// After three restarts (at once, 10 s, 20 s by default) the kubelet holds the
		// next, doubled backoff (40 s) for crasher in this pod.
		bound := podStartBound + backoff.Budget(defaultDelays(3))
		Eventually(tl.Pod).WithContext(ctx).WithTimeout(bound).Should(HaveContainerRestarts("crasher", BeNumerically(">=", 3)))
		before := tl.Pod()

		Expect(env.Client.CoreV1().Pods(ns).Delete(ctx, looper.Name, metav1.DeleteOptions{})).To(Succeed())
		Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound).Should(BeNil(), "the pod was not deleted")
		again := looper.DeepCopy()
		again.Namespace = ns
		_, err := env.Client.CoreV1().Pods(ns).Create(ctx, again, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())

		// The backoff is keyed by pod (name, namespace, UID) and container: the new pod's
		// crasher starts from the first crash, not from 40 s.
		crashloop.CheckLoop(ctx, env, tl, "RS-6", crashloop.NodeAndSettings(node)+", the same pod made again", defaultDelays(2), 0)
		after := tl.Pod()
		Expect(after.Spec.NodeName).To(Equal(before.Spec.NodeName), "the pod made again must run on the same node")
		Expect(after.UID).NotTo(Equal(before.UID))
	})

	// "Restarts of the same container": the delay is each container's own. Two
	// containers of one pod crash together; each restarts at once after its first
	// crash, then after 10 s, 20 s. A kubelet that kept one delay for the pod would hold
	// the second container's first restart for the 10 s the first one's crash set.
	It("keeps a delay per container: two containers of one pod crashing together each restart at once, then after 10 s, 20 s", Label("RS-6"), suite.Timeout(crashLoopBound(defaultDelays(3), 0), firstRestartBound), func(ctx SpecContext) {
		node := defaultBackoffNode()
		looper := crashloop.CrashLooper(node)
		second := crashloop.Crasher("crasher-2", crashloop.CrashAtOnce)
		second.VolumeMounts = looper.Spec.Containers[0].VolumeMounts // the markers' volume
		looper.Spec.Containers = append(looper.Spec.Containers, second)
		ns := env.Namespace(ctx)
		tl := env.Run(ctx, ns, looper)
		expected := defaultDelays(3)
		first := crashloop.MeasureLoop(ctx, env, tl, len(expected), backoff.Budget(expected))
		// crasher-2 restarts within a start of crasher: the same backoffs, run out at
		// the same syncs or the next.
		Eventually(tl.Pod).WithContext(ctx).WithTimeout(firstRestartBound).Should(HaveContainerRestarts("crasher-2", BeNumerically(">=", len(expected))))
		other := crashloop.MeasureMarkers(ctx, env, tl, "crasher-2", len(expected))
		crashloop.CheckDelays(tl, "RS-6", crashloop.NodeAndSettings(node)+", crasher of two", expected, first)
		crashloop.CheckDelays(tl, "RS-6", crashloop.NodeAndSettings(node)+", crasher-2 of two", expected, other)
	})
})

// The docs give the delays as exact doublings; a pod left alone sees them later, by
// the pod worker's requeue jitter (up to half the backoff: backoff.RequeueJitter). The
// specs above pace their loops and measure the backoff itself; this one leaves the pod
// alone and records the jitter as drift, decided over a loop long enough that a
// stock kubelet shows it in all but about 0.1 % of runs (0, 10, 20, 40, 80 s).
var _ = Describe("Crash-loop backoff, pod left alone", suite.LongRunning, func() {
	expected := defaultDelays(5)
	It("restarts after 10 s, 20 s, 40 s, 80 s, the pod worker's requeue jitter on top", Label("RS-6"), suite.Longest, suite.Timeout(podStartBound+backoff.UnpacedBudget(expected)), func(ctx SpecContext) {
		node := defaultBackoffNode()
		tl := env.Run(ctx, env.Namespace(ctx), crashloop.CrashLooper(node))
		measured := crashloop.MeasureLoopLeftAlone(ctx, env, tl, len(expected), backoff.UnpacedBudget(expected))
		crashloop.CheckRequeueJitter(tl, "RS-6", crashloop.NodeAndSettings(node)+", pod left alone", expected, measured)
	})
})

// RS-6's 300 s cap: the 7th delay, after 0, 10, 20, 40, 80, 160 s, is 300 s where the
// doubling would give 320 s and no cap more; a cap of 160 s gives 160 s. The loop is
// paced (crashloop.MeasureLoop), so each delay is the kubelet's backoff within the
// tolerance model's seconds, not the pod worker's requeue jitter of up to half of it:
// 300 and 320 s are told apart. About 11 minutes of one loop, beside RS-7 (Slow).
var _ = Describe("Crash-loop backoff cap", Label("Slow"), func() {
	capped := defaultDelays(7)
	It("caps the delay at 300 s", Label("RS-6"), suite.Timeout(crashLoopBound(capped, 0)), func(ctx SpecContext) {
		node := defaultBackoffNode()
		tl := env.Run(ctx, env.Namespace(ctx), crashloop.CrashLooper(node))
		crashloop.CheckLoop(ctx, env, tl, "RS-6", crashloop.NodeAndSettings(node)+", up to the cap", capped, 0)
	})
})

var _ = Describe("Crash-loop backoff reset", func() {
	// The kubelet forgets a container's backoff when its last restart is more than
	// 600 s before the next exit (kubelet.go crashLoopBackOff.HasExpiredFunc). The
	// crasher's 4th run lasts 610 s; every other run exits at once.
	const longRun = 610 * time.Second
	// Without the reset the 4th delay would be 40 s, far above its 4 s bound.
	expected := []time.Duration{0, 10 * time.Second, 20 * time.Second, 0, 10 * time.Second}
	It("treats a crash after 10 minutes of trouble-free running as the first one", Label("RS-7", "Slow"), suite.Timeout(crashLoopBound(expected, longRun)), func(ctx SpecContext) {
		node := env.NodeFor("defaults", map[string]bool{"ReduceDefaultCrashLoopBackOffDecay": false})
		ns := env.Namespace(ctx)
		pod := crashloop.CrashLooperRunning(node,
			"n=$(cat "+observe.MarkerDir+"/runs 2>/dev/null || echo 0); n=$((n+1)); echo $n > "+observe.MarkerDir+"/runs; "+
				"mark start; if [ $n -eq 4 ]; then sleep "+fmt.Sprint(int(longRun.Seconds()))+"; fi; mark exit; exit 1")
		tl := env.Run(ctx, ns, pod)
		crashloop.CheckLoop(ctx, env, tl, "RS-7", crashloop.NodeAndSettings(node)+", around a 610 s run", expected, longRun)
	})

	// The other side of the 10 minutes: a 4th run of 540 s, a minute short of them (and
	// of the 600 s the kubelet's expiry counts from the restart before it), resets
	// nothing, so the delay after it is the 4th doubling's 40 s. A kubelet that resets
	// after any trouble-free run shorter than 9 minutes (60 s, 300 s) gives 0 here and
	// fails. It runs beside the spec above (Slow, both about 11 minutes).
	const shortOfTen = 540 * time.Second
	notReset := []time.Duration{0, 10 * time.Second, 20 * time.Second, 40 * time.Second}
	It("keeps the backoff after a trouble-free run of 9 minutes, short of the 10", Label("RS-7", "Slow"), suite.Timeout(crashLoopBound(notReset, shortOfTen)), func(ctx SpecContext) {
		node := env.NodeFor("defaults", map[string]bool{"ReduceDefaultCrashLoopBackOffDecay": false})
		ns := env.Namespace(ctx)
		pod := crashloop.CrashLooperRunning(node,
			"n=$(cat "+observe.MarkerDir+"/runs 2>/dev/null || echo 0); n=$((n+1)); echo $n > "+observe.MarkerDir+"/runs; "+
				"mark start; if [ $n -eq 4 ]; then sleep "+fmt.Sprint(int(shortOfTen.Seconds()))+"; fi; mark exit; exit 1")
		tl := env.Run(ctx, ns, pod)
		crashloop.CheckLoop(ctx, env, tl, "RS-7", crashloop.NodeAndSettings(node)+", around a 540 s run", notReset, shortOfTen)
	})
})

// defaultDelays are RS-6's first n delays: at once, then 10 s doubling to 300 s.
func defaultDelays(n int) []time.Duration {
	return backoff.Expected(10*time.Second, 300*time.Second, n)
}

// defaultBackoffNode is a node whose kubelet runs crash-loop backoff at its defaults:
// ReduceDefaultCrashLoopBackOffDecay off and no maxContainerRestartPeriod of its own
// (/configz shows none, or the 300 s default). Elsewhere RS-6's delays are not the
// ones the kubelet should give, so the spec is skipped with the reason.
func defaultBackoffNode() facts.Node {
	GinkgoHelper()
	node := env.NodeFor("defaults", map[string]bool{"ReduceDefaultCrashLoopBackOffDecay": false})
	if s := backoff.SettingsOf(node); s.MaxPeriod != 0 && s.MaxPeriod != backoff.DefaultMaxPeriod {
		Skip(fmt.Sprintf("needs a node whose kubelet keeps the default backoff; %s has maxContainerRestartPeriod %s", node.Name, s.MaxPeriod))
	}
	return node
}
