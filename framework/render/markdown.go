package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/podlifecycle/conformance/framework/report"
)

// WriteMarkdown writes the report as Markdown; its charts are the files it links to,
// which Write draws and puts beside it.
func WriteMarkdown(w io.Writer, doc report.Document) error {
	charts, err := Draw(doc)
	if err != nil {
		return err
	}
	return writeMarkdown(w, doc, charts)
}

func writeMarkdown(w io.Writer, doc report.Document, charts Charts) error {
	ew := &errWriter{w: w}
	fmt.Fprintf(ew, "# Pod lifecycle conformance report\n\n")
	fmt.Fprintf(ew, "Artifacts: %s · %d statements · wall time %s\n\n", code(doc.Artifacts), len(doc.Rows), roundDuration(doc.WallTime))
	mdVerdictCounts(ew, doc)
	mdSuites(ew, doc)
	mdMatrix(ew, doc)
	mdDrift(ew, doc)
	mdDisagreements(ew, doc)
	mdFacts(ew, doc)
	mdTimings(ew, doc, charts)
	mdFailures(ew, doc, charts)
	mdInfraRetries(ew, doc)
	mdKillMatrix(ew, doc)
	return ew.err
}

// errWriter keeps the first write error, so that rendering code stays linear.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return len(p), nil
	}
	_, e.err = e.w.Write(p)
	return len(p), nil
}

func mdVerdictCounts(w io.Writer, doc report.Document) {
	fmt.Fprintf(w, "## Statements by verdict\n\n")
	header := []string{"verdict", "all"}
	for _, c := range doc.Columns {
		header = append(header, c.Label())
	}
	mdHeader(w, header...)
	for _, v := range report.Verdicts() {
		row := []string{v.String(), doc.CountText(v)}
		for i := range doc.Columns {
			row = append(row, fmt.Sprint(doc.ColumnCounts[i][v]))
		}
		mdRow(w, row...)
	}
	fmt.Fprintf(w, "\n\"all\" is each statement's heaviest verdict over every configuration and version; a configuration's column counts the statements that have specs there. \"In part\": the verdict rests on some of the statement's specs only, the others skipped or not run (the matrix names them).\n\n")
	if len(doc.LeftOut) > 0 {
		fmt.Fprintf(w, "This run left out %s: a statement with no spec in it is \"not in this run\", not \"no spec\".\n\n", strings.Join(doc.LeftOut, ", "))
	}
}

func mdSuites(w io.Writer, doc report.Document) {
	fmt.Fprintf(w, "## Suites\n\n")
	mdHeader(w, "suite", "configuration", "passed", "failed", "skipped", "not run", "wall time")
	for _, s := range doc.Suites {
		config := s.Column.Label()
		if s.ConfigDerived {
			config += " (from the suite's path: no cluster facts recorded)"
		}
		name := s.Suite
		if s.SetupFailed {
			name += " — setup failed"
		}
		mdRow(w, name, config, fmt.Sprint(s.Passed), fmt.Sprint(s.Failed), fmt.Sprint(s.Skipped), fmt.Sprint(s.NotRun), roundDuration(s.WallTime).String())
	}
	fmt.Fprintln(w)
}

func mdMatrix(w io.Writer, doc report.Document) {
	fmt.Fprintf(w, "## Statement matrix\n\n")
	header := []string{"ID", "statement", "specs"}
	for _, c := range doc.Columns {
		header = append(header, c.Label())
	}
	mdHeader(w, header...)
	for _, r := range doc.Rows {
		specs := fmt.Sprint(len(r.Specs))
		if r.Reason != "" {
			specs += " (" + r.Reason + ")"
		}
		if note := r.PartNote(); note != "" && r.InPart() {
			specs += "; " + shorten(note, 200)
		}
		row := []string{r.Statement.ID, r.Statement.Short(), specs}
		for _, c := range r.Cells {
			text := c.CellText()
			if c.Specs > 0 && c.Verdict != report.Conforms {
				text = "**" + text + "**"
			}
			if len(c.Reasons) > 0 {
				text += ": " + shorten(strings.Join(c.Reasons, "; "), 160)
			}
			row = append(row, text)
		}
		mdRow(w, row...)
	}
	fmt.Fprintf(w, "\n– : the statement has no spec in that configuration.\n\n")
	fmt.Fprintf(w, "### Specs of each statement\n\n")
	for _, r := range doc.Rows {
		if len(r.Specs) == 0 {
			continue
		}
		fmt.Fprintf(w, "- **%s**\n", r.Statement.ID)
		for _, s := range r.Specs {
			line := fmt.Sprintf("%s (%s, %s): %s", s.Text, s.Suite, s.Column.Label(), s.Verdict)
			if s.Reason != "" && s.Verdict != report.Conforms {
				line += " — " + report.FirstLine(s.Reason)
			}
			fmt.Fprintf(w, "  - %s\n", cell(line))
		}
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "### Statements and where the pages make them\n\n")
	for _, r := range doc.Rows {
		if !r.Catalogued {
			continue
		}
		fmt.Fprintf(w, "- **%s** %s\n", r.Statement.ID, strings.Join(strings.Fields(r.Statement.Text), " "))
		for _, c := range r.Citations {
			fmt.Fprintf(w, "  - %s\n", mdCitation(c))
		}
		if r.Statement.Note != "" {
			fmt.Fprintf(w, "  - note: %s\n", r.Statement.Note)
		}
	}
	fmt.Fprintln(w)
}

func mdKillMatrix(w io.Writer, doc report.Document) {
	if doc.KillMatrix != nil {
		fmt.Fprintf(w, "## Kill matrix\n\n")
		WriteKillMatrixMarkdown(w, *doc.KillMatrix)
	}
}

// WriteKillMatrixMarkdown writes a kill matrix's summary and table (make mutants
// writes it as kill-matrix.md; the report as a section of report.md).
func WriteKillMatrixMarkdown(w io.Writer, k report.KillMatrix) {
	fmt.Fprintf(w, "Kubelets broken on purpose (`make mutants`): %s. Measured %s on commit %s. %s\n\n", k.Summary, k.Date, k.Commit, k.Stock)
	fmt.Fprintf(w, "| mutant | size | verdict | statements (stock → mutant) |\n|---|---|---|---|\n")
	for _, r := range k.Rows {
		var cells []string
		for _, c := range r.Cells {
			text := fmt.Sprintf("%s %s (%s → %s)", c.Statement, c.Outcome, c.Stock, c.Mutant)
			if c.Why != "" {
				text += ": " + c.Why
			}
			cells = append(cells, text)
		}
		verdict := r.Verdict
		if len(r.Unrelated) > 0 {
			verdict += ": " + strings.Join(r.Unrelated, "; ")
		}
		fmt.Fprintf(w, "| `%s` %s | %s | %s | %s |\n", r.Mutant, cell(r.Change), r.Size, cell(verdict), cell(strings.Join(cells, "; ")))
	}
	fmt.Fprintln(w)
}
