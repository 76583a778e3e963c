// Package sidebyside runs several streams of Ginkgo suites at once, one Ginkgo
// invocation per stream (its suites one after the other, as Ginkgo runs the suites of
// one invocation), and merges what they write into the one JSON and JUnit report a
// single Ginkgo run over the same suites writes. Suites whose specs mostly wait for
// documented delays (crash-loop backoffs, grace periods) can wait side by side.
//
// Side by side, a suite's Serial specs would no longer run alone: the suites of a run
// share clusters. Every suite started here sees EnvVar, and the suite framework fails
// a Serial spec that runs under it (framework/suite), so a run is side by side only
// where none of its specs needs the machine to itself.
package sidebyside

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/onsi/ginkgo/v2/reporters"
)

// EnvVar is set, to the suites running together, in the environment of every suite
// this package starts.
const EnvVar = "E2E_SIDE_BY_SIDE"

// Run is one side-by-side run.
type Run struct {
	// Ginkgo is the command that runs Ginkgo, e.g. {"go", "tool", "ginkgo"}.
	Ginkgo []string
	// Flags are given to every suite's Ginkgo, before the report flags this package adds.
	Flags []string
	// Streams are the suites' package paths (./suites/restart), one list per Ginkgo
	// invocation, each run in its order; the streams run at once.
	Streams [][]string
	// OutputDir receives the merged reports, named JSONReport and JUnitReport (either
	// may be empty: no such report).
	OutputDir, JSONReport, JUnitReport string
	// Out receives every suite's output, each line prefixed with the suite's name.
	Out io.Writer
	// Env is every suite's environment (nil: this process's own), to which EnvVar is
	// added.
	Env []string
	// Interrupt stops a suite's Ginkgo when ctx ends, as a Ctrl-C at a terminal stops
	// a Ginkgo run (its specs' cleanup and its clusters' release still run).
	Interrupt func(*exec.Cmd) error
}

// Result is one stream's outcome.
type Result struct {
	Suites  []string
	Err     error // nil: the stream's Ginkgo exited 0
	Elapsed time.Duration
}

// Do runs every stream at once, waits for all of them, merges their reports and
// returns each stream's result; the error is non-nil when a suite failed or a report
// could not be merged.
func (r Run) Do(ctx context.Context) ([]Result, error) {
	var all []string
	for _, s := range r.Streams {
		if len(s) == 0 {
			return nil, errors.New("sidebyside: a stream without a suite")
		}
		all = append(all, s...)
	}
	if len(r.Ginkgo) == 0 || len(all) == 0 {
		return nil, errors.New("sidebyside: a Ginkgo command and at least one suite are needed")
	}
	out := &lineWriter{w: r.Out}
	reports := r.reports()
	together := EnvVar + "=" + strings.Join(names(all), ",")
	results := make([]Result, len(r.Streams))
	var wg sync.WaitGroup
	for i, stream := range r.Streams {
		name := StreamName(stream)
		args := append(append([]string{}, r.Ginkgo[1:]...), r.Flags...)
		if r.OutputDir != "" {
			args = append(args, "--output-dir="+r.OutputDir)
		}
		for j := range reports {
			part := partName(reports[j].file, name)
			reports[j].parts = append(reports[j].parts, filepath.Join(r.OutputDir, part))
			args = append(args, reports[j].flag+"="+part)
		}
		args = append(args, stream...)
		cmd := exec.CommandContext(ctx, r.Ginkgo[0], args...)
		env := r.Env
		if env == nil {
			env = os.Environ()
		}
		cmd.Env = append(append([]string(nil), env...), together)
		prefix := "[" + name + "] "
		stdout, stderr := out.prefixed(prefix), out.prefixed(prefix)
		cmd.Stdout, cmd.Stderr = stdout, stderr
		setProcessGroup(cmd)
		if r.Interrupt != nil {
			cmd.Cancel = func() error { return r.Interrupt(cmd) }
		}
		// After the interrupt, Ginkgo's cleanup (spec DeferCleanups, cluster release)
		// has its own bounds; this only stops a Ginkgo that hangs past all of them.
		cmd.WaitDelay = 5 * time.Minute
		results[i].Suites = stream
		start := time.Now()
		if err := cmd.Start(); err != nil {
			results[i].Err = err
			continue
		}
		wg.Go(func() {
			results[i].Err = cmd.Wait()
			results[i].Elapsed = time.Since(start)
			stdout.flush()
			stderr.flush()
		})
	}
	wg.Wait()

	var errs []error
	for _, res := range results {
		if res.Err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", strings.Join(res.Suites, " "), res.Err))
		}
	}
	for _, rep := range reports {
		// The messages say which part was missing or unreadable (a suite that never
		// started writes none); the parts that exist are merged all the same.
		msgs, err := rep.merge(rep.parts, filepath.Join(r.OutputDir, rep.file))
		if err != nil {
			errs = append(errs, fmt.Errorf("merging the %s reports: %w", rep.flag, err))
		}
		for _, msg := range msgs {
			fmt.Fprintln(r.Out, msg)
		}
	}
	return results, errors.Join(errs...)
}

