package run

import (
	"cmp"
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
	"sync"
	"syscall"
	"time"

	"github.com/onsi/ginkgo/v2/reporters"
	"github.com/onsi/ginkgo/v2/types"

	"github.com/podlifecycle/conformance/framework/cluster"
	"github.com/podlifecycle/conformance/framework/config"
	"github.com/podlifecycle/conformance/framework/entries"
	"github.com/podlifecycle/conformance/framework/report"
	"github.com/podlifecycle/conformance/framework/sidebyside"
	"github.com/podlifecycle/conformance/framework/statements"
)

// Executor carries out a plan in the repository's root directory.
type Executor struct {
	// Ginkgo is the command that runs Ginkgo ({"go", "tool", "ginkgo"}).
	Ginkgo []string
	// Env is the environment of every command: the user's, less what would name the
	// cluster under test or the run's switches behind the run's back (KUBECONFIG).
	Env []string
	// Out, Err receive the commands' output and the run's own lines.
	Out, Err io.Writer
	// Phases is the file each phase's wall time is appended to (<artifacts>/phases.txt).
	Phases string
	// Record is the run's record as far as the caller knows it (ID, start, commit);
	// Execute adds each pass's own values and writes it into every pass's directory.
	Record config.Record
	// CPU, when set, adds to each phase's line how busy the machine's cores were.
	CPU *CPULoad
}

// ErrSpecsFailed marks a run whose suites ran and some spec failed (exit status 1),
// as against a run that could not be made or read (exit status 2).
var ErrSpecsFailed = errors.New("some specs failed")

// ExitCode is the run's exit status: 0 green, 1 when only specs failed, 2 when any
// part of the run could not be made (images, clusters, the report) or was interrupted.
func ExitCode(err error) int {
	if err == nil {
		return 0
	}
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	for _, e := range errs {
		if !errors.Is(e, ErrSpecsFailed) {
			return 2
		}
	}
	return 1
}

// Execute runs the plan and returns the run's status: nil when every suite passed
// and the report was written. ctx ends on Ctrl-C: the step under way ends as its own
// command handles the interrupt (Ginkgo runs its cleanup: the clusters a suite
// made are deleted), the other passes are not started, and the report is written
// of what ran. The record (run.json) of every pass directory is written before its
// first step and again, with the exit status, at the end.
func (e Executor) Execute(ctx context.Context, p Plan) error {
	var failed []error
	fail := func(err error) { failed = append(failed, err) }
	records := map[string]config.Record{}
	top := e.Record
	top.Config, top.Suites, top.Dir = p.Config, p.Suites, absPath(p.Artifacts)
	records[p.Artifacts] = top
	if err := top.Write(p.Artifacts); err != nil {
		return err
	}
	for _, pass := range p.Versions {
		if ctx.Err() != nil {
			fail(fmt.Errorf("interrupted before Kubernetes %s", pass.Version))
			break
		}
		if err := e.pass(ctx, p, pass, records); err != nil {
			fail(err)
		}
	}
	if interrupted := ctx.Err() != nil; deletesItsClusters(p, failed, interrupted) {
		if interrupted {
			fmt.Fprintln(e.Err, "interrupted: deleting the kind clusters this run made")
		}
		if err := cluster.DeleteRunClusters(cluster.KindOptionsOf(records[p.Artifacts]), e.Record.ID); err != nil {
			fail(fmt.Errorf("deleting the run's clusters: %w", err))
		}
	}
	start := time.Now()
	if anyStarted(records) {
		err := WriteReport(ReportOptions{Artifacts: []string{p.Artifacts}, JSON: p.ReportJSON, Suites: p.ProjectSuites, Catalogue: e.catalogue()}, e.Out)
		if err != nil {
			fmt.Fprintln(e.Err, "the report could not be written (make report writes it again)")
			fail(fmt.Errorf("the report: %w", err))
		}
		e.phase("report", time.Since(start))
	} else {
		fmt.Fprintf(e.Err, "no report: run %s in %s never started its suites (%v): there is nothing to report, and no earlier run's report is shown instead\n", e.Record.ID, p.Artifacts, errors.Join(failed...))
	}
	if data, err := os.ReadFile(e.Phases); err == nil {
		fmt.Fprintf(e.Out, "== wall time per phase (%s)\n%s", e.Phases, data)
	}
	err := errors.Join(failed...)
	code := ExitCode(err)
	for dir, rec := range records {
		rec.Finished, rec.Exit = time.Now(), &code
		if err != nil && code == 2 {
			rec.Failure = err.Error()
		}
		if werr := rec.Write(dir); werr != nil {
			fmt.Fprintln(e.Err, werr)
		}
	}
	return err
}

