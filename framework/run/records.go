package run

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/podlifecycle/conformance/framework/config"
)

// CheckRuns reads the run records of artifact directories that are to be read as
// one run (one directory, or the parts of a sharded run) and refuses what did not
// happen as it would seem to: a directory no run wrote, a run whose suites never
// started, a Ginkgo report older than its run (an earlier run's, left behind), parts
// of different commits or switches, and a part missing or given twice.
func CheckRuns(dirs []string, jsonName string) ([]config.Record, error) {
	var recs []config.Record
	for _, dir := range dirs {
		rec, err := config.ReadRecord(filepath.Join(dir, config.RecordFile))
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s holds no %s: no run of podlifecycle wrote it (make e2e writes one first), so nothing in it can be told from an earlier run's", dir, config.RecordFile)
		}
		if err != nil {
			return nil, err
		}
		if rec.SuitesStarted.IsZero() {
			why := ""
			if rec.Failure != "" {
				why = " (" + rec.Failure + ")"
			}
			return nil, fmt.Errorf("run %s in %s never started its suites%s: there is nothing to report, and no earlier run's report is shown instead", rec.ID, dir, why)
		}
		for _, report := range reportsOf(dir, rec, jsonName) {
			st, err := os.Stat(report)
			if err == nil && st.ModTime().Before(rec.SuitesStarted) {
				return nil, fmt.Errorf("%s is older than run %s that started its suites at %s: it is an earlier run's, not this one's", report, rec.ID, rec.SuitesStarted.Format("2006-01-02 15:04:05"))
			}
		}
		recs = append(recs, rec)
	}
	if len(recs) < 2 {
		return recs, nil
	}
	first := recs[0]
	seen := map[int]string{}
	for i, r := range recs {
		if r.Commit != first.Commit || r.Dirty != first.Dirty {
			return nil, fmt.Errorf("the parts ran different code: %s ran %s, %s ran %s", dirs[0], describeCommit(first), dirs[i], describeCommit(r))
		}
		if r.Config.Shard.Count != first.Config.Shard.Count || r.Config.Shard.Whole() {
			return nil, fmt.Errorf("%s and %s are not parts of one sharded run (SHARD %q and %q)", dirs[0], dirs[i], first.Config.Shard, r.Config.Shard)
		}
		a, b := first.Config, r.Config
		a.Shard, b.Shard, a.Artifacts, b.Artifacts = config.Shard{}, config.Shard{}, "", ""
		if fmt.Sprint(a) != fmt.Sprint(b) {
			return nil, fmt.Errorf("the parts %s and %s ran with different switches: %+v and %+v", dirs[0], dirs[i], a, b)
		}
		if d, ok := seen[r.Config.Shard.Index]; ok {
			return nil, fmt.Errorf("part %s is given twice: %s and %s", r.Config.Shard, d, dirs[i])
		}
		seen[r.Config.Shard.Index] = dirs[i]
	}
	var missing []string
	for i := 1; i <= first.Config.Shard.Count; i++ {
		if _, ok := seen[i]; !ok {
			missing = append(missing, fmt.Sprintf("%d/%d", i, first.Config.Shard.Count))
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("the run in parts lacks part %s: give every part's artifacts directory, comma-separated", strings.Join(missing, ", "))
	}
	return recs, nil
}

// reportsOf are the Ginkgo JSON reports a run writes in its top directory dir: one,
// or one per version of K8S_VERSIONS, in the version's directory.
func reportsOf(dir string, rec config.Record, jsonName string) []string {
	if len(rec.Config.Versions) == 0 {
		return []string{filepath.Join(dir, jsonName)}
	}
	var out []string
	for _, v := range rec.Config.Versions {
		out = append(out, filepath.Join(dir, v, jsonName))
	}
	return out
}

func describeCommit(r config.Record) string {
	c := r.Commit
	if c == "" {
		c = "an unknown commit"
	}
	if r.Dirty {
		c += " with uncommitted changes"
	}
	return c
}

// MoveAside moves the previous run's artifacts in dir into dir.previous (replacing
// what an older run left there), so that nothing of it can pass for the new run's.
// The kill matrix (mutants/) and the A/B runs (ab/) stay: they are runs of their own.
func MoveAside(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) || err == nil && len(entries) == 0 {
		return nil
	}
	if err != nil {
		return err
	}
	previous := filepath.Clean(dir) + ".previous"
	if err := os.RemoveAll(previous); err != nil {
		return err
	}
	if err := os.MkdirAll(previous, 0o755); err != nil {
		return err
	}
	for _, e := range entries {
		if e.IsDir() && (e.Name() == "mutants" || e.Name() == "ab") {
			continue
		}
		if err := os.Rename(filepath.Join(dir, e.Name()), filepath.Join(previous, e.Name())); err != nil {
			return err
		}
	}
	return nil
}
