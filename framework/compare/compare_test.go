package compare

import (
	"testing"

	"github.com/podlifecycle/conformance/framework/backoff"
	"github.com/podlifecycle/conformance/framework/drift"
	"github.com/podlifecycle/conformance/framework/entries"
	"github.com/podlifecycle/conformance/framework/report"
	"github.com/podlifecycle/conformance/framework/statements"
)

var column = report.Column{Config: "kind-configs/default.yaml"}

func spec(text string) report.SpecRef {
	return report.SpecRef{Suite: "suites/restart", Column: column, Text: text, Location: "suites/restart/x_test.go:1"}
}

func row(id string, v report.Verdict, specs ...string) report.Row {
	r := report.Row{Statement: statements.Statement{ID: id, Text: id + " text"}, Verdict: v, Parts: len(specs)}
	for _, s := range specs {
		r.Specs = append(r.Specs, spec(s))
	}
	return r
}

func find(t *testing.T, c Comparison, id string) Statement {
	t.Helper()
	for _, s := range c.Statements {
		if s.ID == id {
			return s
		}
	}
	t.Fatalf("no statement %s in %+v", id, c.Statements)
	return Statement{}
}

func TestTransitions(t *testing.T) {
	base := report.Document{Rows: []report.Row{
		row("PL-1", report.Conforms, "a"),
		row("RS-6", report.Conforms, "loop"),
		row("RS-7", report.Fails, "reset"),
		row("PR-4", report.Conforms, "probe"),
		row("RS-12", report.Drift, "cap"),
		row("RS-13", report.Drift, "max"),
		row("DF-5", report.NotRun, "maxversion"),
		row("TM-1", report.Skipped, "t"),
	}, Findings: []report.FindingRef{
		{Finding: drift.Finding{Statement: "RS-12", Topic: "cap not applied"}, Spec: spec("cap")},
		{Finding: drift.Finding{Statement: "RS-13", Topic: "initial delay"}, Spec: spec("max")},
	}}
	head := report.Document{Rows: []report.Row{
		row("PL-1", report.Conforms, "a"),
		row("RS-6", report.Fails, "loop"),
		row("RS-7", report.Conforms, "reset"),
		row("PR-4", report.Skipped, "probe"),
		row("RS-12", report.Drift, "cap"),
		row("RS-13", report.Drift, "max"),
		row("DF-5", report.Conforms, "maxversion"),
		row("TM-1", report.NotRun, "t"),
	}, Findings: []report.FindingRef{
		{Finding: drift.Finding{Statement: "RS-12", Topic: "cap not applied"}, Spec: spec("cap")},
		{Finding: drift.Finding{Statement: "RS-13", Topic: "initial delay"}, Spec: spec("max")},
		{Finding: drift.Finding{Statement: "RS-13", Topic: "doubling"}, Spec: spec("max")},
	}, Failures: []report.FailureRef{{
		Spec:     spec("loop"),
		Message:  "Timed out after 10.001s.\ndelay 1 too long: expected 10000ms measured 11072ms\nmore",
		Location: "suites/restart/x_test.go:9",
	}}}
	c := Of("stock", base, "patched", head)
	want := map[string]Transition{
		"PL-1": Same, "RS-6": Worse, "RS-7": Better, "PR-4": Lost, "RS-12": Same, "RS-13": Worse,
		"DF-5": Gained, "TM-1": Unmeasured,
	}
	for id, tr := range want {
		if got := find(t, c, id).Transition; got != tr {
			t.Errorf("%s: transition %q, want %q", id, got, tr)
		}
	}
	if why := find(t, c, "RS-6").Why; why != "delay 1 too long: expected 10000ms measured 11072ms (suites/restart/x_test.go:9)" {
		t.Errorf("RS-6 evidence %q: want the failure's first telling line and its location", why)
	}
	if why := find(t, c, "RS-13").Why; why != "new drift: doubling" {
		t.Errorf("RS-13 evidence %q", why)
	}
	if got := len(c.Worse()); got != 2 {
		t.Errorf("%d worse, want RS-6 and RS-13", got)
	}
}

func TestStatementOnlyInOneRun(t *testing.T) {
	base := report.Document{Rows: []report.Row{row("PL-1", report.Conforms, "a")}}
	head := report.Document{Rows: []report.Row{row("PL-1", report.Conforms, "a"), row("PL-99", report.Fails, "new")}}
	c := Of("base", base, "head", head)
	if s := find(t, c, "PL-99"); s.Base != report.NotInRun || s.Transition != Gained {
		t.Errorf("a statement only the head lists: %+v, want not in run → newly measured (no verdict to be worse than)", s)
	}
}

func delays(what string, measured ...int64) report.DelaysRef {
	var table backoff.DelayTable
	for i, m := range measured {
		b := int64(10000 << i)
		table = append(table, backoff.Delay{Restart: i + 1, ExpectedMs: b, MeasuredMs: m, MinMs: b - 100, MaxMs: b + 3500})
	}
	return report.DelaysRef{NamedDelays: report.NamedDelays{What: what, Table: table}, Spec: spec("loop")}
}

