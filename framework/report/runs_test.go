package report

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// A version's directory (K8S_VERSIONS) is a run of its own; another directory below
// the artifacts (the runner Job's, copied to runner/) is not part of this run.
func TestLoadRunsReadsVersionDirectoriesOnly(t *testing.T) {
	dir := t.TempDir()
	for _, sub := range []string{"", "v1.36.3", "runner"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, sub, "e2e.json"), []byte("[]"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	runs, err := LoadRuns(dir, "e2e.json")
	if err != nil {
		t.Fatal(err)
	}
	var versions []string
	for _, r := range runs {
		versions = append(versions, r.Version)
	}
	slices.Sort(versions)
	if !slices.Equal(versions, []string{"", "v1.36.3"}) {
		t.Errorf("runs of versions %q, want the top one and v1.36.3", versions)
	}
}
