package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/yaml"

	"github.com/podlifecycle/conformance/framework/config"
	"github.com/podlifecycle/conformance/framework/preflight"
	"github.com/podlifecycle/conformance/framework/report"
	"github.com/podlifecycle/conformance/framework/run"
	"github.com/podlifecycle/conformance/framework/statements"
)

// runVerb is run, preflight, plan and list: one command line, parsed once into the
// run's options; each verb goes as far as its name says.
func runVerb(verb string, args []string) error {
	start := time.Now()
	o, ginkgo, err := parseRun(verb, args)
	if err != nil {
		return err
	}
	fmt.Fprintln(os.Stderr, underTest(o.Config))
	if env := os.Getenv("KUBECONFIG"); env != "" && o.Kubeconfig == "" {
		fmt.Fprintf(os.Stderr, "KUBECONFIG=%s of your environment is not used; to test that cluster, give it on the command line: make e2e KUBECONFIG=%s\n", env, env)
	}
	plan, err := run.NewPlan(o, os.DirFS("."))
	if err == nil && verb != "plan" {
		err = check(o, plan, ginkgo)
	}
	if err != nil {
		return fmt.Errorf("preflight refused the run after %s, before anything was built:\n%w", time.Since(start).Round(100*time.Millisecond), err)
	}
	switch verb {
	case "preflight":
		fmt.Fprintf(os.Stderr, "preflight: every switch checked in %s\n", time.Since(start).Round(100*time.Millisecond))
		return nil
	case "plan":
		out, err := json.MarshalIndent(plan, "", "  ")
		if err == nil {
			fmt.Println(string(out))
		}
		return err
	case "list":
		return list(plan, ginkgo)
	}
	rec := newRecord()
	if o.RerunFailed {
		saved, err := keepFilters(&o)
		if err != nil {
			return err
		}
		if plan, err = run.NewPlan(o, os.DirFS(".")); err != nil {
			return err
		}
		// The report stays the saved run's, merged with the rerun: its suites started then.
		rec.SuitesStarted = saved.SuitesStarted
	} else if err := run.MoveAside(o.Artifacts); err != nil {
		return err
	}
	return execute(o, plan, ginkgo, rec)
}

// newRecord is the start of a run's record: its ID, start and the suite's commit.
func newRecord() config.Record {
	commit, dirty := gitCommit()
	return config.Record{ID: fmt.Sprint(time.Now().UnixNano()), Started: time.Now(), Commit: commit, Dirty: dirty}
}

// execute carries out plan, ended by Ctrl-C or SIGTERM as framework/run says.
func execute(o run.Options, plan run.Plan, ginkgo []string, rec config.Record) error {
	ctx, stop := run.Interrupts(context.Background())
	defer stop()
	cpu := run.StartCPULoad(run.ReadProcStatFile, runtime.NumCPU(), 2*time.Second)
	defer cpu.Stop()
	return run.Executor{
		CPU:    cpu,
		Ginkgo: ginkgo,
		Env:    childEnv(),
		Out:    os.Stdout,
		Err:    os.Stderr,
		Phases: filepath.Join(o.Artifacts, "phases.txt"),
		Record: rec,
	}.Execute(ctx, plan)
}

// parseRun reads the switches (framework/config) and the flags of the command line
// itself: the report's name, the project's suites, how to run Ginkgo.
func parseRun(verb string, args []string) (run.Options, []string, error) {
	o := run.Options{Config: config.Default()}
	fs := flag.NewFlagSet(verb, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // a bad switch is one line (main prints it); -h lists them all
	o.Register(fs)
	fs.StringVar(&o.Report, "report", "e2e", "the run's report name: <name>.json, <name>-junit.xml")
	projectSuites := fs.String("project-suites", "", "every suite of the project, space-separated (the report tells 'not in this run' from 'no spec' by it)")
	streams := fs.String("streams", "", "how a run of the whole default set runs its suites side by side: streams separated by '|', each suite names run one after another (\"restart | lifecycle probes\"); a suite no stream names runs alone")
	ginkgo := fs.String("ginkgo", "go tool ginkgo", "the command that runs Ginkgo")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(os.Stdout)
			fmt.Printf("usage: podlifecycle %s [switches] SUITE…\n", verb)
			fs.PrintDefaults()
		}
		return o, nil, err
	}
	o.Suites = fs.Args()
	o.ProjectSuites = strings.Fields(*projectSuites)
	for _, stream := range strings.Split(*streams, "|") {
		if names := strings.Fields(stream); len(names) > 0 {
			o.Streams = append(o.Streams, names)
		}
	}
	o.Color = isTerminal(os.Stdout)
	if err := o.Abs(); err != nil {
		return o, nil, err
	}
	if rel, err := filepath.Rel(mustGetwd(), o.Artifacts); err == nil && !strings.HasPrefix(rel, "..") {
		o.Artifacts = rel // the plan and the messages name it as the user gave it
	}
	if o.ShardDurations != "" {
		reports, err := report.ReadGinkgoJSON(o.ShardDurations)
		if err != nil {
			return o, nil, fmt.Errorf("SHARD_DURATIONS: %w", err)
		}
		o.Durations = run.Durations(reports)
	}
	return o, strings.Fields(*ginkgo), nil
}

