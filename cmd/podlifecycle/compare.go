// Package comparecmd is the compare command: it tells what changed between two runs of the suites, from their
// saved artifacts: per statement the verdict in each and the transition, per measured
// timing both values and whether the change exceeds the tolerance, the cluster facts
// that differ. It prints a one-screen summary and writes compare.md and
// compare.html.
//
//	go run ./framework/compare/cmd/compare [-out DIR] [-json e2e.json] BASE HEAD
//	go run ./framework/run/cmd/podlifecycle compare …
//
// BASE and HEAD are artifact directories (_artifacts of a make e2e, or a copy of
// it); each may be several directories joined by commas, the parts of one run split
// over several machines, which are read as one run. The exit status is 1 when a
// statement got worse in HEAD (conforms → drift or fails, drift → fails, or a drift
// finding HEAD has and BASE had not), so that CI can gate a kubelet or gate change
// on it; 2 when the runs cannot be read; 0 otherwise.
package comparecmd

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/podlifecycle/conformance/framework/compare"
	"github.com/podlifecycle/conformance/framework/report"
	"github.com/podlifecycle/conformance/framework/statements"
)

// Main runs the command with args (without the command's name), writing the summary
// to stdout and errors to stderr, and returns the exit status: 1 when a statement got
// worse in HEAD, 2 when the runs cannot be read, 0 otherwise.
func Main(args []string, stdout, stderr io.Writer) int {
	worse, err := run(args, stdout)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return 0
	case err != nil:
		fmt.Fprintln(stderr, "compare:", err)
		return 2
	case worse:
		return 1
	}
	return 0
}

func run(args []string, stdout io.Writer) (worse bool, err error) {
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
