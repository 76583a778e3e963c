package render

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/podlifecycle/conformance/framework/report"
)

// maxFailuresListed keeps the summary on one screen; the report lists every failure.
const maxFailuresListed = 8

// WriteSummary prints the run on one screen: each suite's counts and wall time, the
// statements by verdict, the drift found, and where the report is.
func WriteSummary(w io.Writer, doc report.Document, htmlPath string) error {
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
	fmt.Fprintf(ew, "\nstatements: %d — %s\n", len(doc.Rows), report.CountLine(doc.Counts, doc.InPart))
	for i, c := range doc.Columns {
		fmt.Fprintf(ew, "  %s: %s\n", c.Label(), report.CountLine(doc.ColumnCounts[i], nil))
	}
	if len(doc.LeftOut) > 0 {
		// Says why statements are "not in this run", once rather than per statement.
		fmt.Fprintf(ew, "not in this run: %s\n", strings.Join(doc.LeftOut, " "))
	}
	if ids := report.DisruptiveLeftOut(doc); len(ids) > 0 {
		fmt.Fprintf(ew, "not run, disruptive (a cluster the suite did not make; ALLOW_DISRUPTIVE=1 runs them): %s\n", strings.Join(ids, " "))
	}
	fmt.Fprintf(ew, "drift findings: %d", len(doc.Findings))
	if len(doc.DriftNotes) > 0 {
		fmt.Fprintf(ew, " (and %d free-text drift notes, not counted)", len(doc.DriftNotes))
	}
	fmt.Fprintln(ew)
	if len(doc.InfraRetries) > 0 {
		fmt.Fprintf(ew, "infrastructure retries: %d (a host flake, the pod made once more)\n", len(doc.InfraRetries))
		for _, r := range doc.InfraRetries {
			fmt.Fprintf(ew, "  %s pod %s: %s\n", r.Spec.Location, r.Pod, shorten(r.Error, 160))
		}
	}
	if len(doc.Disagreements) > 0 {
		answered := 0
		for _, d := range doc.Disagreements {
			if len(d.Answers) > 0 {
				answered++
			}
		}
		fmt.Fprintf(ew, "where the pages disagree: %d topics, %d measured in this run\n", len(doc.Disagreements), answered)
	}
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
