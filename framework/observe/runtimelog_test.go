package observe

import (
	"strings"
	"testing"
	"time"
)

// Lines as containerd v2.4.2 writes them to the journal (journalctl -o cat), with a
// second container's stop and another message in between.
const runtimeLog = `time="2026-12-06T04:10:00.100000000Z" level=info msg="StopContainer for \"aaa111\" with timeout 30 (s)"
time="2026-12-06T04:10:00.100200000Z" level=info msg="StopContainer for \"bbb222\" with timeout 2 (s)"
time="2026-12-06T04:10:00.101000000Z" level=info msg="Stop container \"aaa111\" with signal terminated"
time="2026-12-06T04:10:00.101500000Z" level=info msg="Stop container \"bbb222\" with signal terminated"
time="2026-12-06T04:10:01.000000000Z" level=info msg="received exit event container_id:\"bbb222\""
time="2026-12-06T04:10:30.102000000Z" level=info msg="Kill container \"aaa111\""
time="2026-12-06T04:10:30.500000000Z" level=info msg="StopContainer for \"ccc333\" with timeout 5 (s)"
`

func TestParseRuntimeStops(t *testing.T) {
	stops, err := ParseRuntimeStops(strings.NewReader(runtimeLog), map[string]string{"aaa111": "main", "bbb222": "sidecar"})
	if err != nil {
		t.Fatal(err)
	}
	if len(stops) != 2 {
		t.Fatalf("want the stops of main and sidecar, got %v", stops)
	}
	main, sidecar := stops[0], stops[1]
	if main.Container != "main" || main.Timeout != 30*time.Second || main.Signal != "terminated" {
		t.Errorf("main: %v", main)
	}
	if d := main.Killed.Sub(main.Signaled); d != 30001*time.Millisecond {
		t.Errorf("main: stop signal → SIGKILL %v, want 30.001s", d)
	}
	if !sidecar.Killed.IsZero() || sidecar.Timeout != 2*time.Second {
		t.Errorf("sidecar stopped in time with a grace of 2 s: %v", sidecar)
	}
	if got := RuntimeStopsOf(stops, "sidecar"); len(got) != 1 || got[0].Called != sidecar.Called {
		t.Errorf("RuntimeStopsOf(sidecar) = %v", got)
	}
}

func TestContainerIDOf(t *testing.T) {
	if id := ContainerIDOf("containerd://0123abcdef"); id != "0123abcdef" {
		t.Errorf("ContainerIDOf = %q", id)
	}
	if id := ContainerIDOf(""); id != "" {
		t.Errorf("ContainerIDOf(\"\") = %q", id)
	}
}

// A crash loop's pod (uid p-1) and another pod's container of the same name, as
// containerd v2.4.2 logs them; the metadata's spacing varies as Go's protobuf text
// makes it vary.
const startLog = `time="2026-12-06T05:00:00.000000000Z" level=info msg="RunPodSandbox for name:\"crash\"  uid:\"p-1\"  namespace:\"ns\""
time="2026-12-06T05:00:00.900000000Z" level=info msg="RunPodSandbox for name:\"crash\"  uid:\"p-1\"  namespace:\"ns\" returns sandbox id \"5a1\""
time="2026-12-06T05:00:00.950000000Z" level=info msg="RunPodSandbox for name:\"other\" uid:\"p-2\" namespace:\"ns\" returns sandbox id \"5b2\""
time="2026-12-06T05:00:01.000000000Z" level=info msg="CreateContainer within sandbox \"5a1\" for container name:\"crasher\""
time="2026-12-06T05:00:01.010000000Z" level=info msg="CreateContainer within sandbox \"5b2\" for container name:\"crasher\""
time="2026-12-06T05:00:01.400000000Z" level=info msg="CreateContainer within sandbox \"5a1\" for name:\"crasher\" returns container id \"c0\""
time="2026-12-06T05:00:01.410000000Z" level=info msg="StartContainer for \"c0\""
time="2026-12-06T05:00:01.700000000Z" level=info msg="StartContainer for \"c0\" returns successfully"
time="2026-12-06T05:00:12.000000000Z" level=info msg="CreateContainer within sandbox \"5a1\" for container name:\"crasher\"  attempt:1"
time="2026-12-06T05:00:14.500000000Z" level=info msg="CreateContainer within sandbox \"5a1\" for name:\"crasher\"  attempt:1 returns container id \"c1\""
time="2026-12-06T05:00:14.520000000Z" level=info msg="StartContainer for \"c1\""
`

func TestParseRuntimeStartsKeepsThePodsOwnAttempts(t *testing.T) {
	starts, err := ParseRuntimeStarts(strings.NewReader(startLog), "p-1")
	if err != nil {
		t.Fatal(err)
	}
	if len(starts) != 2 {
		t.Fatalf("want the two starts of p-1's crasher, got %+v", starts)
	}
	first, ok := RuntimeStartOf(starts, "crasher", 1)
	if !ok || first.ID != "c1" || first.Created.Sub(first.CreateCalled) != 2500*time.Millisecond {
		t.Fatalf("attempt 1: %+v", first)
	}
	// Made in 2.5 s, started 20 ms after, its first marker 1 s after the start call.
	share, ok := first.RuntimeShare(first.StartCalled.Add(time.Second))
	if !ok || share != 3500*time.Millisecond {
		t.Errorf("runtime share %v, want 3.5s", share)
	}
	if _, ok := starts[0].RuntimeShare(starts[0].StartCalled.Add(-time.Millisecond)); ok {
		t.Error("a marker before the start call is not this start's")
	}
}

// Two crashers of one pod restarted in one sync: the second's create call waits for
// the first's create and start; RuntimeBusy counts that wait, and nothing of the
// container's own start or of starts outside the window.
func TestRuntimeBusyCountsThePodsOtherStartsInTheWindow(t *testing.T) {
	at := func(ms int) time.Time {
		return time.Date(2026, 12, 6, 5, 0, 0, 0, time.UTC).Add(time.Duration(ms) * time.Millisecond)
	}
	starts := []RuntimeStart{
		{Container: "crasher", Attempt: 2, CreateCalled: at(10_400), StartCalled: at(11_500), Started: at(12_300)},
		{Container: "crasher-2", Attempt: 2, CreateCalled: at(12_350), StartCalled: at(12_900), Started: at(13_400)},
		{Container: "crasher", Attempt: 1, CreateCalled: at(100), Started: at(900)}, // before the exit
	}
	if got := RuntimeBusy(starts, "crasher-2", at(0+500), at(12_350)); got != 1900*time.Millisecond {
		t.Errorf("crasher-2 waited %v on crasher's start, want 1.9s", got)
	}
	if got := RuntimeBusy(starts, "crasher", at(500), at(10_400)); got != 0 {
		t.Errorf("crasher's call waited on nothing, got %v", got)
	}
}