// report is one kind of report every suite writes a part of, merged at the end.
type report struct {
	flag  string // Ginkgo's flag naming the file
	file  string // the merged report's file name in OutputDir
	merge func(sources []string, destination string) ([]string, error)
	parts []string
}

// reports are the reports asked for (a file name given).
func (r Run) reports() []report {
	var out []report
	if r.JSONReport != "" {
		out = append(out, report{flag: "--json-report", file: r.JSONReport, merge: reporters.MergeAndCleanupJSONReports})
	}
	if r.JUnitReport != "" {
		out = append(out, report{flag: "--junit-report", file: r.JUnitReport, merge: reporters.MergeAndCleanupJUnitReports})
	}
	return out
}

// Name is how a suite is named in prefixes and report file names: its path below
// suites/ (./suites/restart/profiles → restart/profiles), for its test binary too
// (./suites/restart/profiles/profiles.test → restart/profiles).
func Name(suite string) string {
	s := filepath.ToSlash(filepath.Clean(suite))
	if strings.HasSuffix(s, ".test") {
		s = path.Dir(s)
	}
	if i := strings.LastIndex(s, "suites/"); i >= 0 {
		return s[i+len("suites/"):]
	}
	return s
}

// StreamName names a stream by its suites: "restart+restart/profiles".
func StreamName(stream []string) string { return strings.Join(names(stream), "+") }

func names(suites []string) []string {
	n := make([]string, len(suites))
	for i, s := range suites {
		n[i] = Name(s)
	}
	return n
}

// partName is the file one stream's Ginkgo writes its part of report into:
// e2e.json → e2e.restart-profiles.part.json.
func partName(report, suite string) string {
	ext := filepath.Ext(report)
	return strings.TrimSuffix(report, ext) + "." + strings.NewReplacer("/", "-", "+", "_").Replace(suite) + ".part" + ext
}

// lineWriter writes whole lines of several writers to one, so that lines of suites
// running at once interleave but never mix.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lineWriter) prefixed(prefix string) *prefixWriter {
	return &prefixWriter{to: l, prefix: prefix}
}

type prefixWriter struct {
	to      *lineWriter
	prefix  string
	pending []byte
}

func (p *prefixWriter) Write(b []byte) (int, error) {
	p.pending = append(p.pending, b...)
	for {
		i := bytes.IndexByte(p.pending, '\n')
		if i < 0 {
			return len(b), nil
		}
		p.emit(p.pending[:i+1])
		p.pending = p.pending[i+1:]
	}
}

// flush writes what is left after the last newline (called once the command ended).
func (p *prefixWriter) flush() {
	if len(p.pending) > 0 {
		p.emit(append(p.pending, '\n'))
		p.pending = nil
	}
}

func (p *prefixWriter) emit(line []byte) {
	p.to.mu.Lock()
	defer p.to.mu.Unlock()
	p.to.w.Write(append([]byte(p.prefix), line...))
}
