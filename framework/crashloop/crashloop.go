// Package crashloop drives crash loops on a cluster: a pod whose container exits at
// once, run until the kubelet has restarted it enough times, its delays measured from
// the container's own markers and checked against framework/backoff's model.
package crashloop

import (
	"context"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gmeasure"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/podlifecycle/conformance/framework/backoff"
	"github.com/podlifecycle/conformance/framework/drift"
	"github.com/podlifecycle/conformance/framework/facts"
	. "github.com/podlifecycle/conformance/framework/match"
	"github.com/podlifecycle/conformance/framework/observe"
	"github.com/podlifecycle/conformance/framework/suite"
)

// CrashLooper is a pod whose "crasher" exits 1 right after it starts and whose
// "observer" keeps the marker file readable between the crasher's runs, pinned to
// node.
func CrashLooper(node facts.Node) *corev1.Pod {
	return CrashLooperRunning(node, "mark start; mark exit; exit 1")
}

// CrashLooperRunning is CrashLooper with the crasher running script (with mark()
// defined) each time; the script must mark "start" first and "exit" last. Every run
// waits for the observer to be up: the kubelet starts a pod's containers one after
// another in one sync, and a crash during that sync would only be handled after it,
// adding the observer's start to the first delay.
func CrashLooperRunning(node facts.Node, script string) *corev1.Pod {
	crasher := corev1.Container{Name: "crasher", Image: "busybox:1.28",
		Command: []string{"sh", "-c", observe.MarkShell("crasher") +
			"until [ -f " + observe.MarkerDir + "/observer-up ]; do sleep 0.05; done; " + script}}
	observer := corev1.Container{Name: "observer", Image: "busybox:1.28",
		Command: []string{"sh", "-c", "touch " + observe.MarkerDir + "/observer-up; exec sleep 3600"}}
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "crash-loop"},
		Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyAlways, Containers: []corev1.Container{crasher, observer},
			TerminationGracePeriodSeconds: new(int64)},
	}
	return observe.WithMarkers(suite.PinTo(p, node))
}

// Check runs a crash loop on node until n delays are measured and checks them
// against the documented delays for that node's kubelet settings (Settings.Documented:
// the expectation follows the gates and configuration in force, e.g. a
// FEATURE_GATES override) under the tolerance model, recording expected and measured
// values in the report (a gmeasure experiment and a table).
func Check(ctx context.Context, env *suite.Env, node facts.Node, n int) {
	GinkgoHelper()
	ns := env.Namespace(ctx)
	tl := env.Run(ctx, ns, CrashLooper(node))
	CheckLoop(ctx, env, tl, NodeAndSettings(node), backoff.SettingsOf(node).Expected(n), 0)
}

// NodeAndSettings names node and its kubelet's backoff settings for the report.
func NodeAndSettings(node facts.Node) string {
	return fmt.Sprintf("%s (%s)", node.Name, backoff.SettingsOf(node))
}

// CheckLoop waits until the CrashLooper pod that tl watches has restarted its crasher
// len(expected) times, checks each exit→start delay against the tolerance model and
// records expected and measured values in the report under "restart delays on
// <what>". It also checks RS-8 on tl's record. runs is how long the crasher's runs
// take together (0 when each exits at once).
func CheckLoop(ctx context.Context, env *suite.Env, tl *observe.Timeline, what string, expected []time.Duration, runs time.Duration) {
	GinkgoHelper()
	measured := MeasureLoop(ctx, env, tl, len(expected), backoff.Budget(expected)+runs)
	CheckDelays(tl, what, expected, measured)
}

// MeasureLoop waits, for at most the pod's start and budget, until the CrashLooper pod
// that tl watches has restarted its crasher n times, and returns the first n
// exit→start delays, measured from the crasher's own markers. It checks nothing of
// the delays: a spec that must record what it measured before it asserts (a
// disagreement's answer, say) calls it and then CheckDelays.
func MeasureLoop(ctx context.Context, env *suite.Env, tl *observe.Timeline, n int, budget time.Duration) []time.Duration {
	GinkgoHelper()
	Eventually(tl.Pod).WithContext(ctx).WithTimeout(suite.PodStartBound + budget).Should(
		HaveContainerRestarts("crasher", BeNumerically(">=", n)))
	ms, err := env.MarkerFile(ctx, tl.Namespace, tl.Name, "observer")
	Expect(err).NotTo(HaveOccurred())
	measured := backoff.Delays(ms, "crasher")
	Expect(len(measured)).To(BeNumerically(">=", n), "markers: %v", ms)
	return measured[:n]
}

