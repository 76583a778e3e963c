package render

import (
	"bytes"
	"fmt"
	"image/color"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// PageFont is the report page's font stack, and the charts name it too, so that a chart
// inline in the page and one opened on its own read in the same font. Its families
// share Arial's metrics: the charts are laid out with Liberation Sans (gonum/plot
// embeds it), so text measured at render time is the width the browser draws.
const PageFont = `"Liberation Sans", Arial, Helvetica, sans-serif`

// chartFont lays the charts' text out (see PageFont).
var chartFont = font.Font{Typeface: "Liberation", Variant: "Sans"}

// newPlot is a plot in the charts' font.
func newPlot(title string) *plot.Plot {
	p := plot.New()
	for _, s := range []*draw.TextStyle{&p.Title.TextStyle, &p.X.Label.TextStyle, &p.Y.Label.TextStyle,
		&p.X.Tick.Label, &p.Y.Tick.Label, &p.Legend.TextStyle} {
		s.Font = font.From(chartFont, s.Font.Size)
	}
	p.Title.Text = title
	return p
}

// svgOf draws p on an SVG canvas of w×h, its legend in a column of its own right of
// the plot, so that it never covers the data. The title is wrapped to the width,
// never cut. The result has no XML prolog, so that it can stand inline in HTML as
// well as in an .svg file of its own; fonts are named (the page's stack), not
// embedded, to keep the report small.
func svgOf(p *plot.Plot, w, h vg.Length) ([]byte, error) {
	legend := p.Legend
	p.Legend = plot.NewLegend()
	legendWidth := vg.Length(0)
	if size := legend.Rectangle(draw.Canvas{}).Size(); size.Y > 0 { // gonum/plot keeps the entries private
		// 10 % slack for a sans-serif that stands in where no Arial-metric font is.
		legendWidth = size.X*1.1 + vg.Points(12)
	}
	// gonum/plot centres the title over the plot's canvas: it must fit in w, with the
	// same 10 % slack for the page's font.
	p.Title.Text = wrap(p.Title.Text, p.Title.TextStyle, w*0.9)
	c := vgsvg.New(w+legendWidth, h)
	dc := draw.New(c)
	// One background under the plot and the legend's column.
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	p.BackgroundColor = nil
	// Margins left and above: a rotated axis label, or the title, would touch the edge.
	p.Draw(draw.Crop(dc, vg.Points(6), -legendWidth, 0, -vg.Points(4)))
	if legendWidth > 0 {
		titleHeight := p.Title.TextStyle.Rectangle(p.Title.Text).Size().Y + p.Title.Padding
		legend.Top, legend.Left = true, true
		legend.Padding = vg.Points(2) // gonum/plot sets the entries edge to edge
		legend.Draw(draw.Crop(dc, w+vg.Points(8), 0, 0, -titleHeight-vg.Points(8)))
	}
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("drawing %q: %w", p.Title.Text, err)
	}
	out := buf.Bytes()
	if i := bytes.Index(out, []byte("<svg")); i > 0 {
		out = out[i:]
	}
	return withPageFont(out), nil
}

// withPageFont names the page's font stack where vgsvg named the font it measured.
func withPageFont(svg []byte) []byte {
	stack := strings.ReplaceAll(PageFont, `"`, `'`) // inside a double-quoted style attribute
	return bytes.ReplaceAll(svg, []byte("font-family:Liberation Sans;"), []byte("font-family:"+stack+";"))
}

// wrap breaks text at spaces into lines no wider than width in style.
func wrap(text string, style draw.TextStyle, width vg.Length) string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(text) {
		next := strings.TrimSpace(line + " " + word)
		if line != "" && style.Rectangle(next).Size().X > width {
			lines = append(lines, line)
			next = word
		}
		line = next
	}
	return strings.Join(append(lines, line), "\n")
}
