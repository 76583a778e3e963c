// Command podlifecycle runs the suites as `make e2e` does, and compares runs.
//
//	podlifecycle run [-report e2e] [-labels '!Slow'] [-focus RE] [-procs 4] [-versions 'v1.37.2 v1.36.3'] [-rerun-failed] [-shard i/n -durations e2e.json] SUITE…
//	podlifecycle plan …                 the same flags: print the plan, run nothing
//	podlifecycle list …                 the same flags: per statement, the specs the run would
//	                                    select (Ginkgo's dry run: no cluster)
//	podlifecycle compare [flags] BASE HEAD   what changed between two runs (framework/compare)
//	podlifecycle report [flags]             a run's report from its artifacts (framework/report)
//	podlifecycle images [-out DIR]          build what is missing of the images (images/build.sh),
//	                                    then the test images' list and tarball, for the nodes
//	                                    of an air-gapped cluster of one's own
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

	"github.com/podlifecycle/conformance/framework/compare/comparecmd"
	"github.com/podlifecycle/conformance/framework/report"
	"github.com/podlifecycle/conformance/framework/report/reportcmd"
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
	case "compare":
		os.Exit(comparecmd.Main(os.Args[2:], os.Stdout, os.Stderr))
	case "report":
		os.Exit(reportcmd.Main(os.Args[2:], os.Stdout, os.Stderr))
	case "images":
		err = images(os.Args[2:])
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
	fmt.Fprintln(os.Stderr, "       podlifecycle compare [flags] BASE HEAD | report [flags] | images [-out DIR]")
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
		reports, err := report.ReadGinkgoJSON(durations)
		if err != nil {
			return fmt.Errorf("SHARD_DURATIONS: %w", err)
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
	reports, err := report.ReadGinkgoJSON(filepath.Join(dir, run.ListReport))
	if err != nil {
		return err
	}
	return run.WriteList(os.Stdout, cat, run.Selected(reports))
}

// images builds what is missing of the images (the offline build, cached: seconds
// when nothing changed), then names the test images the specs' pods run and the
// tarball that holds them, copied to -out when given: what a cluster of one's own
// that reaches no registry needs on each node (KUBECONFIG=… make e2e).
func images(args []string) error {
	fs := flag.NewFlagSet("images", flag.ExitOnError)
	out := fs.String("out", "", "copy test-images.tar and test-images.txt into this directory")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("images: unexpected arguments %v", fs.Args())
	}
	build := exec.Command("bash", "images/build.sh")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("images/build.sh: %w", err)
	}
	// Where the build keeps them: CACHE_DIR, as images/scripts/steps.sh reads it.
	dir := os.Getenv("CACHE_DIR")
	if dir == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			return err
		}
		dir = filepath.Join(cache, "podlifecycle")
	}
	if *out != "" {
		if err := os.MkdirAll(*out, 0o755); err != nil {
			return err
		}
		for _, name := range []string{"test-images.txt", "test-images.tar"} {
			if err := run.CopyFile(filepath.Join(dir, name), filepath.Join(*out, name)); err != nil {
				return err
			}
		}
		dir = *out
	}
	list, err := os.ReadFile(filepath.Join(dir, "test-images.txt"))
	if err != nil {
		return err
	}
	fmt.Print(string(list))
	fmt.Printf("tarball: %s\non each node of your cluster: ctr -n k8s.io images import test-images.tar\n", filepath.Join(dir, "test-images.tar"))
	return nil
}
