// Package render writes a report.Document (framework/report): report.html (one
// self-contained page, inline CSS and SVG), report.md with its charts beside it, the
// one-screen summary a run prints, and the kill matrix's Markdown. The charts
// (gonum/plot) are drawn here when a report is written; the Document carries none.
package render

import (
	"bytes"
	"os"
	"path/filepath"

	"github.com/podlifecycle/conformance/framework/report"
)

// Written names the files Write made.
type Written struct {
	HTML, Markdown string
}

// Write writes report.html and report.md into dir, and the charts report.md links
// to under dir/report-charts: they are drawn here, once for both.
func Write(doc report.Document, dir string) (Written, error) {
	out := Written{HTML: filepath.Join(dir, "report.html"), Markdown: filepath.Join(dir, "report.md")}
	charts, err := Draw(doc)
	if err != nil {
		return Written{}, err
	}
	if err := os.MkdirAll(filepath.Join(dir, ChartsDir), 0o755); err != nil {
		return Written{}, err
	}
	for _, c := range charts.All() {
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(c.File)), c.SVG, 0o644); err != nil {
			return Written{}, err
		}
	}
	var md, page bytes.Buffer
	if err := writeMarkdown(&md, doc, charts); err != nil {
		return Written{}, err
	}
	if err := writeHTML(&page, doc, charts); err != nil {
		return Written{}, err
	}
	if err := os.WriteFile(out.Markdown, md.Bytes(), 0o644); err != nil {
		return Written{}, err
	}
	return out, os.WriteFile(out.HTML, page.Bytes(), 0o644)
}
