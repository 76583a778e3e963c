package run

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/podlifecycle/conformance/framework/config"
)

// ConformanceFocus is the focus hydrophone (and sonobuoy) give a conformance image
// by default: the upstream suite's [Conformance] tag. This suite's conformance set is
// its whole default set, so that focus selects it all rather than nothing.
const ConformanceFocus = `\[Conformance\]`

// InCluster is a run inside the cluster under test, from the runner image's
// environment: the conformance-image contract that hydrophone and sonobuoy drive
// (E2E_FOCUS, E2E_SKIP, E2E_EXTRA_GINKGO_ARGS with --procs or --label-filter,
// E2E_DRYRUN, E2E_VERBOSITY, results in /tmp/results), and the runner Job's own
// LABELS, FOCUS, PROCS and ALLOW_DISRUPTIVE.
type InCluster struct {
	Dir    string   // the results directory
	Args   []string // Ginkgo's arguments, the compiled suites last
	Record config.Record
	DryRun bool
}

// InClusterRun reads env (the pod's environment, as a lookup) into the run: Ginkgo's
// arguments over the compiled suites (suites/<dir>/<name>.test) and the run's record.
// The Disruptive specs stay out unless ALLOW_DISRUPTIVE=1: the pod has no node shell.
func InClusterRun(env func(string) string, suites []string, now time.Time) (InCluster, error) {
	dir := env("E2E_ARTIFACTS")
	if dir == "" {
		dir = "/tmp/results"
	}
	c := config.Default()
	c.Artifacts = dir
	if l := env("LABELS"); l != "" {
		c.Labels = l
	}
	if p := env("PROCS"); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 {
			return InCluster{}, fmt.Errorf("PROCS=%q: want a whole number of Ginkgo processes, at least 1", p)
		}
		c.Procs = n
	}
	c.AllowDisruptive = env("ALLOW_DISRUPTIVE") == "1" || env("ALLOW_DISRUPTIVE") == "true"
	c.Focus = env("FOCUS")
	if f := env("E2E_FOCUS"); f != "" && f != ConformanceFocus {
		c.Focus = f
	}
	skip := env("E2E_SKIP")
	// E2E_EXTRA_GINKGO_ARGS: space-separated, as hydrophone joins them. --procs and
	// --label-filter are the run's own settings, so they are read into it (the label
	// filter still leaves the Disruptive specs out); the rest go to Ginkgo as given.
	var extra []string
	for _, a := range strings.Fields(env("E2E_EXTRA_GINKGO_ARGS")) {
		name, value, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		switch name {
		case "procs", "p":
			n, err := strconv.Atoi(value)
			if err != nil || n < 1 {
				return InCluster{}, fmt.Errorf("E2E_EXTRA_GINKGO_ARGS: %s: want --procs=N, N ≥ 1", a)
			}
			c.Procs = n
		case "label-filter":
			c.Labels = value
		case "focus":
			c.Focus = value
		case "skip":
			skip = value
		default:
			extra = append(extra, a)
		}
	}
	labels := c.Labels
	if !c.AllowDisruptive {
		labels = "(" + labels + ") && !Disruptive"
	}
	args := []string{"--keep-going", "--timeout=80m", "--poll-progress-after=120s", "--no-color",
		// hydrophone counts the specs to run from Ginkgo's "Will run N of M specs" line,
		// which --succinct (the default for several suites) leaves out.
		"--succinct=false",
		fmt.Sprintf("--procs=%d", c.Procs), "--label-filter=" + labels}
	if c.Focus != "" {
		args = append(args, "--focus="+c.Focus)
	}
	if skip != "" {
		args = append(args, "--skip="+skip)
	}
	if v, err := strconv.Atoi(env("E2E_VERBOSITY")); err == nil && v >= 6 {
		args = append(args, "-v")
	}
	dry := env("E2E_DRYRUN") == "true" || env("E2E_DRYRUN") == "1"
	if dry {
		args = append(args, "--dry-run")
	}
	args = append(args, extra...)
	args = append(args, "--output-dir="+dir, "--json-report=e2e.json", "--junit-report=junit_01.xml")
	for _, s := range suites {
		args = append(args, filepath.Join("suites", s, filepath.Base(s)+".test"))
	}
	rec := config.Record{
		ID: fmt.Sprintf("incluster-%d", now.UnixNano()), Started: now, SuitesStarted: now,
		Config: c, Suites: suites, ServerVersion: config.DefaultVersion, InCluster: true, Dir: dir,
	}
	return InCluster{Dir: dir, Args: args, Record: rec, DryRun: dry}, nil
}
