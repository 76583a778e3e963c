package report

import "fmt"

// charts draws the document's charts: every delay table, every experiment with
// durations, every failed spec's saved timeline.
func (b *builder) charts() error {
	var err error
	for i := range b.doc.Delays {
		d := &b.doc.Delays[i]
		if d.Chart, err = delaysChart(shorten("restart delays on "+d.What, 90), d.Table); err != nil {
			return fmt.Errorf("chart of %s: %w", d.What, err)
		}
	}
	for i := range b.doc.Experiments {
		e := &b.doc.Experiments[i]
		if e.Chart, err = experimentChart(shorten(e.Name, 90), e.Rows); err != nil {
			return fmt.Errorf("chart of %s: %w", e.Name, err)
		}
	}
	for i := range b.doc.Failures {
		for j := range b.doc.Failures[i].Timelines {
			tl := &b.doc.Failures[i].Timelines[j]
			if tl.Chart, err = timelineChart("pod "+tl.Pod, tl.Rows); err != nil {
				return fmt.Errorf("chart of the timeline of %s: %w", tl.Pod, err)
			}
		}
	}
	return nil
}
