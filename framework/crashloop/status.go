package crashloop

import (
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podlifecycle/conformance/framework/backoff"
	"github.com/podlifecycle/conformance/framework/match"
	"github.com/podlifecycle/conformance/framework/observe"
)

// Status during one backoff (RS-8), from the watch: the kubelet writes the exit
// (Terminated) at the first sync after its PLEG relist saw it, and Waiting
// (CrashLoopBackOff) at the sync after that one. The loops are paced (Pace), so that
// next sync is not left to the requeue; it still waits for a relist that started
// after the first sync ended (the pod worker's GetNewerThan(lastSyncTime), set when
// a sync ends; relists start every Detection after the previous one ends). So the
// container is seen Terminated for the rest of the first sync, up to one relist
// period and the duration of up to two relists, the second sync's status write and
// the watch's delivery of both writes. The relists' and syncs' own work is bounded
// by one more Detection (measured on the 2-core machine, both clusters up: 0.45–1.98 s
// Terminated over the 25 backoffs of a run), the deliveries by SyncLatency. Longer
// is drift. A backoff longer than that and the relist that reports the exit
// (WaitingShownAfter) must have been seen Waiting(CrashLoopBackOff) at least once.
const (
	TerminatedAtMost  = 2*backoff.Detection + backoff.SyncLatency
	WaitingShownAfter = backoff.Detection + TerminatedAtMost
)

// BackoffStatus is what the watch saw of one container during one backoff: the one
// before its restart number Restart.
type BackoffStatus struct {
	Restart    int32
	Delay      time.Duration // documented backoff
	Waiting    time.Duration // seen Waiting(CrashLoopBackOff)
	Terminated time.Duration // seen Terminated
}

func (b BackoffStatus) String() string {
	return fmt.Sprintf("restart %d (backoff %s): Waiting(CrashLoopBackOff) %d ms, Terminated %d ms",
		b.Restart, b.Delay, b.Waiting.Milliseconds(), b.Terminated.Milliseconds())
}

// BackoffStatuses splits the watch record of pod uid into container's backoffs, the
// ones that ended in a restart within the record (a backoff still running at its
// end is cut short, so left out). expected[i] is the documented delay before restart
// i+1. The time between two status changes goes to the state the first one showed.
func BackoffStatuses(entries []observe.Entry, uid types.UID, container string, expected []time.Duration) []BackoffStatus {
	var out []BackoffStatus
	var prev *observe.Entry
	for i := range entries {
		e := &entries[i]
		if e.Pod == nil || e.Pod.UID != uid {
			continue
		}
		if prev != nil {
			if s := match.ContainerStatus(prev.Pod, container); s != nil && s.State.Running == nil && (s.LastTerminationState.Terminated != nil || s.State.Terminated != nil) {
				// Not running, exited at least once: the backoff before restart k+1.
				restart := s.RestartCount + 1
				if int(restart) <= len(expected) {
					if len(out) == 0 || out[len(out)-1].Restart != restart {
						out = append(out, BackoffStatus{Restart: restart, Delay: expected[restart-1]})
					}
					d := e.Seen.Sub(prev.Seen)
					switch {
					case s.State.Waiting != nil && s.State.Waiting.Reason == "CrashLoopBackOff":
						out[len(out)-1].Waiting += d
					case s.State.Terminated != nil:
						out[len(out)-1].Terminated += d
					}
				}
			}
		}
		prev = e
	}
	// Keep the backoffs the record saw end: the last pod seen has restarted past them.
	var final int32
	if prev != nil {
		if s := match.ContainerStatus(prev.Pod, container); s != nil {
			final = s.RestartCount
		}
	}
	kept := out[:0]
	for _, b := range out {
		if b.Restart <= final {
			kept = append(kept, b)
		}
	}
	return kept
}

// BackoffTable is the report's line per backoff.
func BackoffTable(bs []BackoffStatus) string {
	lines := make([]string, len(bs))
	for i, b := range bs {
		lines[i] = b.String()
	}
	return strings.Join(lines, "\n")
}

