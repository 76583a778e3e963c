package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/podlifecycle/conformance/framework/report"
	"github.com/podlifecycle/conformance/framework/sidebyside"
)

// Executor carries out a plan in the repository's root directory.
type Executor struct {
	// Ginkgo is the command that runs Ginkgo ({"go", "tool", "ginkgo"}).
	Ginkgo []string
	// Env is the environment of every command (os.Environ() and the run's own).
	Env []string
	// Out, Err receive the commands' output and the run's own lines.
	Out, Err io.Writer
	// Phases is the file each phase's wall time is appended to
	// (_artifacts/phases.txt; the image build writes its line first).
	Phases string
}

// Execute runs the plan and returns the run's status: nil when every suite passed
// and the report was written. ctx ends on Ctrl-C: the step under way ends as its own
// command handles the interrupt (Ginkgo runs its cleanup: the clusters a suite
// made are deleted), the other passes are not started, and the report is written
// of what ran.
func (e Executor) Execute(ctx context.Context, p Plan) error {
	runID := fmt.Sprint(time.Now().UnixNano())
	env := append(slices.Clone(e.Env), "E2E_RUN_ID="+runID)
	var failed []error
	fail := func(err error) { failed = append(failed, err) }
	for _, pass := range p.Versions {
		if ctx.Err() != nil {
			fail(fmt.Errorf("interrupted before Kubernetes %s", pass.Version))
			break
		}
		if err := e.pass(ctx, p, pass, env); err != nil {
			fail(err)
		}
	}
	if len(failed) == 0 && p.DeleteClusters && ctx.Err() == nil {
		if err := e.command(ctx, env, "go", "run", "./framework/cluster/cmd/delete-run-clusters"); err != nil {
			fail(fmt.Errorf("deleting the run's clusters: %w", err))
		}
	}
	start := time.Now()
	args := []string{"run", "./framework/report/cmd/report", "-artifacts", p.Artifacts, "-json", p.ReportJSON, "-suites", strings.Join(p.ProjectSuites, " ")}
	if err := e.command(context.WithoutCancel(ctx), env, "go", args...); err != nil {
		fmt.Fprintln(e.Err, "the report could not be written (make report writes it again)")
		fail(fmt.Errorf("the report: %w", err))
	}
	e.phase("report", time.Since(start))
	if data, err := os.ReadFile(e.Phases); err == nil {
		fmt.Fprintf(e.Out, "== wall time per phase (%s)\n%s", e.Phases, data)
	}
	return errors.Join(failed...)
}

