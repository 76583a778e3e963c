package termination

import (
	"context"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gmeasure"
	"github.com/onsi/gomega/types"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	. "github.com/podlifecycle/conformance/framework/match"
	"github.com/podlifecycle/conformance/framework/observe"
	"github.com/podlifecycle/conformance/framework/suite"
)

const podStartBound = suite.PodStartBound

// The tolerance model of every TERM→KILL measurement in this suite.
//
// The start of a span is a trap's marker: a trapped signal interrupts the script's
// `wait` at once, and the marker is written after the fork of adjtimex and awk
// (observe.MarkShell), so it is at most markLatency late. The end is the container's
// last heartbeat: it marks every heartbeat, so it died at most heartbeat+markLatency
// after its last marker. A measured span is therefore the real one minus up to
// heartbeat+2·markLatency. The real span is the grace the runtime was given (containerd
// starts its timer when it sends the stop signal), plus the timer's and the kill's
// scheduling delay, runtimeSlack.
const (
	heartbeat    = observe.HeartbeatPeriod
	markLatency  = 100 * time.Millisecond // adjtimex+awk fork on a loaded 2-core machine
	runtimeSlack = 250 * time.Millisecond
)

// The kubelet times a preStop hook's grace from its exec call, a moment no marker
// shows: it comes after the spec's deletion request, and before the hook's first
// marker, which waits for the runtime to set up the exec and for markLatency (0.9 s
// measured on a machine loaded beyond the parallel suites). A span the grace bounds
// is therefore checked from both sides of that moment: at least the grace from the
// deletion (sinceDeletion), at most the grace from the hook's first marker (span).

// sinceDeletion measures from deleted (the spec's clock, taken before the deletion
// request; the markers use the same clock, kind nodes run on this host's kernel) to
// e's marker in log, records it in exp and checks it is at least min.
func sinceDeletion(exp *gmeasure.Experiment, log observe.Log, deleted time.Time, name string, e observe.Event, min time.Duration) {
	GinkgoHelper()
	at, ok := log.When(e)
	Expect(ok).To(BeTrue(), "%s: %q was never marked:\n%s", name, e, log)
	d := at.Sub(deleted)
	suite.RecordAtLeast(exp, name, d, min)
	Expect(d).To(BeNumerically(">=", min), "%s: %v after the deletion request (%s), at least %v:\n%s",
		name, d, deleted.Format("15:04:05.000"), min, log)
}

// killWindow is the range a measured signal→death span may take when the runtime
// was given grace.
func killWindow(grace time.Duration) (min, max time.Duration) {
	return grace - heartbeat - 2*markLatency, grace + runtimeSlack
}

// The tolerance model of a TERM→KILL span where the runtime's journal can be read
// (killSpan): containerd logs, with its own nanosecond clock, the kubelet's
// StopContainer call with the grace it passed, the stop signal as it sends it, and the
// SIGKILL its timer sends once that grace has run out (observe.RuntimeStop). The
// kubelet's part is the grace it passes: checked exactly. The runtime's part is its
// timer: it starts once its call that sends the stop signal has returned (task.Kill:
// the shim's call and a runc kill, a fork and exec of a Go binary) and ends at the
// "Kill container" line, before the SIGKILL's own delivery (another runc kill). So from
// the "Stop container … with signal" line to the "Kill container" line is at least the
// grace, and at most the grace plus killCallSlack: that call's own duration and the
// timer's scheduling, which the loaded 2-core machine under nested virtualisation makes
// 68 ms to 1008 ms (2026-12-06, the 1008 ms with both clusters' 15 nodes up; the TERM
// marker comes before the timer starts, so the markers cannot bound the runtime's span
// from above any closer). That bound is the runtime's, a sanity check on it: what the
// kubelet decides, the grace, is the timeout it passes. What remains is that this
// SIGKILL ended the container. The runtime says so itself where the pod's last status
// has the container Terminated: exit code 137 (128 + SIGKILL), which nothing else here
// sends to a container that ignores TERM; its last heartbeat's distance to the SIGKILL
// is then recorded (a loaded machine stalled a heartbeat loop 1.4 s before one). Where
// no status shows its end (a pod removed from the API first), the markers must agree:
// its last heartbeat no earlier than heartbeatGap before the runtime's SIGKILL, and no
// later than killDelivery after it. The TERM → runtime's SIGKILL span is recorded beside.
//
// killCallSlack: 2 s, twice the longest kill call measured. killDelivery: from
// containerd's "Kill container" line to the signal's arrival, bounded for a loaded
// machine: 2 s. heartbeatGap: a heartbeat period and the forks of a marker stalled by
// the machine (0.9 s measured, above): 1.2 s.
const (
	killCallSlack = 2 * time.Second
	killDelivery  = 2 * time.Second
	heartbeatGap  = heartbeat + time.Second
)

