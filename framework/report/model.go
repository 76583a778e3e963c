// Package report turns a run's Ginkgo JSON reports into the conformance report: every
// statement of the catalogue with its verdict per cluster configuration, the drift
// found, the cluster facts, the measured timings, and the evidence of each failure.
//
// What the suites record for it, entry names and value types, is framework/entries:
// the names below are that package's, for the renderer's own code.
package report

import "github.com/podlifecycle/conformance/framework/entries"

const (
	FactsEntry            = entries.FactsEntry
	TimelineEntryPrefix   = entries.TimelineEntryPrefix
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
