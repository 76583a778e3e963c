package mutants

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/podlifecycle/conformance/framework/report"
	"github.com/podlifecycle/conformance/framework/statements"
)

const header = `# Mutant: 99-example
# Breaks: RS-6 RS-8
# Change: the backoff starts at 11 s
# Size: small
# Undetectable: RS-8: nothing of the reason changes
diff --git a/pkg/kubelet/kubelet.go b/pkg/kubelet/kubelet.go
`

func TestParse(t *testing.T) {
	m, err := Parse("images/mutants/99-example.patch", []byte(header))
	if err != nil {
		t.Fatal(err)
	}
	if m.Name != "99-example" || strings.Join(m.Breaks, " ") != "RS-6 RS-8" || !m.Small || m.Change != "the backoff starts at 11 s" || m.Undetectable["RS-8"] != "nothing of the reason changes" {
		t.Errorf("parsed %+v", m)
	}
	for name, bad := range map[string]string{
		"another name":   strings.Replace(header, "99-example", "98-other", 1),
		"no statement":   strings.Replace(header, "# Breaks: RS-6 RS-8\n", "", 1),
		"no diff":        strings.Split(header, "diff --git")[0],
		"size":           strings.Replace(header, "small", "tiny", 1),
		"undetectable ?": strings.Replace(header, "RS-8: nothing", "RS-9: nothing", 1),
	} {
		if _, err := Parse("images/mutants/99-example.patch", []byte(bad)); err == nil {
			t.Errorf("%s: parsed without error", name)
		}
	}
}

// The project's patches parse, and each names catalogued statements that are not Slow.
func TestProjectMutants(t *testing.T) {
	ms, err := Load("../../images/mutants")
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) < 25 {
		t.Errorf("%d mutants; the matrix wants at least 25", len(ms))
	}
	cat, err := statements.Load()
	if err != nil {
		t.Fatal(err)
	}
	groups := map[string]bool{}
	for _, m := range ms {
		for _, id := range m.Breaks {
			st, ok := cat.Statement(id)
			if !ok || st.Slow {
				t.Errorf("%s names %s: not a catalogued statement that is not Slow", m.Name, id)
			}
			groups[strings.Split(id, "-")[0]] = true
		}
	}
	for _, g := range []string{"PL", "CS", "RS", "PC", "PR", "TM", "KR", "DF"} {
		if !groups[g] {
			t.Errorf("no mutant breaks a statement of group %s", g)
		}
	}
}

func doc(verdicts map[string]report.Verdict, failed ...string) report.Document {
	var d report.Document
	for id, v := range verdicts {
		spec := report.SpecRef{Suite: "suites/restart", Location: "suites/restart/x_test.go:1", Text: "spec of " + id}
		d.Rows = append(d.Rows, report.Row{Statement: statements.Statement{ID: id}, Verdict: v, Specs: []report.SpecRef{spec}})
	}
	for _, f := range failed {
		d.Failures = append(d.Failures, report.FailureRef{Spec: report.SpecRef{Suite: "suites/restart", Location: "suites/restart/x_test.go:1", Text: f},
			NodeType: "It", Message: "boom\nmore", Location: "suites/restart/x_test.go:9"})
	}
	return d
}

