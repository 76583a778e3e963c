package compare

import (
	"fmt"
	"html/template"
	"io"
	"strings"
)

// Summary is the one screen a terminal or a CI log shows: the counts, every statement
// that changed, the timings that moved beyond their tolerance, the facts that differ.
func (c Comparison) Summary() string {
	var b strings.Builder
	counts := map[Transition]int{}
	for _, s := range c.Statements {
		counts[s.Transition]++
	}
	fmt.Fprintf(&b, "compare %s → %s: %d statements — worse %d · better %d · same %d · no longer measured %d · newly measured %d · measured in neither %d\n",
		c.BaseName, c.HeadName, len(c.Statements), counts[Worse], counts[Better], counts[Same], counts[Lost], counts[Gained], counts[Unmeasured])
	for _, tr := range []Transition{Worse, Better} {
		for _, s := range c.with(tr) {
			fmt.Fprintf(&b, "  %-6s %-6s %s → %s", tr, s.ID, s.Base, s.Head)
			if s.Why != "" {
				fmt.Fprintf(&b, ": %s", s.Why)
			}
			b.WriteByte('\n')
		}
	}
	// Coverage changes: the IDs only, one line each (a run of fewer suites loses
	// dozens; the Markdown and HTML give each one's verdicts).
	for _, tr := range []Transition{Lost, Gained} {
		if ids := c.ids(tr); len(ids) > 0 {
			fmt.Fprintf(&b, "  %s: %s\n", tr, strings.Join(ids, " "))
		}
	}
	exceeding := c.ExceedingTimings()
	fmt.Fprintf(&b, "timings: %d measured in both, %d changed beyond their tolerance", len(c.Timings), len(exceeding))
	if n := len(c.OnlyBase) + len(c.OnlyHead); n > 0 {
		fmt.Fprintf(&b, "; %d measured in one run only", n)
	}
	b.WriteByte('\n')
	for _, t := range exceeding {
		fmt.Fprintf(&b, "  %s %s: %s → %s (tolerance %s)\n", t.Statement, t.Name, value(t.Base, t.Unit), value(t.Head, t.Unit), value(t.Tolerance, t.Unit))
	}
	fmt.Fprintf(&b, "cluster facts that differ: %d\n", len(c.Facts))
	for i, f := range c.Facts {
		if i == 12 {
			fmt.Fprintf(&b, "  … %d more in the Markdown and HTML\n", len(c.Facts)-i)
			break
		}
		fmt.Fprintf(&b, "  %s: %s: %s → %s\n", f.Config, f.Key, orNone(f.Base), orNone(f.Head))
	}
	return b.String()
}

func (c Comparison) ids(t Transition) []string {
	var out []string
	for _, s := range c.with(t) {
		out = append(out, s.ID)
	}
	return out
}

