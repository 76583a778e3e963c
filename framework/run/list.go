package run

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/podlifecycle/conformance/framework/statements"
)

// Listed is one spec a filter selects, as Ginkgo's dry run reports it.
type Listed struct {
	Suite, Text, Location string
	Labels                []string
}

// Selected is the specs of a Ginkgo dry run's reports that its filters selected:
// a dry run reports them passed, the rest skipped or pending.
func Selected(reports []types.Report) []Listed {
	var out []Listed
	for _, r := range reports {
		suite := suitesDir.ReplaceAllString(r.SuitePath, "suites/")
		for _, s := range r.SpecReports {
			if s.LeafNodeType != types.NodeTypeIt || s.State != types.SpecStatePassed {
				continue
			}
			loc := s.LeafNodeLocation
			file := loc.FileName
			if i := strings.LastIndex(file, "/suites/"); i >= 0 {
				file = file[i+1:]
			}
			out = append(out, Listed{Suite: suite, Text: s.FullText(), Location: fmt.Sprintf("%s:%d", file, loc.LineNumber), Labels: s.Labels()})
		}
	}
	return out
}

// WriteList prints, per statement of the catalogue, the selected specs that carry
// its ID, then the statements no selected spec checks, so that a label filter or a
// focus can be read before a cluster is made.
func WriteList(w io.Writer, cat statements.Catalogue, specs []Listed) error {
	var unchecked []string
	var b strings.Builder
	for _, st := range cat.Statements() {
		var mine []Listed
		for _, s := range specs {
			if slices.Contains(s.Labels, st.ID) {
				mine = append(mine, s)
			}
		}
		if len(mine) == 0 {
			unchecked = append(unchecked, st.ID)
			continue
		}
		fmt.Fprintf(&b, "%s  %s\n", st.ID, oneLine(st.Text, 100))
		for _, s := range mine {
			fmt.Fprintf(&b, "    %s  %s  [%s]\n", s.Location, oneLine(s.Text, 110), strings.Join(s.Labels, ", "))
		}
	}
	fmt.Fprintf(&b, "%d specs selected, checking %d of %d statements", len(specs), len(cat.Statements())-len(unchecked), len(cat.Statements()))
	if len(unchecked) > 0 {
		fmt.Fprintf(&b, "; none selected for %s", strings.Join(unchecked, " "))
	}
	b.WriteByte('\n')
	_, err := io.WriteString(w, b.String())
	return err
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// DryRunArgs are the Ginkgo arguments of a dry run of the pass's selection that
// writes its JSON report to dir.
func DryRunArgs(pass VersionPass, dir string) []string {
	var args []string
	for _, f := range pass.GinkgoFlags {
		if !strings.HasPrefix(f, "--procs=") { // a dry run is one process
			args = append(args, f)
		}
	}
	args = append(args, pass.FocusFiles...)
	args = append(args, "--dry-run", "--output-dir="+dir, "--json-report="+ListReport)
	return append(args, pass.Suites...)
}

// ListReport is the dry run's JSON report's file name.
const ListReport = "list.json"
