// Command podlifecycle is the suite's one binary: make's targets call it, one line
// each. Every verb is a file of this package.
//
//	podlifecycle run [switches] SUITE…      make e2e: preflight, images, clusters, suites, report
//	podlifecycle preflight [switches] SUITE…  only the checks run makes before any build
//	podlifecycle plan [switches] SUITE…     print the plan, run nothing
//	podlifecycle list [switches] SUITE…     per statement, the specs the run would select (dry run)
//	podlifecycle report [flags]             a run's report from its artifacts
//	podlifecycle compare [flags] BASE HEAD  what changed between two runs
//	podlifecycle ab [switches] [B switches] SUITE…  make e2e-ab: A, B, compare
//	podlifecycle images [-out DIR]          the images, then the test images' list and tarball
//	podlifecycle mutants [flags]            the kill matrix
//	podlifecycle switches [-write FILE]     the switch reference (the README's)
//	podlifecycle incluster                  the runner image's run in the cluster under test
//
// The switches are the Makefile's variables as flags (LABELS is -labels, K8S_VERSIONS
// -k8s-versions: framework/config). Exit status: 0 green (compare: nothing got
// worse), 1 a spec failed (compare: a statement got worse), 2 the run could not be
// made or the runs could not be read, or the command line is wrong.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/podlifecycle/conformance/framework/mutants"
	"github.com/podlifecycle/conformance/framework/run"
)

var verbs = map[string]func(args []string) error{
	"run":       func(args []string) error { return runVerb("run", args) },
	"preflight": func(args []string) error { return runVerb("preflight", args) },
	"plan":      func(args []string) error { return runVerb("plan", args) },
	"list":      func(args []string) error { return runVerb("list", args) },
	"report":    func(args []string) error { return reportVerb(args, os.Stdout) },
	"compare":   func(args []string) error { return compareVerb(args, os.Stdout) },
	"ab":        abVerb,
	"images":    imagesVerb,
	"mutants":   mutants.RunMatrix,
	"switches":  switchesVerb,
	"incluster": inclusterVerb,
}

// errWorse: compare found a statement worse in HEAD (exit status 1).
var errWorse = errors.New("a statement got worse")

func main() {
	if len(os.Args) < 2 || verbs[os.Args[1]] == nil {
		fmt.Fprintln(os.Stderr, "usage: podlifecycle run|preflight|plan|list|report|compare|ab|images|mutants|switches [flags] …   (podlifecycle VERB -h for its flags)")
		os.Exit(2)
	}
	verb := os.Args[1]
	err := verbs[verb](os.Args[2:])
	code := exitCode(err)
	if err != nil && !errors.Is(err, flag.ErrHelp) && !errors.Is(err, errWorse) && !errors.Is(err, errReported) {
		fmt.Fprintf(os.Stderr, "podlifecycle %s: %v\n", verb, err)
	}
	os.Exit(code)
}

func exitCode(err error) int {
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, errWorse):
		return 1
	}
	return run.ExitCode(err)
}

// errReported: the run has said what went wrong already.
var errReported = errors.New("reported")
