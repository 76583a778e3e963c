package render

import (
	"fmt"
	"regexp"
	"slices"

	"github.com/podlifecycle/conformance/framework/report"
)

// ChartsDir is the directory, beside report.md, that holds its charts.
const ChartsDir = "report-charts"

// Chart is an SVG drawing, and the file it is written to beside report.md (the HTML
// has it inline).
type Chart struct {
	File string // relative to the report's directory
	SVG  []byte
}

// Charts are a document's drawings, each aligned with what it draws: Delays[i] is
// doc.Delays[i]'s, Experiments[i] doc.Experiments[i]'s, Timelines[i][j]
// doc.Failures[i].Timelines[j]'s; nil where there was nothing to draw.
type Charts struct {
	Delays      []*Chart
	Experiments []*Chart
	Timelines   [][]*Chart
	Run         *Chart // doc.Spans: where the run's time went
}

// Draw draws the document's charts: every delay table, every experiment with
// durations, every failed spec's saved timeline.
func Draw(doc report.Document) (Charts, error) {
	c := Charts{Delays: make([]*Chart, len(doc.Delays)), Experiments: make([]*Chart, len(doc.Experiments)),
		Timelines: make([][]*Chart, len(doc.Failures))}
	for i, d := range doc.Delays {
		svg, err := delaysChart("restart delays on "+withoutClusterHash(d.What), d.Table)
		if err != nil {
			return Charts{}, fmt.Errorf("chart of %s: %w", d.What, err)
		}
		c.Delays[i] = chartOf(svg, "delays-%d.svg", i+1)
	}
	for i, e := range doc.Experiments {
		svg, err := experimentChart(withoutClusterHash(e.Name), e.Rows)
		if err != nil {
			return Charts{}, fmt.Errorf("chart of %s: %w", e.Name, err)
		}
		c.Experiments[i] = chartOf(svg, "timings-%d.svg", i+1)
	}
	svg, err := runChart(doc.Spans)
	if err != nil {
		return Charts{}, fmt.Errorf("chart of the run's time: %w", err)
	}
	c.Run = chartOf(svg, "run.svg")
	for i, f := range doc.Failures {
		c.Timelines[i] = make([]*Chart, len(f.Timelines))
		for j, tl := range f.Timelines {
			svg, err := timelineChart("pod "+tl.Pod, tl.Rows)
			if err != nil {
				return Charts{}, fmt.Errorf("chart of the timeline of %s: %w", tl.Pod, err)
			}
			c.Timelines[i][j] = chartOf(svg, "timeline-%d-%d.svg", i+1, j+1)
		}
	}
	return c, nil
}

// All is every chart drawn.
func (c Charts) All() []*Chart {
	out := append(append(slices.Clone(c.Delays), c.Experiments...), c.Run)
	for _, tls := range c.Timelines {
		out = append(out, tls...)
	}
	return slices.DeleteFunc(out, func(ch *Chart) bool { return ch == nil })
}

// chartOf names a drawing's file; nil when there was nothing to draw.
func chartOf(svg []byte, format string, args ...any) *Chart {
	if svg == nil {
		return nil
	}
	return &Chart{File: ChartsDir + "/" + fmt.Sprintf(format, args...), SVG: svg}
}

// clusterHash is the suffix that makes a run's cluster names unique
// ("plc-default-ddb4f355-worker2"): it tells runs apart, not nodes, so a chart one
// would paste into a bug report names the node as "default/worker2".
var clusterHash = regexp.MustCompile(`\bplc-([a-z0-9-]+?)-[0-9a-f]{8}-`)

func withoutClusterHash(s string) string { return clusterHash.ReplaceAllString(s, "$1/") }
