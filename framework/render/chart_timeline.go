package render

import (
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/podlifecycle/conformance/framework/report"
)

// timelineChart draws a pod's timeline as lanes: its phase and each container's state
// over time, with a mark for every event seen.
func timelineChart(title string, rows []report.TimelineRow) ([]byte, error) {
	lanes, events := lanesOf(rows)
	if len(lanes) == 0 {
		return nil, nil
	}
	p := newPlot(title)
	p.X.Label.Text = "seconds since the first observation"
	// Lanes from the top: the phase first, then the containers as the pod lists them,
	// then the events.
	y := func(i int) float64 { return float64(len(lanes) - i) }
	var ticks plot.ConstantTicks
	inLegend := map[string]bool{}
	for i, l := range lanes {
		ticks = append(ticks, plot.Tick{Value: y(i), Label: l.Name})
		for _, s := range l.Spans {
			to := s.To
			if to == s.From {
				// A state seen once at the end: wide enough to see.
				to = s.From + max(to/100, 1)
			}
			line, err := plotter.NewLine(plotter.XYs{{X: s.From.Seconds(), Y: y(i)}, {X: to.Seconds(), Y: y(i)}})
			if err != nil {
				return nil, err
			}
			line.Color = stateColour(s.State)
			line.Width = vg.Points(9)
			p.Add(line)
			if !inLegend[s.State] {
				inLegend[s.State] = true
				p.Legend.Add(s.State, line)
			}
		}
	}
	if len(events) > 0 {
		ticks = append(ticks, plot.Tick{Value: 0, Label: "events"})
		xys := make(plotter.XYs, len(events))
		for i, e := range events {
			xys[i] = plotter.XY{X: e.Seconds(), Y: 0}
		}
		marks, err := plotter.NewScatter(xys)
		if err != nil {
			return nil, err
		}
		marks.GlyphStyle = draw.GlyphStyle{Color: rgb(colourEvent), Radius: vg.Points(3), Shape: draw.CrossGlyph{}}
		p.Add(marks)
		p.Legend.Add(fmt.Sprintf("event (%d)", len(events)), marks)
	}
	p.Y.Tick.Marker = ticks
	p.Y.Min, p.Y.Max = -0.7, float64(len(lanes))+0.7
	p.X.Tick.Marker = wholeTicks{}
	p.X.Min, p.X.Max = 0, max(rows[len(rows)-1].Offset.Seconds(), 1)*1.02
	return svgOf(p, 7*vg.Inch, vg.Length(len(lanes)+2)*0.45*vg.Inch+1.2*vg.Inch)
}
