package render

import (
	"fmt"
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/podlifecycle/conformance/framework/backoff"
	"github.com/podlifecycle/conformance/framework/report"
)

// delaysChart draws a crash loop's restart delays: the documented delay, the range
// the tolerance model allows around it, and the delay measured, per restart.
func delaysChart(title string, t backoff.DelayTable) ([]byte, error) {
	p := newPlot(title)
	p.X.Label.Text = "restart"
	p.Y.Label.Text = "delay (ms)"
	var expected, measured, outside plotter.XYs
	var allowed ranges
	var ticks plot.ConstantTicks
	var highest float64
	for _, d := range t {
		highest = max(highest, float64(d.MaxMs), float64(d.MeasuredMs))
		x := float64(d.Restart)
		ticks = append(ticks, plot.Tick{Value: x, Label: fmt.Sprint(d.Restart)})
		expected = append(expected, plotter.XY{X: x, Y: float64(d.ExpectedMs)})
		allowed = append(allowed, valueRange{At: x, Mid: float64(d.ExpectedMs), Min: float64(d.MinMs), Max: float64(d.MaxMs)})
		point := plotter.XY{X: x, Y: float64(d.MeasuredMs)}
		if d.MeasuredMs < d.MinMs || d.MeasuredMs > d.MaxMs {
			outside = append(outside, point)
		} else {
			measured = append(measured, point)
		}
	}
	bars, err := plotter.NewYErrorBars(allowed)
	if err != nil {
		return nil, err
	}
	bars.Color = rgb(colourAllowed)
	bars.Width = vg.Points(2)
	line, points, err := plotter.NewLinePoints(expected)
	if err != nil {
		return nil, err
	}
	line.Color, points.Color = rgb(colourExpected), rgb(colourExpected)
	p.Add(bars, line, points)
	p.Legend.Add("allowed", legendLine(bars.LineStyle))
	p.Legend.Add("documented", line, points)
	if err := addPoints(p, measured, "measured", rgb(colourMeasured)); err != nil {
		return nil, err
	}
	if err := addPoints(p, outside, "measured, outside the range", rgb(colourOutside)); err != nil {
		return nil, err
	}
	p.X.Tick.Marker = ticks
	p.X.Min, p.X.Max = 0.5, float64(len(t))+0.5
	p.Y.Tick.Marker = wholeTicks{}
	p.Y.Min, p.Y.Max = 0, highest*1.05
	return svgOf(p, 6*vg.Inch, 3.4*vg.Inch)
}

// experimentChart draws a gmeasure experiment's durations against the ranges the spec
// allowed: one row per measurement.
func experimentChart(title string, rows []report.MeasurementRow) ([]byte, error) {
	var charted []report.MeasurementRow
	for _, r := range rows {
		if r.Unit == "ms" && len(r.Measured) > 0 {
			charted = append(charted, r)
		}
	}
	if len(charted) == 0 {
		return nil, nil
	}
	p := newPlot(title)
	p.X.Label.Text = "ms"
	y := func(i int) float64 { return float64(len(charted) - i) }
	var allowed ranges
	var measured, outside plotter.XYs
	var ticks plot.ConstantTicks
	var highest float64
	for i, r := range charted {
		// Two lines of a row's name at most beside its bar; the table below has it whole.
		ticks = append(ticks, plot.Tick{Value: y(i), Label: wrap(shorten(r.Name, 80), p.Y.Tick.Label, 2.8*vg.Inch)})
		if r.HasRange {
			highest = max(highest, r.Max)
			allowed = append(allowed, valueRange{At: y(i), Mid: (r.Min + r.Max) / 2, Min: r.Min, Max: r.Max})
		}
		for _, v := range r.Measured {
			highest = max(highest, v)
			if r.HasRange && (v < r.Min || v > r.Max) {
				outside = append(outside, plotter.XY{X: v, Y: y(i)})
			} else {
				measured = append(measured, plotter.XY{X: v, Y: y(i)})
			}
		}
	}
	if len(allowed) > 0 {
		bars, err := plotter.NewXErrorBars(horizontal{allowed})
		if err != nil {
			return nil, err
		}
		bars.Color = rgb(colourAllowed)
		bars.Width = vg.Points(2)
		p.Add(bars)
		p.Legend.Add("allowed", legendLine(bars.LineStyle))
	}
	if err := addPoints(p, measured, "measured", rgb(colourMeasured)); err != nil {
		return nil, err
	}
	if err := addPoints(p, outside, "measured, outside the range", rgb(colourOutside)); err != nil {
		return nil, err
	}
	p.Y.Tick.Marker = ticks
	p.Y.Min, p.Y.Max = 0.4, float64(len(charted))+0.6
	p.X.Tick.Marker = wholeTicks{}
	p.X.Min, p.X.Max = 0, highest*1.05
	return svgOf(p, 8*vg.Inch, vg.Length(len(charted))*0.4*vg.Inch+1.3*vg.Inch)
}

func addPoints(p *plot.Plot, xys plotter.XYs, name string, c color.Color) error {
	if len(xys) == 0 {
		return nil
	}
	s, err := plotter.NewScatter(xys)
	if err != nil {
		return err
	}
	s.GlyphStyle = draw.GlyphStyle{Color: c, Radius: vg.Points(3.5), Shape: draw.CircleGlyph{}}
	p.Add(s)
	p.Legend.Add(name, s)
	return nil
}

// legendLine is a legend sample in style: error bars draw none of their own.
func legendLine(style draw.LineStyle) plot.Thumbnailer {
	return &plotter.Line{LineStyle: style}
}

// valueRange is an allowed range [Min, Max] drawn as an error bar at At, around Mid.
type valueRange struct{ At, Mid, Min, Max float64 }

// ranges draws vertical bars: x is At, y is Mid.
type ranges []valueRange

func (r ranges) Len() int                        { return len(r) }
func (r ranges) XY(i int) (float64, float64)     { return r[i].At, r[i].Mid }
func (r ranges) YError(i int) (float64, float64) { return r[i].Mid - r[i].Min, r[i].Max - r[i].Mid }

// horizontal draws the same ranges lying down: x is Mid, y is At.
type horizontal struct{ ranges }

func (h horizontal) XY(i int) (float64, float64)     { return h.ranges[i].Mid, h.ranges[i].At }
func (h horizontal) XError(i int) (float64, float64) { return h.ranges.YError(i) }

// shorten cuts s to at most n runes for a chart label; tables carry the full name.
func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
