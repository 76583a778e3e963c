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
