package observe

import (
	"fmt"
	"strings"
	"time"
)

// The events every marking script in the suites writes, so that ordering statements
// read the same everywhere: a container marks Started when its command begins, Exiting
// just before it exits on its own, Signal(name) in the trap for that signal, and
// Alive as a heartbeat while it waits (its last heartbeat is when it died, to within
// the heartbeat period, for a container killed without a chance to mark it).
const (
	Started = "started"
	Exiting = "exiting"
	Alive   = "alive"
)

// Signal is the event a trap for sig writes, e.g. Signal("TERM") is "got TERM".
func Signal(sig string) string { return "got " + strings.TrimPrefix(sig, "SIG") }

// Event names one marker: what a container wrote.
type Event struct {
	Container string
	Event     string
}

func (e Event) String() string { return e.Container + " " + e.Event }

// Constructors for the vocabulary of ordering statements: StartOf("main") reads as
// "main's start".
func StartOf(container string) Event         { return Event{container, Started} }
func ExitOf(container string) Event          { return Event{container, Exiting} }
func SignalTo(container, sig string) Event   { return Event{container, Signal(sig)} }
func MarkOf(container, event string) Event   { return Event{container, event} }
func LastHeartbeatOf(container string) Event { return Event{container, "last " + Alive} }
func (e Event) is(m Marker) bool             { return m.Container == e.Container && m.Event == e.Event }
func (e Event) lastHeartbeat() (string, bool) {
	c, ok := strings.CutPrefix(e.Event, "last ")
	return c, ok
}

// Log is a pod's markers in time order, with the questions ordering statements ask.
type Log []Marker

// When is the time of e: its first marker, or, for LastHeartbeatOf, the last
// heartbeat of that container.
func (l Log) When(e Event) (time.Time, bool) {
	if ev, ok := e.lastHeartbeat(); ok {
		var at time.Time
		found := false
		for _, m := range l {
			if m.Container == e.Container && m.Event == ev {
				at, found = m.At, true
			}
		}
		return at, found
	}
	for _, m := range l {
		if e.is(m) {
			return m.At, true
		}
	}
	return time.Time{}, false
}

// Between is the time from a to b, and whether both were marked.
func (l Log) Between(a, b Event) (time.Duration, bool) {
	ta, okA := l.When(a)
	tb, okB := l.When(b)
	return tb.Sub(ta), okA && okB
}

// Count is how many markers e has (heartbeats, restarts).
func (l Log) Count(e Event) int {
	n := 0
	for _, m := range l {
		if e.is(m) {
			n++
		}
	}
	return n
}

// Of returns the markers of one container, in order.
func (l Log) Of(container string) Log {
	return l.where(func(m Marker) bool { return m.Container == container })
}

// After returns the markers written after t.
func (l Log) After(t time.Time) Log { return l.where(func(m Marker) bool { return m.At.After(t) }) }

// WithEvent returns the markers of event, whichever container wrote them.
func (l Log) WithEvent(event string) Log {
	return l.where(func(m Marker) bool { return m.Event == event })
}

func (l Log) where(keep func(Marker) bool) Log {
	var out Log
	for _, m := range l {
		if keep(m) {
			out = append(out, m)
		}
	}
	return out
}

// Containers returns the container of each marker, in order.
func (l Log) Containers() []string {
	out := make([]string, len(l))
	for i, m := range l {
		out[i] = m.Container
	}
	return out
}

// Events returns the event names of the markers, in order.
func (l Log) Events() []string {
	out := make([]string, len(l))
	for i, m := range l {
		out[i] = m.Event
	}
	return out
}

// String renders the log one marker a line, with offsets from the first marker;
// heartbeats are summed up per container at the end (count, first, last), so a failure
// message stays readable and still shows when each container was last alive.
func (l Log) String() string {
	if len(l) == 0 {
		return "(no markers)"
	}
	var b strings.Builder
	t0 := l[0].At
	type beats struct {
		n           int
		first, last time.Time
	}
	var order []string
	hb := map[string]*beats{}
	for _, m := range l {
		if m.Event == Alive {
			h := hb[m.Container]
			if h == nil {
				h = &beats{first: m.At}
				hb[m.Container] = h
				order = append(order, m.Container)
			}
			h.n++
			h.last = m.At
			continue
		}
		fmt.Fprintf(&b, "  +%6dms %s\n", m.At.Sub(t0).Milliseconds(), m)
	}
	for _, c := range order {
		h := hb[c]
		fmt.Fprintf(&b, "  %s: %d heartbeats, first +%dms, last +%dms\n", c, h.n, h.first.Sub(t0).Milliseconds(), h.last.Sub(t0).Milliseconds())
	}
	return b.String()
}