func value(v float64, unit string) string {
	if unit == "" {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.0f %s", v, unit)
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// WriteMarkdown writes the comparison as Markdown.
func (c Comparison) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s → %s\n\n", c.BaseName, c.HeadName)
	fmt.Fprintf(&b, "```\n%s```\n\n", c.Summary())
	b.WriteString("## Statements\n\n| statement | " + c.BaseName + " | " + c.HeadName + " | transition | evidence |\n|---|---|---|---|---|\n")
	for _, s := range c.Statements {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", s.ID, verdictCell(s.Base.String(), s.BaseParts), verdictCell(s.Head.String(), s.HeadParts), s.Transition, cell(s.Why))
	}
	b.WriteString("\n## Timings measured in both runs\n\nA change is beyond the tolerance when the two values lie further apart than the width of the range the spec allows (two runs of one kubelet may land anywhere in it), or when the documented value itself differs.\n\n")
	b.WriteString("| statement | spec | measurement | " + c.BaseName + " | " + c.HeadName + " | tolerance | beyond |\n|---|---|---|---|---|---|---|\n")
	for _, t := range c.Timings {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s |\n", t.Statement, cell(t.Spec), cell(t.Name), value(t.Base, t.Unit), value(t.Head, t.Unit), value(t.Tolerance, t.Unit), map[bool]string{true: "**yes**", false: "no"}[t.Exceeds])
	}
	for _, only := range []struct {
		who   string
		names []string
	}{{c.BaseName, c.OnlyBase}, {c.HeadName, c.OnlyHead}} {
		if len(only.names) > 0 {
			fmt.Fprintf(&b, "\nMeasured in %s only: %s\n", only.who, cell(strings.Join(only.names, "; ")))
		}
	}
	b.WriteString("\n## Cluster facts that differ\n\n| config | fact | " + c.BaseName + " | " + c.HeadName + " |\n|---|---|---|---|\n")
	for _, f := range c.Facts {
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", f.Config, cell(f.Key), cell(orNone(f.Base)), cell(orNone(f.Head)))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func verdictCell(v, parts string) string {
	if parts == "" {
		return v
	}
	return v + " (" + parts + ")"
}

func cell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}

var page = template.Must(template.New("compare").Funcs(template.FuncMap{
	"value": value, "orNone": orNone, "verdictCell": verdictCell,
}).Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{{.BaseName}} → {{.HeadName}}</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222}
table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:.25em .5em;text-align:left;vertical-align:top}
th{background:#f4f4f4}pre{background:#f8f8f8;padding:1em;overflow:auto}
.worse{background:#fbe3e3}.better{background:#e3f5e3}.lost,.gained{background:#fff6d6}
</style></head><body>
<h1>{{.BaseName}} → {{.HeadName}}</h1>
<pre>{{.Summary}}</pre>
<h2>Statements</h2>
<table><tr><th>statement</th><th>{{.BaseName}}</th><th>{{.HeadName}}</th><th>transition</th><th>evidence</th></tr>
{{range .Statements}}<tr class="{{if eq .Transition "worse"}}worse{{else if eq .Transition "better"}}better{{else if eq .Transition "no longer measured"}}lost{{else if eq .Transition "newly measured"}}gained{{end}}"><td title="{{.Text}}">{{.ID}}</td><td>{{verdictCell .Base.String .BaseParts}}</td><td>{{verdictCell .Head.String .HeadParts}}</td><td>{{.Transition}}</td><td>{{.Why}}</td></tr>
{{end}}</table>
<h2>Timings measured in both runs</h2>
<p>A change is beyond the tolerance when the two values lie further apart than the width of the range the spec allows (two runs of one kubelet may land anywhere in it), or when the documented value itself differs.</p>
<table><tr><th>statement</th><th>spec</th><th>measurement</th><th>{{.BaseName}}</th><th>{{.HeadName}}</th><th>tolerance</th><th>beyond</th></tr>
{{range .Timings}}<tr{{if .Exceeds}} class="worse"{{end}}><td>{{.Statement}}</td><td>{{.Spec}}</td><td>{{.Name}}</td><td>{{value .Base .Unit}}</td><td>{{value .Head .Unit}}</td><td>{{value .Tolerance .Unit}}</td><td>{{if .Exceeds}}yes{{else}}no{{end}}</td></tr>
{{end}}</table>
{{if .OnlyBase}}<p>Measured in {{.BaseName}} only: {{range .OnlyBase}}{{.}}; {{end}}</p>{{end}}
{{if .OnlyHead}}<p>Measured in {{.HeadName}} only: {{range .OnlyHead}}{{.}}; {{end}}</p>{{end}}
<h2>Cluster facts that differ</h2>
<table><tr><th>config</th><th>fact</th><th>{{.BaseName}}</th><th>{{.HeadName}}</th></tr>
{{range .Facts}}<tr><td>{{.Config}}</td><td>{{.Key}}</td><td>{{orNone .Base}}</td><td>{{orNone .Head}}</td></tr>
{{end}}</table>
</body></html>
`))

// WriteHTML writes the comparison as a self-contained HTML page.
func (c Comparison) WriteHTML(w io.Writer) error { return page.Execute(w, c) }