func anyStarted(records map[string]config.Record) bool {
	for _, r := range records {
		if !r.SuitesStarted.IsZero() {
			return true
		}
	}
	return false
}

func (e Executor) catalogue() statements.Catalogue {
	cat, err := statements.Load()
	if err != nil {
		fmt.Fprintln(e.Err, err)
	}
	return cat
}

func absPath(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	return abs
}

func (e Executor) pass(ctx context.Context, p Plan, pass VersionPass, records map[string]config.Record) (err error) {
	suffix, version := "", pass.ServerVersion
	if pass.Version != "" {
		suffix = " " + version
		fmt.Fprintf(e.Out, "== Kubernetes %s\n", version)
	}
	rec := e.Record
	rec.Config, rec.Suites, rec.ServerVersion, rec.Dir = p.Config, p.Suites, version, absPath(pass.OutDir)
	rec.InCluster = false
	save := func() error { records[pass.OutDir] = rec; return rec.Write(pass.OutDir) }
	if err := save(); err != nil {
		return err
	}
	if pass.BuildImages {
		start := time.Now()
		buildEnv := append(slices.Clone(e.Env), "KUBERNETES_VERSION="+version, "KUBELET="+p.Config.Kubelet, "KUBELET_VERSION="+p.Config.KubeletVersion)
		if err := e.command(ctx, buildEnv, "bash", "images/build.sh"); err != nil {
			return fmt.Errorf("the images of Kubernetes %s: %w", version, err)
		}
		e.phase("images"+suffix, time.Since(start))
		nodeImage, err := e.output(ctx, buildEnv, "bash", "images/scripts/kubelet.sh")
		if err != nil {
			return fmt.Errorf("the node image of Kubernetes %s: %w", version, err)
		}
		rec.NodeImage = nodeImage
		if err := save(); err != nil {
			return err
		}
	}
	env := append(slices.Clone(e.Env), config.RecordVar+"="+filepath.Join(rec.Dir, config.RecordFile))

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

	// Side by side, the suites' test binaries are built beside the clusters' creation,
	// so that no compiler runs while the specs measure (Ginkgo would build each suite
	// of a stream as the one before it runs).
	var built chan compiled
	if len(pass.Streams) > 0 {
		built = make(chan compiled, 1)
		go func() { built <- e.compile(ctx, pass.Suites) }()
	}
	if len(pass.ClustersAhead) > 0 {
		start := time.Now()
		var configs []string
		for _, c := range pass.ClustersAhead {
			configs = append(configs, absPath(c))
		}
		if err := cluster.CreateRunClusters(ctx, configs, cluster.KindOptionsOf(rec)); err != nil {
			return fmt.Errorf("creating the run's clusters: %w", err)
		}
		e.phase("clusters"+suffix, time.Since(start))
	}

	if built != nil {
		c := <-built
		if c.err != nil {
			return fmt.Errorf("building the suites: %w", c.err)
		}
		pass.Streams = c.streams(pass.Streams)
		pass.Suites = c.streams([][]string{pass.Suites})[0]
	}

	start := time.Now()
	rec.SuitesStarted = start
	if err := save(); err != nil {
		return err
	}
	if top, ok := records[p.Artifacts]; ok && top.SuitesStarted.IsZero() {
		top.SuitesStarted = start
		records[p.Artifacts] = top
		if err := top.Write(p.Artifacts); err != nil {
			return err
		}
	}
	junit := strings.TrimSuffix(p.ReportJSON, ".json") + "-junit.xml"
	var suitesErr error
	flags := append(slices.Clone(pass.GinkgoFlags), focus...)
	if len(pass.Streams) > 0 {
		together := flags
		if pass.QuietAfter {
			together = andLabels(flags, "!"+entries.QuietLabel)
		}
		suitesErr = e.sideBySide(ctx, env, pass, together, junit, p.ReportJSON)
		e.phase("suites side by side"+suffix, time.Since(start))
		if pass.QuietAfter && ctx.Err() == nil {
			quietStart := time.Now()
			suitesErr = errors.Join(suitesErr, e.quietAfter(ctx, env, pass, andLabels(flags, entries.QuietLabel), p.ReportJSON, junit))
			e.phase("suites, the Quiet specs after"+suffix, time.Since(quietStart))
		}
	} else if groups := cluster.Groups(suites, pass.SuiteConfigs); len(groups) > 1 {
		var deleteErr error
		suitesErr, deleteErr = e.clusterByCluster(ctx, env, cluster.KindOptionsOf(rec), pass.OutDir, flags, groups, p.ReportJSON, junit)
		e.phase("suites"+suffix, time.Since(start))
		if deleteErr != nil {
			defer func() { err = errors.Join(err, deleteErr) }()
		}
	} else {
		args := append(flags, "--output-dir="+pass.OutDir, "--json-report="+p.ReportJSON, "--junit-report="+junit)
		args = append(args, suites...)
		suitesErr = e.command(ctx, env, e.Ginkgo[0], append(slices.Clone(e.Ginkgo[1:]), args...)...)
		e.phase("suites"+suffix, time.Since(start))
	}
	jsonPath := filepath.Join(pass.OutDir, p.ReportJSON)
	e.suitePhases(jsonPath)
	if pass.RerunFailed {
		if err := MergeRerunInto(filepath.Join(pass.OutDir, beforeRerun(p.ReportJSON)), jsonPath); err != nil {
			return fmt.Errorf("merging the rerun into the run's report: %w", err)
		}
	}
	if suitesErr != nil {
		// Ginkgo fails alike when a spec failed and when a suite could not be built or
		// run; a report it wrote during this run tells the first from the second.
		if st, err := os.Stat(jsonPath); err == nil && !st.ModTime().Before(start) && ctx.Err() == nil {
			return fmt.Errorf("the suites%s: %w (%w)", suffix, ErrSpecsFailed, suitesErr)
		}
		return fmt.Errorf("the suites%s: %w", suffix, suitesErr)
	}
	return nil
}