func (e Executor) pass(ctx context.Context, p Plan, pass VersionPass, env []string) error {
	suffix := ""
	if pass.Version != "" {
		suffix = " " + pass.Version
		fmt.Fprintf(e.Out, "== Kubernetes %s\n", pass.Version)
		if err := os.MkdirAll(pass.OutDir, 0o755); err != nil {
			return err
		}
	}
	if pass.BuildImages {
		start := time.Now()
		versionEnv := append(slices.Clone(env), "KUBERNETES_VERSION="+pass.Version)
		if err := e.command(ctx, versionEnv, "bash", "images/build.sh"); err != nil {
			return fmt.Errorf("the images of Kubernetes %s: %w", pass.Version, err)
		}
		e.phase("images"+suffix, time.Since(start))
		nodeImage, err := e.output(ctx, versionEnv, "bash", "images/scripts/kubelet.sh")
		if err != nil {
			return fmt.Errorf("the node image of Kubernetes %s: %w", pass.Version, err)
		}
		env = append(slices.Clone(env), "E2E_SERVER_VERSION="+pass.Version, "NODE_IMAGE="+nodeImage)
	}
	outDir, err := filepath.Abs(pass.OutDir)
	if err != nil {
		return err
	}
	env = append(slices.Clone(env), "E2E_ARTIFACTS="+outDir)

	suites, focus := pass.Suites, pass.FocusFiles
	if len(suites) == 0 {
		fmt.Fprintln(e.Out, "this shard has no spec files: nothing to run")
		return nil
	}
	if pass.RerunFailed {
		reruns, err := failedOf(pass.OutDir, p.ReportJSON)
		if err != nil {
			return err
		}
		if len(reruns) == 0 {
			fmt.Fprintf(e.Out, "RERUN_FAILED: nothing failed in %s; nothing to run\n", filepath.Join(pass.OutDir, p.ReportJSON))
			return nil
		}
		suites, focus = RerunSelection(reruns)
		fmt.Fprintf(e.Out, "RERUN_FAILED: running again what failed in %s (kept as %s):\n", filepath.Join(pass.OutDir, p.ReportJSON), beforeRerun(p.ReportJSON))
		for _, r := range reruns {
			fmt.Fprintf(e.Out, "  %s %s\n", r.Suite, strings.Join(r.Flags(), " "))
		}
		if err := CopyFile(filepath.Join(pass.OutDir, p.ReportJSON), filepath.Join(pass.OutDir, beforeRerun(p.ReportJSON))); err != nil {
			return err
		}
	}

	if len(pass.ClustersAhead) > 0 {
		start := time.Now()
		if err := e.command(ctx, env, "go", append([]string{"run", "./framework/cluster/cmd/create-run-clusters"}, pass.ClustersAhead...)...); err != nil {
			return fmt.Errorf("creating the run's clusters: %w", err)
		}
		e.phase("clusters"+suffix, time.Since(start))
	}

	start := time.Now()
	junit := strings.TrimSuffix(p.ReportJSON, ".json") + "-junit.xml"
	var suitesErr error
	flags := append(slices.Clone(pass.GinkgoFlags), focus...)
	if pass.SideBySide {
		suitesErr = e.sideBySide(ctx, env, pass, flags, junit, p.ReportJSON)
		e.phase("suites side by side"+suffix, time.Since(start))
	} else {
		args := append(flags, "--output-dir="+pass.OutDir, "--json-report="+p.ReportJSON, "--junit-report="+junit)
		args = append(args, suites...)
		suitesErr = e.command(ctx, env, e.Ginkgo[0], append(slices.Clone(e.Ginkgo[1:]), args...)...)
		e.phase("suites"+suffix, time.Since(start))
	}
	e.suitePhases(filepath.Join(pass.OutDir, p.ReportJSON))
	if suitesErr != nil {
		return fmt.Errorf("the suites%s: %w", suffix, suitesErr)
	}
	return nil
}

// sideBySide runs the pass's suites at once, one Ginkgo each (the Slow set).
func (e Executor) sideBySide(ctx context.Context, env []string, pass VersionPass, flags []string, junit, jsonReport string) error {
	r := sidebyside.Run{
		Ginkgo: e.Ginkgo, Flags: flags, Suites: pass.Suites,
		OutputDir: pass.OutDir, JSONReport: jsonReport, JUnitReport: junit,
		Out: e.Out, Env: env, Interrupt: sidebyside.InterruptGroup,
	}
	start := time.Now()
	fmt.Fprintf(e.Out, "running %d suites side by side: %s\n", len(r.Suites), strings.Join(r.Suites, " "))
	results, err := r.Do(ctx)
	for _, res := range results {
		state := "passed"
		if res.Err != nil {
			state = "FAILED (" + res.Err.Error() + ")"
		}
		fmt.Fprintf(e.Out, "  %-24s %s in %s\n", sidebyside.Name(res.Suite), state, res.Elapsed.Round(100*time.Millisecond))
	}
	fmt.Fprintf(e.Out, "Ran %d suites side by side in %s\n", len(results), time.Since(start).Round(100*time.Millisecond))
	return err
}

