package report

import (
	"bytes"
	"os"
	"path/filepath"
)

// Written names the files Write made.
type Written struct {
	HTML, Markdown string
}

// Write writes report.html and report.md into dir, and the charts report.md links
// to under dir/report-charts.
func Write(doc Document, dir string) (Written, error) {
	out := Written{HTML: filepath.Join(dir, "report.html"), Markdown: filepath.Join(dir, "report.md")}
	if err := os.MkdirAll(filepath.Join(dir, ChartsDir), 0o755); err != nil {
		return Written{}, err
	}
	for _, c := range chartsOf(doc) {
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(c.File)), c.SVG, 0o644); err != nil {
			return Written{}, err
		}
	}
	var md, page bytes.Buffer
	if err := WriteMarkdown(&md, doc); err != nil {
		return Written{}, err
	}
	if err := WriteHTML(&page, doc); err != nil {
		return Written{}, err
	}
	if err := os.WriteFile(out.Markdown, md.Bytes(), 0o644); err != nil {
		return Written{}, err
	}
	return out, os.WriteFile(out.HTML, page.Bytes(), 0o644)
}

// chartsOf is every chart of the document.
func chartsOf(doc Document) []*Chart {
	var out []*Chart
	for _, d := range doc.Delays {
		out = append(out, d.Chart)
	}
	for _, e := range doc.Experiments {
		out = append(out, e.Chart)
	}
	for _, f := range doc.Failures {
		for _, tl := range f.Timelines {
			out = append(out, tl.Chart)
		}
	}
	var drawn []*Chart
	for _, c := range out {
		if c != nil {
			drawn = append(drawn, c)
		}
	}
	return drawn
}
