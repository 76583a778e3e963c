// Package crashloop drives crash loops on a cluster: a pod whose container exits at
// once, run until the kubelet has restarted it enough times, its delays measured from
// the container's own markers and checked against framework/backoff's model.
package crashloop

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gmeasure"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"

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
	return CrashLooperRunning(node, CrashAtOnce)
}

// CrashAtOnce is the crasher's script of CrashLooper: marked started, it exits 1.
const CrashAtOnce = "mark start; mark exit; exit 1"

// CrashLooperRunning is CrashLooper with the crasher running script (with mark()
// defined) each time; the script must mark "start" first and "exit" last. Every run
// waits for the observer to be up: the kubelet starts a pod's containers one after
// another in one sync, and a crash during that sync would only be handled after it,
// adding the observer's start to the first delay.
func CrashLooperRunning(node facts.Node, script string) *corev1.Pod {
	crasher := Crasher("crasher", script)
	observer := corev1.Container{Name: "observer", Image: "busybox:1.28",
		Command: []string{"sh", "-c", "touch " + observe.MarkerDir + "/observer-up; exec sleep 3600"}}
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "crash-loop"},
		Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyAlways, Containers: []corev1.Container{crasher, observer},
			TerminationGracePeriodSeconds: new(int64)},
	}
	return observe.WithMarkers(suite.PinTo(p, node))
}

// Crasher is a container of a CrashLooper pod named name, running script (with mark()
// defined, marking as name) each time, once the observer is up; a second crasher of
// the pod gets its own markers (observer's marker file) and its own backoff.
func Crasher(name, script string) corev1.Container {
	return corev1.Container{Name: name, Image: "busybox:1.28",
		Command: []string{"sh", "-c", observe.MarkShell(name) +
			"until [ -f " + observe.MarkerDir + "/observer-up ]; do sleep 0.05; done; " + script}}
}

// Check runs a crash loop on node until n delays are measured and checks them
// against the documented delays for that node's kubelet settings (Settings.Documented:
// the expectation follows the gates and configuration in force, e.g. a
// FEATURE_GATES override) under the tolerance model, recording expected and measured
// values in the report (a gmeasure experiment and a table). statement is what the
// delays check (see CheckDelays).
func Check(ctx context.Context, env *suite.Env, statement string, node facts.Node, n int) {
	GinkgoHelper()
	ns := env.Namespace(ctx)
	tl := env.Run(ctx, ns, CrashLooper(node))
	CheckLoop(ctx, env, tl, statement, NodeAndSettings(node), backoff.SettingsOf(node).Expected(n), 0)
}

// NodeAndSettings names node and its kubelet's backoff settings for the report.
func NodeAndSettings(node facts.Node) string {
	return fmt.Sprintf("%s (%s)", node.Name, backoff.SettingsOf(node))
}

// CheckLoop waits until the CrashLooper pod that tl watches has restarted its crasher
// len(expected) times, checks each exit→start delay against the tolerance model and
// records expected and measured values in the report under "restart delays on
// <what>". It also checks RS-8 on tl's record. runs is how long the crasher's runs
// take together (0 when each exits at once). statement is what the delays check
// (see CheckDelays).
func CheckLoop(ctx context.Context, env *suite.Env, tl *observe.Timeline, statement, what string, expected []time.Duration, runs time.Duration) {
	GinkgoHelper()
	CheckDelays(tl, statement, what, expected, MeasureLoop(ctx, env, tl, len(expected), backoff.Budget(expected)+runs))
}