// killSpan checks that container, which ignores TERM, got grace before SIGKILL and no
// more, recording the spans in exp under name: from the runtime's journal where it was
// read (the model above), from the markers alone (killWindow) where it was not.
func (c stopClock) killSpan(exp *gmeasure.Experiment, name, container string, grace time.Duration) {
	GinkgoHelper()
	log := c.log
	term, killed := observe.SignalTo(container, "TERM"), observe.LastHeartbeatOf(container)
	if !c.fromRuntime {
		min, max := killWindow(grace)
		span(exp, log, name, term, killed, min, max)
		return
	}
	stops := c.stops
	mine := observe.RuntimeStopsOf(stops, container)
	AddReportEntry(name+": the runtime's stops of "+container, fmt.Sprint(mine))
	killing := lastKilling(mine)
	Expect(killing).NotTo(BeNil(), "%s: the runtime's journal shows no SIGKILL of %s, which ignores TERM; its stops: %v\n%s", name, container, stops, log)
	Expect(killing.Timeout).To(Equal(grace), "%s: the grace the kubelet passed to StopContainer for %s: %s", name, container, killing)
	from := killing.Signaled
	if from.IsZero() { // the stop signal went with an earlier call; the timer runs from this one
		from = killing.Called
	}
	d := killing.Killed.Sub(from)
	suite.Record(exp, name, d, grace, grace+killCallSlack)
	Expect(d).To(And(BeNumerically(">=", grace), BeNumerically("<=", grace+killCallSlack)),
		"%s: the runtime's stop signal → SIGKILL %v, not the grace %v passed by the kubelet (%s)", name, d, grace, killing)
	termAt, ok := log.When(term)
	Expect(ok).To(BeTrue(), "%s: %s never marked TERM:\n%s", name, container, log)
	exp.RecordDuration(name+": TERM marked → the runtime's SIGKILL", killing.Killed.Sub(termAt), gmeasurePrecision, gmeasure.Annotation("recorded, not asserted"))
	last, ok := log.When(killed)
	Expect(ok).To(BeTrue(), "%s: no heartbeat of %s:\n%s", name, container, log)
	if end := terminatedIn(c.pod, container); end != nil {
		exp.RecordDuration(name+": the runtime's SIGKILL → last heartbeat", last.Sub(killing.Killed), gmeasurePrecision, gmeasure.Annotation("recorded, not asserted: the exit code says what ended it"))
		Expect(end.ExitCode).To(BeEquivalentTo(137), "%s: the runtime reports %s ended with exit code %d (%s), not by the SIGKILL at %s (137)",
			name, container, end.ExitCode, end.Reason, killing.Killed.UTC().Format("15:04:05.000"))
		return
	}
	lo, hi := -heartbeatGap, killDelivery
	suite.Record(exp, name+": the runtime's SIGKILL → last heartbeat", last.Sub(killing.Killed), lo, hi)
	Expect(last.Sub(killing.Killed)).To(And(BeNumerically(">=", lo), BeNumerically("<=", hi)),
		"%s: SIGKILL ended %s: its last heartbeat at %s, the runtime's SIGKILL at %s:\n%s", name, container,
		last.UTC().Format("15:04:05.000"), killing.Killed.UTC().Format("15:04:05.000"), log)
}

// stopClock tells when the kubelet stopped each container of a pod and when SIGKILL
// ended it, from the most precise source: where the runtime's journal can be read, the
// kubelet's StopContainer call and the runtime's SIGKILL (observe.RuntimeStop), else
// the containers' markers (the TERM trap's marker, the last heartbeat).
// One journal read serves every span of a spec.
type stopClock struct {
	fromRuntime bool                  // the journal was read; else the markers time every stop
	stops       []observe.RuntimeStop // what it holds about the pod's containers
	log         observe.Log
	pod         *corev1.Pod // the status the clock was made from: the containers' ends where it shows them
}

// newStopClock reads the journal of pod's node once (pod: a status that holds its
// containers' IDs).
func newStopClock(ctx context.Context, pod *corev1.Pod, log observe.Log) stopClock {
	GinkgoHelper()
	stops, err := env.RuntimeStops(ctx, pod, CurrentSpecReport().StartTime, time.Now())
	if err != nil {
		AddReportEntry("stops timed by the markers", fmt.Sprintf("the runtime's journal not read: %v", err))
		return stopClock{log: log, pod: pod}
	}
	return stopClock{fromRuntime: true, stops: stops, log: log, pod: pod}
}

