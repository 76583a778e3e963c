package termination

import (
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/podlifecycle/conformance/framework/facts"
	. "github.com/podlifecycle/conformance/framework/match"
	"github.com/podlifecycle/conformance/framework/observe"
	"github.com/podlifecycle/conformance/framework/suite"
)

// The grace period of the pod whose kubelet or runtime is restarted, and when after TERM the
// restart comes: half-way, so that the two readings of a restart (the grace starts
// again, or it runs on from the first TERM) put SIGKILL restartGrace/2 = 10 s apart,
// and the restart (a docker exec and systemctl, seconds) is over long before the first
// grace could end; short enough for the spec to stay under a minute.
const (
	restartGrace = 20 * time.Second
	restartAfter = restartGrace / 2
)

// termBound: the kubelet sees the deletion through its watch and has the runtime send
// TERM within a second or two; 10 s bounds a loaded machine.
const termBound = 10 * time.Second

// restartSyncBound: a restarted kubelet syncs the pods it finds bound to its node at
// start-up, the terminating one included, as soon as its sync loop runs (it skips, with
// a backoff of at most 5 s, until the runtime reports ready: syncLoop in pkg/kubelet);
// seconds after it answers. 20 s bounds a loaded machine.
const restartSyncBound = 20 * time.Second

// requeueBound: a sync that fails (the runtime's StopContainer cut off by its restart)
// is retried by the pod worker after wait.Jitter(10 s, 0.5) (backOffPeriod and
// workerBackOffPeriodJitterFactor in pkg/kubelet), so at most 15 s later.
const requeueBound = 15 * time.Second

// A node service restarted while the kubelet waits for a container to stop.
type serviceRestart struct {
	service string // as the pages and the evidence name it
	unit    string // its systemd unit on a kind node
	restart func(*suite.Env, SpecContext, string) suite.ServiceRestart
	// retryBound: from when the service answers again to the latest moment the kubelet
	// calls StopContainer again.
	retryBound time.Duration
}

var (
	kubeletService = serviceRestart{"the kubelet", "kubelet", (*suite.Env).RestartKubelet, restartSyncBound}
	runtimeService = serviceRestart{"the container runtime's service", "containerd", (*suite.Env).RestartRuntime, requeueBound + restartSyncBound}
)

// On the worker set aside for kubelet restarts (kind-configs/default.yaml), so that the
// restart disturbs no other spec's pods and the spec need not be Serial; Ordered, so
// that the two restarts of that one node never overlap.
var _ = Describe("Grace period across a restart of a node service", suite.LongRunning, Label(suite.Disruptive), Ordered, func() {
	for _, s := range []serviceRestart{kubeletService, runtimeService} {
		It(fmt.Sprintf("starts again from the beginning, in full, when %s is restarted while the kubelet waits for the container to stop", s.service), Label("TM-21"),
			suite.Timeout(runningBound, termBound, restartAfter+time.Second, suite.KubeletBackBound, s.retryBound+stopBound(restartGrace), logEndBound), func(ctx SpecContext) {
				graceAcrossRestart(ctx, s)
			})
	}
})

