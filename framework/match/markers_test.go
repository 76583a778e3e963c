package match

import (
	"strings"
	"testing"
	"time"

	"github.com/podlifecycle/conformance/framework/observe"
)

func logOf(lines ...string) observe.Log {
	l, err := observe.ParseMarkers(strings.NewReader(strings.Join(lines, "\n")))
	if err != nil {
		panic(err)
	}
	return l
}

// A sidecar pod's termination: main exits, then the two sidecars in reverse order.
var sidecarLog = logOf(
	"1700000000000 sidecar-1 started",
	"1700000000010 sidecar-2 started",
	"1700000000100 main started",
	"1700000001000 main alive",
	"1700000002000 main got TERM",
	"1700000002500 main exiting",
	"1700000002600 sidecar-2 got TERM",
	"1700000002700 sidecar-2 exiting",
	"1700000002800 sidecar-1 got TERM",
	"1700000002900 sidecar-1 alive",
)

func TestOrderingMatchers(t *testing.T) {
	cases := []struct {
		name    string
		matcher interface {
			Match(any) (bool, error)
			FailureMessage(any) string
		}
		want    bool
		message string // part of the failure message when want is false
	}{
		{"exit before sidecar TERM", MarkBefore(observe.ExitOf("main"), observe.SignalTo("sidecar-2", "SIGTERM")), true, ""},
		{"reverse order holds", MarkInOrder(observe.ExitOf("sidecar-2"), observe.SignalTo("sidecar-1", "TERM")), true, ""},
		{"wrong order fails", GetSignalBefore("sidecar-1", "sidecar-2", "TERM"), false, `"sidecar-2 got TERM" came 200ms before "sidecar-1 got TERM"`},
		{"missing marker fails", ExitBefore("main", "sidecar-1"), false, `"sidecar-1 exiting" was never marked`},
		{"started in order", StartBefore("sidecar-1", "main"), true, ""},
		{"ran together", RunTogether("main", "sidecar-1"), true, ""},
		{"did not run together", RunTogether("main", "late"), false, "never marked its start"},
		{"within bounds", MarkWithin(observe.SignalTo("main", "TERM"), observe.ExitOf("main"), 400*time.Millisecond, 600*time.Millisecond), true, ""},
		{"out of bounds", MarkWithin(observe.SignalTo("main", "TERM"), observe.ExitOf("main"), 0, 100*time.Millisecond), false, `"main exiting" came 500ms after "main got TERM"`},
		{"last heartbeat", MarkWithin(observe.SignalTo("sidecar-1", "TERM"), observe.LastHeartbeatOf("sidecar-1"), 100*time.Millisecond, 100*time.Millisecond), true, ""},
	}
	for _, c := range cases {
		ok, err := c.matcher.Match(sidecarLog)
		if err != nil || ok != c.want {
			t.Errorf("%s: got %v, %v; want %v", c.name, ok, err, c.want)
			continue
		}
		if !c.want {
			msg := c.matcher.FailureMessage(sidecarLog)
			if !strings.Contains(msg, c.message) || !strings.Contains(msg, "sidecar-2 got TERM") {
				t.Errorf("%s: the failure message should say %q and show the whole log; got:\n%s", c.name, c.message, msg)
			}
		}
	}
}

func TestLogString(t *testing.T) {
	s := sidecarLog.String()
	for _, want := range []string{"+     0ms", "main: 1 heartbeats, first +1000ms, last +1000ms", "sidecar-1: 1 heartbeats"} {
		if !strings.Contains(s, want) {
			t.Errorf("log rendering lacks %q:\n%s", want, s)
		}
	}
}