// failedOf is what failed in the saved report of one pass.
func failedOf(dir, jsonName string) ([]report.Rerun, error) {
	path := filepath.Join(dir, jsonName)
	suites, err := report.ReadGinkgoJSON(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("RERUN_FAILED: no %s of an earlier run: %w", path, err)
	}
	if err != nil {
		return nil, fmt.Errorf("RERUN_FAILED: %w", err)
	}
	return report.RerunFailed([]report.Run{{Dir: dir, Suites: suites}}, ""), nil
}

// RerunSelection is the suites and Ginkgo focus flags that run the reruns again in
// one Ginkgo run (so that one report holds them all): each failed spec by
// --focus-file=<file>:<line>, a suite whose setup failed by the files directly in
// its directory.
func RerunSelection(reruns []report.Rerun) (suites, focus []string) {
	for _, r := range reruns {
		suites = append(suites, r.Suite)
		if r.Whole {
			focus = append(focus, "--focus-file="+strings.TrimPrefix(r.Suite, "./")+"/[^/]*$")
			continue
		}
		focus = append(focus, r.Flags()...)
	}
	return suites, focus
}

func beforeRerun(jsonName string) string {
	return strings.TrimSuffix(jsonName, ".json") + ".before-rerun.json"
}

// suitePhases adds each suite's own wall time, from the report, to the phases.
func (e Executor) suitePhases(jsonPath string) {
	suites, err := report.ReadGinkgoJSON(jsonPath)
	if err != nil {
		return
	}
	for _, s := range suites {
		e.phase("  "+suitesDir.ReplaceAllString(s.SuitePath, "suites/"), s.RunTime)
	}
}

var suitesDir = regexp.MustCompile(`^.*/suites/`)

// phase appends one line to the phases file: the name and the wall time in whole
// seconds, as the image build writes its own.
func (e Executor) phase(name string, d time.Duration) {
	f, err := os.OpenFile(e.Phases, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		fmt.Fprintln(e.Err, err)
		return
	}
	defer f.Close()
	secs := int(d.Seconds())
	fmt.Fprintf(f, "%-40s %4dm%02ds\n", name, secs/60, secs%60)
}

// command runs one step. On SIGTERM to the run (ctx ends) the step gets SIGINT, as
// a Ctrl-C at a terminal would give it; a Ctrl-C at the terminal reaches the step
// itself, so that it is not interrupted twice (a second interrupt makes Ginkgo skip
// its cleanup): see Interrupts.
func (e Executor) command(ctx context.Context, env []string, name string, args ...string) error {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env, cmd.Stdout, cmd.Stderr = env, e.Out, e.Err
	cmd.Cancel = func() error { return forwardInterrupt(ctx, cmd) }
	return cmd.Run()
}

func (e Executor) output(ctx context.Context, env []string, name string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env, cmd.Stderr = env, e.Err
	out, err := cmd.Output()
	return strings.TrimSpace(string(out)), err
}

// CopyFile copies a file, streaming it (a test-image tarball is hundreds of MB).
func CopyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// forwardInterrupt gives the step SIGINT when the run itself was asked to stop by
// SIGTERM; after a terminal's Ctrl-C the step has its own SIGINT already.
func forwardInterrupt(ctx context.Context, cmd *exec.Cmd) error {
	if errors.Is(context.Cause(ctx), errTerminated) {
		return cmd.Process.Signal(syscall.SIGINT)
	}
	return nil
}

// errTerminated is the cause of the run's context when SIGTERM ended it.
var errTerminated = errors.New("terminated (SIGTERM)")

// Interrupts is the run's context: it ends on Ctrl-C (SIGINT) and on SIGTERM, the
// latter with errTerminated as its cause so that the step under way is given the
// interrupt it did not get from a terminal.
func Interrupts(parent context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(parent)
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-signals:
			if s == syscall.SIGTERM {
				cancel(errTerminated)
			} else {
				cancel(errors.New("interrupted (Ctrl-C)"))
			}
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(signals)
		close(done)
		cancel(nil)
	}
}
