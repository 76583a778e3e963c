// Command podlifecycle runs the suites as `make e2e` does, and compares runs.
//
//	podlifecycle run [-report e2e] [-labels '!Slow'] [-focus RE] [-procs 4] [-versions 'v1.37.2 v1.36.3'] [-rerun-failed] [-shard i/n -durations e2e.json] SUITE…
//	podlifecycle plan …                 the same flags: print the plan, run nothing
//	podlifecycle list …                 the same flags: per statement, the specs the run would
//	                                    select (Ginkgo's dry run: no cluster)
//	podlifecycle compare [flags] BASE HEAD
//
// SUITE is a package path, ./suites/lifecycle, or ./suites/restart/... for a suite
// and the suites below it. run's flags mirror the Makefile's variables (LABELS,
// FOCUS, PROCS, K8S_VERSIONS, RERUN_FAILED, ALLOW_DISRUPTIVE); KUBECONFIG, set in
// the environment, names a cluster of the user's. The Makefile's targets call it, one
// line each: `make e2e` is the image build, then `podlifecycle run`.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/podlifecycle/conformance/framework/run"
	"github.com/podlifecycle/conformance/framework/statements"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	switch os.Args[1] {
	case "run", "plan", "list":
		err = runOrPlan(os.Args[1], os.Args[2:])
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "podlifecycle:", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: podlifecycle run|plan|list [flags] SUITE…   (podlifecycle run -h for the flags)")
	os.Exit(2)
}

func runOrPlan(verb string, args []string) (err error) {
	fs := flag.NewFlagSet(verb, flag.ExitOnError)
	var o run.Options
	var versions, projectSuites, ginkgo, phases, shard, durations string
	fs.StringVar(&o.Report, "report", "e2e", "the run's report name: <name>.json, <name>-junit.xml")
	fs.StringVar(&o.Labels, "labels", "!Slow", "Ginkgo label filter (LABELS)")
	fs.StringVar(&o.Focus, "focus", "", "Ginkgo focus (FOCUS)")
	fs.IntVar(&o.Procs, "procs", 4, "Ginkgo processes (PROCS)")
	fs.StringVar(&versions, "versions", "", "Kubernetes versions, space-separated (K8S_VERSIONS): each on its own node images, results under <artifacts>/<version>")
	fs.BoolVar(&o.RerunFailed, "rerun-failed", false, "run only what failed in the saved report (RERUN_FAILED)")
	fs.BoolVar(&o.AllowDisruptive, "allow-disruptive", false, "on a cluster of yours (KUBECONFIG), run the Disruptive specs too (ALLOW_DISRUPTIVE=1)")
	fs.StringVar(&o.Artifacts, "artifacts", "_artifacts", "where reports and the suites' artifacts go")
	fs.StringVar(&projectSuites, "project-suites", "", "every suite of the project, space-separated (the report tells 'not in this run' from 'no spec' by it)")
	fs.StringVar(&ginkgo, "ginkgo", "go tool ginkgo", "the command that runs Ginkgo")
	fs.StringVar(&phases, "phases", "", "the file each phase's wall time is appended to (default <artifacts>/phases.txt)")
	fs.StringVar(&shard, "shard", "", "run only part i of n of the run's spec files (SHARD=i/n), balanced by -durations")
	fs.StringVar(&durations, "durations", "", "a saved earlier run's Ginkgo JSON report whose spec times balance the shards (SHARD_DURATIONS; every shard must be given the same one; empty: by number of specs)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	o.Suites = fs.Args()
	o.Versions = strings.Fields(versions)
	o.ProjectSuites = strings.Fields(projectSuites)
	o.ExistingCluster = os.Getenv("KUBECONFIG") != ""
	o.Color = isTerminal(os.Stdout)
	if o.Shard, err = run.ParseShard(shard); err != nil {
		return err
	}
	if durations != "" {
		data, err := os.ReadFile(durations)
		if err != nil {
			return fmt.Errorf("SHARD_DURATIONS: %w", err)
		}
		var reports []types.Report
		if err := json.Unmarshal(data, &reports); err != nil {
			return fmt.Errorf("SHARD_DURATIONS: %s is not a Ginkgo JSON report: %w", durations, err)
		}
		o.Durations = run.Durations(reports)
	}

	plan, err := run.NewPlan(o, os.DirFS("."))
	if err != nil {
		return err
	}
	if verb == "list" {
		return list(plan, strings.Fields(ginkgo))
	}
	if verb == "plan" {
		out, err := json.MarshalIndent(plan, "", "  ")
		if err != nil {
			return err
		}
		fmt.Println(string(out))
		return nil
	}
	if err := os.MkdirAll(o.Artifacts, 0o755); err != nil {
		return err
	}
	if phases == "" {
		phases = filepath.Join(o.Artifacts, "phases.txt")
	}
	ctx, stop := run.Interrupts(context.Background())
	defer stop()
	return run.Executor{
		Ginkgo: strings.Fields(ginkgo),
		Env:    os.Environ(),
		Out:    os.Stdout,
		Err:    os.Stderr,
		Phases: phases,
	}.Execute(ctx, plan)
}

// isTerminal: the file is a character device, as the shell's [ -t 1 ] tells a
// terminal from a pipe or a CI log.
func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// list prints, per statement, the specs the plan's first pass would run, from a
// Ginkgo dry run (no cluster, no setup nodes run).
func list(plan run.Plan, ginkgo []string) error {
	cat, err := statements.Load()
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "podlifecycle-list-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	pass := plan.Versions[0]
	cmd := exec.Command(ginkgo[0], append(ginkgo[1:], run.DryRunArgs(pass, dir)...)...)
	cmd.Stdout, cmd.Stderr = io.Discard, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("ginkgo --dry-run: %w", err)
	}
	data, err := os.ReadFile(filepath.Join(dir, run.ListReport))
	if err != nil {
		return err
	}
	var reports []types.Report
	if err := json.Unmarshal(data, &reports); err != nil {
		return err
	}
	return run.WriteList(os.Stdout, cat, run.Selected(reports))
}
