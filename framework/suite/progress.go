package suite

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"

	"github.com/podlifecycle/conformance/framework/sidebyside"
)

// progress prints a line to the console as each spec ends, so that a run of many
// minutes never looks hung: without -v Ginkgo prints a passing spec as one character,
// and GinkgoWriter's output is held back until the spec ends, and then only shown if
// it failed.
//
// Under `ginkgo -p` each process counts towards the same total, through a file the
// processes append one byte to per spec (O_APPEND writes are atomic, so the offset
// after a write is that spec's number), and writes to the Ginkgo CLI's own stdout:
// the CLI holds the processes' stdout back until they exit.
type progress struct {
	suite string
	label string // what a line starts with: "[suite] ", or nothing side by side
	start time.Time

	mu      sync.Mutex
	total   int
	done    int
	counter *os.File // under -p
	out     io.Writer
	opened  bool
}

// counterHeader is the total the counter file starts with, in fixed width.
const counterHeader = len("0000000000\n")

func newProgress(suite string) *progress {
	label := "[" + suite + "] "
	if os.Getenv(sidebyside.EnvVar) != "" {
		label = "" // the side-by-side runner prefixes every line of the suite already
	}
	return &progress{suite: suite, label: label, start: time.Now()}
}

// register adds the reporting nodes to the suite.
func (p *progress) register() {
	ReportBeforeSuite(func(r Report) { p.begin(r.PreRunStats.SpecsThatWillRun) })
	ReportAfterEach(func(r SpecReport) { p.specDone(r) })
	ReportAfterSuite("progress counter removal", func(Report) { p.end() })
}

// begin runs on Ginkgo process 1 only; the others wait until it has returned.
func (p *progress) begin(total int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.total = total
	if parallel() {
		// A leftover of an earlier run with the same CLI address is overwritten.
		if err := os.WriteFile(counterPath(p.suite), fmt.Appendf(nil, "%010d\n", total), 0o644); err != nil {
			fmt.Fprintf(os.Stderr, "progress of %s: %v\n", p.suite, err)
		}
	}
}

func (p *progress) specDone(r SpecReport) {
	if r.NumAttempts == 0 {
		return // not run: filtered out, or after an abort
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.open()
	if p.out == nil {
		return
	}
	done, total := p.count()
	// The line is ended by the next one, not by a newline of its own: Ginkgo prints its
	// mark for the spec (• passed, S skipped) right after, which so ends the line
	// instead of starting the next; a failure's block starts on a line of its own.
	fmt.Fprint(p.out, "\n"+progressLine(p.label, done, total, time.Since(p.start), r.State, r.FullText())+" ")
}

// open picks the console and, under -p, the counter, once.
func (p *progress) open() {
	if p.opened {
		return
	}
	p.opened = true
	if !parallel() {
		p.out = os.Stdout
		return
	}
	// The CLI is this process's parent and prints the specs' results to its stdout;
	// where that cannot be opened (no /proc) the run goes without progress lines
	// rather than with a captured-output block after every spec.
	if f, err := os.OpenFile(fmt.Sprintf("/proc/%d/fd/1", os.Getppid()), os.O_WRONLY|os.O_APPEND, 0); err == nil {
		p.out = f
	}
	path := counterPath(p.suite)
	if b, err := os.ReadFile(path); err == nil && len(b) >= counterHeader {
		p.total, _ = strconv.Atoi(strings.TrimSpace(string(b[:counterHeader])))
	}
	if f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0); err == nil {
		p.counter = f
	}
}

// count records one more finished spec and returns how many have finished.
func (p *progress) count() (done, total int) {
	if p.counter == nil {
		p.done++
		return p.done, p.total
	}
	if _, err := p.counter.Write([]byte{'.'}); err == nil {
		if off, err := p.counter.Seek(0, io.SeekCurrent); err == nil {
			return int(off) - counterHeader, p.total
		}
	}
	p.done++ // this process's own count, should the file fail
	return p.done, p.total
}

// end runs on process 1 once every process has finished.
func (p *progress) end() {
	if parallel() {
		_ = os.Remove(counterPath(p.suite))
	}
}

func parallel() bool {
	conf, _ := GinkgoConfiguration()
	return conf.ParallelTotal > 1
}

// counterPath is the same for the processes of one `ginkgo -p` run of a suite: they
// share the CLI's address.
func counterPath(suite string) string {
	conf, _ := GinkgoConfiguration()
	sum := sha256.Sum256([]byte(conf.ParallelHost + "\x00" + suite))
	return filepath.Join(os.TempDir(), "podlifecycle-progress-"+hex.EncodeToString(sum[:8]))
}

// progressLine: "[lifecycle] 3/20 specs, 1m2s — passed The pod …", label being
// "[lifecycle] ".
func progressLine(label string, done, total int, elapsed time.Duration, state types.SpecState, text string) string {
	of := "?"
	if total > 0 {
		of = strconv.Itoa(total)
	}
	return fmt.Sprintf("%s%d/%s specs, %s — %s %s", label, done, of, elapsed.Round(time.Second), state, text)
}
