package report

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/onsi/ginkgo/v2/types"
)

// Rerun is a suite to run again: the whole suite when its setup failed (no spec ran),
// else only its failed specs.
type Rerun struct {
	Suite string // "./suites/termination", relative to the repository
	Whole bool
	// Focus: each failed spec's location, "suites/termination/sidecar_test.go:84".
	Focus []string
}

// Flags are the Ginkgo flags that select what to run again.
func (r Rerun) Flags() []string {
	if r.Whole {
		return nil
	}
	flags := make([]string, len(r.Focus))
	for i, f := range r.Focus {
		flags[i] = "--focus-file=" + f
	}
	return flags
}

// RerunFailed lists, from saved reports, what to run again to retry only the failed
// specs: per suite, a --focus-file=<file>:<line> for each failed spec's location. With
// version set, only that version's run counts (its directory name, or the server
// version its suites recorded).
func RerunFailed(runs []Run, version string) []Rerun {
	var out []Rerun
	index := map[string]int{}
	for _, run := range runs {
		if version != "" && run.Version != version && runVersion(run) != version {
			continue
		}
		for _, suite := range run.Suites {
			root, dir := repoRoot(suite.SuitePath), suiteDir(suite)
			for _, s := range suite.SpecReports {
				if !s.State.Is(types.SpecStateFailureStates) {
					continue
				}
				i, ok := index[dir]
				if !ok {
					i = len(out)
					index[dir] = i
					out = append(out, Rerun{Suite: "./" + dir})
				}
				r := &out[i]
				switch {
				case s.LeafNodeType.Is(types.NodeTypeSynchronizedBeforeSuite | types.NodeTypeBeforeSuite):
					r.Whole = true
				case s.LeafNodeType == types.NodeTypeIt:
					if l := location(root, s.LeafNodeLocation); !slices.Contains(r.Focus, l) {
						r.Focus = append(r.Focus, l)
					}
				}
			}
		}
	}
	// A suite that failed only after its specs (a report or cleanup node) has nothing
	// to retry by focus.
	return slices.DeleteFunc(out, func(r Rerun) bool { return !r.Whole && len(r.Focus) == 0 })
}

// WriteRerun prints one line per suite, "<suite dir> <flags…>", for a Makefile or a
// shell loop: while read -r suite flags; do ginkgo $GINKGO_FLAGS $flags $suite; done.
func WriteRerun(w io.Writer, reruns []Rerun) error {
	for _, r := range reruns {
		line := strings.TrimSpace(r.Suite + " " + strings.Join(r.Flags(), " "))
		if _, err := fmt.Fprintln(w, line); err != nil {
			return err
		}
	}
	return nil
}

// runVersion is the Kubernetes version of a run: its directory's name, or the server
// version its suites recorded.
func runVersion(run Run) string {
	if run.Version != "" {
		return run.Version
	}
	for _, suite := range run.Suites {
		if f := clusterFactsOf(suite); f != nil && f.ServerVersion != "" {
			return f.ServerVersion
		}
	}
	return ""
}