// Loop is one container's crash loop as measured: each exit → next start delay, from
// its markers, and for each how long after that exit the kubelet first reported it
// (Detected, 0 where not known), the detection backoff.BoundsDetected puts in
// Detection's place where it is longer.
type Loop struct {
	Delays   []time.Duration
	Detected []time.Duration
	// Called is how long after each exit the kubelet's CreateContainer call for the
	// restart reached the runtime, and Runtime the runtime's share of that start
	// (observe.RuntimeStart.RuntimeShare), from the runtime's journal; nil where there is
	// none to read, 0 where it lacks that start.
	Called, Runtime []time.Duration

	// What Waited reads: the container, its exits, and the pod's starts in the journal.
	container string
	exits     []time.Time
	starts    []observe.RuntimeStart
}

// Waited is how much of restart i's call delay the runtime spent making and starting
// the pod's other containers once the container's backoff b had run out: a kubelet
// starts a pod's containers one after another in the sync that restarts it
// (observe.RuntimeBusy). Starts before that are the other containers' own business.
func (l Loop) Waited(i int, b time.Duration) time.Duration {
	if i >= len(l.Called) || l.Called[i] <= 0 {
		return 0
	}
	return observe.RuntimeBusy(l.starts, l.container, l.exits[i].Add(b), l.exits[i].Add(l.Called[i]))
}

// Own is the kubelet's own delay before restart i of backoff b: its CreateContainer
// call less Waited; 0 where not known.
func (l Loop) Own(i int, b time.Duration) time.Duration {
	if i >= len(l.Called) || l.Called[i] <= 0 {
		return 0
	}
	return l.Called[i] - l.Waited(i, b)
}

// Owns is Own of each restart for the expected backoffs, and whether every one is
// known.
func (l Loop) Owns(expected []time.Duration) ([]time.Duration, bool) {
	var own []time.Duration
	for i, b := range expected {
		d := l.Own(i, b)
		if d <= 0 {
			return nil, false
		}
		own = append(own, d)
	}
	return own, true
}

// WaitedFor is Waited of each restart for the expected backoffs.
func (l Loop) WaitedFor(expected []time.Duration) []time.Duration {
	var w []time.Duration
	for i, b := range expected {
		w = append(w, l.Waited(i, b))
	}
	return w
}

// Within reports whether delay i fits backoff b under the tolerance model: the
// kubelet's own delay (Own) within backoff.BoundsCalled where the runtime's journal
// timed it, else the marker delay within backoff.BoundsDetected.
func (l Loop) Within(i int, b time.Duration) bool {
	if own := l.Own(i, b); own > 0 {
		lo, hi := backoff.BoundsCalled(b, l.Detected[i])
		return own >= lo && own <= hi
	}
	return backoff.WithinDetected(l.Delays[i], b, l.Detected[i])
}

// MeasureDelays is the first n delays of container's loop from markers ms, with the
// kubelet's detection of each exit from the watch record entries of pod uid.
//
// The exit before restart k is reported by the first status showing the container
// Terminated with restartCount k−1: the kubelet writes it at the first sync after its
// relist saw the exit, before that sync (or a later one) starts the next run. Its
// detection is from the exit to when the watch saw that status. A kubelet that saw
// the exit and held the restart back reports Terminated (then Waiting) well before the
// start, and its delay is bounded from there. Where the watch saw that status only
// after the next start, or none (restarted within the sync that saw the exit, and
// reported Running), the detection is not known: 0, the model's Detection, so that a
// late report never widens a bound.
func MeasureDelays(ms []observe.Marker, entries []observe.Entry, uid types.UID, container string, n int) Loop {
	var loop Loop
	for k, r := range backoff.Restarts(ms, container) {
		if k == n {
			break
		}
		loop.Delays = append(loop.Delays, r.Start.Sub(r.Exit))
		loop.Detected = append(loop.Detected, detection(entries, uid, container, int32(k+1), r))
	}
	return loop
}

// detection is how long after r's exit the watch first saw pod uid's container
// Terminated before its restart k, or 0 (not known) if it saw that only after r's
// start, or never.
func detection(entries []observe.Entry, uid types.UID, container string, k int32, r backoff.Restart) time.Duration {
	for _, e := range entries {
		if e.Pod == nil || e.Pod.UID != uid || e.Seen.Before(r.Exit) {
			continue
		}
		if s := match.ContainerStatus(e.Pod, container); s != nil && s.RestartCount == k-1 && s.State.Terminated != nil {
			if e.Seen.After(r.Start) {
				return 0
			}
			return e.Seen.Sub(r.Exit)
		}
	}
	return 0
}
