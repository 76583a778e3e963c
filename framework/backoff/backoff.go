// Package backoff is the model of crash-loop restart delays: the documented delays for
// a kubelet's settings, their measurement from container-written markers, and the
// tolerance model they are checked against. It holds no test-runner code
// (framework/crashloop drives the loops on a cluster).
package backoff

import (
	"fmt"
	"strings"
	"time"

	"github.com/podlifecycle/conformance/framework/facts"
	"github.com/podlifecycle/conformance/framework/observe"
)

// Tolerance model of a measured restart delay d (exit of instance n, as the
// container's last marker, to the start of instance n+1, as its first marker; both
// from the host clock, in milliseconds) for a backoff b, from the v1.37.2 kubelet.
//
// The backoff and the pod worker's requeue are two things. The backoff (the
// documented delay) is the time before which the kubelet refuses to start the
// container again: a sync restarts it only once now − finishedAt ≥ b
// (flowcontrol.Backoff IsInBackOffSince). The requeue decides when the kubelet next
// syncs a pod it left alone: wait.Jitter(remaining, 0.5) after a sync that found the
// container in backoff (pod_workers.go completeWork, workerBackOffPeriodJitterFactor
// = 0.5), up to 50 % of the backoff late. Any update of the pod is synced at once
// instead (an annotation change is an update: config.podsDifferSemantically; the pod
// worker takes it as soon as it is idle: UpdatePod). So the crash loops are paced: the
// spec updates an annotation of the pod every Pace while the loop runs
// (crashloop.MeasureLoop), and the restart comes at the first sync after the backoff
// ran out, the requeue jitter out of the measurement. (The jitter itself, what a pod
// left alone sees, is measured by one spec of its own: RequeueJitter.)
//
//   - early: finishedAt comes after the exit marker; only the marker's own latency
//     (fork of adjtimex+awk, a few ms) can make d look shorter: 100 ms.
//   - late: the kubelet sees the exit within its PLEG relist period (1 s,
//     Detection), which matters only where b is shorter; the backoff runs out, and the
//     next paced update reaches the kubelet within Pace + SyncLatency (the watch's
//     delivery and the sync reaching the container); then containerd creates and
//     starts the container and the shell writes its marker, 0.2–1.5 s on a 2-core
//     machine: StartLatency = 3 s for one start. So
//     d ≤ max(b, Detection) + Pace + SyncLatency + StartLatency.
//   - detection measured: a relist lists every container through the runtime, and on
//     a loaded 2-core machine it can take seconds (the kubelet first reported an exit
//     4.1 s after it in one run here, 0.9 s after the same container's next exit). The
//     kubelet cannot restart a container before it has seen the exit, so where its
//     first report of the exit (the first status the watch sees showing it, the
//     watch's own latency included) comes later than Detection after the exit, that
//     measured detection takes Detection's place (BoundsDetected). It matters where b
//     is shorter: above all the restart at once, which has no backoff to absorb it.
//     What follows the detection is bounded as before, so a kubelet that sees the
//     exit and then holds the restart back (a backoff before the first restart) fails.
const (
	EarlyTolerance      = 100 * time.Millisecond
	Detection           = time.Second
	Pace                = 250 * time.Millisecond
	SyncLatency         = 250 * time.Millisecond
	StartLatency        = 3 * time.Second
	RequeueJitterFactor = 0.5
)

// LateTolerance is how much longer than b a single delay may be.
func LateTolerance(b time.Duration) time.Duration {
	return max(b, Detection) - b + Pace + SyncLatency + StartLatency
}

// Bounds is the range the model allows a delay measured for backoff b.
func Bounds(b time.Duration) (lo, hi time.Duration) {
	return b - EarlyTolerance, b + LateTolerance(b)
}

// BoundsDetected is Bounds for a delay whose exit the kubelet first reported detected
// after it (0: not known): the measured detection in Detection's place where longer.
func BoundsDetected(b, detected time.Duration) (lo, hi time.Duration) {
	lo, hi = Bounds(b)
	return lo, hi + max(0, detected-max(b, Detection))
}

// WithinDetected is Within under BoundsDetected.
func WithinDetected(measured, b, detected time.Duration) bool {
	lo, hi := BoundsDetected(b, detected)
	return measured >= lo && measured <= hi
}