// check is the preflight: the switches (framework/preflight), then, for a filter of
// the user's own, what a Ginkgo dry run says it selects.
func check(o run.Options, plan run.Plan, ginkgo []string) error {
	cat, err := statements.Load()
	if err != nil {
		return err
	}
	ctx, stop := run.Interrupts(context.Background())
	defer stop()
	var yours preflight.Yours
	if o.Kubeconfig != "" {
		if yours, err = whatYoursNeeds(); err != nil {
			return err
		}
	}
	if err := preflight.Check(ctx, o.Config, cat, yours); err != nil {
		return err
	}
	if o.RerunFailed || o.Focus == "" && (o.Labels == "!Slow" || o.Labels == "Slow") {
		return nil // the project's own sets, which select specs by construction (make test lists them)
	}
	specs, err := dryRun(plan, ginkgo)
	if err != nil {
		return err
	}
	if len(specs) == 0 {
		return fmt.Errorf("LABELS=%q FOCUS=%q selects no spec of %s: a run would check nothing; make list LABELS=… FOCUS=… shows what each statement's specs are", o.Labels, o.Focus, strings.Join(o.Suites, " "))
	}
	return nil
}

// keepFilters: a rerun keeps the saved run's LABELS and FOCUS (its failed specs are
// picked by file and line, the filters still decide what Ginkgo runs of them).
func keepFilters(o *run.Options) (config.Record, error) {
	rec, err := config.ReadRecord(filepath.Join(o.Artifacts, config.RecordFile))
	if err != nil {
		return rec, fmt.Errorf("RERUN_FAILED: the saved run's record: %w", err)
	}
	o.Labels, o.Focus = rec.Config.Labels, rec.Config.Focus
	return rec, nil
}

// underTest is the first line of every run: which cluster it tests.
func underTest(c config.Config) string {
	if c.Kubeconfig != "" {
		return "cluster under test: yours, KUBECONFIG=" + c.Kubeconfig + " (nothing is built, made or deleted; Disruptive specs " + map[bool]string{true: "allowed", false: "left out"}[c.AllowDisruptive] + ")"
	}
	return "cluster under test: kind clusters this run makes from kind-configs/ (Kubernetes " + strings.Join(c.ServerVersions(), ", ") + "), deleted when every suite passed"
}

// childEnv is the environment of the run's commands: the user's, less KUBECONFIG,
// which only the run's record may hand the suites.
func childEnv() []string {
	return slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "KUBECONFIG=") })
}

// gitCommit is the commit of the suite's code and whether the tree has changes.
func gitCommit() (string, bool) {
	out, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		return "", false
	}
	st, _ := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output()
	return strings.TrimSpace(string(out)), len(st) > 0
}

func mustGetwd() string {
	wd, _ := os.Getwd()
	return wd
}

// isTerminal: the file is a character device, as the shell's [ -t 1 ] tells a
// terminal from a pipe or a CI log.
func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// dryRun is what the plan's first pass would run, from a Ginkgo dry run (no cluster,
// no setup nodes run).
func dryRun(plan run.Plan, ginkgo []string) ([]run.Listed, error) {
	dir, err := os.MkdirTemp("", "podlifecycle-list-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	cmd := exec.Command(ginkgo[0], append(ginkgo[1:], run.DryRunArgs(plan.Versions[0], dir)...)...)
	cmd.Stdout, cmd.Stderr = io.Discard, os.Stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("ginkgo --dry-run: %w", err)
	}
	reports, err := report.ReadGinkgoJSON(filepath.Join(dir, run.ListReport))
	if err != nil {
		return nil, err
	}
	return run.Selected(reports), nil
}

// list prints, per statement, the specs the plan's first pass would run.
func list(plan run.Plan, ginkgo []string) error {
	cat, err := statements.Load()
	if err != nil {
		return err
	}
	specs, err := dryRun(plan, ginkgo)
	if err != nil {
		return err
	}
	return run.WriteList(os.Stdout, cat, specs)
}

// whatYoursNeeds: the runner Job's role (what the non-Disruptive specs call), and the
// test images' list the image build wrote, when it has run on this machine.
func whatYoursNeeds() (preflight.Yours, error) {
	var y preflight.Yours
	b, err := os.ReadFile("images/runner/job.yaml")
	if err != nil {
		return y, err
	}
	for _, doc := range strings.Split(string(b), "\n---") {
		var role rbacv1.ClusterRole
		if err := yaml.Unmarshal([]byte(doc), &role); err == nil && role.Kind == "ClusterRole" {
			y.Rules = append(y.Rules, role.Rules...)
		}
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return y, nil
	}
	if list, err := os.ReadFile(filepath.Join(cache, "podlifecycle", "test-images.txt")); err == nil {
		y.TestImages = strings.Fields(string(list))
	} else {
		fmt.Fprintln(os.Stderr, "preflight: no list of the test images on this machine (make images writes it), so whether your nodes hold them is not checked")
	}
	return y, nil
}
