// Package report turns a run's Ginkgo JSON reports into the conformance report's data,
// a Document: every statement of the catalogue with its verdict per cluster
// configuration, the drift found, the cluster facts, the measured timings, and the
// evidence of each failure. It renders nothing: framework/render writes a Document as
// HTML, Markdown and a terminal summary, and draws its charts; framework/compare and
// framework/mutants read Documents as they are.
//
// What the suites record for it, entry names and value types, is framework/entries:
// the names below are that package's, for this package's own code and its readers'.
package report

import "github.com/podlifecycle/conformance/framework/entries"

const (
	FactsEntry            = entries.FactsEntry
	TimelineEntryPrefix   = entries.TimelineEntryPrefix
	InfraRetryEntryPrefix = entries.InfraRetryEntryPrefix
	KubeletLogEntryPrefix = entries.KubeletLogEntryPrefix
	DelaysEntryPrefix     = entries.DelaysEntryPrefix
	ExistingConfig        = entries.ExistingConfig
	DisruptiveLabel       = entries.DisruptiveLabel
	NotRunDisruptive      = entries.NotRunDisruptive
)

type (
	ClusterFacts    = entries.ClusterFacts
	Component       = entries.Component
	NodeFacts       = entries.NodeFacts
	ImageProvenance = entries.ImageProvenance
)