// stopped is when the kubelet stopped container: its first StopContainer call, or its
// TERM marker.
func (c stopClock) stopped(container string) time.Time {
	GinkgoHelper()
	if c.fromRuntime {
		ss := observe.RuntimeStopsOf(c.stops, container)
		Expect(ss).NotTo(BeEmpty(), "the runtime's journal shows no StopContainer for %s: %s", container, c)
		return ss[0].Called
	}
	t, ok := c.log.When(observe.SignalTo(container, "TERM"))
	Expect(ok).To(BeTrue(), "%s never marked TERM:\n%s", container, c.log)
	return t
}

// killed is when SIGKILL ended container: the runtime's SIGKILL, or its last heartbeat.
func (c stopClock) killed(container string) time.Time {
	GinkgoHelper()
	if c.fromRuntime {
		k := lastKilling(observe.RuntimeStopsOf(c.stops, container))
		Expect(k).NotTo(BeNil(), "the runtime's journal shows no SIGKILL of %s: %s", container, c)
		return k.Killed
	}
	t, ok := c.log.When(observe.LastHeartbeatOf(container))
	Expect(ok).To(BeTrue(), "%s marked no heartbeat:\n%s", container, c.log)
	return t
}

// killCallLag is how much later than the grace the clock's SIGKILL may come for the
// runtime's kill call alone: killCallSlack where the runtime's journal times it, none
// where the last heartbeat does.
func (c stopClock) killCallLag() time.Duration {
	if c.fromRuntime {
		return killCallSlack
	}
	return 0
}

// span records b − a in exp under name and checks it against [min, max].
func (c stopClock) span(exp *gmeasure.Experiment, name string, a, b time.Time, min, max time.Duration) {
	GinkgoHelper()
	d := b.Sub(a)
	suite.Record(exp, name, d, min, max)
	Expect(d).To(And(BeNumerically(">=", min), BeNumerically("<=", max)), "%s: %v (%s):\n%s", name, d, c, c.log)
}

func (c stopClock) String() string {
	if !c.fromRuntime {
		return "timed by the markers"
	}
	return fmt.Sprintf("timed by the runtime's journal: %v", c.stops)
}

// lastKilling is the last of stops that ended in SIGKILL, or nil.
func lastKilling(stops []observe.RuntimeStop) *observe.RuntimeStop {
	for i := len(stops) - 1; i >= 0; i-- {
		if !stops[i].Killed.IsZero() {
			return &stops[i]
		}
	}
	return nil
}

// lastStatus is the latest status of tl's pod the watch delivered, the pod's deletion
// aside: the one with its containers' IDs after it left the API.
// terminatedIn is container's Terminated state in pod's status, or nil.
func terminatedIn(pod *corev1.Pod, container string) *corev1.ContainerStateTerminated {
	if pod == nil {
		return nil
	}
	if s := ContainerStatus(pod, container); s != nil {
		return s.State.Terminated
	}
	return nil
}

func lastStatus(tl *observe.Timeline) *corev1.Pod {
	pods := tl.Pods()
	Expect(pods).NotTo(BeEmpty(), "no status of %s was seen", tl.Name)
	return pods[len(pods)-1]
}

// minimumGrace is the kubelet's minimum grace period for stopping a container
// (minimumGracePeriodInSeconds in pkg/kubelet/kuberuntime): what a preStop that used
// up the pod's grace leaves (TM-4's "2 s extension"), and what sidecars get when the
// pod's grace has run out (TM-12).
const minimumGrace = 2 * time.Second

// Shorthands of the marking scripts' vocabulary.
const (
	keepRunning = observe.KeepRunning
	exitNow     = observe.ExitNow
)

var exitAfter = observe.ExitAfter

// stopper is a busybox container running observe.StopperScript: it marks its start,
// each of TERM, USR1 and USR2 it gets (then doing then[SIG]), and a heartbeat.
func stopper(name string, then map[string]string) corev1.Container {
	return corev1.Container{Name: name, Image: "busybox:1.28", Command: []string{"sh", "-c", observe.StopperScript(name, then)}}
}

// onTerm is the common case of stopper: then is what it does on TERM.
func onTerm(name, then string) corev1.Container {
	return stopper(name, map[string]string{"TERM": then})
}

// stoppingPod is a pod of stoppers with the given grace period (nil: the default).
func stoppingPod(name string, grace *int64, containers ...corev1.Container) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       corev1.PodSpec{Containers: containers, TerminationGracePeriodSeconds: grace},
	}
}

func seconds(s int64) *int64 { return &s }

// terminal matches a pod in a terminal phase.
func terminal() types.GomegaMatcher {
	return Or(HavePhase(corev1.PodSucceeded), HavePhase(corev1.PodFailed))
}

