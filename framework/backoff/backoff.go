// Package backoff measures crash-loop restart delays from container-written markers
// and holds the tolerance model they are checked against.
package backoff

import (
	"fmt"
	"strings"
	"time"

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
