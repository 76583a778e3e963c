package termination

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gmeasure"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/podlifecycle/conformance/framework/facts"
	. "github.com/podlifecycle/conformance/framework/match"
	"github.com/podlifecycle/conformance/framework/observe"
	"github.com/podlifecycle/conformance/framework/suite"
)

var _ = Describe("Grace period", func() {
	DescribeTable("a container that ignores TERM is killed when the grace period ends",
		func(ctx SpecContext, podGrace *int64, wantGrace int64) {
			ns := env.Namespace(ctx)
			pod := env.Hold(ns, stoppingPod("ignores-term", podGrace, onTerm("main", keepRunning)))
			tl := env.Run(ctx, ns, pod)
			f := running(ctx, ns, tl, "main")
			Expect(tl.Pod().Spec.TerminationGracePeriodSeconds).To(HaveValue(Equal(wantGrace)),
				"TM-1: terminationGracePeriodSeconds (30 s when the pod sets none)")

			grace := time.Duration(wantGrace) * time.Second
			_, log := deleteAndWait(ctx, ns, tl, f, nil, stopBound(grace))
			terminating, _ := tl.FirstPod(func(p *corev1.Pod) bool { return p.DeletionTimestamp != nil })
			Expect(terminating).NotTo(BeNil(), "TM-2: the watch never showed the pod with a deletionTimestamp:\n%s", tl)
			Expect(terminating.DeletionGracePeriodSeconds).To(HaveValue(Equal(wantGrace)), "TM-2: deletionGracePeriodSeconds is the pod's grace")

			newStopClock(ctx, lastStatus(tl), log).killSpan(timings("TERM → SIGKILL"), "TERM → SIGKILL (ms)", "main", grace)
			Expect(log).NotTo(HaveMarked(observe.ExitOf("main")), "the container ignores TERM; only SIGKILL stops it")
			Expect(tl.Pod()).To(HaveContainerState("main", "Terminated", ""))
			Expect(exitCode(tl.Pod(), "main")).To(BeEquivalentTo(137), "TM-5: killed by SIGKILL (128+9)")
		},
		Entry("the default of 30 s", Label("TM-1", "TM-2", "TM-5"), suite.LongRunning, suite.TimedWithin(runtimeSlack), suite.Timeout(runningBound, stopBound(30*time.Second), logEndBound), nil, int64(30)),
		Entry("terminationGracePeriodSeconds: 5", Label("TM-1", "TM-2", "TM-5"), suite.TimedWithin(runtimeSlack), suite.Timeout(runningBound, stopBound(5*time.Second), logEndBound), seconds(5), int64(5)),
	)

	// The long-preStop pod's grace period, outside its spec so that the timeout can use it.
	const preStopGrace = 4 * time.Second
	It("runs preStop first, sends TERM after it, and gives a preStop that outlives the grace period 2 s more",
		Label("TM-3", "TM-4", "CS-4"), suite.TimedWithin(runtimeSlack), suite.Timeout(runningBound, stopBound(preStopGrace), logEndBound), func(ctx SpecContext) {
			// TERM and SIGKILL are bounded below from the spec's own clock (the deletion
			// request) and above from the hook's marker, written on the node: one clock.
			env.Require(facts.OneClock())
			const grace = preStopGrace
			ns := env.Namespace(ctx)
			main := onTerm("main", keepRunning)
			// A preStop hook that never finishes on its own: the kubelet gives up on it when
			// the grace period ends.
			main.Lifecycle = &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: []string{"sh", "-c",
				observe.MarkShell("main") + "mark prestop-begin; while :; do sleep 0.2; done"}}}}
			pod := env.Hold(ns, stoppingPod("long-prestop", seconds(int64(grace/time.Second)), main))
			tl := env.Run(ctx, ns, pod)
			f := running(ctx, ns, tl, "main")

			deleted, log := deleteAndWait(ctx, ns, tl, f, nil, stopBound(grace))
			preStopBegin, term, killed := observe.MarkOf("main", "prestop-begin"), observe.SignalTo("main", "TERM"), observe.LastHeartbeatOf("main")
			// deleteAndWait saw the pod terminal, its container Terminated: a hook that never
			// began broke CS-4.
			_, began := log.When(preStopBegin)
			Expect(began).To(BeTrue(), "CS-4: the container is Terminated and its preStop hook never ran:\n%s", log)
			Expect(log).To(MarkBefore(preStopBegin, term), "TM-3: preStop runs before TERM reaches PID 1")
			// The grace runs from the kubelet's exec of the hook: checked from both sides of
			// that moment (see sinceDeletion).
			exp := timings("preStop extension")
			sinceDeletion(exp, log, deleted, "deletion → TERM (ms): at least the grace", term, grace)
			span(exp, log, "preStop begin → TERM (ms): at most the grace", preStopBegin, term, 0, grace+runtimeSlack)
			clock := newStopClock(ctx, lastStatus(tl), log)
			clock.killSpan(exp, "TERM → SIGKILL (ms): the 2 s extension", "main", minimumGrace)
			min, max := killWindow(grace + minimumGrace)
			sinceDeletion(exp, log, deleted, "deletion → SIGKILL (ms): at least grace + 2 s", killed, min)
			// At most grace + 2 s in all: where the runtime's journal timed the extension
			// (killSpan: the kubelet passed 2 s, the runtime's timer kept to it), the markers'
			// total adds only the runtime's kill call, and is recorded; elsewhere it is
			// checked on the markers.
			if clock.fromRuntime {
				if d, ok := log.Between(preStopBegin, killed); ok {
					exp.RecordDuration("preStop begin → SIGKILL (ms): grace + 2 s and the runtime's kill call", d, gmeasurePrecision, gmeasure.Annotation("recorded, not asserted"))
				}
			} else {
				span(exp, log, "preStop begin → SIGKILL (ms): at most grace + 2 s", preStopBegin, killed, 0, max+runtimeSlack)
			}
			Expect(exitCode(tl.Pod(), "main")).To(BeEquivalentTo(137), "killed by SIGKILL once the extension ran out")
		})
})

