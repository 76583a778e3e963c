package run

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/podlifecycle/conformance/framework/report"
)

func writeReports(t *testing.T, path string, specs ...types.SpecReport) {
	t.Helper()
	data, err := json.Marshal([]types.Report{{SuitePath: "/repo/suites/probes", SuiteDescription: "probes", SpecReports: specs}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func spec(text string, line int, state types.SpecState, message string) types.SpecReport {
	s := types.SpecReport{LeafNodeType: types.NodeTypeIt, LeafNodeText: text, State: state,
		LeafNodeLocation: types.CodeLocation{FileName: "/repo/suites/probes/timing_test.go", LineNumber: line}}
	s.Failure.Message = message
	return s
}

// The Quiet specs' results replace the side-by-side run's "left out by the filter",
// a Skip() of theirs included; the rest of the run stays as it was.
func TestMergeQuietInto(t *testing.T) {
	dir := t.TempDir()
	main, quiet, junit := filepath.Join(dir, "e2e.json"), filepath.Join(dir, "quiet-e2e.json"), filepath.Join(dir, "e2e-junit.xml")
	writeReports(t, main,
		spec("parallel", 10, types.SpecStatePassed, ""),
		spec("quiet", 20, types.SpecStateSkipped, ""),
		spec("quiet, skipped here", 30, types.SpecStateSkipped, ""),
		spec("slow", 40, types.SpecStateSkipped, ""))
	writeReports(t, quiet,
		spec("parallel", 10, types.SpecStateSkipped, ""),
		spec("quiet", 20, types.SpecStateFailed, "probe 180 ms late"),
		spec("quiet, skipped here", 30, types.SpecStateSkipped, "needs one clock"),
		spec("slow", 40, types.SpecStateSkipped, ""))
	if err := MergeQuietInto(main, quiet, junit); err != nil {
		t.Fatal(err)
	}
	merged, err := report.ReadGinkgoJSON(main)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"parallel": "passed", "quiet": "failed", "quiet, skipped here": "skipped needs one clock", "slow": "skipped"}
	for _, s := range merged[0].SpecReports {
		got := strings.TrimSpace(s.State.String() + " " + s.Failure.Message)
		if s.State == types.SpecStateFailed {
			got = s.State.String()
		}
		if got != want[s.LeafNodeText] {
			t.Errorf("%s: %q, want %q", s.LeafNodeText, got, want[s.LeafNodeText])
		}
	}
	if _, err := os.Stat(quiet); !os.IsNotExist(err) {
		t.Errorf("the Quiet specs' own report is left: %v", err)
	}
	data, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "probe 180 ms late") {
		t.Errorf("the JUnit report lacks the Quiet spec's failure:\n%s", data)
	}
}

func TestSuitesWithLabel(t *testing.T) {
	reports := []types.Report{
		{SuitePath: "/repo/suites/lifecycle", SpecReports: types.SpecReports{{LeafNodeLabels: []string{"PC-9", "Quiet"}}}},
		{SuitePath: "/repo/suites/restart", SpecReports: types.SpecReports{{LeafNodeLabels: []string{"RS-6"}}}},
		{SuitePath: "/repo/suites/probes", SpecReports: types.SpecReports{{ContainerHierarchyLabels: [][]string{{"Quiet"}}}}},
	}
	got := SuitesWithLabel(reports, []string{"./suites/probes", "./suites/restart", "./suites/lifecycle"}, "Quiet")
	if want := []string{"./suites/probes", "./suites/lifecycle"}; !reflect.DeepEqual(got, want) {
		t.Errorf("%q, want %q (on a spec or a container, in the run's order)", got, want)
	}
}
