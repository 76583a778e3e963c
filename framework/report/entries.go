package report

import (
	"encoding/json"
	"strings"

	"github.com/onsi/ginkgo/v2/types"
	"github.com/onsi/gomega/gmeasure"

	"github.com/podlifecycle/conformance/framework/backoff"
	"github.com/podlifecycle/conformance/framework/drift"
)

// Report entries come back from Ginkgo's JSON as Value.AsJSON (the value as
// encoding/json wrote it) and Value.Representation (its string form). Everything the
// report decides is decoded from AsJSON; Representation is only shown.

// decodeEntry decodes e's value into v, strictly enough that a value of another shape
// is not mistaken for v: an object into a struct must not be a JSON string.
func decodeEntry(e types.ReportEntry, v any) bool {
	if e.Value.AsJSON == "" {
		return false
	}
	return json.Unmarshal([]byte(e.Value.AsJSON), v) == nil
}

// entryText is an entry's value as a reader sees it: the string itself when the value
// is a string, its string form otherwise.
func entryText(e types.ReportEntry) string {
	var s string
	if decodeEntry(e, &s) {
		return s
	}
	return e.Value.Representation
}

// isObject reports whether the entry's value is a JSON object, the form a struct
// value takes; a string that merely describes something is not one.
func isObject(e types.ReportEntry) bool {
	return strings.HasPrefix(strings.TrimSpace(e.Value.AsJSON), "{")
}

// clusterFactsOf is the ClusterFacts a suite recorded in its SynchronizedBeforeSuite,
// or nil when it recorded none.
func clusterFactsOf(suite types.Report) *ClusterFacts {
	for _, s := range suite.SpecReports {
		if s.LeafNodeType != types.NodeTypeSynchronizedBeforeSuite && s.LeafNodeType != types.NodeTypeBeforeSuite {
			continue
		}
		for _, e := range s.ReportEntries {
			var f ClusterFacts
			if e.Name == FactsEntry && isObject(e) && decodeEntry(e, &f) {
				return &f
			}
		}
	}
	return nil
}

// DriftNote is a "drift: " entry whose value is not a drift.Finding (free text from
// code that predates drift.Observe). The report shows it but decides nothing by it.
type DriftNote struct {
	Topic string
	Text  string
}

// driftOf splits a spec's drift entries into structured findings and free-text notes.
func driftOf(s types.SpecReport) (findings []drift.Finding, notes []DriftNote) {
	for _, e := range s.ReportEntries {
		topic, ok := strings.CutPrefix(e.Name, drift.EntryPrefix)
		if !ok {
			continue
		}
		var f drift.Finding
		if isObject(e) && decodeEntry(e, &f) && (f.Docs != "" || f.Measured != "") {
			if f.Topic == "" {
				f.Topic = topic
			}
			findings = append(findings, f)
			continue
		}
		notes = append(notes, DriftNote{Topic: topic, Text: entryText(e)})
	}
	return findings, notes
}

// answersOf is a spec's answers to the catalogue's disagreements.
func answersOf(s types.SpecReport) []drift.Answer {
	var out []drift.Answer
	for _, e := range s.ReportEntries {
		if !strings.HasPrefix(e.Name, drift.AnswerPrefix) {
			continue
		}
		var a drift.Answer
		if isObject(e) && decodeEntry(e, &a) && a.Topic != "" {
			out = append(out, a)
		}
	}
	return out
}

// NamedDelays is one crash loop's delay table, named after what it measured (the node
// and its kubelet's backoff settings).
type NamedDelays struct {
	What  string
	Table backoff.DelayTable
}

func delaysOf(s types.SpecReport) []NamedDelays {
	var out []NamedDelays
	for _, e := range s.ReportEntries {
		what, ok := strings.CutPrefix(e.Name, DelaysEntryPrefix)
		if !ok {
			continue
		}
		var t backoff.DelayTable
		if decodeEntry(e, &t) && len(t) > 0 {
			out = append(out, NamedDelays{What: what, Table: t})
		}
	}
	return out
}

// experimentsOf is the gmeasure experiments a spec recorded. An experiment that only
// repeats a delay table of the same spec ("restart delays on X" beside "restart delays
// (ms) on X") is left out: the table has the same delays and their allowed range.
func experimentsOf(s types.SpecReport) []*gmeasure.Experiment {
	tables := map[string]bool{}
	for _, d := range delaysOf(s) {
		tables[d.What] = true
	}
	var out []*gmeasure.Experiment
	for _, e := range s.ReportEntries {
		if !isExperiment(e) {
			continue
		}
		exp := &gmeasure.Experiment{}
		if !decodeEntry(e, exp) || len(exp.Measurements) == 0 {
			continue
		}
		if what, ok := strings.CutPrefix(exp.Name, "restart delays on "); ok && tables[what] {
			continue
		}
		out = append(out, exp)
	}
	return out
}

// isExperiment tells a gmeasure experiment from other objects by the fields its JSON
// has: a name and measurements that each name their experiment.
func isExperiment(e types.ReportEntry) bool {
	if !isObject(e) {
		return false
	}
	var probe struct {
		Name         *string
		Measurements []struct{ ExperimentName *string }
	}
	if !decodeEntry(e, &probe) || probe.Name == nil || len(probe.Measurements) == 0 {
		return false
	}
	for _, m := range probe.Measurements {
		if m.ExperimentName == nil {
			return false
		}
	}
	return true
}

// KubeletLog is the kubelet's log lines about a failed spec's pods on one node.
type KubeletLog struct {
	Node  string
	Lines string
}

func kubeletLogsOf(s types.SpecReport) []KubeletLog {
	return entriesNamed(s, KubeletLogEntryPrefix, func(node, text string) KubeletLog { return KubeletLog{Node: node, Lines: text} })
}

// timelinePodsOf is the pods whose timelines the spec recorded, in recording order.
func timelinePodsOf(s types.SpecReport) []timelineEntry {
	return entriesNamed(s, TimelineEntryPrefix, func(pod, text string) timelineEntry { return timelineEntry{Pod: pod, Text: text} })
}

// entriesNamed makes a T of each of the spec's entries whose name starts with prefix,
// from the rest of the name and the entry's text, in recording order.
func entriesNamed[T any](s types.SpecReport, prefix string, make func(rest, text string) T) []T {
	var out []T
	for _, e := range s.ReportEntries {
		if rest, ok := strings.CutPrefix(e.Name, prefix); ok {
			out = append(out, make(rest, entryText(e)))
		}
	}
	return out
}

// timelineEntry is a pod's timeline as the spec's report carries it (text).
type timelineEntry struct {
	Pod  string
	Text string
}
