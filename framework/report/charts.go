package report

import "fmt"

// ChartsDir is the directory, beside report.md, that holds its charts.
const ChartsDir = "report-charts"

// charts draws the document's charts: every delay table, every experiment with
// durations, every failed spec's saved timeline.
func (b *builder) charts() error {
	for i := range b.doc.Delays {
		d := &b.doc.Delays[i]
		svg, err := delaysChart("restart delays on "+shorten(d.What, 40), d.Table)
		if err != nil {
			return fmt.Errorf("chart of %s: %w", d.What, err)
		}
		d.Chart = chartOf(svg, "delays-%d.svg", i+1)
	}
	for i := range b.doc.Experiments {
		e := &b.doc.Experiments[i]
		svg, err := experimentChart(shorten(e.Name, 80), e.Rows)
		if err != nil {
			return fmt.Errorf("chart of %s: %w", e.Name, err)
		}
		e.Chart = chartOf(svg, "timings-%d.svg", i+1)
	}
	for i := range b.doc.Failures {
		for j := range b.doc.Failures[i].Timelines {
			tl := &b.doc.Failures[i].Timelines[j]
			svg, err := timelineChart("pod "+tl.Pod, tl.Rows)
			if err != nil {
				return fmt.Errorf("chart of the timeline of %s: %w", tl.Pod, err)
			}
			tl.Chart = chartOf(svg, "timeline-%d-%d.svg", i+1, j+1)
		}
	}
	return nil
}

// chartOf names a drawing's file; nil when there was nothing to draw.
func chartOf(svg []byte, format string, args ...any) *Chart {
	if svg == nil {
		return nil
	}
	return &Chart{File: ChartsDir + "/" + fmt.Sprintf(format, args...), SVG: svg}
}
