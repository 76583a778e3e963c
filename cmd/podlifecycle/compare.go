// podlifecycle compare tells what changed between two runs of the suites, from their
// saved artifacts: per statement the verdict in each and the transition, per measured
// timing both values and whether the change exceeds the tolerance, the cluster facts
// that differ. It prints a one-screen summary and writes compare.md and
// compare.html.
//
//	podlifecycle compare [-out DIR] [-json e2e.json] BASE HEAD
//
// BASE and HEAD are artifact directories (_artifacts of a make e2e, or a copy of
// it); each may be several directories joined by commas, the parts of one run split
// over several machines, which are read as one run. The exit status is 1 when a
// statement got worse in HEAD (conforms → drift or fails, drift → fails, or a drift
// finding HEAD has and BASE had not), so that CI can gate a kubelet or gate change
// on it; 2 when the runs cannot be read; 0 otherwise.

package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/podlifecycle/conformance/framework/compare"
	"github.com/podlifecycle/conformance/framework/config"
	"github.com/podlifecycle/conformance/framework/report"
	"github.com/podlifecycle/conformance/framework/run"
	"github.com/podlifecycle/conformance/framework/statements"
)

// compareVerb returns errWorse when a statement got worse in HEAD.
func compareVerb(args []string, stdout io.Writer) error {
	worse, err := compareRuns(args, stdout)
	if err == nil && worse {
		return errWorse
	}
	return err
}

func compareRuns(args []string, stdout io.Writer) (worse bool, err error) {
	flags := flag.NewFlagSet("compare", flag.ContinueOnError)
	out := flags.String("out", "", "where to write compare.md and compare.html (default: HEAD's first directory)")
	jsonName := flags.String("json", "e2e.json", "the Ginkgo JSON report's file name in each artifacts directory")
	baseName := flags.String("base-name", "", "what to call BASE in the output (default: its directory)")
	headName := flags.String("head-name", "", "what to call HEAD in the output (default: its directory)")
	flags.Usage = func() {
		fmt.Fprintf(flags.Output(), "usage: compare [flags] BASE HEAD\n  BASE, HEAD: artifact directories of two runs (dir or dir1,dir2,… for a run in parts)\n")
		flags.PrintDefaults()
	}
	if err := flags.Parse(args); err != nil {
		return false, err
	}
	if flags.NArg() != 2 {
		flags.Usage()
		return false, errors.New("want two runs' artifact directories, BASE and HEAD")
	}
	cat, err := statements.Load()
	if err != nil {
		return false, err
	}
	baseRecs, err := run.CheckRuns(strings.Split(flags.Arg(0), ","), *jsonName)
	if err != nil {
		return false, fmt.Errorf("BASE: %w", err)
	}
	headRecs, err := run.CheckRuns(strings.Split(flags.Arg(1), ","), *jsonName)
	if err != nil {
		return false, fmt.Errorf("HEAD: %w", err)
	}
	base, err := document(flags.Arg(0), *jsonName, cat)
	if err != nil {
		return false, fmt.Errorf("BASE: %w", err)
	}
	head, err := document(flags.Arg(1), *jsonName, cat)
	if err != nil {
		return false, fmt.Errorf("HEAD: %w", err)
	}
	c := compare.Of(nameOf(*baseName, flags.Arg(0)), base, nameOf(*headName, flags.Arg(1)), head)
	fmt.Fprint(stdout, c.Summary())
	if b, h := baseRecs[0], headRecs[0]; b.Commit != h.Commit || b.Dirty || h.Dirty {
		fmt.Fprintf(stdout, "NOTE: BASE ran the suites of %s and HEAD those of %s: a change may be the suite's, not the cluster's\n", commitOf(b), commitOf(h))
	}

	dir := *out
	if dir == "" {
		dir = strings.Split(flags.Arg(1), ",")[0]
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false, err
	}
	for name, write := range map[string]func(*os.File) error{
		"compare.md":   func(f *os.File) error { return c.WriteMarkdown(f) },
		"compare.html": func(f *os.File) error { return c.WriteHTML(f) },
	} {
		if err := writeFile(filepath.Join(dir, name), write); err != nil {
			return false, err
		}
	}
	fmt.Fprintf(stdout, "written: %s, %s\n", filepath.Join(dir, "compare.md"), filepath.Join(dir, "compare.html"))
	return len(c.Worse()) > 0, nil
}

// document is the report of one run, which may have been split over several
// artifact directories: their runs are read as one.
func document(dirs, jsonName string, cat statements.Catalogue) (report.Document, error) {
	parts := strings.Split(dirs, ",")
	runs, err := report.LoadRunsIn(parts, jsonName)
	if err != nil {
		return report.Document{}, err
	}
	return report.Build(parts[0], runs, cat, nil)
}

func nameOf(given, dirs string) string {
	if given != "" {
		return given
	}
	return dirs
}

func writeFile(path string, write func(*os.File) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func commitOf(r config.Record) string {
	c := r.Commit
	if len(c) > 12 {
		c = c[:12]
	}
	if r.Dirty {
		c += " (with uncommitted changes)"
	}
	return c
}