var _ = Describe("Terminal phase", func() {
	// Both end states: the phase must follow the container's exit, Succeeded for 0 and
	// Failed otherwise, not be one terminal phase whatever the exit.
	DescribeTable("is written by the kubelet before the pod leaves the API, by the containers' end states", Label("TM-8", "PL-7"),
		func(ctx SpecContext, name, onTermScript string, want corev1.PodPhase) {
			ns := env.Namespace(ctx)
			pod := stoppingPod(name, seconds(10), onTerm("main", onTermScript))
			tl := env.Run(ctx, ns, pod)
			running(ctx, ns, tl, "main")
			Expect(env.Client.CoreV1().Pods(ns).Delete(ctx, pod.Name, metav1.DeleteOptions{})).To(Succeed())
			Eventually(tl.Deleted).WithContext(ctx).WithTimeout(stopBound(10 * time.Second)).Should(BeTrue())

			// The last status the watch delivered before the deletion.
			var last *corev1.Pod
			for _, e := range tl.Entries() {
				if e.Kind == "deleted" {
					break
				}
				if e.Kind == "pod" {
					last = e.Pod
				}
			}
			Expect(last).NotTo(BeNil(), "%s", tl)
			Expect(last).To(terminal(), "TM-8: the kubelet sets the terminal phase before it deletes the pod:\n%s", tl)
			Expect(last).To(HaveContainerState("main", "Terminated", ""), "PL-7: the containers stopped before the phase became terminal")
			Expect(last).To(HavePhase(want), "TM-8: the terminal phase follows the container's end state:\n%s", tl)
		},
		Entry("exit 0 on TERM: Succeeded", suite.Timeout(runningBound, stopBound(10*time.Second)), "leaves", exitNow, corev1.PodSucceeded),
		Entry("exit 1 on TERM: Failed", suite.Timeout(runningBound, stopBound(10*time.Second)), "leaves-failing", "mark "+observe.Exiting+"; exit 1", corev1.PodFailed),
	)
})
