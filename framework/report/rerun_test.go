package report

import (
	"bytes"
	"testing"

	"github.com/onsi/ginkgo/v2/types"
)

func TestRerunFailedFocusesOnTheFailedSpecs(t *testing.T) {
	runs, err := LoadRuns("testdata/artifacts", "e2e.json")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := WriteRerun(&out, RerunFailed(runs, "")); err != nil {
		t.Fatal(err)
	}
	if want := "./suites/termination --focus-file=suites/termination/sidecar_test.go:84\n"; out.String() != want {
		t.Errorf("rerun lines:\n%s\nwant:\n%s", out.String(), want)
	}
	if got := RerunFailed(runs, "v1.36.3"); len(got) != 0 {
		t.Errorf("failures of another version: %v", got)
	}
	if got := RerunFailed(runs, "v1.37.2"); len(got) != 1 {
		t.Errorf("the version the suites recorded selects the run: %v", got)
	}
}

func TestRerunFailedRunsAWholeSuiteWhoseSetupFailed(t *testing.T) {
	it := func(file string, line int, state types.SpecState) types.SpecReport {
		return types.SpecReport{LeafNodeType: types.NodeTypeIt, State: state,
			LeafNodeLocation: types.CodeLocation{FileName: "/ci/repo/" + file, LineNumber: line}}
	}
	runs := []Run{{Suites: []types.Report{
		{SuitePath: "/ci/repo/suites/restart/profiles", SpecReports: types.SpecReports{
			{LeafNodeType: types.NodeTypeSynchronizedBeforeSuite, State: types.SpecStateFailed},
			it("suites/restart/profiles/backoff_test.go", 10, types.SpecStateSkipped),
		}},
		{SuitePath: "/ci/repo/suites/lifecycle", SpecReports: types.SpecReports{
			it("suites/lifecycle/phase_test.go", 20, types.SpecStateTimedout), it("suites/lifecycle/phase_test.go", 20, types.SpecStatePanicked),
			it("suites/lifecycle/phase_test.go", 30, types.SpecStatePassed),
			{LeafNodeType: types.NodeTypeReportAfterSuite, State: types.SpecStateFailed},
		}},
		{SuitePath: "/ci/repo/suites/probes", SpecReports: types.SpecReports{
			{LeafNodeType: types.NodeTypeReportAfterSuite, State: types.SpecStateFailed},
		}},
	}}}
	var out bytes.Buffer
	if err := WriteRerun(&out, RerunFailed(runs, "")); err != nil {
		t.Fatal(err)
	}
	want := "./suites/restart/profiles\n./suites/lifecycle --focus-file=suites/lifecycle/phase_test.go:20\n"
	if out.String() != want {
		t.Errorf("rerun lines:\n%s\nwant:\n%s", out.String(), want)
	}
}