// The kubelet's call measured. Where the runtime's journal times each restart's
// CreateContainer call (observe.RuntimeStart, crashloop.Loop.Called), the delay checked
// ends there, at the kubelet's restart, before the runtime makes and starts the
// container: the start's cost, StartLatency above, leaves the bound, and with it the
// runtime's speed on a loaded machine (in the kill matrix's stock run of 2026-12-06,
// load average 45, a start's runtime share reached 3.6 s, and one 20 s delay was 160 ms
// over its marker bound for a share of 2.9 s). What stays is the kubelet's own turn:
// the paced update reaching it, its sync, and its work up to the call (the pod's
// status, the image's status asked of the runtime, the container's config).
// call − max(b, Detection, detected) was 0.11–1.28 s over that run's 13 paced backoffs
// (mean 0.65 s), pace and sync included. So, per delay,
//
//	d_call ≤ max(b, Detection, detected) + Pace + SyncLatency + CallLatency,
//
// with CallLatency = 1.5 s (2 s in all, 0.7 s above the worst measured), and over a
// loop LoopCallLatency = 1.25 s a delay on average (1.75 s in all, 2.7 times the
// measured mean). The early bound is unchanged: the call follows the kubelet's
// decision, which follows finishedAt + b.
const (
	CallLatency     = 1500 * time.Millisecond
	LoopCallLatency = 1250 * time.Millisecond
)

// BoundsCalled is the range the model allows the time from an exit to the kubelet's
// CreateContainer call for the restart, for backoff b and the exit's measured
// detection. Where the detection is not known (the kubelet restarted the container in
// the sync that saw the exit, so no status showed it Terminated), a relist slowed by
// load can hide in the delay as it can in a marker's (Detection is nominal): the upper
// bound is then the marker model's, Bounds', which the call, coming before the start,
// meets with the runtime's share to spare.
func BoundsCalled(b, detected time.Duration) (lo, hi time.Duration) {
	if detected <= 0 {
		return Bounds(b)
	}
	return b - EarlyTolerance, max(b, Detection, detected) + Pace + SyncLatency + CallLatency
}

// at is detected[i], or 0 (not known) past its end.
func at(detected []time.Duration, i int) time.Duration {
	if i < len(detected) {
		return detected[i]
	}
	return 0
}

// Within reports whether a measured delay fits backoff b under the model.
func Within(measured, b time.Duration) bool {
	lo, hi := Bounds(b)
	return measured >= lo && measured <= hi
}

// Budget is the longest a paced crash loop with these delays may take under the
// model: the sum of their upper bounds (the runs themselves are instant).
func Budget(expected []time.Duration) time.Duration {
	var total time.Duration
	for _, b := range expected {
		_, hi := Bounds(b)
		total += hi
	}
	return total
}

// UnpacedBudget is Budget for a loop left alone: each delay up to 1.5·b late, plus
// the sync ticker's second (the requeue is picked up by the kubelet's 1 s ticker).
func UnpacedBudget(expected []time.Duration) time.Duration {
	var total time.Duration
	for _, b := range expected {
		_, hi := Bounds(b)
		total += hi + time.Duration(float64(b)*RequeueJitterFactor) + SyncTick
	}
	return total
}

