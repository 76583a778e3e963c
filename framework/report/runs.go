package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"

	"github.com/onsi/ginkgo/v2/types"
)

// Run is one Kubernetes version's results: the Ginkgo reports of its suites and the
// directory holding them with the suites' own artifacts.
type Run struct {
	// Version is the directory a K8S_VERSIONS run wrote it to ("v1.36.3"); empty for
	// the default run, whose results are at the top of the artifacts directory.
	Version string
	Dir     string
	Suites  []types.Report
}

// LoadRuns reads the Ginkgo JSON report named jsonName (e2e.json for `make e2e`) at the
// top of artifacts, and in each of its subdirectories named for a Kubernetes version
// (v1.36.3), where a run over several versions (K8S_VERSIONS) puts one per version.
// Other subdirectories are other runs' (the runner Job's artifacts, copied to
// _artifacts/runner), not part of this one.
func LoadRuns(artifacts, jsonName string) ([]Run, error) {
	var runs []Run
	top, err := loadRun(artifacts, "", jsonName)
	switch {
	case err == nil:
		runs = append(runs, top)
	case !errors.Is(err, fs.ErrNotExist):
		return nil, err
	}
	dirs, err := os.ReadDir(artifacts)
	if err != nil {
		return nil, err
	}
	for _, d := range dirs {
		if !d.IsDir() || !versionDir.MatchString(d.Name()) {
			continue
		}
		run, err := loadRun(filepath.Join(artifacts, d.Name()), d.Name(), jsonName)
		switch {
		case err == nil:
			runs = append(runs, run)
		case !errors.Is(err, fs.ErrNotExist):
			return nil, err
		}
	}
	if len(runs) == 0 {
		return nil, fmt.Errorf("no %s in %s nor in a version directory below it: run the suites first (make e2e)", jsonName, artifacts)
	}
	slices.SortStableFunc(runs, func(a, b Run) int { return compareVersions(a.Version, b.Version) })
	return runs, nil
}

// versionDir is the name K8S_VERSIONS gives a version's artifacts directory.
var versionDir = regexp.MustCompile(`^v[0-9]+\.[0-9]+\.[0-9]+$`)

func loadRun(dir, version, jsonName string) (Run, error) {
	suites, err := ReadGinkgoJSON(filepath.Join(dir, jsonName))
	if err != nil {
		return Run{}, err
	}
	return Run{Version: version, Dir: dir, Suites: suites}, nil
}

// ReadGinkgoJSON reads a Ginkgo JSON report (--json-report): one report per suite.
func ReadGinkgoJSON(path string) ([]types.Report, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var suites []types.Report
	if err := json.Unmarshal(data, &suites); err != nil {
		return nil, fmt.Errorf("%s is not a Ginkgo JSON report: %w", path, err)
	}
	return suites, nil
}

// LoadRunsIn reads the runs of several artifacts directories as one run: the parts
// of a run split over several machines (SHARD=i/n), each with its own artifacts.
// Their suites are the parts' own: a suite split between two parts appears twice,
// each with the specs its part ran (the others not run there, which the report's
// heaviest-verdict rule lets the part that ran them decide).
func LoadRunsIn(dirs []string, jsonName string) ([]Run, error) {
	var runs []Run
	for _, dir := range dirs {
		r, err := LoadRuns(dir, jsonName)
		if err != nil {
			return nil, err
		}
		runs = append(runs, r...)
	}
	return runs, nil
}