func graceAcrossRestart(ctx SpecContext, s serviceRestart) {
	env.Require(facts.NodeShell(), facts.OneClock()) // the restart's times are the runner's clock, the markers the node's
	node := env.OwnWorker("kubelet-restart")         // a v1.37.2 kubelet with the gates at their defaults
	ns := env.Namespace(ctx)
	pod := env.Hold(ns, suite.PinToOwn(stoppingPod("outlives-"+s.unit, seconds(int64(restartGrace/time.Second)), onTerm("main", keepRunning)), node))
	tl := env.Run(ctx, ns, pod)
	before := running(ctx, ns, tl, "main")
	term, killed := observe.SignalTo("main", "TERM"), observe.LastHeartbeatOf("main")

	Expect(env.Client.CoreV1().Pods(ns).Delete(ctx, pod.Name, metav1.DeleteOptions{})).To(Succeed())
	Eventually(before.Log).WithContext(ctx).WithTimeout(termBound).WithPolling(200*time.Millisecond).
		Should(HaveMarked(term), "once TERM is sent, the kubelet waits for the container to stop")
	termAt, _ := before.Log().When(term)
	// Half the grace period after TERM: the precondition, not a synchronisation.
	Eventually(func() time.Duration { return time.Since(termAt) }).WithContext(ctx).WithPolling(100 * time.Millisecond).
		WithTimeout(restartAfter + time.Second).Should(BeNumerically(">=", restartAfter))
	r := s.restart(env, ctx, node.Name)
	// The first follow may have ended with the restart; this one reads the log from its start.
	after := env.FollowMarkers(ctx, ns, pod.Name, "main")
	Eventually(tl.Pod).WithContext(ctx).WithTimeout(s.retryBound+stopBound(restartGrace)).Should(terminal(),
		"TM-21: after the restart of %s the kubelet stops the container, at the latest when its retry's full grace period ends", s.service)
	log, err := after.Wait(logEndBound)
	log = observe.MergeMarkers(before.Log(), log)
	AddReportEntry("markers of "+pod.Name, log.String(), ReportEntryVisibilityFailureOrVerbose)
	Expect(err).NotTo(HaveOccurred())
	killedAt, ok := log.When(killed)
	Expect(ok).To(BeTrue(), "no heartbeat:\n%s", log)

	// The tolerance model is the suite's (killWindow): a grace measured from a trap's
	// marker to the last heartbeat is the real one less up to a heartbeat and two
	// marker latencies, plus at most runtimeSlack. The retry's grace starts after the
	// old service stopped, so after r.Called, and at the latest retryBound after the
	// service answered again.
	min, max := killWindow(restartGrace)
	Expect(r.Returned.Sub(termAt)).To(BeNumerically("<", min), "precondition: %s was restarted before the grace period could end:\n%s", s.service, log)
	latest := r.Answered.Add(s.retryBound + max)
	fromTerm, fromRestart := killedAt.Sub(termAt), killedAt.Sub(r.Called)
	exp := timings("grace period across a restart of " + s.unit)
	suite.Record(exp, "first TERM → SIGKILL (ms)", fromTerm, min, latest.Sub(termAt))
	suite.Record(exp, s.unit+" restart → SIGKILL (ms): the full grace again", fromRestart, min, latest.Sub(r.Called))
	evidence := restartEvidence(s, r, termAt, killedAt, log)
	AddReportEntry("TM-21 moments ("+s.unit+")", evidence)

	// What no reading of the pages allows; a broken cluster shows it here. A SIGKILL
	// before the grace period has passed since the first TERM (a restarted service that
	// kills a pod it finds terminating at once, or a runtime that cuts the grace short):
	Expect(fromTerm).To(BeNumerically(">=", min), "TM-21: SIGKILL %v after the first TERM, before the grace period of %v:\n%s", fromTerm, restartGrace, evidence)
	// A container left running past the full grace of the latest possible retry:
	Expect(killedAt).To(BeTemporally("<=", latest), "TM-21: still running later than the full grace period after the kubelet's retry:\n%s", evidence)
	Expect(log).NotTo(HaveMarked(observe.ExitOf("main")), "the container ignores TERM; only SIGKILL stops it")
	Expect(exitCode(tl.Pod(), "main")).To(BeEquivalentTo(137), "TM-21: the retry ends in SIGKILL (128+9)")

	// What the pages say, and all of them alike: the retry gives the full grace period
	// again, so SIGKILL comes at least that long after the restart. A kubelet that
	// kills on the first TERM's clock (about restartGrace/2 after the restart) fails.
	Expect(fromRestart).To(BeNumerically(">=", min), "TM-21: SIGKILL %v after the restart of %s, less than the full grace period of %v again:\n%s", fromRestart, s.service, restartGrace, evidence)

	// The same from the runtime's journal, where it can be read: the kubelet's retry after
	// the restart passed the full grace period again, and the runtime's SIGKILL came that
	// long after the retry (the model of killSpan; the markers checked the rest above).
	clock := newStopClock(ctx, lastStatus(tl), log)
	if !clock.fromRuntime {
		return
	}
	stops := clock.stops
	AddReportEntry("TM-21 stops ("+s.unit+")", fmt.Sprint(stops))
	retry := lastKilling(observe.RuntimeStopsOf(stops, "main"))
	Expect(retry).NotTo(BeNil(), "TM-21: the runtime's journal shows no SIGKILL of main: %v", stops)
	Expect(retry.Called).To(BeTemporally(">", r.Called), "TM-21: the StopContainer that ended in SIGKILL came after the restart of %s: %v", s.service, stops)
	Expect(retry.Timeout).To(Equal(restartGrace), "TM-21: the kubelet's StopContainer after the restart of %s passed the full grace period: %v", s.service, stops)
	// The runtime's timer starts once its stop signal is delivered (or at the call, when
	// it skips the signal it sent before): at least the grace after the call; the upper
	// end is the markers' (latest, above).
	d := retry.Killed.Sub(retry.Called)
	suite.RecordAtLeast(exp, "the retry's StopContainer → runtime's SIGKILL (ms): the full grace", d, restartGrace)
	Expect(d).To(BeNumerically(">=", restartGrace), "TM-21: the runtime's SIGKILL after the retry's StopContainer: %v", stops)
}

// restartEvidence tells the restart's moments and the kill from the first TERM on, with the
// markers.
func restartEvidence(s serviceRestart, r suite.ServiceRestart, termAt, killedAt time.Time, log observe.Log) string {
	ms := func(t time.Time) int64 { return t.Sub(termAt).Milliseconds() }
	return fmt.Sprintf("first TERM at %s; `systemctl restart %s` called at +%d ms, returned at +%d ms, it answered at +%d ms; "+
		"last heartbeat (SIGKILL) at +%d ms: %d ms after the restart was called, %d ms after it answered; TERM marked %d time(s):\n%s",
		termAt.UTC().Format("15:04:05.000"), s.unit, ms(r.Called), ms(r.Returned), ms(r.Answered),
		ms(killedAt), killedAt.Sub(r.Called).Milliseconds(), killedAt.Sub(r.Answered).Milliseconds(), log.Count(observe.SignalTo("main", "TERM")), log)
}
