package render

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"strings"
	"time"

	"github.com/podlifecycle/conformance/framework/report"
)

//go:embed report.html.tmpl
var htmlTemplate string

// page is parsed once per call rather than kept in a package variable: rendering is
// rare and a parsed template is cheap to make.
func page() (*template.Template, error) {
	return template.New("report").Funcs(template.FuncMap{
		"verdicts":  report.Verdicts,
		"dur":       func(d time.Duration) string { return roundDuration(d).String() },
		"short":     shorten,
		"firstLine": report.FirstLine,
		"join":      strings.Join,
		"gates":     gatesText,
		"settings":  settingsText,
		"values":    formatValues,
		"clock":     func(t time.Time) string { return t.UTC().Format("15:04:05.000") },
		"seconds":   func(d time.Duration) string { return fmt.Sprintf("%.3f", d.Seconds()) },
		"spanRows":  report.SpanRows,
		// The SVG is gonum/plot's output for the report's own data; vgsvg escapes
		// every text it draws, so it goes in as markup.
		"svg": func(c *Chart) template.HTML { return template.HTML(c.SVG) },
		// The project's own constant, not input.
		"pageFont": func() template.CSS { return template.CSS(PageFont) },
	}).Parse(htmlTemplate)
}

// WriteHTML writes the report as one self-contained HTML page: inline CSS and SVG
// (drawn here), no script, nothing fetched.
func WriteHTML(w io.Writer, doc report.Document) error {
	charts, err := Draw(doc)
	if err != nil {
		return err
	}
	return writeHTML(w, doc, charts)
}

// pageData is what the template shows: the document, and its charts beside it.
type pageData struct {
	report.Document
	Charts Charts
}

func writeHTML(w io.Writer, doc report.Document, charts Charts) error {
	t, err := page()
	if err != nil {
		return err
	}
	return t.Execute(w, pageData{Document: doc, Charts: charts})
}