// Whole-loop model: telling the documented delays from delays a fraction longer. One
// delay cannot: a single start may take seconds on a loaded machine, more than 10 %
// of a 10 s backoff. Over a loop the starts average out: a restart of backoff b comes
// at d = max(b, Detection) + w + s + L, with w < Pace the wait for the next paced
// update, s < SyncLatency, and L the container's start. So, over the n delays of a
// loop with b > 0,
//
//	Σ(d − max(b, Detection)) = Σw + Σs + ΣL ≤ n·(Pace + SyncLatency + LoopStartLatency),
//
// LoopStartLatency being what a start takes on average over a loop. A kubelet whose
// delays are all a fraction f longer adds f·Σb: the loop tells it for certain when
// f·Σb exceeds the limit (LoopSum.Resolution: 11 % for the default 10–20–40 s loop,
// 40 % for the reduced decay's 1–2–4–8–16 s, whose Σb is short). Delays a fraction f
// shorter take f·Σb off the sum, and fail once that is more than the starts added
// (the sum may not go below −n·EarlyTolerance): the same resolution from below. A
// delay whose expected value is 0 is not summed: it is checked on its own bounds.
//
// The loop's own restart cost at once (its first restart, the quickest if several;
// Overhead) is shown, not subtracted: it varied from 1.1 s to 2.3 s between loops of
// one run (load average 15–20), more than the starts of one loop vary.
//
// LoopStartLatency: measured on this project's clusters (2 cores, 4 Ginkgo processes,
// both clusters up), the mean of d − b over a paced loop was 1.1–2.2 s in every loop
// of a run (12 loops); 2 s, with the pace and the sync, gives 2.5 s a delay.
const (
	LoopStartLatency = 2 * time.Second
	// SyncTick is the kubelet's sync ticker period: a requeued pod is synced at the
	// next tick after its requeue time (unpaced loops only).
	SyncTick = time.Second
)

// LoopSum is the whole-loop check of one paced crash loop.
type LoopSum struct {
	Overhead   time.Duration // the quickest restart at once, measured (shown only)
	Documented time.Duration // Σb over the delays with b > 0
	Measured   time.Duration // Σ(d − max(b, Detection)) over the same delays
	Delays     int           // n: the delays with b > 0
	Limit      time.Duration // n·(Pace + SyncLatency + Latency)
	// Latency is the mean a delay may add beyond pace and sync: LoopStartLatency for
	// delays from markers, LoopCallLatency for the kubelet's calls (LoopCalled).
	Latency time.Duration
	Until   string // where the delays end: "start" (markers) or "call" (the runtime's journal)
}

// Loop applies the whole-loop model to measured delays of a loop whose documented
// delays are expected (expected[0] must be the first restart's 0). ok is false when
// the model does not apply: no leading zero-delay restart, or no delay with b > 0.
func Loop(expected, measured []time.Duration) (sum LoopSum, ok bool) {
	if len(expected) < 2 || len(measured) < len(expected) || expected[0] != 0 {
		return LoopSum{}, false
	}
	sum.Overhead = Overhead(expected, measured)
	sum.Delays, sum.Documented, sum.Measured = overBackoff(expected, measured)
	sum.Latency, sum.Until = LoopStartLatency, "start"
	sum.Limit = time.Duration(sum.Delays) * (Pace + SyncLatency + sum.Latency)
	return sum, sum.Documented > 0
}

// LoopCalled is Loop over the delays from each exit to the kubelet's CreateContainer
// call for the restart (BoundsCalled's quantity), with LoopCallLatency a delay.
func LoopCalled(expected, called []time.Duration) (sum LoopSum, ok bool) {
	sum, ok = Loop(expected, called)
	sum.Latency, sum.Until = LoopCallLatency, "call"
	sum.Limit = time.Duration(sum.Delays) * (Pace + SyncLatency + sum.Latency)
	return sum, ok
}

// overBackoff sums, over the delays with a backoff (b > 0) after the first restart,
// their number n, Σb and Σ(d − max(b, Detection)): what both whole-loop rules weigh.
func overBackoff(expected, measured []time.Duration) (n int, documented, excess time.Duration) {
	for i, b := range expected[1:] {
		if b > 0 {
			n++
			documented += b
			excess += measured[i+1] - max(b, Detection)
		}
	}
	return n, documented, excess
}

// Overhead is the loop's quickest restart at once (its delays with no backoff: the
// first restart, and any other at once, such as a probe kill's extra one).
func Overhead(expected, measured []time.Duration) time.Duration {
	o := time.Duration(-1)
	for i, b := range expected {
		if b == 0 && i < len(measured) && (o < 0 || measured[i] < o) {
			o = measured[i]
		}
	}
	return max(o, 0)
}

// Within reports whether the loop's delays are the documented ones: the sum within
// its limit, and not below −n·EarlyTolerance (each delay is at least its backoff, to
// the marker's latency; the sum catches delays a fraction shorter that each delay's
// own early bound lets through when the starts are slow).
func (l LoopSum) Within() bool {
	return l.Measured <= l.Limit && l.Measured >= -time.Duration(l.Delays)*EarlyTolerance
}