// MeasureLoop waits, for at most the pod's start and budget, until the CrashLooper pod
// that tl watches has restarted its crasher n times, and returns the first n
// exit→start delays, measured from the crasher's own markers, with the kubelet's
// detection of each exit (MeasureDelays). The loop is paced
// (Pace): what is measured is the kubelet's backoff, not the pod worker's requeue
// jitter. It checks nothing of the delays: a spec that must record what it measured
// before it asserts (a disagreement's answer, say) calls it and then CheckDelays.
func MeasureLoop(ctx context.Context, env *suite.Env, tl *observe.Timeline, n int, budget time.Duration) Loop {
	GinkgoHelper()
	updates := Pace(ctx, env, tl.Namespace, tl.Name)
	measured := measureLoop(ctx, env, tl, n, budget)
	AddReportEntry("crash loop paced", fmt.Sprintf("the spec updated annotation %s of the pod every %s while the loop ran (%d updates), so that the kubelet synced it that often (backoff.Pace)", PaceAnnotation, backoff.Pace, updates()))
	return measured
}

// MeasureLoopLeftAlone is MeasureLoop without the pacing: the delays a pod left alone
// sees, the pod worker's requeue jitter included (backoff.RequeueJitter). budget is
// then backoff.UnpacedBudget's.
func MeasureLoopLeftAlone(ctx context.Context, env *suite.Env, tl *observe.Timeline, n int, budget time.Duration) Loop {
	GinkgoHelper()
	return measureLoop(ctx, env, tl, n, budget)
}

func measureLoop(ctx context.Context, env *suite.Env, tl *observe.Timeline, n int, budget time.Duration) Loop {
	GinkgoHelper()
	Eventually(tl.Pod).WithContext(ctx).WithTimeout(suite.PodStartBound + budget).Should(
		HaveContainerRestarts("crasher", BeNumerically(">=", n)))
	return MeasureMarkers(ctx, env, tl, "crasher", n)
}

// MeasureMarkers reads the markers of the CrashLooper pod that tl watches and returns
// the first n delays of container with their detections (MeasureDelays); it fails when the
// markers hold fewer.
func MeasureMarkers(ctx context.Context, env *suite.Env, tl *observe.Timeline, container string, n int) Loop {
	GinkgoHelper()
	ms, err := env.MarkerFile(ctx, tl.Namespace, tl.Name, "observer")
	Expect(err).NotTo(HaveOccurred())
	p := tl.Pod()
	Expect(p).NotTo(BeNil(), "the pod is gone:\n%s", tl)
	loop := MeasureDelays(ms, tl.Entries(), p.UID, container, n)
	Expect(len(loop.Delays)).To(BeNumerically(">=", n), "markers: %v", ms)
	starts, err := env.RuntimeStarts(ctx, p, p.CreationTimestamp.Time, time.Now())
	if errors.Is(err, suite.ErrNoRuntimeLog) {
		return loop
	}
	Expect(err).NotTo(HaveOccurred(), "reading the runtime's journal")
	loop.container, loop.starts = container, starts
	for k, r := range backoff.Restarts(ms, container)[:len(loop.Delays)] {
		var called, share time.Duration
		if s, ok := observe.RuntimeStartOf(starts, container, k+1); ok {
			if sh, ok := s.RuntimeShare(r.Start); ok {
				called, share = s.CreateCalled.Sub(r.Exit), sh
			}
		}
		loop.Called, loop.Runtime, loop.exits = append(loop.Called, called), append(loop.Runtime, share), append(loop.exits, r.Exit)
	}
	return loop
}

// PaceAnnotation is the annotation Pace updates.
const PaceAnnotation = "podlifecycle.io/pace"

