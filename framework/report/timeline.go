package report

import (
	"encoding/json"
	"os"
	"path/filepath"
	"time"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/podlifecycle/conformance/framework/observe"
)

// savedTimeline is the JSON framework/observe's Timeline.Save writes, named
// observe.SavedName(spec, pod)+".json" in the suite's artifacts directory: the
// reading side of the anonymous struct Save marshals.
type savedTimeline struct {
	Namespace string `json:"namespace"`
	Pod       string `json:"pod"`
	Entries   []struct {
		Seen    time.Time `json:"seen"`
		Kind    string    `json:"kind"`
		Summary string    `json:"summary"`
	} `json:"entries"`
}

// timelinesOf is the recorded timelines of spec s of a suite in dir (relative to the
// repository) of the run whose artifacts are in runDir: one per pod the spec recorded,
// read from the saved JSON, or the spec's own text of it when the file is missing.
func timelinesOf(runDir, artifacts, dir string, s types.SpecReport) []PodTimeline {
	var out []PodTimeline
	for _, recorded := range timelinePodsOf(s) {
		name := observe.SavedName(s.FullText(), recorded.Pod) + ".json"
		tl, file, ok := readTimeline(filepath.Join(runDir, artifactsName(dir), name))
		if !ok {
			// A suite named otherwise than by its path: any suite directory of the run.
			matches, _ := filepath.Glob(filepath.Join(runDir, "*", name))
			for _, m := range matches {
				if tl, file, ok = readTimeline(m); ok {
					break
				}
			}
		}
		if !ok {
			out = append(out, PodTimeline{Pod: recorded.Pod, Text: recorded.Text})
			continue
		}
		if rel, err := filepath.Rel(artifacts, file); err == nil {
			file = rel
		}
		out = append(out, PodTimeline{Pod: recorded.Pod, Namespace: tl.Namespace, File: file, Rows: rowsOf(tl)})
	}
	return out
}

func readTimeline(file string) (savedTimeline, string, bool) {
	data, err := os.ReadFile(file)
	if err != nil {
		return savedTimeline{}, "", false
	}
	var tl savedTimeline
	if err := json.Unmarshal(data, &tl); err != nil {
		return savedTimeline{}, "", false
	}
	return tl, file, true
}

func rowsOf(tl savedTimeline) []TimelineRow {
	var rows []TimelineRow
	for _, e := range tl.Entries {
		rows = append(rows, TimelineRow{Seen: e.Seen, Offset: e.Seen.Sub(tl.Entries[0].Seen), Kind: e.Kind, Summary: e.Summary})
	}
	return rows
}