// deletesItsClusters: whether a run deletes the kind clusters it made, at its end:
// when every pass passed, and when it was interrupted (Ctrl-C) whatever had run,
// since a suite interrupted deletes the cluster it made but one that a green suite
// left for the run's next suites would stay behind, unannounced. A run that failed
// by itself keeps them, to be inspected.
func deletesItsClusters(p Plan, failed []error, interrupted bool) bool {
	return p.DeleteClusters && (interrupted || len(failed) == 0)
}

// clusterByCluster runs groups (cluster.Groups) one after another, one Ginkgo each,
// and deletes the clusters a group was the last to use once every group on them has
// passed, beside the next group's start: a 2-core machine then never carries one
// cluster's idle nodes while the next is made and measured. Each Ginkgo writes its
// part of jsonReport and junit in outDir; the parts are merged into them. suitesErr
// is the suites' failure, deleteErr a cluster that could not be deleted.
func (e Executor) clusterByCluster(ctx context.Context, env []string, opts cluster.KindOptions, outDir string, flags []string, groups []cluster.SuiteGroup, jsonReport, junit string) (suitesErr, deleteErr error) {
	var failures, deleteErrs []error
	var jsonParts, junitParts []string
	failed := map[string]bool{}
	var mu sync.Mutex
	var deletions sync.WaitGroup
	for i, g := range groups {
		if ctx.Err() != nil {
			failures = append(failures, fmt.Errorf("interrupted before %s", strings.Join(g.Suites, " ")))
			break
		}
		jsonPart, junitPart := groupPart(jsonReport, i), groupPart(junit, i)
		jsonParts, junitParts = append(jsonParts, filepath.Join(outDir, jsonPart)), append(junitParts, filepath.Join(outDir, junitPart))
		args := append(slices.Clone(flags), "--output-dir="+outDir, "--json-report="+jsonPart, "--junit-report="+junitPart)
		args = append(args, g.Suites...)
		if err := e.command(ctx, env, e.Ginkgo[0], append(slices.Clone(e.Ginkgo[1:]), args...)...); err != nil {
			failures = append(failures, fmt.Errorf("%s: %w", strings.Join(g.Suites, " "), err))
			for _, c := range g.Configs {
				failed[c] = true
			}
			continue
		}
		for _, c := range g.Done {
			if failed[c] || ctx.Err() != nil {
				continue
			}
			deletions.Go(func() {
				start := time.Now()
				deleted, err := cluster.DeleteRunClusterOf(absPath(c), opts)
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					deleteErrs = append(deleteErrs, fmt.Errorf("deleting the cluster of %s once its suites passed: %w", c, err))
					return
				}
				if deleted {
					e.phaseAt("  cluster of "+filepath.Base(c)+" deleted", start, time.Now())
				}
			})
		}
	}
	deletions.Wait()
	// Ginkgo's merge skips a part a Ginkgo that never started did not write, and says so.
	merge := func(parts []string, into string, with func([]string, string) ([]string, error)) {
		msgs, err := with(parts, filepath.Join(outDir, into))
		for _, m := range msgs {
			fmt.Fprintln(e.Out, m)
		}
		if err != nil {
			failures = append(failures, fmt.Errorf("merging the suites' reports into %s: %w", into, err))
		}
	}
	merge(jsonParts, jsonReport, reporters.MergeAndCleanupJSONReports)
	merge(junitParts, junit, reporters.MergeAndCleanupJUnitReports)
	return errors.Join(failures...), errors.Join(deleteErrs...)
}

