package run

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"

	"github.com/podlifecycle/conformance/framework/mutants"
	"github.com/podlifecycle/conformance/framework/render"
	"github.com/podlifecycle/conformance/framework/report"
	"github.com/podlifecycle/conformance/framework/statements"
)

// ReportOptions say which run a report is written of, and where.
type ReportOptions struct {
	// Artifacts: the run's artifacts directory, or the directories of a run in parts
	// (SHARD), read as one run; the report goes to the first unless Out is set.
	Artifacts []string
	JSON      string // the Ginkgo JSON report's file name (e2e.json)
	// Suites: the project's suites, so that a statement whose suite the run left out
	// is "not in this run" rather than "no spec"; nil: the run covered every suite.
	Suites    []string
	Catalogue statements.Catalogue
	Out       string
}

// WriteReport writes report.html and report.md of a run from its saved artifacts and
// prints the one-screen summary to stdout. It refuses a directory that holds no run
// of its own (see report.LoadRunsIn), so that an earlier run is never shown as this one.
func WriteReport(o ReportOptions, stdout io.Writer) error {
	recs, err := CheckRuns(o.Artifacts, o.JSON)
	if err != nil {
		return err
	}
	runs, err := report.LoadRunsIn(o.Artifacts, o.JSON)
	if err != nil {
		return err
	}
	doc, err := report.Build(o.Artifacts[0], runs, o.Catalogue, o.Suites)
	if err != nil {
		return err
	}
	if len(recs) == 1 && recs[0].SuitesStarted.After(recs[0].Started) {
		// One run (not shards): its set-up is from its start to its suites' start.
		doc.Spans = append([]report.RunSpan{{Lane: report.SetupLane, Kind: report.SpanSetup,
			Start: recs[0].Started, End: recs[0].SuitesStarted}}, doc.Spans...)
	}
	if doc.KillMatrix, err = killMatrix(o.Artifacts[0]); err != nil {
		return err
	}
	dir := o.Out
	if dir == "" {
		dir = o.Artifacts[0]
	}
	written, err := render.Write(doc, dir)
	if err != nil {
		return err
	}
	return render.WriteSummary(stdout, doc, written.HTML)
}

// killMatrix is the matrix `make mutants` left in artifacts/mutants, or nil.
func killMatrix(artifacts string) (*report.KillMatrix, error) {
	m, err := mutants.ReadJSON(filepath.Join(artifacts, "mutants", "kill-matrix.json"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("the kill matrix: %w", err)
	}
	k := m.View()
	return &k, nil
}
