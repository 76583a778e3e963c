package render

import (
	"strings"
	"time"

	"github.com/podlifecycle/conformance/framework/report"
)

// lane is one row of a timeline chart: the pod's phase, or one container's state, as
// it changed over time.
type lane struct {
	Name  string
	Spans []span
}

// span is a state held from From to To (offsets from the first observation).
type span struct {
	From, To time.Duration
	State    string // "Pending", "Running", "Waiting", "Terminated", …
}

// phaseLane names the lane of the pod's phase.
const phaseLane = "pod phase"

// lanesOf turns a timeline's observations into lanes: the pod's phase and each
// container's state kind, read from the one-line summaries framework/observe writes
// ("phase=Running … | app: Running(since 10:00:01) restarts=0 ready=true"); and the
// offsets of the events seen. A deletion ends every lane.
func lanesOf(rows []report.TimelineRow) (lanes []lane, events []time.Duration) {
	index := map[string]int{}
	open := map[string]*span{}
	end := func(name string, at time.Duration) {
		if s := open[name]; s != nil {
			s.To = at
			lanes[index[name]].Spans = append(lanes[index[name]].Spans, *s)
			delete(open, name)
		}
	}
	set := func(name, state string, at time.Duration) {
		if _, ok := index[name]; !ok {
			index[name] = len(lanes)
			lanes = append(lanes, lane{Name: name})
		}
		if s := open[name]; s != nil && s.State == state {
			return
		}
		end(name, at)
		open[name] = &span{From: at, State: state}
	}
	var last time.Duration
	for _, r := range rows {
		last = r.Offset
		switch r.Kind {
		case "event":
			events = append(events, r.Offset)
		case "deleted":
			for _, l := range lanes {
				end(l.Name, r.Offset)
			}
		case "pod":
			for _, ls := range statesOf(r.Summary) {
				set(ls.Lane, ls.State, r.Offset)
			}
		}
	}
	for _, l := range lanes {
		end(l.Name, last)
	}
	return lanes, events
}

// laneState is a lane's state in one observation.
type laneState struct{ Lane, State string }

// statesOf reads a pod summary into the state of each lane it mentions, in the
// summary's order (phase, then containers as the pod lists them).
func statesOf(summary string) []laneState {
	parts := strings.Split(summary, " | ")
	var out []laneState
	for _, field := range strings.Fields(parts[0]) {
		if phase, ok := strings.CutPrefix(field, "phase="); ok {
			out = append(out, laneState{phaseLane, phase})
		}
	}
	for _, c := range parts[1:] {
		name, rest, ok := strings.Cut(c, ": ")
		if !ok {
			continue
		}
		kind, _, _ := strings.Cut(rest, "(")
		kind, _, _ = strings.Cut(kind, " ")
		out = append(out, laneState{name, kind})
	}
	return out
}