// groupPart names the part of report one group's Ginkgo writes: e2e.json → e2e.group1.part.json.
func groupPart(report string, i int) string {
	ext := filepath.Ext(report)
	return fmt.Sprintf("%s.group%d.part%s", strings.TrimSuffix(report, ext), i+1, ext)
}

// andLabels is flags with their label filter narrowed by and.
func andLabels(flags []string, and string) []string {
	out := slices.Clone(flags)
	for i, f := range out {
		if l, ok := strings.CutPrefix(f, "--label-filter="); ok {
			out[i] = "--label-filter=(" + l + ") && " + and
		}
	}
	return out
}

// quietAfter runs the pass's Quiet specs, one suite after another in one Ginkgo, and
// merges their results into the side-by-side run's reports (jsonReport and junit in
// the pass's directory), where the label filter had left them out. Only the suites
// that have such a spec (the side-by-side report lists them, filtered out) are built
// and run again.
func (e Executor) quietAfter(ctx context.Context, env []string, pass VersionPass, flags []string, jsonReport, junit string) error {
	suites, err := report.ReadGinkgoJSON(filepath.Join(pass.OutDir, jsonReport))
	if err != nil {
		return fmt.Errorf("the Quiet specs: which suites have them: %w", err)
	}
	quiet := SuitesWithLabel(suites, pass.Suites, entries.QuietLabel)
	if len(quiet) == 0 {
		return nil
	}
	quietJSON := "quiet-" + jsonReport
	fmt.Fprintf(e.Out, "running the Quiet specs (Serial, the machine to themselves) of %s, one suite after another\n", strings.Join(quiet, " "))
	args := append(flags, "--output-dir="+pass.OutDir, "--json-report="+quietJSON)
	args = append(args, quiet...)
	runErr := e.command(ctx, env, e.Ginkgo[0], append(slices.Clone(e.Ginkgo[1:]), args...)...)
	if err := MergeQuietInto(filepath.Join(pass.OutDir, jsonReport), filepath.Join(pass.OutDir, quietJSON), filepath.Join(pass.OutDir, junit)); err != nil {
		return errors.Join(runErr, fmt.Errorf("merging the Quiet specs' report: %w", err))
	}
	return runErr
}

// compiled is what compile built: each suite's test binary by its package path.
type compiled struct {
	binaries map[string]string
	err      error
}

// streams is streams with each suite that was built replaced by its test binary,
// which Ginkgo runs in the suite's directory as it would run the suite.
func (c compiled) streams(streams [][]string) [][]string {
	out := make([][]string, len(streams))
	for i, s := range streams {
		for _, suite := range s {
			out[i] = append(out[i], cmp.Or(c.binaries[suite], suite))
		}
	}
	return out
}

