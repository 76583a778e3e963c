package report

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/podlifecycle/conformance/framework/drift"
)

// The fixture (testdata/artifacts) is a real run's e2e.json cut down to a few specs of
// four suites, with hand-made additions: cluster facts in the lifecycle suite's
// SynchronizedBeforeSuite, two passed specs with drift.Finding entries (one naming no
// statement, one naming PC-7), the in-place restart spec's condition finding made
// structured, and a kubelet log on the failed spec.

func fixtureDocument(t *testing.T) Document {
	t.Helper()
	cat, err := ReadCatalogue("testdata/statements.md")
	if err != nil {
		t.Fatal(err)
	}
	runs, err := LoadRuns("testdata/artifacts", "e2e.json")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := Build("testdata/artifacts", runs, cat)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func rowOf(t *testing.T, doc Document, id string) Row {
	t.Helper()
	for _, r := range doc.Rows {
		if r.Statement.ID == id {
			return r
		}
	}
	t.Fatalf("no row for %s", id)
	return Row{}
}

func TestVerdictsOfTheFixture(t *testing.T) {
	doc := fixtureDocument(t)
	want := map[string]Verdict{
		"TM-12": Fails,    // the real failed spec
		"PR-9":  Drift,    // a finding that names no statement is about all of the spec's
		"PC-6":  Drift,    // … so PC-6 too
		"PC-7":  Drift,    // a finding that names PC-7
		"PC-4":  Conforms, // … is not about PC-4, checked by the same spec
		"RS-11": Drift,    // a structured finding beside a free-text "drift: " note
		"PC-8":  Skipped,  // skipped by the spec with a reason, and filtered as Slow elsewhere
		"PL-10": NotRun,   // Slow, filtered
		"TM-14": NotRun,
		"RS-7":  NotRun,
		"DF-9":  NoSpec,
		"PL-1":  Conforms,
		"PL-5":  Conforms, // its spec has only a free-text "drift: " note: not a finding
		"PC-10": Conforms,
		"RS-12": Conforms, // free-text jitter notes beside the delay table
		"RS-13": Conforms, // passed on one node, Slow case filtered
		"TM-6":  Conforms,
		"QQ-7":  Conforms, // not in the catalogue, still listed
	}
	for id, v := range want {
		if got := rowOf(t, doc, id).Verdict; got != v {
			t.Errorf("%s: verdict %s, want %s", id, got, v)
		}
	}
	if r := rowOf(t, doc, "PC-8"); !strings.Contains(strings.Join(cellReasons(r), " "), "TerminationByKubelet") {
		t.Errorf("PC-8's skip reason is not shown: %v", cellReasons(r))
	}
	if r := rowOf(t, doc, "PL-10"); strings.Join(cellReasons(r), " ") != "Slow" {
		t.Errorf("PL-10 not run for %v, want Slow", cellReasons(r))
	}
	if r := rowOf(t, doc, "QQ-7"); r.Catalogued {
		t.Errorf("QQ-7 is marked as catalogued")
	}
}

func cellReasons(r Row) []string {
	var out []string
	for _, c := range r.Cells {
		out = append(out, c.Reasons...)
	}
	return out
}

func TestMatrixListsEveryCatalogueIDAndCountsMatch(t *testing.T) {
	doc := fixtureDocument(t)
	cat, _ := ReadCatalogue("testdata/statements.md")
	for i, st := range cat.Statements {
		if doc.Rows[i].Statement.ID != st.ID {
			t.Fatalf("row %d is %s, want %s in catalogue order", i, doc.Rows[i].Statement.ID, st.ID)
		}
	}
	if len(doc.Rows) != len(cat.Statements)+1 { // + QQ-7
		t.Errorf("%d rows for %d statements and one uncatalogued ID", len(doc.Rows), len(cat.Statements))
	}
	recount := map[Verdict]int{}
	for _, r := range doc.Rows {
		recount[r.Verdict]++
	}
	total := 0
	for _, v := range Verdicts() {
		if doc.Counts[v] != recount[v] {
			t.Errorf("%s: counted %d, rows say %d", v, doc.Counts[v], recount[v])
		}
		total += doc.Counts[v]
	}
	if total != len(doc.Rows) {
		t.Errorf("counts add up to %d, %d rows", total, len(doc.Rows))
	}
	wantCounts := map[Verdict]int{Fails: 1, Drift: 4, Conforms: 11, Skipped: 1, NotRun: 3, NoSpec: 1}
	for v, n := range wantCounts {
		if doc.Counts[v] != n {
			t.Errorf("%s: %d statements, want %d", v, doc.Counts[v], n)
		}
	}
}

func TestColumnsAreConfigurations(t *testing.T) {
	doc := fixtureDocument(t)
	want := []Column{{"v1.37.2", DefaultConfig}, {"v1.37.2", BackoffProfilesConfig}}
	if len(doc.Columns) != len(want) || doc.Columns[0] != want[0] || doc.Columns[1] != want[1] {
		t.Fatalf("columns %v, want %v (version from the facts, config from facts or suite path)", doc.Columns, want)
	}
	r := rowOf(t, doc, "RS-12")
	if r.Cells[0].Specs != 0 || r.Cells[1].Verdict != Conforms {
		t.Errorf("RS-12 cells %+v: its spec runs on the backoff-profiles cluster only", r.Cells)
	}
	derived := map[string]bool{}
	for _, s := range doc.Suites {
		derived[s.Suite] = s.ConfigDerived
	}
	if derived["suites/lifecycle"] || !derived["suites/restart/profiles"] {
		t.Errorf("derived configurations: %v (lifecycle recorded facts, restart/profiles did not)", derived)
	}
}

// A spec that measured a documented behaviour and found it as documented records no
// drift entry (drift.Observe returns false): its statement conforms. The same spec
// measuring otherwise records the finding and the statement is drift.
func TestObservedAgreementIsConformanceNotDrift(t *testing.T) {
	observe := func(measured string) Verdict {
		o := drift.Observation[string]{Statement: "PC-10", Topic: "unschedulable reason",
			Docs: "reason Unschedulable", Documented: "Unschedulable", Measured: measured}
		spec := types.SpecReport{LeafNodeType: types.NodeTypeIt, LeafNodeText: "measures the reason",
			LeafNodeLabels: []string{"PC-10"}, State: types.SpecStatePassed}
		if f, found := drift.Observe(o); found {
			spec.ReportEntries = append(spec.ReportEntries, savedEntry(t, drift.EntryPrefix+f.Topic, f))
		}
		run := Run{Suites: []types.Report{{SuitePath: "/repo/suites/lifecycle", SpecReports: types.SpecReports{spec}}}}
		doc, err := Build(t.TempDir(), []Run{run}, Catalogue{Statements: []Statement{{ID: "PC-10"}}})
		if err != nil {
			t.Fatal(err)
		}
		return doc.Rows[0].Verdict
	}
	if v := observe("Unschedulable"); v != Conforms {
		t.Errorf("measured as documented: %s, want conforms", v)
	}
	if v := observe("SchedulerError"); v != Drift {
		t.Errorf("measured otherwise: %s, want drift", v)
	}
}

// savedEntry is a report entry as it comes back from a Ginkgo JSON report.
func savedEntry(t *testing.T, name string, value any) types.ReportEntry {
	t.Helper()
	data, err := json.Marshal(types.ReportEntry{Name: name, Value: types.WrapEntryValue(value), Time: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	var e types.ReportEntry
	if err := json.Unmarshal(data, &e); err != nil {
		t.Fatal(err)
	}
	return e
}

func TestVerdictOrder(t *testing.T) {
	if heaviest(Conforms, Fails, Drift) != Fails || heaviest(Conforms, Drift) != Drift ||
		heaviest(Skipped, Conforms) != Conforms || heaviest(NotRun, Skipped) != Skipped || heaviest() != NoSpec {
		t.Error("verdicts do not weigh fails > drift > conforms > skipped > not run > no spec")
	}
}

// A run over several Kubernetes versions has one e2e.json per version directory; each
// version gets its own columns.
func TestVersionDirectories(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile("testdata/artifacts/e2e.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"v1.37.2", "v1.36.3"} {
		if err := os.MkdirAll(filepath.Join(dir, v), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, v, "e2e.json"), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	runs, err := LoadRuns(dir, "e2e.json")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := Build(dir, runs, Catalogue{Statements: []Statement{{ID: "TM-12"}}})
	if err != nil {
		t.Fatal(err)
	}
	var versions []string
	for _, c := range doc.Columns {
		versions = append(versions, c.Version)
	}
	if strings.Join(versions, " ") != "v1.36.3 v1.36.3 v1.37.2 v1.37.2" {
		t.Errorf("column versions %v: one pair of configurations per version directory, oldest first", versions)
	}
	if len(doc.Failures) != 2 {
		t.Errorf("%d failures, want TM-12's in each version", len(doc.Failures))
	}
}