// startMarkBound: a running container's first marker reaches its followed log within
// seconds; 10 s bounds it on a loaded machine.
const startMarkBound = 10 * time.Second

// runningBound is the sum of running's waits: the pod runs, every container marked its
// start.
const runningBound = podStartBound + startMarkBound

// running follows the containers' logs (a deleted pod's logs vanish with its
// containers, see suite.MarkerFollower) and waits until every one of them marked its
// start: then the traps are set and a signal will be recorded.
func running(ctx context.Context, ns string, tl *observe.Timeline, containers ...string) *suite.MarkerFollower {
	GinkgoHelper()
	f := env.FollowMarkers(ctx, ns, tl.Name, containers...)
	Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound).Should(HavePhase(corev1.PodRunning))
	Eventually(f.Log).WithContext(ctx).WithTimeout(startMarkBound).WithPolling(200 * time.Millisecond).
		Should(And(markedStart(containers...)...))
	return f
}

func markedStart(containers ...string) []types.GomegaMatcher {
	var ms []types.GomegaMatcher
	for _, c := range containers {
		ms = append(ms, HaveMarked(observe.StartOf(c)))
	}
	return ms
}

// stopBound bounds how long a deleted pod takes to stop: its grace period, the 2 s
// a preStop or a sidecar may add (minimumGrace), and the kubelet's sync and status
// update, which take seconds on a loaded 2-core machine (20 s).
func stopBound(grace time.Duration) time.Duration { return grace + minimumGrace + 20*time.Second }

// logEndBound: the kubelet's log stream of a container ends shortly after it exits;
// 10 s bounds it on a loaded machine.
const logEndBound = 10 * time.Second

// deleteAndWait deletes a held pod (grace nil: its own), waits until every container
// stopped and the kubelet wrote a terminal phase, and returns the time of the delete
// call and the containers' markers, as followed by f. Its waits take bound, then
// logEndBound.
func deleteAndWait(ctx context.Context, ns string, tl *observe.Timeline, f *suite.MarkerFollower, grace *int64, bound time.Duration) (time.Time, observe.Log) {
	GinkgoHelper()
	deleted := time.Now()
	Expect(env.Client.CoreV1().Pods(ns).Delete(ctx, tl.Name, metav1.DeleteOptions{GracePeriodSeconds: grace})).To(Succeed())
	Eventually(tl.Pod).WithContext(ctx).WithTimeout(bound).Should(terminal())
	log, err := f.Wait(logEndBound)
	AddReportEntry("markers of "+tl.Name, log.String(), ReportEntryVisibilityFailureOrVerbose)
	Expect(err).NotTo(HaveOccurred())
	return deleted, log
}

var timings = suite.Timings

// span measures from a to b in log, records it in exp and checks it against
// [min, max]; the failure shows the whole log.
func span(exp *gmeasure.Experiment, log observe.Log, name string, a, b observe.Event, min, max time.Duration) {
	GinkgoHelper()
	if d, ok := log.Between(a, b); ok {
		suite.Record(exp, name, d, min, max)
	}
	Expect(log).To(MarkWithin(a, b, min, max), name)
}

// exitCode is the exit code of a terminated container, or -1.
func exitCode(p *corev1.Pod, name string) int32 {
	for _, s := range append(p.Status.InitContainerStatuses, p.Status.ContainerStatuses...) {
		if s.Name == name && s.State.Terminated != nil {
			return s.State.Terminated.ExitCode
		}
	}
	return -1
}

var gmeasurePrecision = gmeasure.Precision(time.Millisecond)

// markersOnceStopped reads the node's marker file (a hostPath at observe.MarkerDir)
// through the running container reader of pod until container is done: it has not
// marked a heartbeat for a second while reader went on marking (five of its
// heartbeats). The file goes when the spec ends. Its wait takes bound.
func markersOnceStopped(ctx context.Context, ns, pod, reader, container string, bound time.Duration) observe.Log {
	GinkgoHelper()
	DeferCleanup(func(ctx SpecContext) {
		_, _ = env.Exec(ctx, ns, pod, reader, "rm", "-f", observe.MarkerDir+"/markers")
	})
	var log observe.Log
	Eventually(func() (time.Duration, error) {
		ms, err := env.MarkerFile(ctx, ns, pod, reader)
		log = ms
		gap, _ := log.Between(observe.LastHeartbeatOf(container), observe.LastHeartbeatOf(reader))
		return gap, err
	}).WithContext(ctx).WithTimeout(bound).WithPolling(500*time.Millisecond).Should(BeNumerically(">", time.Second),
		func() string { return fmt.Sprintf("%s should stop; markers on the node so far:\n%s", container, log) })
	return log
}
