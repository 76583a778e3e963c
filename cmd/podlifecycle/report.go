// podlifecycle report writes the conformance report of a run from its saved artifacts:
// report.html (self-contained: inline CSS and SVG, no script, nothing fetched) and
// report.md with its charts, and prints a one-screen summary.
//
//	podlifecycle report [-artifacts _artifacts] [-out DIR] [-suites 'lifecycle restart …'] [-statements FILE]
//
// The statement catalogue is the project's (framework/statements/catalogue.yaml),
// built into the command, so that it runs from any directory; -statements reads
// another catalogue file of the same shape instead.
//
// -artifacts may name several directories, comma-separated: the parts of a run split
// over several machines (SHARD=i/n), read as one run; the report goes to the first.
//
// It reads <artifacts>/e2e.json and, for a run over several Kubernetes versions
// (K8S_VERSIONS), <artifacts>/<version>/e2e.json; -json names another report file
// (make e2e-<suite> writes <suite>.json).
//
// -suites lists the project's suites (the Makefile passes ALL_SUITES). A run that
// covered only some of them (make e2e-lifecycle) holds no spec of the statements
// checked in the others: those are "not in this run", with the suites it left out,
// rather than "no spec". Without -suites the run is taken to cover every suite.
//
// With -rerun-failed it writes nothing and prints, for each suite with failed specs,
// one line "<suite dir> <ginkgo flags…>" that selects only those specs
// (--focus-file=<file>:<line>), or the suite dir alone when the suite's setup failed.
// A Makefile recipe runs them with the run's usual flags:
//
//	podlifecycle report -rerun-failed | while read -r suite flags; do \
//		$(GINKGO) $(GINKGO_FLAGS) $$flags $$suite || status=1; done

package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/podlifecycle/conformance/framework/report"
	"github.com/podlifecycle/conformance/framework/run"
	"github.com/podlifecycle/conformance/framework/statements"
)

func reportVerb(args []string, stdout io.Writer) error {
	flags := flag.NewFlagSet("report", flag.ContinueOnError)
	artifactsFlag := flags.String("artifacts", "_artifacts", "the run's artifacts directory (Ginkgo's JSON reports and the suites' artifacts); the directories of a run in parts (SHARD), comma-separated, are merged")
	catalogueFile := flags.String("statements", "", "a statement catalogue file to read instead of the project's own (framework/statements/catalogue.yaml, built in)")
	out := flags.String("out", "", "where to write report.html, report.md and report-charts/ (default: the artifacts directory)")
	jsonName := flags.String("json", "e2e.json", "the Ginkgo JSON report's file name, at the top of the artifacts directory or in each version directory")
	rerun := flags.Bool("rerun-failed", false, "print the suites and Ginkgo flags that rerun only the failed specs, one suite per line, and write no report")
	version := flags.String("version", "", "with -rerun-failed: only this Kubernetes version's failures")
	suites := flags.String("suites", "", "the project's suites, space-separated directories below suites/ (\"lifecycle restart/profiles\"): a statement with no spec in a run that left some out is \"not in this run\", not \"no spec\"")
	if err := flags.Parse(args); err != nil {
		return err
	}
	if flags.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %v", flags.Args())
	}

	dirs := strings.Split(*artifactsFlag, ",")
	if *rerun {
		runs, err := report.LoadRunsIn(dirs, *jsonName)
		if err != nil {
			return err
		}
		return report.WriteRerun(stdout, report.RerunFailed(runs, *version))
	}
	if *version != "" {
		return errors.New("-version applies to -rerun-failed only; the report covers every version")
	}
	cat, err := catalogue(*catalogueFile)
	if err != nil {
		return err
	}
	return run.WriteReport(run.ReportOptions{Artifacts: dirs, JSON: *jsonName, Suites: strings.Fields(*suites), Catalogue: cat, Out: *out}, stdout)
}

// catalogue is the project's built-in catalogue, or the one in file when given.
func catalogue(file string) (statements.Catalogue, error) {
	if file == "" {
		return statements.Load()
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return statements.Catalogue{}, err
	}
	cat, err := statements.Parse(data)
	if err != nil {
		return statements.Catalogue{}, fmt.Errorf("%s: %w", file, err)
	}
	return cat, nil
}
