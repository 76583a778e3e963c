package report

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/podlifecycle/conformance/framework/drift"
	"github.com/podlifecycle/conformance/framework/statements"
)

// The fixture (testdata/artifacts) is a real run's e2e.json cut down to a few specs of
// four suites, with hand-made additions: cluster facts in the lifecycle suite's
// SynchronizedBeforeSuite, two passed specs with drift.Finding entries (one naming no
// statement, one naming PC-7), the in-place restart spec's condition finding made
// structured, and a kubelet log on the failed spec.

func fixtureDocument(t *testing.T) Document {
	t.Helper()
	cat, runs := loadFixture(t)
	doc, err := Build("testdata/artifacts", runs, cat, nil)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// loadFixture reads the fixture's catalogue and runs.
func loadFixture(t *testing.T) (statements.Catalogue, []Run) {
	t.Helper()
	cat := fixtureCatalogue(t)
	runs, err := LoadRuns("testdata/artifacts", "e2e.json")
	if err != nil {
		t.Fatal(err)
	}
	return cat, runs
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
		"DF-8":  NotCheckable,    // no spec, and the catalogue says why
		"DF-7":  NothingToAssert, // no spec, and the catalogue says every outcome conforms
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
	if r := rowOf(t, doc, "DF-8"); r.Reason != "no such cluster here" {
		t.Errorf("DF-8 is not checkable for %q, want the catalogue's reason", r.Reason)
	}
	if r := rowOf(t, doc, "PL-1"); len(r.Citations) != 1 || r.Citations[0].URL != "https://example.invalid/page/" || r.Citations[0].Quote != "the words of PL-1" {
		t.Errorf("PL-1's citations: %+v", r.Citations)
	}
	if r := rowOf(t, doc, "DF-8"); len(r.Citations) != 1 || r.Citations[0].URL != "https://example.invalid/page/#sec" {
		t.Errorf("DF-8's citation has no anchor: %+v", r.Citations)
	}
}

func cellReasons(r Row) []string {
	var out []string
	for _, c := range r.Cells {
		out = append(out, c.Reasons...)
	}
	return out
}

// fixtureCatalogue is the cut of the catalogue the fixture's runs are read against.
func fixtureCatalogue(t *testing.T) statements.Catalogue {
	t.Helper()
	data, err := os.ReadFile("testdata/statements.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cat, err := statements.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

func TestMatrixListsEveryCatalogueIDAndCountsMatch(t *testing.T) {
	doc := fixtureDocument(t)
	cat := fixtureCatalogue(t)
	for i, st := range cat.Statements() {
		if doc.Rows[i].Statement.ID != st.ID {
			t.Fatalf("row %d is %s, want %s in catalogue order", i, doc.Rows[i].Statement.ID, st.ID)
		}
	}
	if len(doc.Rows) != len(cat.Statements())+1 { // + QQ-7
		t.Errorf("%d rows for %d statements and one uncatalogued ID", len(doc.Rows), len(cat.Statements()))
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
		doc, err := Build(t.TempDir(), []Run{run}, oneStatement("PC-10"), nil)
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
		heaviest(Skipped, Conforms) != Conforms || heaviest(NotRun, Skipped) != Skipped ||
		heaviest(NotInRun, NotRun) != NotRun || heaviest(NoSpec, NotInRun) != NotInRun || heaviest() != NoSpec {
		t.Error("verdicts do not weigh fails > drift > conforms > skipped > not run > not in this run > no spec")
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
	doc, err := Build(dir, runs, oneStatement("TM-12"), nil)
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

// projectSuites are the fixture's suites and two more, as the Makefile passes
// ALL_SUITES to -suites.
var projectSuites = strings.Fields("lifecycle restart termination restart/profiles probes cluster")

// lifecycleOnlyDocument is the fixture as `make e2e-lifecycle` would leave it: the
// lifecycle suite's report alone, against the project's suites.
func lifecycleOnlyDocument(t *testing.T) Document {
	t.Helper()
	cat, runs := loadFixture(t)
	for i := range runs {
		runs[i].Suites = slices.DeleteFunc(runs[i].Suites, func(r types.Report) bool { return suiteDir(r) != "suites/lifecycle" })
	}
	doc, err := Build("testdata/artifacts", runs, cat, projectSuites)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// A run of one suite holds no spec of the statements checked in the others: they are
// "not in this run", naming the suites it left out, and never "no spec".
func TestStatementsOfSuitesLeftOutAreNotInThisRun(t *testing.T) {
	doc := lifecycleOnlyDocument(t)
	wantLeftOut := "suites/restart suites/termination suites/restart/profiles suites/probes suites/cluster"
	if got := strings.Join(doc.LeftOut, " "); got != wantLeftOut {
		t.Errorf("left out %q, want %q", got, wantLeftOut)
	}
	for _, id := range []string{"TM-12", "RS-12", "DF-9"} {
		r := rowOf(t, doc, id)
		if r.Verdict != NotInRun {
			t.Errorf("%s: verdict %s, want not in this run", id, r.Verdict)
		}
		for _, s := range doc.LeftOut {
			if !strings.Contains(r.Reason, s) {
				t.Errorf("%s: reason %q does not name %s", id, r.Reason, s)
			}
		}
		if strings.Contains(r.Reason, "suites/lifecycle") {
			t.Errorf("%s: reason %q names the suite the run covered", id, r.Reason)
		}
	}
	if r := rowOf(t, doc, "PL-1"); r.Verdict != Conforms || r.Reason != "" {
		t.Errorf("PL-1, checked in the run: %s %q, want conforms", r.Verdict, r.Reason)
	}
	if doc.Counts[NoSpec] != 0 || doc.Counts[NotInRun] != 7 { // RS-7, 11, 12, 13, TM-6, 12, DF-9
		t.Errorf("no spec %d, not in this run %d; want 0 and 7", doc.Counts[NoSpec], doc.Counts[NotInRun])
	}
	for i, c := range doc.ColumnCounts {
		if c[NotInRun] != 0 {
			t.Errorf("%s counts %d statements not in this run: a column counts statements with specs there", doc.Columns[i].Label(), c[NotInRun])
		}
	}
}

// A run that covered every suite it was told of, or that was told none, keeps "no spec"
// for a statement no spec carries.
func TestNoSpecWhenTheRunCoveredEverySuite(t *testing.T) {
	cat, runs := loadFixture(t)
	for _, suites := range [][]string{strings.Fields("lifecycle restart termination restart/profiles"), nil} {
		doc, err := Build("testdata/artifacts", runs, cat, suites)
		if err != nil {
			t.Fatal(err)
		}
		if r := rowOf(t, doc, "DF-9"); r.Verdict != NoSpec || r.Reason != "" || len(doc.LeftOut) != 0 {
			t.Errorf("-suites %q: DF-9 %s %q, left out %v; want no spec", suites, r.Verdict, r.Reason, doc.LeftOut)
		}
	}
}

// A suite is covered by its own report only: restart/profiles's does not cover restart.
func TestCoveredMatchesTheWholeSuiteDirectory(t *testing.T) {
	runs := []Run{{Suites: []types.Report{{SuitePath: "/work/main/suites/restart/profiles"}}}}
	if got := leftOut(strings.Fields("restart restart/profiles profiles"), runs); strings.Join(got, " ") != "suites/restart suites/profiles" {
		t.Errorf("left out %v, want suites/restart and suites/profiles", got)
	}
}

// oneStatement is a catalogue of one statement, for runs made up by a test.
func oneStatement(id string) statements.Catalogue {
	return statements.Catalogue{Areas: []statements.Area{{Code: id[:2], Statements: []statements.Statement{{ID: id}}}}}
}

// On a cluster the suite did not make, a Disruptive spec left out by the label filter
// is "not run" for being disruptive, and DisruptiveLeftOut names its statements, "(in
// part)" where another spec of the statement ran (the summary lists them: see
// framework/render); on a kind cluster the same spec is only filtered out.
func TestDisruptiveSpecsLeftOutOnAClusterTheSuiteDidNotMake(t *testing.T) {
	build := func(config string) Document {
		setup := types.SpecReport{LeafNodeType: types.NodeTypeSynchronizedBeforeSuite, State: types.SpecStatePassed,
			ReportEntries: []types.ReportEntry{savedEntry(t, FactsEntry, ClusterFacts{Config: config, ServerVersion: "v1.37.2"})}}
		spec := func(text string, state types.SpecState, labels ...string) types.SpecReport {
			return types.SpecReport{LeafNodeType: types.NodeTypeIt, LeafNodeText: text, LeafNodeLabels: labels, State: state}
		}
		run := Run{Suites: []types.Report{{SuitePath: "/repo/suites/lifecycle", SpecReports: types.SpecReports{setup,
			spec("destroys the sandbox", types.SpecStateSkipped, "PC-4", DisruptiveLabel),
			spec("taints a node", types.SpecStateSkipped, "PC-8", DisruptiveLabel),
			spec("evicts through the API", types.SpecStatePassed, "PC-8"),
		}}}}
		// A hand-made Ginkgo run: framework/suite skips the spec with the same reason
		// (only where the cluster is not the suite's own).
		if config == ExistingConfig {
			byHand := spec("restarts a kubelet", types.SpecStateSkipped, "KR-1", DisruptiveLabel)
			byHand.Failure.Message = NotRunDisruptive
			run.Suites[0].SpecReports = append(run.Suites[0].SpecReports, byHand)
		}
		cat := statements.Catalogue{Areas: []statements.Area{{Code: "PC", Statements: []statements.Statement{{ID: "PC-4"}, {ID: "PC-8"}}},
			{Code: "KR", Statements: []statements.Statement{{ID: "KR-1"}}}}}
		doc, err := Build(t.TempDir(), []Run{run}, cat, nil)
		if err != nil {
			t.Fatal(err)
		}
		return doc
	}
	doc := build(ExistingConfig)
	if r := rowOf(t, doc, "PC-4"); r.Verdict != NotRun || cellReasons(r)[0] != NotRunDisruptive {
		t.Errorf("PC-4 on KUBECONFIG: %s %v, want not run, disruptive", r.Verdict, cellReasons(r))
	}
	if got := DisruptiveLeftOut(doc); !slices.Equal(got, []string{"PC-4", "PC-8 (in part)", "KR-1"}) {
		t.Errorf("left out: %v", got)
	}
	doc = build(DefaultConfig)
	if r := rowOf(t, doc, "PC-4"); cellReasons(r)[0] == NotRunDisruptive || len(DisruptiveLeftOut(doc)) != 0 {
		t.Errorf("on a kind cluster a filtered Disruptive spec is only filtered: %v", cellReasons(r))
	}
}

// A statement whose specs did not all measure something says which did not, and
// why; a spec counts once however many columns ran it, and measured in one column
// it is measured. The counts say how many verdicts rest on some parts only.
func TestStatementVerdictInPart(t *testing.T) {
	spec := func(text string, state types.SpecState, message string, labels ...string) types.SpecReport {
		s := types.SpecReport{LeafNodeType: types.NodeTypeIt, LeafNodeText: text, LeafNodeLabels: labels, State: state}
		s.Failure.Message = message
		return s
	}
	suiteOf := func(config string, specs ...types.SpecReport) types.Report {
		setup := types.SpecReport{LeafNodeType: types.NodeTypeSynchronizedBeforeSuite, State: types.SpecStatePassed,
			ReportEntries: []types.ReportEntry{savedEntry(t, FactsEntry, ClusterFacts{Config: config, ServerVersion: "v1.37.2"})}}
		return types.Report{SuitePath: "/repo/suites/lifecycle", SpecReports: append(types.SpecReports{setup}, specs...)}
	}
	run := Run{Suites: []types.Report{
		suiteOf(DefaultConfig,
			spec("evicts through the API", types.SpecStatePassed, "", "PC-8"),
			spec("evicts under node pressure", types.SpecStateSkipped, "needs the node-pressure worker", "PC-8"),
			spec("collects an orphan", types.SpecStateSkipped, "", "PC-8", "Slow"),
			spec("taints a node", types.SpecStateSkipped, "", "PC-8"),
			spec("sets Initialized", types.SpecStatePassed, "", "PC-2")),
		// The same text in another column: measured there, so measured.
		suiteOf(BackoffProfilesConfig, spec("taints a node", types.SpecStatePassed, "", "PC-8")),
	}}
	cat := statements.Catalogue{Areas: []statements.Area{{Code: "PC", Statements: []statements.Statement{{ID: "PC-2"}, {ID: "PC-8"}}}}}
	doc, err := Build(t.TempDir(), []Run{run}, cat, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := rowOf(t, doc, "PC-8")
	if r.Verdict != Conforms || !r.InPart() || r.Parts != 4 || len(r.Unmeasured) != 2 {
		t.Fatalf("PC-8: %s, in part %v, %d parts, unmeasured %+v", r.Verdict, r.InPart(), r.Parts, r.Unmeasured)
	}
	if got, want := r.VerdictText(), "conforms, 2 of 4 parts not measured"; got != want {
		t.Errorf("verdict text %q, want %q", got, want)
	}
	for _, want := range []string{"evicts under node pressure (skipped: needs the node-pressure worker)", "collects an orphan (not run: Slow)"} {
		if !strings.Contains(r.PartNote(), want) {
			t.Errorf("part note %q lacks %q", r.PartNote(), want)
		}
	}
	if r := rowOf(t, doc, "PC-2"); r.InPart() || r.VerdictText() != "conforms" {
		t.Errorf("PC-2, measured whole: %q", r.VerdictText())
	}
	if got := CountLine(doc.Counts, doc.InPart); !strings.Contains(got, "conforms 2 (1 in part)") {
		t.Errorf("counts %q", got)
	}
}

// The report shows which claim of a disagreement the cluster confirmed, from the
// answers the specs recorded (a spec that failed after it answered included), none
// when the measurement matched no claim, and "not measured in this run" for a topic
// no spec answered (framework/render's Markdown says so).
func TestDisagreementsShowTheClusterAnswer(t *testing.T) {
	answer := func(measured string, confirmed ...string) types.ReportEntry {
		return savedEntry(t, drift.AnswerPrefix+"backoff reset", drift.Answer{Topic: "backoff reset", Confirmed: confirmed,
			Claims: map[string]string{"after-ten-minutes": "true", "after-a-good-restart": "false"}, Measured: measured})
	}
	spec := func(text string, state types.SpecState, entries ...types.ReportEntry) types.SpecReport {
		return types.SpecReport{LeafNodeType: types.NodeTypeIt, LeafNodeText: text, LeafNodeLabels: []string{"RS-7"}, State: state, ReportEntries: entries}
	}
	src := []statements.Source{{Seed: "p.txt", Section: "S", Quote: "q"}}
	cat := statements.Catalogue{Pages: []statements.Page{{Seed: "p.txt", URL: "https://kubernetes.io/p/"}},
		Areas: []statements.Area{{Code: "RS", Statements: []statements.Statement{{ID: "RS-7"}}}},
		Disagreements: []statements.Disagreement{
			{Topic: "backoff reset", Statements: []string{"RS-7"}, Claims: []statements.Claim{{Key: "after-ten-minutes", Sources: src}, {Key: "after-a-good-restart", Sources: src}}},
			{Topic: "pod GC", Statements: []string{"RS-7"}, Claims: []statements.Claim{{Key: "a-count"}, {Key: "a-time"}}},
		}}
	build := func(specs ...types.SpecReport) Document {
		doc, err := Build(t.TempDir(), []Run{{Suites: []types.Report{{SuitePath: "/repo/suites/restart", SpecReports: specs}}}}, cat, nil)
		if err != nil {
			t.Fatal(err)
		}
		return doc
	}
	doc := build(spec("resets after 10 minutes", types.SpecStatePassed, answer("true", "after-ten-minutes")))
	if got := doc.Disagreements[0].Outcome(); got != "the cluster confirms after-ten-minutes" {
		t.Errorf("outcome %q", got)
	}
	if got := doc.Disagreements[1].Outcome(); got != "not measured in this run" {
		t.Errorf("unanswered: %q", got)
	}
	if c := doc.Disagreements[0].Claims[0]; !c.Confirmed || len(c.Citations) != 1 {
		t.Errorf("claim %+v", c)
	}
	// Answered, then failed on the catalogue's statement: the answer stands.
	doc = build(spec("resets after 10 minutes", types.SpecStateFailed, answer("true", "after-ten-minutes")))
	if got := doc.Disagreements[0].Outcome(); got != "the cluster confirms after-ten-minutes" || doc.Disagreements[0].Answers[0].Spec.Verdict != Fails {
		t.Errorf("a failed spec's answer: %q", got)
	}
	doc = build(spec("measures neither", types.SpecStatePassed, answer("5")))
	if got := doc.Disagreements[0].Outcome(); got != "the cluster confirms none of the claims" {
		t.Errorf("an answer that matches no claim: %q", got)
	}
}

func TestTellingLine(t *testing.T) {
	if got := TellingLine("Failed after 0.000s.\nPL-13: Running while a container waits\nmore"); got != "PL-13: Running while a container waits" {
		t.Errorf("TellingLine = %q", got)
	}
	if got := TellingLine("delay 2 too short: …"); got != "delay 2 too short: …" {
		t.Errorf("TellingLine = %q", got)
	}
}

// A failed spec of several statements fails those its failure message names; the
// others it did not decide, so they are not measured by it, with the reason. A
// failure that names none of its statements fails them all.
func TestFailureCountsAgainstTheStatementsItNames(t *testing.T) {
	spec := func(text, message string, labels ...string) types.SpecReport {
		s := types.SpecReport{LeafNodeType: types.NodeTypeIt, LeafNodeText: text, LeafNodeLabels: labels, State: types.SpecStateFailed}
		s.Failure.Message = message
		return s
	}
	setup := types.SpecReport{LeafNodeType: types.NodeTypeSynchronizedBeforeSuite, State: types.SpecStatePassed,
		ReportEntries: []types.ReportEntry{savedEntry(t, FactsEntry, ClusterFacts{Config: DefaultConfig, ServerVersion: "v1.37.2"})}}
	run := Run{Suites: []types.Report{{SuitePath: "/repo/suites/restart", SpecReports: types.SpecReports{setup,
		spec("backs off", "Timed out after 60s.\nRS-6 delay 4 too long: expected 40000ms measured 45127ms", "RS-6", "RS-8"),
		spec("starts", "pod never started", "PL-1", "PL-13"),
		// An ID the spec does not carry names nothing of it: both of its statements fail.
		spec("restarts", "unlike RS-2 …", "RS-3", "RS-4"),
	}}}}
	var ids []statements.Statement
	for _, id := range []string{"RS-6", "RS-8", "PL-1", "PL-13", "RS-3", "RS-4"} {
		ids = append(ids, statements.Statement{ID: id})
	}
	cat := statements.Catalogue{Areas: []statements.Area{{Code: "XX", Statements: ids}}}
	doc, err := Build(t.TempDir(), []Run{run}, cat, nil)
	if err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]Verdict{"RS-6": Fails, "RS-8": NotRun, "PL-1": Fails, "PL-13": Fails, "RS-3": Fails, "RS-4": Fails} {
		if got := rowOf(t, doc, id).Verdict; got != want {
			t.Errorf("%s: %s, want %s", id, got, want)
		}
	}
	if got := cellReasons(rowOf(t, doc, "RS-8")); len(got) != 1 || !strings.Contains(got[0], "not decided: the spec failed on RS-6 first (RS-6 delay 4 too long") {
		t.Errorf("RS-8's reason: %q", got)
	}
	if doc.Suites[0].Failed != 3 {
		t.Errorf("the spec still counts as failed: %+v", doc.Suites[0])
	}
}

// A host flake the pod helper answered is counted, with its spec, pod and error; the
// spec's own verdict is that of the pod made again.
func TestInfraRetriesAreListedWithTheirError(t *testing.T) {
	const flake = "main: OCI runtime create failed: runc create failed: … unable to freeze: unknown"
	passed := types.SpecReport{LeafNodeType: types.NodeTypeIt, LeafNodeText: "runs the pod", LeafNodeLabels: []string{"PC-2"},
		State: types.SpecStatePassed, ReportEntries: []types.ReportEntry{savedEntry(t, InfraRetryEntryPrefix+"web", flake)}}
	other := types.SpecReport{LeafNodeType: types.NodeTypeIt, LeafNodeText: "another", LeafNodeLabels: []string{"PC-2"}, State: types.SpecStatePassed}
	setup := types.SpecReport{LeafNodeType: types.NodeTypeSynchronizedBeforeSuite, State: types.SpecStatePassed,
		ReportEntries: []types.ReportEntry{savedEntry(t, FactsEntry, ClusterFacts{Config: DefaultConfig, ServerVersion: "v1.37.2"})}}
	run := Run{Suites: []types.Report{{SuitePath: "/repo/suites/lifecycle", SpecReports: types.SpecReports{setup, passed, other}}}}
	cat := statements.Catalogue{Areas: []statements.Area{{Code: "PC", Statements: []statements.Statement{{ID: "PC-2"}}}}}
	doc, err := Build(t.TempDir(), []Run{run}, cat, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.InfraRetries) != 1 {
		t.Fatalf("infra retries %+v, want one", doc.InfraRetries)
	}
	if r := doc.InfraRetries[0]; r.Pod != "web" || r.Error != flake || r.Spec.Text != "runs the pod" {
		t.Errorf("retry %+v", r)
	}
	if r := rowOf(t, doc, "PC-2"); r.Verdict != Conforms {
		t.Errorf("PC-2 %s: a retried spec keeps the verdict of the pod made again", r.Verdict)
	}
}

// The run's timeline: each suite's span, and that of the Serial specs it ran.
func TestSuiteSpans(t *testing.T) {
	t0 := time.Date(2026, 12, 3, 17, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	serial := func(from, to int, state types.SpecState) types.SpecReport {
		return types.SpecReport{LeafNodeType: types.NodeTypeIt, IsSerial: true, State: state, StartTime: at(from), EndTime: at(to)}
	}
	suite := types.Report{StartTime: at(0), EndTime: at(200), SpecReports: types.SpecReports{
		{LeafNodeType: types.NodeTypeIt, State: types.SpecStatePassed, StartTime: at(1), EndTime: at(150)},
		serial(210, 230, types.SpecStatePassed), serial(240, 250, types.SpecStateFailed),
		serial(0, 0, types.SpecStateSkipped),
	}}
	got := suiteSpans("suites/probes", Column{Version: "v1.37.2", Config: DefaultConfig}, suite)
	if len(got) != 2 || got[0].Kind != SpanSuite || !got[0].End.Equal(at(200)) ||
		got[1].Kind != SpanQuiet || !got[1].Start.Equal(at(210)) || !got[1].End.Equal(at(250)) || got[1].Lane != "suites/probes · v1.37.2 · default" {
		t.Errorf("spans %+v", got)
	}
	rows := SpanRows(append([]RunSpan{{Lane: SetupLane, Kind: SpanSetup, Start: at(-100), End: at(0)}}, got...))
	if rows[0].From != 0 || rows[1].From != 100*time.Second || rows[2].For != 40*time.Second {
		t.Errorf("rows %+v", rows)
	}
}

// A suite that failed without a failed node (its tree refused a decorator, a process
// that never reported) is a failure of the run, not specs quietly "not run".
func TestASuiteThatFailedWithoutAFailedSpecIsAFailure(t *testing.T) {
	cat, runs := loadFixture(t)
	crashed := types.Report{SuitePath: "/repo/suites/probes", SuiteDescription: "Probes", SuiteSucceeded: false,
		SpecialSuiteFailureReasons: []string{"Ginkgo timed out waiting for all parallel procs to report back"}}
	runs[0].Suites = append(runs[0].Suites, crashed)
	doc, err := Build("testdata/artifacts", runs, cat, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(doc.Failures, func(f FailureRef) bool {
		return f.NodeType == "suite" && strings.Contains(f.Message, "timed out waiting")
	}) {
		t.Errorf("failures %v: the crashed suite is not among them", doc.Failures)
	}
}
