package match

import (
	"fmt"
	"time"

	"github.com/onsi/gomega/types"

	"github.com/podlifecycle/conformance/framework/observe"
)

// Ordering matchers over a pod's marker log (observe.Log), in the spirit of upstream's
// container_lifecycle_pod_construction.go: a spec states the documented order in one
// line, and a failure prints the whole log.
//
//	Expect(log).To(MarkBefore(observe.ExitOf("main"), observe.SignalTo("sidecar", "TERM")))

// markerMatcher adapts a check over a log to a Gomega matcher.
type markerMatcher struct {
	want  string
	check func(l observe.Log) (bool, string)
	seen  string
	log   observe.Log
}

func (m *markerMatcher) Match(actual any) (bool, error) {
	switch a := actual.(type) {
	case observe.Log:
		m.log = a
	case []observe.Marker:
		m.log = a
	default:
		return false, fmt.Errorf("marker matcher: expected an observe.Log, got %T", actual)
	}
	ok, seen := m.check(m.log)
	m.seen = seen
	return ok, nil
}

func (m *markerMatcher) FailureMessage(any) string {
	return fmt.Sprintf("expected the containers' markers to show %s\n    but %s\nmarkers:\n%s", m.want, m.seen, m.log)
}

func (m *markerMatcher) NegatedFailureMessage(any) string {
	return fmt.Sprintf("expected the containers' markers not to show %s\n    but they do (%s)\nmarkers:\n%s", m.want, m.seen, m.log)
}

// HaveMarked succeeds when e was marked.
func HaveMarked(e observe.Event) types.GomegaMatcher {
	return &markerMatcher{want: fmt.Sprintf("%q", e), check: func(l observe.Log) (bool, string) {
		at, ok := l.When(e)
		if !ok {
			return false, fmt.Sprintf("%q was never marked", e)
		}
		return true, fmt.Sprintf("%q at %s", e, at.UTC().Format("15:04:05.000"))
	}}
}

// MarkInOrder succeeds when every event was marked, each no earlier than the one
// before it. Markers have millisecond resolution, so two events in the same
// millisecond count as in order.
func MarkInOrder(events ...observe.Event) types.GomegaMatcher {
	return &markerMatcher{want: fmt.Sprintf("%v in this order", events), check: func(l observe.Log) (bool, string) {
		var prev time.Time
		for i, e := range events {
			at, ok := l.When(e)
			if !ok {
				return false, fmt.Sprintf("%q was never marked", e)
			}
			if i > 0 && at.Before(prev) {
				return false, fmt.Sprintf("%q came %dms before %q", e, prev.Sub(at).Milliseconds(), events[i-1])
			}
			prev = at
		}
		return true, "each in turn"
	}}
}

// MarkBefore succeeds when a and b were both marked and a came no later than b.
func MarkBefore(a, b observe.Event) types.GomegaMatcher { return MarkInOrder(a, b) }

// StartBefore: container a started no later than b.
func StartBefore(a, b string) types.GomegaMatcher {
	return MarkBefore(observe.StartOf(a), observe.StartOf(b))
}

// ExitBefore: container a marked its exit no later than b.
func ExitBefore(a, b string) types.GomegaMatcher {
	return MarkBefore(observe.ExitOf(a), observe.ExitOf(b))
}

// GetSignalBefore: a's trap for sig fired no later than b's.
func GetSignalBefore(a, b, sig string) types.GomegaMatcher {
	return MarkBefore(observe.SignalTo(a, sig), observe.SignalTo(b, sig))
}

// RunTogether succeeds when containers a and b were both started before either
// stopped: each started before the other's exit marker, or its last heartbeat when it
// marked none (it was killed).
func RunTogether(a, b string) types.GomegaMatcher {
	return &markerMatcher{want: fmt.Sprintf("%s and %s running together", a, b), check: func(l observe.Log) (bool, string) {
		end := func(c string) (time.Time, bool) {
			if at, ok := l.When(observe.ExitOf(c)); ok {
				return at, true
			}
			return l.When(observe.LastHeartbeatOf(c))
		}
		sa, okSA := l.When(observe.StartOf(a))
		sb, okSB := l.When(observe.StartOf(b))
		ea, okEA := end(a)
		eb, okEB := end(b)
		switch {
		case !okSA || !okSB:
			return false, "one of them never marked its start"
		case okEA && sb.After(ea):
			return false, fmt.Sprintf("%s started %dms after %s stopped", b, sb.Sub(ea).Milliseconds(), a)
		case okEB && sa.After(eb):
			return false, fmt.Sprintf("%s started %dms after %s stopped", a, sa.Sub(eb).Milliseconds(), b)
		}
		return true, "both started before either stopped"
	}}
}

// MarkWithin succeeds when b was marked between min and max after a (both inclusive).
// The spec states where min and max come from.
func MarkWithin(a, b observe.Event, min, max time.Duration) types.GomegaMatcher {
	return &markerMatcher{want: fmt.Sprintf("%q %v–%v after %q", b, min, max, a), check: func(l observe.Log) (bool, string) {
		d, ok := l.Between(a, b)
		if !ok {
			return false, fmt.Sprintf("%q or %q was never marked", a, b)
		}
		seen := fmt.Sprintf("%q came %dms after %q", b, d.Milliseconds(), a)
		return d >= min && d <= max, seen
	}}
}