// Resolution is the smallest fraction by which delays all longer than documented
// fail the loop for certain: a stock loop's sum is at least about 0 (each delay at
// least its backoff), so f·Σb > Limit.
func (l LoopSum) Resolution() float64 {
	if l.Documented == 0 {
		return 0
	}
	return float64(l.Limit) / float64(l.Documented)
}

func (l LoopSum) String() string {
	return fmt.Sprintf("quickest restart at once %dms; Σ(delay − b) %dms over %d delays (exit → %s) of documented Σb %dms (allowed ≤ %dms = %d·(%s pace + %s sync + %s mean %s); delays all %.0f %% longer would fail)",
		l.Overhead.Milliseconds(), l.Measured.Milliseconds(), l.Delays, l.Until, l.Documented.Milliseconds(), l.Limit.Milliseconds(), l.Delays, Pace, SyncLatency, l.Latency, l.Until, 100*l.Resolution())
}

// Fits reports whether measured delays fit expected ones under the whole model: each
// delay within Bounds, and the loop within Loop's limit where that applies. It is
// the predicate a spec uses to tell which of two expected sequences a loop follows
// before it asserts one (crashloop.CheckDelays asserts the same rules one by one).
func Fits(expected, measured []time.Duration) bool {
	if len(measured) < len(expected) {
		return false
	}
	for i, b := range expected {
		if !Within(measured[i], b) {
			return false
		}
	}
	sum, ok := Loop(expected, measured)
	return !ok || sum.Within()
}

// Jitter is what the pod worker's requeue adds to an unpaced loop (a pod left alone),
// over the whole loop: Σ(d − b) over its n delays with b > 0. Without the jitter that
// sum is at most n·(SyncTick + LoopStartLatency) (the sync ticker picks the requeue up
// within a second; then the start); with it, the jitter adds
// Σ U·RequeueJitterFactor·(b − det), uniform draws whose sum is about a quarter of Σb.
// The verdict is decided over the loop, not by one draw: Visible when the sum exceeds
// the no-jitter limit, which for the 10–20–40–80 s loop (Σb 150 s, limit 12 s, the
// starts themselves some 6 s of it) a stock kubelet's draws miss with a probability
// well below 0.1 % (their sum, a quarter of Σb on average, below 6 s).
type Jitter struct {
	Excess, Limit time.Duration
	Documented    time.Duration
	Delays        int
	Latency       time.Duration // LoopStartLatency (markers) or LoopCallLatency (calls)
}

// RequeueJitterCalled is RequeueJitter over the kubelet's own delays to its
// CreateContainer calls (BoundsCalled's quantity): the start leaves the limit, which
// is then n·(SyncTick + LoopCallLatency). For the 10–20–40–80 s loop that is 9 s, the
// kubelet's own turns some 2.6 s of it (0.65 s each measured): the room a stock
// kubelet's draws must fall into to go unseen is about what it was with the starts.
func RequeueJitterCalled(expected, own []time.Duration) (j Jitter, ok bool) {
	j, ok = RequeueJitter(expected, own)
	j.Limit = time.Duration(j.Delays) * (SyncTick + LoopCallLatency)
	j.Latency = LoopCallLatency
	return j, ok
}

// RequeueJitter measures Jitter of an unpaced loop; ok as for Loop.
func RequeueJitter(expected, measured []time.Duration) (j Jitter, ok bool) {
	if len(expected) < 2 || len(measured) < len(expected) || expected[0] != 0 {
		return Jitter{}, false
	}
	j.Delays, j.Documented, j.Excess = overBackoff(expected, measured)
	j.Latency = LoopStartLatency
	j.Limit = time.Duration(j.Delays) * (SyncTick + j.Latency)
	return j, j.Documented > 0
}

// Visible reports whether the loop carries more than the sync ticker and the start
// spread explain: the requeue jitter.
func (j Jitter) Visible() bool { return j.Excess > j.Limit }

