package render

import (
	"image/color"
	"slices"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/podlifecycle/conformance/framework/report"
)

// runChart draws where a run's wall time went: a lane per suite (the set-up first),
// a bar for each span, so that time no suite used shows as a gap.
func runChart(spans []report.RunSpan) ([]byte, error) {
	if len(spans) == 0 {
		return nil, nil
	}
	rows := report.SpanRows(spans)
	var lanes []string
	var end time.Duration
	for _, r := range rows {
		if !slices.Contains(lanes, r.Lane) {
			lanes = append(lanes, r.Lane)
		}
		end = max(end, r.From+r.For)
	}
	p := newPlot("where the run's time went")
	p.X.Label.Text = "minutes since the run started"
	y := func(lane string) float64 { return float64(len(lanes) - slices.Index(lanes, lane)) }
	inLegend := map[string]bool{}
	for _, s := range rows {
		line, err := plotter.NewLine(plotter.XYs{{X: s.From.Minutes(), Y: y(s.Lane)}, {X: (s.From + s.For).Minutes(), Y: y(s.Lane)}})
		if err != nil {
			return nil, err
		}
		line.Color, line.Width = spanColour(s.Kind), vg.Points(9)
		if s.Kind == report.SpanQuiet {
			line.Width = vg.Points(5) // over the suite's bar when they overlap
		}
		p.Add(line)
		if !inLegend[s.Kind] {
			inLegend[s.Kind] = true
			p.Legend.Add(s.Kind, line)
		}
	}
	var ticks plot.ConstantTicks
	for _, l := range lanes {
		ticks = append(ticks, plot.Tick{Value: y(l), Label: withoutClusterHash(l)})
	}
	p.Y.Tick.Marker = ticks
	p.Y.Min, p.Y.Max = 0.3, float64(len(lanes))+0.7
	p.X.Min, p.X.Max = 0, max(end.Minutes(), 0.1)*1.02
	return svgOf(p, 8*vg.Inch, vg.Length(len(lanes))*0.32*vg.Inch+1.2*vg.Inch)
}

func spanColour(kind string) color.Color {
	switch kind {
	case report.SpanSetup:
		return rgb(colourTerminated)
	case report.SpanQuiet:
		return rgb(colourMeasured)
	default:
		return rgb(colourSucceeded)
	}
}
