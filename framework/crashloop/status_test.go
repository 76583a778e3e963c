package crashloop

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podlifecycle/conformance/framework/observe"
)

func crasherAt(uid types.UID, at time.Time, restarts int32, state corev1.ContainerState, exited bool) observe.Entry {
	s := corev1.ContainerStatus{Name: "crasher", RestartCount: restarts, State: state}
	if exited {
		s.LastTerminationState.Terminated = &corev1.ContainerStateTerminated{ExitCode: 1}
	}
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{UID: uid}, Status: corev1.PodStatus{ContainerStatuses: []corev1.ContainerStatus{s}}}
	return observe.Entry{Seen: at, Kind: "pod", Pod: p}
}

var (
	running    = corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}
	terminated = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error"}}
	backingOff = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}}
)

func TestBackoffStatusesSplitsByRestartAndPod(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	entries := []observe.Entry{
		// an earlier pod of the same name: left out
		crasherAt("old", at(0), 3, terminated, true),
		crasherAt("new", at(100), 0, running, false),
		crasherAt("new", at(200), 0, terminated, false), // exit; restart 1 at once
		crasherAt("new", at(300), 1, running, true),
		crasherAt("new", at(400), 1, terminated, true), // exit; backoff 10 s
		crasherAt("new", at(1400), 1, backingOff, true),
		crasherAt("new", at(10500), 2, running, true),
		crasherAt("new", at(10600), 2, terminated, true), // exit; backoff 20 s cut short
		crasherAt("new", at(11600), 2, backingOff, true),
	}
	expected := []time.Duration{0, 10 * time.Second, 20 * time.Second}
	got := BackoffStatuses(entries, "new", "crasher", expected)
	if len(got) != 2 {
		t.Fatalf("want the two backoffs that ended, got %v", got)
	}
	if got[0].Restart != 1 || got[0].Terminated != 100*time.Millisecond || got[0].Waiting != 0 {
		t.Errorf("restart 1: %v", got[0])
	}
	if got[1].Restart != 2 || got[1].Delay != 10*time.Second || got[1].Terminated != time.Second || got[1].Waiting != 9100*time.Millisecond {
		t.Errorf("restart 2: %v", got[1])
	}
}

func TestMeasureDelaysTakesTheKubeletsFirstReportOfEachExit(t *testing.T) {
	t0 := time.Unix(2000, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	mark := func(ms int, event string) observe.Marker {
		return observe.Marker{At: at(ms), Container: "crasher", Event: event}
	}
	ms := []observe.Marker{
		mark(0, "start"), mark(10, "exit"), // reported 4000 ms later, restarted 1000 ms after that
		mark(5010, "start"), mark(5020, "exit"), // reported after 900 ms, held back by the 10 s backoff
		mark(15500, "start"), mark(15510, "exit"), // reported only after the next start: not known
		mark(16500, "start"), mark(16510, "exit"), // never reported Terminated
		mark(17000, "start"),
	}
	entries := []observe.Entry{
		crasherAt("old", at(3000), 0, terminated, false), // another pod of the same name
		crasherAt("p", at(4010), 0, terminated, false),
		crasherAt("p", at(5100), 1, running, true),
		crasherAt("p", at(5920), 1, terminated, true),
		crasherAt("p", at(6900), 1, backingOff, true),
		crasherAt("p", at(15600), 2, running, true),
		crasherAt("p", at(16550), 2, terminated, true), // written before the start, seen after it
		crasherAt("p", at(16600), 3, running, true),
	}
	loop := MeasureDelays(ms, entries, "p", "crasher", 4)
	wantDelays := []time.Duration{5000 * time.Millisecond, 10480 * time.Millisecond, 990 * time.Millisecond, 490 * time.Millisecond}
	wantDetected := []time.Duration{4000 * time.Millisecond, 900 * time.Millisecond, 0, 0}
	for i := range wantDelays {
		if loop.Delays[i] != wantDelays[i] || loop.Detected[i] != wantDetected[i] {
			t.Errorf("delay %d: got %s detected %s, want %s detected %s", i+1, loop.Delays[i], loop.Detected[i], wantDelays[i], wantDetected[i])
		}
	}
}

// The kubelet's own delay is its call less the runtime's time on the pod's other
// containers once the backoff ran out; a start of another container during the
// backoff is not taken off; unknown calls leave the marker model.
func TestOwnDelayLeavesTheOtherContainersStartsOut(t *testing.T) {
	exit := time.Date(2026, 12, 6, 5, 0, 0, 0, time.UTC)
	after := func(ms int) time.Time { return exit.Add(time.Duration(ms) * time.Millisecond) }
	l := Loop{
		Delays:    []time.Duration{3 * time.Second, 14 * time.Second},
		Detected:  []time.Duration{0, 800 * time.Millisecond},
		Called:    []time.Duration{0, 12283 * time.Millisecond},
		Runtime:   []time.Duration{0, 1700 * time.Millisecond},
		container: "crasher-2",
		exits:     []time.Time{exit.Add(-time.Minute), exit},
		starts: []observe.RuntimeStart{
			{Container: "crasher", Attempt: 2, CreateCalled: after(10_300), Started: after(12_200)}, // in this sync
			{Container: "crasher", Attempt: 1, CreateCalled: after(900), Started: after(2_000)},     // during the backoff
		},
	}
	if w := l.Waited(1, 10*time.Second); w != 1900*time.Millisecond {
		t.Errorf("Waited(1) = %v, want 1.9s (the start during the backoff left out)", w)
	}
	if own := l.Own(1, 10*time.Second); own != 10383*time.Millisecond {
		t.Errorf("Own(1) = %v, want 10.383s", own)
	}
	if !l.Within(1, 10*time.Second) {
		t.Error("a call 2.3 s past the backoff, 1.9 s of it the runtime starting the other crasher, is the kubelet's 0.4 s")
	}
	if l.Own(0, 0) != 0 || !l.Within(0, 0) {
		t.Errorf("restart 1 has no call: the marker model (3 s within 4.5 s) decides")
	}
	if _, all := l.Owns([]time.Duration{0, 10 * time.Second}); all {
		t.Error("Owns with restart 1's call unknown")
	}
}
