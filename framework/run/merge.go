package run

import (
	"encoding/json"
	"os"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/podlifecycle/conformance/framework/report"
)

// MergeRerunInto writes into rerunPath the run's whole report: the report saved
// before the rerun (beforePath) with each spec the rerun ran again replaced by its
// new result, so that the report of a RERUN_FAILED run shows every spec of the run,
// not only the rerun ones.
func MergeRerunInto(beforePath, rerunPath string) error {
	before, err := report.ReadGinkgoJSON(beforePath)
	if err != nil {
		return err
	}
	rerun, err := report.ReadGinkgoJSON(rerunPath)
	if err != nil {
		return err
	}
	data, err := json.Marshal(MergeRerun(before, rerun))
	if err != nil {
		return err
	}
	return os.WriteFile(rerunPath, data, 0o644)
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
			if s.State != types.SpecStateSkipped || s.LeafNodeType != types.NodeTypeIt {
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
