package report

import (
	"time"

	"github.com/onsi/ginkgo/v2/types"
)

// RunSpan is a stretch of a run's wall time, for the report's timeline of where the
// time went: the images and clusters before the suites, each suite's Ginkgo, and the
// span of its Quiet (Serial) specs, which run alone.
type RunSpan struct {
	Lane       string // SetupLane, or the suite and its column ("suites/restart · v1.37.2 · default")
	Kind       string // SpanSetup, SpanSuite or SpanQuiet
	Start, End time.Time
}

// The kinds of span, and the lane of the run's set-up.
const (
	SpanSetup = "images and clusters"
	SpanSuite = "suite"
	SpanQuiet = "its Serial specs"
	SetupLane = "before the suites"
)

// suiteSpans are a suite's span and that of the Serial specs it ran (from the first's
// start to the last's end: side by side, they ran after the others, one suite after
// another).
func suiteSpans(dir string, col Column, suite types.Report) []RunSpan {
	lane := dir + " · " + col.Label()
	var out []RunSpan
	if !suite.StartTime.IsZero() && suite.EndTime.After(suite.StartTime) {
		out = append(out, RunSpan{Lane: lane, Kind: SpanSuite, Start: suite.StartTime, End: suite.EndTime})
	}
	var quiet RunSpan
	for _, s := range suite.SpecReports {
		if s.LeafNodeType != types.NodeTypeIt || !s.IsSerial || s.StartTime.IsZero() || !s.EndTime.After(s.StartTime) ||
			s.State == types.SpecStateSkipped {
			continue
		}
		if quiet.Start.IsZero() || s.StartTime.Before(quiet.Start) {
			quiet.Start = s.StartTime
		}
		if s.EndTime.After(quiet.End) {
			quiet.End = s.EndTime
		}
	}
	if !quiet.Start.IsZero() {
		quiet.Lane, quiet.Kind = lane, SpanQuiet
		out = append(out, quiet)
	}
	return out
}

// SpanRow is a span as a table shows it: from the run's first moment, and how long.
type SpanRow struct {
	Lane, Kind string
	From, For  time.Duration
}

// SpanRows are spans relative to the earliest start among them.
func SpanRows(spans []RunSpan) []SpanRow {
	if len(spans) == 0 {
		return nil
	}
	t0 := spans[0].Start
	for _, s := range spans {
		if s.Start.Before(t0) {
			t0 = s.Start
		}
	}
	out := make([]SpanRow, len(spans))
	for i, s := range spans {
		out[i] = SpanRow{Lane: s.Lane, Kind: s.Kind, From: s.Start.Sub(t0).Round(time.Second), For: s.End.Sub(s.Start).Round(time.Second)}
	}
	return out
}
