package run

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/onsi/ginkgo/v2/reporters"
	"github.com/onsi/ginkgo/v2/types"

	"github.com/podlifecycle/conformance/framework/report"
)

// MergeRerunInto writes into rerunPath the run's whole report: the report saved
// before the rerun (beforePath) with each spec the rerun ran again replaced by its
// new result, so that the report of a RERUN_FAILED run shows every spec of the run,
// not only the rerun ones.
func MergeRerunInto(beforePath, rerunPath string) error {
	_, err := mergeFiles(beforePath, rerunPath, rerunPath)
	return err
}

// mergeFiles writes into outPath MergeRerun of the Ginkgo JSON reports at beforePath
// and againPath, and returns the merged reports.
func mergeFiles(beforePath, againPath, outPath string) ([]types.Report, error) {
	before, err := report.ReadGinkgoJSON(beforePath)
	if err != nil {
		return nil, err
	}
	again, err := report.ReadGinkgoJSON(againPath)
	if err != nil {
		return nil, err
	}
	merged := MergeRerun(before, again)
	data, err := json.Marshal(merged)
	if err != nil {
		return nil, err
	}
	return merged, os.WriteFile(outPath, data, 0o644)
}

// MergeQuietInto merges the report of the Quiet specs (quietPath, removed after) into
// the side-by-side run's (mainPath), as MergeRerun does a rerun's, and writes the
// merged JUnit report to junitPath.
func MergeQuietInto(mainPath, quietPath, junitPath string) error {
	merged, err := mergeFiles(mainPath, quietPath, mainPath)
	if err != nil {
		return err
	}
	var parts []string
	for i, r := range merged {
		part := fmt.Sprintf("%s.part%d", junitPath, i)
		if err := reporters.GenerateJUnitReport(r, part); err != nil {
			return err
		}
		parts = append(parts, part)
	}
	if _, err := reporters.MergeAndCleanupJUnitReports(parts, junitPath); err != nil {
		return err
	}
	return os.Remove(quietPath)
}

// MergeRerun is before with every spec that rerun ran (same suite, same place, same
// text) replaced by the rerun's result, and each suite's success and special failure
// reasons as the rerun left them where it ran that suite.
func MergeRerun(before, rerun []types.Report) []types.Report {
	type key struct {
		suite, file string
		line        int
		text        string
	}
	keyOf := func(suite string, s types.SpecReport) key {
		return key{suite, s.LeafNodeLocation.FileName, s.LeafNodeLocation.LineNumber, s.FullText()}
	}
	again := map[key]types.SpecReport{}
	rerunSuites := map[string]types.Report{}
	for _, r := range rerun {
		rerunSuites[r.SuitePath] = r
		for _, s := range r.SpecReports {
			// Left out by the rerun's filter: skipped with no message. A Skip() has one.
			if s.State != types.SpecStateSkipped || s.Failure.Message != "" || s.LeafNodeType != types.NodeTypeIt {
				again[keyOf(r.SuitePath, s)] = s
			}
		}
	}
	out := make([]types.Report, len(before))
	for i, r := range before {
		merged := r
		merged.SpecReports = make(types.SpecReports, len(r.SpecReports))
		for j, s := range r.SpecReports {
			if n, ok := again[keyOf(r.SuitePath, s)]; ok {
				s = n
			}
			merged.SpecReports[j] = s
		}
		if rr, ok := rerunSuites[r.SuitePath]; ok {
			merged.SpecialSuiteFailureReasons = rr.SpecialSuiteFailureReasons
			merged.SuiteSucceeded = rr.SuiteSucceeded && merged.SpecReports.CountWithState(types.SpecStateFailureStates) == 0
		}
		out[i] = merged
	}
	return out
}
