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
// from the host clock, in milliseconds) for a backoff b, from the v1.37.2 kubelet:
//   - early: the kubelet restarts only once now − finishedAt ≥ b (flowcontrol.Backoff
//     IsInBackOffSince), and finishedAt comes after the exit marker; only the marker's
//     own latency (fork of adjtimex+awk, a few ms) can make d look shorter: 100 ms.
//   - late: the kubelet notices the exit within its PLEG relist period (1 s,
//     Detection); the sync that finds the container in backoff requeues the pod worker
//     at wait.Jitter(remaining, 0.5) (pod_workers.go completeWork,
//     workerBackOffPeriodJitterFactor = 0.5), i.e. up to 1.5 × b after the exit, or at
//     once when the backoff has already run out by then (b ≤ Detection: the first
//     restart, short backoffs); a remaining time over the 1 min resync interval is
//     first cut to it, which only shortens the wait. Then containerd creates and starts
//     the container and the shell writes its marker, 0.2–1.5 s on a 2-core machine:
//     StartLatency = 3 s. So d ≤ max(1.5·b, Detection) + StartLatency.
//
// The docs give the delays as exact doublings; the jitter is reported as drift with
// the measured values.
const (
	EarlyTolerance = 100 * time.Millisecond
	Detection      = time.Second
	StartLatency   = 3 * time.Second
	RequeueJitter  = 0.5
)

// LateTolerance is how much longer than b a delay may be.
func LateTolerance(b time.Duration) time.Duration {
	return max(time.Duration(float64(b)*RequeueJitter), Detection-b) + StartLatency
}

// Bounds is the range the model allows a delay measured for backoff b.
func Bounds(b time.Duration) (lo, hi time.Duration) {
	return b - EarlyTolerance, b + LateTolerance(b)
}

// Within reports whether a measured delay fits backoff b under the model.
func Within(measured, b time.Duration) bool {
	lo, hi := Bounds(b)
	return measured >= lo && measured <= hi
}

// Budget is the longest a crash loop with these delays may take under the model: the
// sum of their upper bounds (the runs themselves are instant).
func Budget(expected []time.Duration) time.Duration {
	var total time.Duration
	for _, b := range expected {
		_, hi := Bounds(b)
		total += hi
	}
	return total
}

// Whole-loop model: telling b from 2·b. One delay cannot tell them apart for small b:
// the late bound above lets 1.5·b plus a second of detection and the start latency
// through, which is more than 2·b for b ≤ 6 s. Over a crash loop the overhead that
// blurs a single delay is measured instead of assumed: the first restart has no
// backoff (Expected's leading 0), so its delay o₀ is what the kubelet takes to notice
// the exit (a phase of its 1 s relist clock) and start the container again. A later
// restart pays the same, and one piece more: the pod worker's requeued sync is picked
// up by the kubelet's 1 s sync ticker (SyncTick), 0–1 s later, while the first restart
// is driven by the relist event itself. With o₀ taken off each delay of backoff
// b > 0, over the n such delays of a loop
//
//	Σ(d − o₀) = Σb + Σjitter + Σtick + Σ(spread),  0 ≤ jitter < RequeueJitter·b,
//	                                               0 ≤ tick < SyncTick,
//
// and a kubelet that waited 2·b would give about Σb more. The loop passes when
//
//	Σ(d − o₀) ≤ (1 + RequeueJitter)·Σb + n·SyncTick/2:
//
// the documented delays, plus the most jitter the pod worker may add (each draw is
// uniform, so the sum is near a quarter of Σb, not a half), plus the ticks' mean. A
// doubled backoff exceeds it by about (1 − RequeueJitter)·Σb on average, and the
// documented one stays below it by as much: the rule sits between the two. A delay
// whose expected value is 0 is not summed: it is checked on its own bounds.
//
// Measured on this project's clusters (2 cores), Σ(d − o₀) against the limit:
// max-2s (4 × 2 s) 7.6 s and 10.1 s ≤ 14 s (doubled: 15.6 s, 18.1 s); 1 s doubling to
// 16 s 32.6 s ≤ 49 s (doubled 63.6 s); 10–40 s 79.4 s ≤ 106.5 s (doubled 149.4 s).
const SyncTick = time.Second