// CheckDelays checks measured delays against the expected ones under the tolerance
// model, one by one and over the whole loop, records both in the report under
// "restart delays on <what>", and checks RS-8 on tl's record.
func CheckDelays(tl *observe.Timeline, what string, expected, measured []time.Duration) {
	GinkgoHelper()
	experiment := gmeasure.NewExperiment("restart delays on " + what)
	table := backoff.Table(expected, measured)
	for i, want := range expected {
		experiment.RecordDuration(fmt.Sprintf("delay %d (expected %s)", i+1, want), measured[i])
	}
	AddReportEntry(experiment.Name, experiment)
	AddReportEntry("restart delays (ms) on "+what, table)
	// The jitter is drift of the delay statements the spec checks (RS-6, RS-12,
	// RS-13, RS-14), not of RS-8, which it checks on the same loop.
	for _, id := range suite.Statements() {
		if id == "RS-8" {
			continue
		}
		jitterDrift(id, expected, measured, table, tl, what)
	}
	for i, want := range expected {
		lo, hi := backoff.Bounds(want)
		Expect(measured[i]).To(BeNumerically(">=", lo), "delay %d too short: %v\n%s", i+1, table, tl)
		Expect(measured[i]).To(BeNumerically("<=", hi), "delay %d too long: %v\n%s", i+1, table, tl)
	}
	// The whole loop tells the documented delays from doubled ones, which a single
	// short delay cannot (backoff.Loop).
	if sum, ok := backoff.Loop(expected, measured); ok {
		AddReportEntry("restart delays, whole loop, on "+what, sum.String())
		Expect(sum.Within()).To(BeTrue(), "the loop's delays are nearer twice the documented ones than the documented ones: %v\n%v\n%s", sum, table, tl)
	}
	checkCrashLoopBackOffSeen(tl)
}

// checkCrashLoopBackOffSeen checks RS-8 on the watch record: the container was seen
// Waiting with reason CrashLoopBackOff during a backoff; it records for how long,
// against how long it was seen Terminated (see DOC-DRIFT).
func checkCrashLoopBackOffSeen(tl *observe.Timeline) {
	GinkgoHelper()
	var waiting, terminated time.Duration
	entries := tl.Entries()
	var prev *observe.Entry
	for i := range entries {
		e := &entries[i]
		if e.Pod == nil {
			continue
		}
		if prev != nil {
			for _, s := range prev.Pod.Status.ContainerStatuses {
				if s.Name != "crasher" || s.LastTerminationState.Terminated == nil {
					continue
				}
				switch {
				case s.State.Waiting != nil && s.State.Waiting.Reason == "CrashLoopBackOff":
					waiting += e.Seen.Sub(prev.Seen)
				case s.State.Terminated != nil:
					terminated += e.Seen.Sub(prev.Seen)
				}
			}
		}
		prev = e
	}
	// The kubelet can only report Waiting(CrashLoopBackOff) once it has seen the exit
	// (within one relist period, backoff.Detection) and synced the pod: the docs'
	// statement allows that much Terminated time per restart, not more.
	restarts := 0
	if p := tl.Pod(); p != nil {
		for _, s := range p.Status.ContainerStatuses {
			if s.Name == "crasher" {
				restarts = int(s.RestartCount)
			}
		}
	}
	allowed := time.Duration(restarts+1) * backoff.Detection
	suite.Drift(drift.Observation[time.Duration]{
		Statement:  "RS-8",
		Topic:      "status during backoff",
		Docs:       "while the delay applies the container is Waiting with reason CrashLoopBackOff",
		Documented: 0,
		Measured:   terminated,
		Same:       func(_, terminated time.Duration) bool { return terminated <= allowed },
		Evidence: fmt.Sprintf("during the backoffs the watch saw the container Waiting(CrashLoopBackOff) for %dms and Terminated for %dms in all (%d restarts; the kubelet's detection explains up to %dms)",
			waiting.Milliseconds(), terminated.Milliseconds(), restarts, allowed.Milliseconds()),
		Reproducer: suite.Reproducer(tl.Pod(), "any node"),
	})
	Expect(tl.Pods()).To(ContainElement(HaveContainerState("crasher", "Waiting", "CrashLoopBackOff")),
		"RS-8: the container was never seen Waiting(CrashLoopBackOff):\n%s", tl)
}

// jitterDrift records, for statement id, the delays the requeue jitter visibly
// lengthened (backoff.Jittered), if any.
func jitterDrift(id string, expected, measured []time.Duration, table backoff.DelayTable, tl *observe.Timeline, what string) {
	GinkgoHelper()
	suite.Drift(drift.Observation[[]time.Duration]{
		Statement:  id,
		Topic:      "restart delays carry the pod worker's requeue jitter",
		Docs:       "the delays are exact doublings (" + fmt.Sprint(expected) + ")",
		Documented: expected,
		Measured:   measured,
		// Drift where a delay is longer than its backoff plus the loop's own overhead
		// by more than the overhead's spread (backoff.Jittered): the requeue jitter
		// (up to +50% of the backoff) the docs do not mention.
		Same:       func(expected, measured []time.Duration) bool { return len(backoff.Jittered(expected, measured)) == 0 },
		Evidence:   fmt.Sprintf("delays %v longer than b + o₀ + %s: %v", backoff.Jittered(expected, measured), backoff.Detection, table),
		Reproducer: suite.Reproducer(tl.Pod(), what),
	})
}
