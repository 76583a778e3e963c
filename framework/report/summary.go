package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// maxFailuresListed keeps the summary on one screen; the report lists every failure.
const maxFailuresListed = 8

// WriteSummary prints the run on one screen: each suite's counts and wall time, the
// statements by verdict, the drift found, and where the report is.
func WriteSummary(w io.Writer, doc Document, htmlPath string) error {
	ew := &errWriter{w: w}
	tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "suite\tconfiguration\tpassed\tfailed\tskipped\tnot run\twall time\t\n")
	for _, s := range doc.Suites {
		name := s.Suite
		if s.SetupFailed {
			name += " (setup failed)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%s\t\n", name, s.Column.Label(), s.Passed, s.Failed, s.Skipped, s.NotRun, roundDuration(s.WallTime))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(ew, "\nstatements: %d — %s\n", len(doc.Rows), CountLine(doc.Counts))
	for i, c := range doc.Columns {
		fmt.Fprintf(ew, "  %s: %s\n", c.Label(), CountLine(doc.ColumnCounts[i]))
	}
	if len(doc.LeftOut) > 0 {
		// Says why statements are "not in this run", once rather than per statement.
		fmt.Fprintf(ew, "not in this run: %s\n", strings.Join(doc.LeftOut, " "))
	}
	fmt.Fprintf(ew, "drift findings: %d", len(doc.Findings))
	if len(doc.DriftNotes) > 0 {
		fmt.Fprintf(ew, " (and %d free-text drift notes, not counted)", len(doc.DriftNotes))
	}
	fmt.Fprintln(ew)
	if len(doc.Failures) > 0 {
		fmt.Fprintf(ew, "failed:\n")
		for i, f := range doc.Failures {
			if i == maxFailuresListed {
				fmt.Fprintf(ew, "  … and %d more in the report\n", len(doc.Failures)-i)
				break
			}
			fmt.Fprintf(ew, "  %s %s\n", f.Spec.Location, shorten(f.Spec.Text, 100))
		}
	}
	fmt.Fprintf(ew, "wall time: %s\n", roundDuration(doc.WallTime))
	fmt.Fprintf(ew, "report: %s\n", htmlPath)
	return ew.err
}