// Pace updates an annotation of pod ns/name every backoff.Pace until the spec ends: an
// annotation change is a pod update, which the kubelet syncs at once, so a restart
// whose backoff has run out comes within a pace of it instead of at the pod worker's
// jittered requeue (backoff's tolerance model). It returns how many updates it has
// made so far. A failed update (the pod being deleted, a conflict) is left for the
// next one.
func Pace(ctx context.Context, env *suite.Env, ns, name string) (updates func() int64) {
	paceCtx, stop := context.WithCancel(ctx)
	DeferCleanup(stop)
	var n atomic.Int64
	go wait.UntilWithContext(paceCtx, func(ctx context.Context) {
		patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:%q}}}`, PaceAnnotation, fmt.Sprint(n.Load()+1))
		if _, err := env.Client.CoreV1().Pods(ns).Patch(ctx, name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err == nil {
			n.Add(1)
		}
	}, backoff.Pace)
	return n.Load
}

// CheckDelays checks measured delays against the expected ones under the tolerance
// model, one by one and over the whole loop, records both in the report under
// "restart delays on <what>", and checks RS-8 on tl's record. statement is the
// statement the delays check ("RS-6", or "RS-12/RS-14" for a claim of both): the
// failures name it, so that the report fails that statement and not every other one
// the spec carries (RS-8's check, which comes after, was not decided).
func CheckDelays(tl *observe.Timeline, statement, what string, expected []time.Duration, loop Loop) {
	GinkgoHelper()
	measured := loop.Delays
	experiment := gmeasure.NewExperiment("restart delays on " + what)
	table := backoff.TableDetected(expected, measured, loop.Detected).WithRuntime(loop.Called, loop.Runtime, loop.WaitedFor(expected))
	for i, want := range expected {
		experiment.RecordDuration(fmt.Sprintf("delay %d (expected %s)", i+1, want), measured[i])
	}
	AddReportEntry(experiment.Name, experiment)
	AddReportEntry("restart delays (ms) on "+what, table)
	// Each delay ends at the kubelet's CreateContainer call where the runtime's journal
	// has it (backoff.BoundsCalled), else at the container's first marker.
	for i, want := range expected {
		if own := loop.Own(i, want); own > 0 {
			lo, hi := backoff.BoundsCalled(want, loop.Detected[i])
			Expect(own).To(BeNumerically(">=", lo), "%s: delay %d too short (the kubelet's CreateContainer call): %v\n%s", statement, i+1, table, tl)
			Expect(own).To(BeNumerically("<=", hi), "%s: delay %d too long (the kubelet's CreateContainer call): %v\n%s", statement, i+1, table, tl)
			continue
		}
		lo, hi := backoff.BoundsDetected(want, loop.Detected[i])
		Expect(measured[i]).To(BeNumerically(">=", lo), "%s: delay %d too short: %v\n%s", statement, i+1, table, tl)
		Expect(measured[i]).To(BeNumerically("<=", hi), "%s: delay %d too long: %v\n%s", statement, i+1, table, tl)
	}
	// The whole loop tells the documented delays from delays a fraction longer, which a
	// single delay cannot (backoff.Loop), over the kubelet's calls when all are known.
	sum, ok := backoff.Loop(expected, measured)
	if own, all := loop.Owns(expected); all {
		sum, ok = backoff.LoopCalled(expected, own)
	}
	if ok {
		AddReportEntry("restart delays, whole loop, on "+what, sum.String())
		Expect(sum.Within()).To(BeTrue(), "%s: the loop's delays are longer than the documented ones: %v\n%v\n%s", statement, sum, table, tl)
	}
	checkCrashLoopBackOffSeen(tl, expected)
}

// checkCrashLoopBackOffSeen checks RS-8 on the watch record of the pod tl last saw
// (an earlier pod of the same name, left alone, is not this loop): every backoff
// long enough for the kubelet to write it (WaitingShownAfter) was seen
// Waiting(CrashLoopBackOff), and in none of them was the container seen Terminated
// for longer than the kubelet needs to get there (TerminatedAtMost); longer is
// drift (see DOC-DRIFT). Shorter backoffs can end in the restart before a sync
// writes Waiting, so they are shown only; a spec labelled RS-8 has longer ones.
func checkCrashLoopBackOffSeen(tl *observe.Timeline, expected []time.Duration) {
	GinkgoHelper()
	p := tl.Pod()
	Expect(p).NotTo(BeNil(), "RS-8: the pod is gone:\n%s", tl)
	all := BackoffStatuses(tl.Entries(), p.UID, "crasher", expected)
	AddReportEntry("status during each backoff (RS-8)", BackoffTable(all))
	var checked []BackoffStatus
	for _, b := range all {
		if b.Delay >= WaitingShownAfter {
			checked = append(checked, b)
		}
	}
	if len(checked) == 0 {
		return // a loop of short backoffs only (RS-13's 2 s): RS-8 is the other loops'
	}
	var longest time.Duration
	for _, b := range checked {
		longest = max(longest, b.Terminated)
	}
	suite.Drift(drift.Observation[time.Duration]{
		Statement:  "RS-8",
		Topic:      "status during backoff",
		Docs:       "while the delay applies the container is Waiting with reason CrashLoopBackOff",
		Documented: 0,
		Measured:   longest,
		Same:       func(_, longest time.Duration) bool { return longest <= TerminatedAtMost },
		Evidence: fmt.Sprintf("the longest a backoff of %s or more showed the container Terminated: %d ms (the kubelet's relists and syncs explain up to %d ms); each backoff:\n%s",
			WaitingShownAfter, longest.Milliseconds(), TerminatedAtMost.Milliseconds(), BackoffTable(all)),
		Reproducer: suite.Reproducer(p, "any node"),
	})
	for _, b := range checked {
		Expect(b.Waiting).To(BeNumerically(">", 0), "RS-8: the container was never seen Waiting(CrashLoopBackOff) during the backoff before %v:\n%s\n%s", b, BackoffTable(all), tl)
	}
}

// CheckRequeueJitter checks the delays of a loop left alone (MeasureLoopLeftAlone)
// against the documented ones, each within its early bound (exact) and the jitter's
// late one, records both in the report, and records for statement id, as drift, the
// pod worker's requeue jitter when the whole loop shows it (backoff.RequeueJitter,
// decided over the loop, not by one draw).
func CheckRequeueJitter(tl *observe.Timeline, id, what string, expected []time.Duration, loop Loop) {
	GinkgoHelper()
	measured := loop.Delays
	table := backoff.TableDetected(expected, measured, loop.Detected).WithRuntime(loop.Called, loop.Runtime, loop.WaitedFor(expected))
	// Each row's late bound gains the requeue's jitter and the sync tick.
	late := func(b time.Duration) time.Duration {
		return time.Duration(float64(b)*backoff.RequeueJitterFactor) + backoff.SyncTick
	}
	for i := range table {
		table[i].MaxMs += late(expected[i]).Milliseconds()
	}
	AddReportEntry("restart delays (ms), pod left alone, on "+what, table)
	j, ok := backoff.RequeueJitter(expected, measured)
	if own, all := loop.Owns(expected); all {
		j, ok = backoff.RequeueJitterCalled(expected, own)
	}
	Expect(ok).To(BeTrue(), "the loop needs a first restart at once and a backoff after it: %v", expected)
	AddReportEntry("restart delays, whole loop, pod left alone, on "+what, j.String())
	suite.Drift(drift.Observation[bool]{
		Statement:  id,
		Topic:      "restart delays carry the pod worker's requeue jitter",
		Docs:       "the delays are exact doublings (" + fmt.Sprint(expected) + ")",
		Documented: false,
		Measured:   j.Visible(),
		Evidence:   fmt.Sprintf("pod left alone: %v; %v", j, table),
		Reproducer: suite.Reproducer(tl.Pod(), what),
	})
	for i, want := range expected {
		d, lo, hi := measured[i], time.Duration(0), time.Duration(0)
		if own := loop.Own(i, want); own > 0 {
			d = own
			lo, hi = backoff.BoundsCalled(want, loop.Detected[i])
		} else {
			lo, hi = backoff.BoundsDetected(want, loop.Detected[i])
		}
		hi += late(want)
		Expect(d).To(BeNumerically(">=", lo), "delay %d too short: %v\n%s", i+1, table, tl)
		Expect(d).To(BeNumerically("<=", hi), "delay %d longer than the backoff and the requeue jitter allow: %v\n%s", i+1, table, tl)
	}
}