// compile builds the suites' test binaries (ginkgo build: <suite>/<package>.test).
func (e Executor) compile(ctx context.Context, suites []string) compiled {
	start := time.Now()
	var out strings.Builder
	args := append(slices.Clone(e.Ginkgo[1:]), "build")
	cmd := exec.CommandContext(ctx, e.Ginkgo[0], append(args, suites...)...)
	cmd.Env, cmd.Stdout, cmd.Stderr = e.Env, &out, &out
	if err := cmd.Run(); err != nil {
		return compiled{err: fmt.Errorf("%s build: %w\n%s", strings.Join(e.Ginkgo, " "), err, out.String())}
	}
	c := compiled{binaries: map[string]string{}}
	for _, s := range suites {
		bins, _ := filepath.Glob(filepath.Join(s, "*.test"))
		if len(bins) != 1 {
			return compiled{err: fmt.Errorf("ginkgo build left %d test binaries in %s, want one", len(bins), s)}
		}
		c.binaries[s] = "./" + filepath.ToSlash(bins[0])
	}
	fmt.Fprintf(e.Out, "built the test binaries of %d suites in %s, beside the clusters' creation\n", len(suites), time.Since(start).Round(time.Second))
	e.phase("  suites built (beside the clusters)", time.Since(start))
	return c
}

// SuitesWithLabel is those of suites (package paths, in their order) whose report
// holds a spec labelled label, on the spec or on a container.
func SuitesWithLabel(reports []types.Report, suites []string, label string) []string {
	has := map[string]bool{}
	for _, r := range reports {
		for _, s := range r.SpecReports {
			if slices.Contains(s.Labels(), label) {
				has[sidebyside.Name(r.SuitePath)] = true
			}
		}
	}
	var out []string
	for _, s := range suites {
		if has[sidebyside.Name(s)] {
			out = append(out, s)
		}
	}
	return out
}

// sideBySide runs the pass's streams of suites at once, one Ginkgo each.
func (e Executor) sideBySide(ctx context.Context, env []string, pass VersionPass, flags []string, junit, jsonReport string) error {
	r := sidebyside.Run{
		Ginkgo: e.Ginkgo, Flags: flags, Streams: pass.Streams,
		OutputDir: pass.OutDir, JSONReport: jsonReport, JUnitReport: junit,
		Out: e.Out, Env: env, Interrupt: sidebyside.InterruptGroup,
	}
	start := time.Now()
	var names []string
	for _, s := range r.Streams {
		names = append(names, sidebyside.StreamName(s))
	}
	fmt.Fprintf(e.Out, "running %d streams of suites side by side: %s\n", len(r.Streams), strings.Join(names, " | "))
	results, err := r.Do(ctx)
	for _, res := range results {
		state := "passed"
		if res.Err != nil {
			state = "FAILED (" + res.Err.Error() + ")"
		}
		fmt.Fprintf(e.Out, "  %-48s %s in %s\n", sidebyside.StreamName(res.Suites), state, res.Elapsed.Round(100*time.Millisecond))
	}
	fmt.Fprintf(e.Out, "Ran %d streams side by side in %s\n", len(results), time.Since(start).Round(100*time.Millisecond))
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
		e.phaseAt("  "+suitesDir.ReplaceAllString(s.SuitePath, "suites/"), s.StartTime, s.StartTime.Add(s.RunTime))
	}
}

var suitesDir = regexp.MustCompile(`^.*/suites/`)

// phase appends one line to the phases file: the name and the wall time in whole
// seconds, as the image build writes its own.
func (e Executor) phase(name string, d time.Duration) {
	now := time.Now()
	e.phaseAt(name, now.Add(-d), now)
}

// phaseAt is phase of the span from start to end, with the cores busy over it when
// e.CPU sampled them.
func (e Executor) phaseAt(name string, start, end time.Time) {
	f, err := os.OpenFile(e.Phases, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		fmt.Fprintln(e.Err, err)
		return
	}
	defer f.Close()
	secs := int(end.Sub(start).Seconds())
	fmt.Fprintf(f, "%-40s %4dm%02ds%s\n", name, secs/60, secs%60, e.CPU.column(start, end))
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
