package config

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// RecordFile is the name of a run's record in each artifacts directory it writes, and
// RecordVar the one environment variable that tells the suites where it is.
const (
	RecordFile = "run.json"
	RecordVar  = "PODLIFECYCLE_RUN"
)

// Record is run.json: what one run was asked for, what it resolved for this
// directory's pass, and how it ended. It is written before anything is built (so a
// directory that holds a report always names the run that wrote it), again when
// the suites start, and last with the exit status.
type Record struct {
	ID      string    `json:"id"`
	Started time.Time `json:"started"`
	// Commit of the suite's code and whether the tree had uncommitted changes: compare
	// says when two runs ran different code.
	Commit string `json:"commit"`
	Dirty  bool   `json:"dirty"`
	Config Config `json:"config"`
	// Suites: the suites' packages the run was given.
	Suites []string `json:"suites"`
	// ServerVersion is the release this pass is checked against; NodeImage the image of
	// every node whose kind config names none; InCluster: the suites run in a pod of the
	// cluster under test and reach it with the pod's service account.
	ServerVersion string `json:"serverVersion"`
	NodeImage     string `json:"nodeImage,omitempty"`
	InCluster     bool   `json:"inCluster,omitempty"`
	// Dir is the absolute path of the pass's artifacts directory.
	Dir string `json:"dir"`
	// SuitesStarted: when Ginkgo was started on the suites; zero if it never was.
	SuitesStarted time.Time `json:"suitesStarted,omitzero"`
	Finished      time.Time `json:"finished,omitzero"`
	// Exit is the run's exit status (0 green, 1 a spec failed, 2 the run could not be
	// made); nil while it runs, or when it was killed.
	Exit *int `json:"exit,omitempty"`
	// Failure: why the run could not be made, when it could not.
	Failure string `json:"failure,omitempty"`
}

// Write writes r to dir/run.json whole (a reader never sees half of it).
func (r Record) Write(dir string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	path := filepath.Join(dir, RecordFile)
	tmp := fmt.Sprintf("%s.%d.tmp", path, os.Getpid())
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// ReadRecord reads path, a run.json.
func ReadRecord(path string) (Record, error) {
	var r Record
	b, err := os.ReadFile(path)
	if err != nil {
		return r, err
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return r, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}
