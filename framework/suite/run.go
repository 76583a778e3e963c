package suite

import (
	"os"
	"path/filepath"
	"sync"

	"github.com/podlifecycle/conformance/framework/cluster"
	"github.com/podlifecycle/conformance/framework/config"
)

var (
	runOnce   sync.Once
	runRecord config.Record
	runErr    error
)

// Run is the run this suite is part of: the run.json that PODLIFECYCLE_RUN names,
// written by `podlifecycle run` (make e2e) with every switch resolved. Without it (a
// suite run by hand with ginkgo) it is a plain make e2e's: a kind cluster of the
// stock node image, artifacts in _artifacts at the repository root. The error says
// why a named record could not be read; the suite then fails at its start.
func Run() (config.Record, error) {
	runOnce.Do(func() {
		path := os.Getenv(config.RecordVar)
		if path == "" {
			root, _ := RepoRoot()
			runRecord = config.Record{Config: config.Default(), ServerVersion: config.DefaultVersion, Dir: filepath.Join(root, "_artifacts")}
			return
		}
		runRecord, runErr = config.ReadRecord(path)
		if runErr == nil && runRecord.ServerVersion == "" {
			runRecord.ServerVersion = config.DefaultVersion
		}
	})
	return runRecord, runErr
}

// KindOptions are the kind provider's options of the run (cluster.KindOptionsOf).
func KindOptions() cluster.KindOptions {
	r, _ := Run()
	return cluster.KindOptionsOf(r)
}