func (j Jitter) String() string {
	until := "start"
	if j.Latency == LoopCallLatency {
		until = "call"
	}
	return fmt.Sprintf("Σ(delay − b) %dms over %d delays (exit → %s) of documented Σb %dms (%.0f %% of Σb; without the requeue jitter at most %dms = %d·(%s tick + %s mean %s))",
		j.Excess.Milliseconds(), j.Delays, until, j.Documented.Milliseconds(), 100*float64(j.Excess)/float64(max(j.Documented, 1)), j.Limit.Milliseconds(), j.Delays, SyncTick, j.Latency, until)
}

// Settings are the kubelet settings a crash loop's delays depend on, as the kubelet
// reports them (kubernetes_feature_enabled, /configz).
type Settings struct {
	ReduceDefaultDecay bool          // gate ReduceDefaultCrashLoopBackOffDecay
	MaxPeriodGate      bool          // gate KubeletCrashLoopBackOffMax
	MaxPeriod          time.Duration // crashLoopBackOff.maxContainerRestartPeriod; 0 if none
}

// DefaultMaxPeriod is what /configz shows for maxContainerRestartPeriod when the
// kubelet's configuration sets none and KubeletCrashLoopBackOffMax is on: the
// v1.37.2 kubelet defaults it to 300 s, which cannot be told from 300 s set on
// purpose; the docs' cluster-default cap applies then.
const DefaultMaxPeriod = 300 * time.Second

// Documented is the docs' initial delay and cap for s:
//   - RS-6: 10 s, doubling, capped at 300 s;
//   - RS-12: with ReduceDefaultCrashLoopBackOffDecay, 1 s, capped at 60 s;
//   - RS-13: with KubeletCrashLoopBackOffMax, maxContainerRestartPeriod is the cap (an
//     initial delay above it is cut to it, Expected);
//   - RS-14: with both, the reduced 1 s start and the configured cap.
func (s Settings) Documented() (initial, maximum time.Duration) {
	initial, maximum = 10*time.Second, 300*time.Second
	if s.ReduceDefaultDecay {
		initial, maximum = time.Second, 60*time.Second
	}
	if s.MaxPeriodGate && s.MaxPeriod > 0 && s.MaxPeriod != DefaultMaxPeriod {
		maximum = s.MaxPeriod
	}
	return initial, maximum
}

// Expected is the documented sequence of n delays under s.
func (s Settings) Expected(n int) []time.Duration {
	initial, maximum := s.Documented()
	return Expected(initial, maximum, n)
}

func (s Settings) String() string {
	initial, maximum := s.Documented()
	return fmt.Sprintf("ReduceDefaultCrashLoopBackOffDecay=%t KubeletCrashLoopBackOffMax=%t maxContainerRestartPeriod=%s: documented initial %s, cap %s",
		s.ReduceDefaultDecay, s.MaxPeriodGate, s.MaxPeriod, initial, maximum)
}

// Expected is the documented sequence of n delays: the first restart at once, then
// initial, doubling, capped at max.
func Expected(initial, max time.Duration, n int) []time.Duration {
	out := make([]time.Duration, 0, n)
	if n > 0 {
		out = append(out, 0)
	}
	b := min(initial, max)
	for len(out) < n {
		out = append(out, b)
		b = min(2*b, max)
	}
	return out
}

// Restart is one restart of a container as its markers show it: the exit of a run
// and the start of the next; the delay is Start − Exit.
type Restart struct{ Exit, Start time.Time }

// Restarts pairs each exit of container with the next start, from markers: the
// container writes "start" first and "exit" last in each run.
func Restarts(ms []observe.Marker, container string) []Restart {
	var out []Restart
	var lastExit time.Time
	for _, m := range ms {
		if m.Container != container {
			continue
		}
		switch m.Event {
		case "exit":
			lastExit = m.At
		case "start":
			if !lastExit.IsZero() {
				out = append(out, Restart{Exit: lastExit, Start: m.At})
				lastExit = time.Time{}
			}
		}
	}
	return out
}