func TestClassify(t *testing.T) {
	m := Mutant{Name: "99-example", Breaks: []string{"RS-6", "RS-8", "PR-1", "PR-2"}, Undetectable: map[string]string{"PR-1": "why"}}
	stock := doc(map[string]report.Verdict{"RS-6": report.Conforms, "RS-8": report.Conforms, "PR-1": report.Conforms, "PR-2": report.Fails})
	mutant := doc(map[string]report.Verdict{"RS-6": report.Fails, "RS-8": report.Drift, "PR-1": report.Conforms, "PR-2": report.Fails}, "spec of RS-6")
	row := Classify(m, stock, mutant)
	want := []Outcome{Caught, CaughtAsDrift, Missed, StockFails}
	for i, c := range row.Cells {
		if c.Outcome != want[i] {
			t.Errorf("%s: %s, want %s", c.Statement, c.Outcome, want[i])
		}
	}
	if row.Cells[0].Evidence != "boom (suites/restart/x_test.go:9)" || row.Cells[2].Why != "why" {
		t.Errorf("evidence %q, why %q", row.Cells[0].Evidence, row.Cells[2].Why)
	}
	if len(row.Unrelated) != 0 || row.Verdict() != "partly caught" {
		t.Errorf("unrelated %v, verdict %s", row.Unrelated, row.Verdict())
	}
	// A failure of a spec of no named statement (a suite's setup) is unrelated.
	row = Classify(Mutant{Name: "x", Breaks: []string{"RS-6"}}, stock, doc(map[string]report.Verdict{"RS-6": report.Fails}, "spec of RS-6", "[BeforeSuite]"))
	if len(row.Unrelated) != 1 || row.Verdict() != "unrelated failure" {
		t.Errorf("unrelated %v, verdict %s", row.Unrelated, row.Verdict())
	}
	c := Matrix{Rows: []Row{row, Classify(Mutant{Name: "y", Breaks: []string{"RS-6"}}, stock, mutant)}}.Counts()
	if c != (Counts{Mutants: 2, Caught: 1, Unrelated: 1}) {
		t.Errorf("counts %+v", c)
	}
}

// The matrix runs cluster by cluster: each needed suite in the group of its one kind
// config, the groups in the order of -suites; a suite that names two configs, or a
// config whose suites are apart in -suites, is refused.
func TestGroupsFollowEachSuitesCluster(t *testing.T) {
	ix := index{configs: map[string][]string{
		"cluster":            {"kind-configs/default.yaml"},
		"restart":            {"kind-configs/default.yaml"},
		"restart/profiles":   {"kind-configs/backoff-profiles.yaml"},
		"termination":        {"kind-configs/default.yaml"},
		"termination/gated":  {"kind-configs/backoff-profiles.yaml"},
		"lifecycle/nodeloss": {"kind-configs/node-loss.yaml"},
	}}
	suites := []string{"cluster", "restart", "termination", "restart/profiles", "termination/gated", "lifecycle/nodeloss"}
	groups, err := ix.groups(suites, []string{"termination/gated", "restart", "termination", "restart/profiles"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, g := range groups {
		got = append(got, groupName(g)+": "+strings.Join(g.Suites, " "))
	}
	if want := "default: restart termination | backoff-profiles: restart/profiles termination/gated"; strings.Join(got, " | ") != want {
		t.Errorf("groups %q, want %q", strings.Join(got, " | "), want)
	}
	if g := groupsOf(groups, []string{"termination/gated"}); len(g) != 1 || groupName(g[0]) != "backoff-profiles" {
		t.Errorf("the groups of termination/gated: %+v", g)
	}
	if g := groupsOf(groups, []string{"restart", "restart/profiles"}); len(g) != 2 {
		t.Errorf("a mutant on both clusters runs on %d", len(g))
	}
	apart := []string{"restart", "restart/profiles", "termination"}
	if _, err := ix.groups(apart, apart); err == nil {
		t.Error("a cluster's suites apart in -suites were put in two groups")
	}
	ix.configs["restart"] = append(ix.configs["restart"], "kind-configs/node-loss.yaml")
	if _, err := ix.groups(suites, []string{"restart"}); err == nil {
		t.Error("a suite on two clusters was put in one group")
	}
}

// A run's report is read from its folder, or from its folders per cluster.
func TestPartsIn(t *testing.T) {
	top := t.TempDir()
	for _, d := range []string{"default", "backoff-profiles", "kubelets"} {
		if err := os.MkdirAll(filepath.Join(top, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"default/e2e.json", "backoff-profiles/e2e.json"} {
		if err := os.WriteFile(filepath.Join(top, f), []byte("[]"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{filepath.Join(top, "backoff-profiles"), filepath.Join(top, "default")}
	if got := partsIn(top); !slices.Equal(got, want) {
		t.Errorf("parts %v, want %v", got, want)
	}
	if err := os.WriteFile(filepath.Join(top, "e2e.json"), []byte("[]"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := partsIn(top); !slices.Equal(got, []string{top}) {
		t.Errorf("a run of one folder read as %v", got)
	}
}