func TestTimingsAgainstTheTolerance(t *testing.T) {
	base := report.Document{Rows: []report.Row{row("RS-6", report.Conforms, "loop")},
		Delays: []report.DelaysRef{delays("plc-default-8ba62178-worker (initial 10s, max 300s)", 10400, 20300, 41000)}}
	head := report.Document{Rows: []report.Row{row("RS-6", report.Conforms, "loop")},
		Delays: []report.DelaysRef{delays("plc-default-0c1d2e3f-worker (initial 10s, max 300s)", 12900, 24100, 41100, 80200)}}
	c := Of("base", base, "head", head)
	if len(c.Timings) != 3 {
		t.Fatalf("%d timings paired, want 3 (the same node of two clusters of one config): %+v", len(c.Timings), c.Timings)
	}
	// Δ 2500 ms and 100 ms are within the 3600 ms window; Δ 3800 ms is not.
	for i, exceeds := range []bool{false, true, false} {
		if got := c.Timings[i]; got.Exceeds != exceeds || got.Tolerance != 3600 || got.Statement != "RS-6" {
			t.Errorf("timing %d: %+v, want exceeds=%v within a 3600 ms tolerance", i, got, exceeds)
		}
	}
	if len(c.OnlyHead) != 1 || c.OnlyHead[0] != "loop: restart delays on worker (initial 10s, max 300s): delay 4" {
		t.Errorf("only in head: %q", c.OnlyHead)
	}
}

func TestChangedExpectationExceeds(t *testing.T) {
	base := report.Document{Delays: []report.DelaysRef{delays("worker2", 10100)}}
	head := report.Document{Delays: []report.DelaysRef{delays("worker2", 10100)}}
	head.Delays[0].Table[0].ExpectedMs = 1000
	if c := Of("a", base, "b", head); len(c.ExceedingTimings()) != 1 {
		t.Errorf("the documented delay changed (other kubelet settings): %+v", c.Timings)
	}
}

func TestFactsThatDiffer(t *testing.T) {
	facts := func(cluster, sha string, gate bool) []report.FactsView {
		return []report.FactsView{{Column: column, Clusters: []entries.ClusterFacts{{
			Config: "kind-configs/default.yaml", Cluster: cluster, ServerVersion: "v1.37.2",
			Components: []entries.Component{{Name: "kubelet", Node: cluster + "-worker", Gates: map[string]bool{"ReduceDefaultCrashLoopBackOffDecay": gate}}},
			Nodes:      []entries.NodeFacts{{Name: cluster + "-worker", KubeletVersion: "v1.37.2", KubeletSHA256: sha}},
		}}}}
	}
	base := report.Document{Facts: facts("plc-default-8ba62178", "aaa", false)}
	head := report.Document{Facts: facts("plc-default-12345678", "bbb", true)}
	got := Of("a", base, "b", head).Facts
	want := []Fact{
		{Config: "kind-configs/default.yaml", Key: "kubelet on worker: gate ReduceDefaultCrashLoopBackOffDecay", Base: "false", Head: "true"},
		{Config: "kind-configs/default.yaml", Key: "node worker: kubelet sha256", Base: "aaa", Head: "bbb"},
	}
	if len(got) != len(want) {
		t.Fatalf("facts %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("fact %d: %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestFactsOfAClusterOneRunDidNotMake(t *testing.T) {
	base := report.Document{Facts: []report.FactsView{{Column: column, Clusters: []entries.ClusterFacts{
		{Config: "kind-configs/default.yaml", ServerVersion: "v1.37.2"},
		{Config: "kind-configs/backoff-profiles.yaml", ServerVersion: "v1.37.2", Nodes: []entries.NodeFacts{{Name: "plc-backoff-profiles-0a1b2c3d-worker"}}},
	}}}}
	head := report.Document{Facts: []report.FactsView{{Column: column, Clusters: []entries.ClusterFacts{
		{Config: "kind-configs/default.yaml", ServerVersion: "v1.37.2"},
	}}}}
	got := Of("a", base, "b", head).Facts
	want := []Fact{{Config: "kind-configs/backoff-profiles.yaml", Key: "cluster facts", Base: "recorded"}}
	if len(got) != 1 || got[0] != want[0] {
		t.Errorf("facts %+v, want the one line %+v", got, want)
	}
}

func TestAMeasurementsOwnRangeMayMove(t *testing.T) {
	exp := func(measured, lo, hi float64) []report.ExperimentRef {
		return []report.ExperimentRef{{Name: "grace across a kubelet restart", Spec: spec("grace"), Rows: []report.MeasurementRow{
			{Name: "restart → SIGKILL (ms)", Measured: []float64{measured}, Unit: "ms", HasRange: true, Min: lo, Max: hi}}}}
	}
	// The range follows the run's own restart time: its midpoint moved, the values
	// 302 ms apart in a 21 s window.
	c := Of("a", report.Document{Experiments: exp(21771, 0, 21900)}, "b", report.Document{Experiments: exp(21469, 0, 21540)})
	if len(c.Timings) != 1 || c.Timings[0].Exceeds {
		t.Errorf("%+v: a measurement's range is no documented value; within its width, no change", c.Timings)
	}
	c = Of("a", report.Document{Experiments: exp(1000, 900, 1100)}, "b", report.Document{Experiments: exp(1500, 900, 1100)})
	if len(c.Timings) != 1 || !c.Timings[0].Exceeds {
		t.Errorf("%+v: 500 ms apart in a 200 ms window", c.Timings)
	}
}