// Delay is one restart delay as the report keeps it: expected by the docs, measured from
// markers, and the range the tolerance model allows, in milliseconds.
type Delay struct {
	Restart    int   `json:"restart"`
	ExpectedMs int64 `json:"expectedMs"`
	MeasuredMs int64 `json:"measuredMs"`
	MinMs      int64 `json:"minMs"`
	MaxMs      int64 `json:"maxMs"`
	// DetectedMs is how long after the exit the kubelet first reported it (0: not known).
	DetectedMs int64 `json:"detectedMs,omitempty"`
	// CalledMs is how long after the exit the kubelet's CreateContainer call reached the
	// runtime, and RuntimeMs the runtime's share of the start (Runtime); 0: not known.
	CalledMs  int64 `json:"calledMs,omitempty"`
	RuntimeMs int64 `json:"runtimeMs,omitempty"`
	// WaitedMs is how much of CalledMs the runtime spent on the pod's other containers'
	// starts; the allowed range is for the rest, the kubelet's own delay.
	WaitedMs int64 `json:"waitedMs,omitempty"`
}

// DelayTable is the expected-vs-measured table of one crash loop. Its JSON form is
// what the statement report keeps; String is what a reader sees.
type DelayTable []Delay

// Table pairs expected and measured delays (measured may be longer; extra ones are
// left out).
func Table(expected, measured []time.Duration) DelayTable {
	return TableDetected(expected, measured, nil)
}

// TableDetected is Table with each delay's bounds from BoundsDetected, and the
// detection shown where it was measured.
func TableDetected(expected, measured, detected []time.Duration) DelayTable {
	var t DelayTable
	for i, want := range expected {
		if i >= len(measured) {
			break
		}
		lo, hi := BoundsDetected(want, at(detected, i))
		t = append(t, Delay{Restart: i + 1, ExpectedMs: want.Milliseconds(), MeasuredMs: measured[i].Milliseconds(),
			MinMs: max(0, lo.Milliseconds()), MaxMs: hi.Milliseconds(), DetectedMs: at(detected, i).Milliseconds()})
	}
	return t
}

// WithRuntime adds to t each restart's CreateContainer call and the runtime's share
// (0 where not known), as the runtime's journal timed them; where the call is known,
// the row's allowed range is BoundsCalled's, the quantity then checked.
func (t DelayTable) WithRuntime(called, runtime, waited []time.Duration) DelayTable {
	for i := range t {
		t[i].CalledMs, t[i].RuntimeMs, t[i].WaitedMs = at(called, i).Milliseconds(), at(runtime, i).Milliseconds(), at(waited, i).Milliseconds()
		if c := at(called, i); c > 0 {
			lo, hi := BoundsCalled(time.Duration(t[i].ExpectedMs)*time.Millisecond, time.Duration(t[i].DetectedMs)*time.Millisecond)
			t[i].MinMs, t[i].MaxMs = max(0, lo.Milliseconds()), hi.Milliseconds()
		}
	}
	return t
}

func (t DelayTable) String() string {
	rows := make([]string, len(t))
	for i, d := range t {
		detected := ""
		if d.DetectedMs > 0 {
			detected = fmt.Sprintf(", exit reported after %dms", d.DetectedMs)
		}
		if d.CalledMs > 0 {
			waited := ""
			if d.WaitedMs > 0 {
				waited = fmt.Sprintf(", %dms of it the runtime starting the pod's other containers", d.WaitedMs)
			}
			rows[i] = fmt.Sprintf("%d: expected %dms, the kubelet's CreateContainer call after %dms%s (allowed %d–%dms%s), started after %dms (runtime's share %dms)",
				d.Restart, d.ExpectedMs, d.CalledMs, waited, d.MinMs, d.MaxMs+d.WaitedMs, detected, d.MeasuredMs, d.RuntimeMs)
			continue
		}
		rows[i] = fmt.Sprintf("%d: expected %dms measured %dms (allowed %d–%dms%s)", d.Restart, d.ExpectedMs, d.MeasuredMs, d.MinMs, d.MaxMs, detected)
	}
	return "[" + strings.Join(rows, ", ") + "]"
}

// SettingsOf reads the backoff settings of node's kubelet from its facts.
func SettingsOf(node facts.Node) Settings {
	return Settings{
		ReduceDefaultDecay: node.KubeletGates["ReduceDefaultCrashLoopBackOffDecay"],
		MaxPeriodGate:      node.KubeletGates["KubeletCrashLoopBackOffMax"],
		MaxPeriod:          node.MaxRestartPeriod(),
	}
}