// LoopSum is the whole-loop check of one crash loop.
type LoopSum struct {
	Overhead   time.Duration // o₀: the first restart's delay, measured
	Documented time.Duration // Σb over the delays with b > 0
	Measured   time.Duration // Σ(d − o₀) over the same delays
	Delays     int           // n: the delays with b > 0
	Limit      time.Duration // (1 + RequeueJitter)·Σb + n·SyncTick/2
}

// Loop applies the whole-loop model to measured delays of a loop whose documented
// delays are expected (expected[0] must be the first restart's 0). ok is false when
// the model does not apply: no leading zero-delay restart, or no delay with b > 0.
func Loop(expected, measured []time.Duration) (sum LoopSum, ok bool) {
	if len(expected) < 2 || len(measured) < len(expected) || expected[0] != 0 {
		return LoopSum{}, false
	}
	sum.Overhead = measured[0]
	for i, b := range expected[1:] {
		if b == 0 {
			continue
		}
		sum.Delays++
		sum.Documented += b
		sum.Measured += measured[i+1] - sum.Overhead
	}
	sum.Limit = time.Duration(float64(sum.Documented)*(1+RequeueJitter)) + time.Duration(sum.Delays)*SyncTick/2
	return sum, sum.Documented > 0
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

// Within reports whether the loop is closer to the documented delays than to doubled ones.
func (l LoopSum) Within() bool { return l.Measured <= l.Limit }

func (l LoopSum) String() string {
	return fmt.Sprintf("first restart (overhead o₀) %dms; Σ(delay − o₀) %dms over %d delays of documented Σb %dms (allowed ≤ %dms = %.1f·Σb + %d·%s/2)",
		l.Overhead.Milliseconds(), l.Measured.Milliseconds(), l.Delays, l.Documented.Milliseconds(), l.Limit.Milliseconds(), 1+RequeueJitter, l.Delays, SyncTick)
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

// Delays measures exit→next-start of container from markers: the container writes
// "start" first and "exit" last in each run.
func Delays(ms []observe.Marker, container string) []time.Duration {
	var out []time.Duration
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
				out = append(out, m.At.Sub(lastExit))
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
}

// DelayTable is the expected-vs-measured table of one crash loop. Its JSON form is
// what the statement report keeps; String is what a reader sees.
type DelayTable []Delay

// Table pairs expected and measured delays (measured may be longer; extra ones are
// left out).
func Table(expected, measured []time.Duration) DelayTable {
	var t DelayTable
	for i, want := range expected {
		if i >= len(measured) {
			break
		}
		lo, hi := Bounds(want)
		t = append(t, Delay{Restart: i + 1, ExpectedMs: want.Milliseconds(), MeasuredMs: measured[i].Milliseconds(),
			MinMs: max(0, lo.Milliseconds()), MaxMs: hi.Milliseconds()})
	}
	return t
}

func (t DelayTable) String() string {
	rows := make([]string, len(t))
	for i, d := range t {
		rows[i] = fmt.Sprintf("%d: expected %dms measured %dms (allowed %d–%dms)", d.Restart, d.ExpectedMs, d.MeasuredMs, d.MinMs, d.MaxMs)
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

// Jittered lists the delays (by index) that the pod worker's requeue jitter visibly
// lengthened: longer than b + o₀ (the loop's own overhead, its first restart) by more
// than one relist period (Detection), which the overhead's phase alone cannot explain.
// The docs give exact doublings; any such delay is drift, not a failure (the model
// allows it).
func Jittered(expected, measured []time.Duration) []int {
	if len(expected) == 0 || len(measured) < len(expected) || expected[0] != 0 {
		return nil
	}
	overhead := measured[0]
	var out []int
	for i, b := range expected {
		if b > 0 && measured[i]-b-overhead > Detection {
			out = append(out, i)
		}
	}
	return out
}
