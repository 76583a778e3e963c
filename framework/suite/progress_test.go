package suite

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2/types"
)

func TestProgressLine(t *testing.T) {
	got := progressLine("[restart-profiles] ", 3, 20, 62400*time.Millisecond, types.SpecStatePassed, "The restart policy Always restarts")
	if want := "[restart-profiles] 3/20 specs, 1m2s — passed The restart policy Always restarts"; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	if got := progressLine("[x] ", 1, 0, 0, types.SpecStateTimedout, "t"); got != "[x] 1/? specs, 0s — timedout t" {
		t.Errorf("without a total: %q", got)
	}
}

// Processes of one `ginkgo -p` run count through the same file, each spec once.
func TestProgressCountsAcrossProcesses(t *testing.T) {
	path := filepath.Join(t.TempDir(), "counter")
	if err := os.WriteFile(path, fmt.Appendf(nil, "%010d\n", 3), 0o644); err != nil {
		t.Fatal(err)
	}
	var procs [2]*progress
	for i := range procs {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		procs[i] = &progress{counter: f, total: 3}
	}
	var got []int
	for _, p := range []*progress{procs[0], procs[1], procs[0]} {
		done, total := p.count()
		if total != 3 {
			t.Errorf("total %d", total)
		}
		got = append(got, done)
	}
	if fmt.Sprint(got) != "[1 2 3]" {
		t.Errorf("counted %v", got)
	}
	alone := &progress{}
	if done, _ := alone.count(); done != 1 {
		t.Errorf("a process on its own counts itself: %d", done)
	}
}
