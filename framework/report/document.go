package report

import (
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/podlifecycle/conformance/framework/drift"
	"github.com/podlifecycle/conformance/framework/statements"
)

// Document is everything the report shows, built once from a run's artifacts; the
// Markdown, HTML and terminal renderings (framework/render) only format it, and draw
// its charts when they write it.
type Document struct {
	Artifacts string
	Columns   []Column
	// Rows: one per catalogue statement, in catalogue order, then the IDs specs carry
	// that the catalogue does not list.
	Rows []Row
	// Counts: statements by overall verdict; ColumnCounts[i] the same for Columns[i]
	// (statements with no spec in that configuration are not counted there).
	Counts map[Verdict]int
	// InPart counts, per verdict, the statements of Counts whose verdict rests on some
	// of their parts only (Row.InPart).
	InPart       map[Verdict]int
	ColumnCounts []map[Verdict]int
	// LeftOut: the project's suites the run did not cover ("suites/probes"); empty
	// when it covered them all or was not told the project's suites.
	LeftOut []string

	Suites     []SuiteResult
	Findings   []FindingRef
	DriftNotes []NoteRef
	KnownDrift []KnownDriftRef
	// Disagreements: the catalogue's claims on which the pages disagree, with what
	// the run's specs measured of each.
	Disagreements []DisagreementView
	Facts         []FactsView
	Delays        []DelaysRef
	Experiments   []ExperimentRef
	Failures      []FailureRef
	// Spans: where the run's wall time went, in run order (framework/run adds the
	// set-up before the suites from the run's record).
	Spans []RunSpan
	// InfraRetries: the host flakes the pod helper answered by making a pod again
	// (observe.HostFlake's rule), in run order.
	InfraRetries []InfraRetryRef
	// KillMatrix: the last `make mutants`'s matrix, when the artifacts hold one.
	KillMatrix *KillMatrix
	// WallTime: from the first suite's start to the last one's end, summed over the
	// Kubernetes versions of the run.
	WallTime time.Duration
}

// InfraRetryRef is a pod that a spec made again after a host flake.
type InfraRetryRef struct {
	Spec  SpecRef
	Pod   string
	Error string // the runtime's message
}

// Column is a cluster configuration (the kind config a cluster was made from) in one
// Kubernetes version: a column of the statement matrix.
type Column struct {
	Version string // the K8S_VERSIONS directory, or the server version the suites recorded
	Config  string // relative to the repository, e.g. "kind-configs/default.yaml"
}

// SpecRef is one spec as the report lists it.
type SpecRef struct {
	Suite    string // the suite's directory, relative to the repository
	Column   Column
	Text     string // Ginkgo's full text
	State    types.SpecState
	Verdict  Verdict // for the statement of the row that lists it; the spec's own otherwise
	Reason   string  // why it failed, was skipped or did not run
	Location string  // file:line, relative to the repository
}

// Cell is a statement's verdict in one column.
type Cell struct {
	Verdict Verdict
	Specs   int      // specs of the statement in this column; 0: none belongs here
	Reasons []string // of the specs whose verdict stands
}

// Row is one statement of the matrix.
type Row struct {
	Statement  statements.Statement
	Catalogued bool       // false: a spec carries the ID, the catalogue does not list it
	Citations  []Citation // where the pages make the statement's claims
	Specs      []SpecRef
	Cells      []Cell // aligned with Document.Columns
	Verdict    Verdict
	// Reason: for NotInRun the suites the run left out, for NotCheckable the
	// catalogue's reason; empty otherwise.
	Reason string
	// Parts: the statement's specs, each counted once however many configurations
	// and versions ran it; each checks a part of the statement. Unmeasured: those of
	// them that measured nothing in any column (skipped, or not run), so that a
	// statement that conforms in what was measured says what was not.
	Parts      int
	Unmeasured []PartRef
}

// PartRef is a spec of a statement that measured nothing: its text, its verdict
// (Skipped or NotRun) and why.
type PartRef struct {
	Text    string
	Verdict Verdict
	Reason  string
}

// Citation is one source of a statement as the report shows it: the page's upstream
// address with the section's anchor, and the page's own words.
type Citation struct {
	URL      string
	Page     string // the page's title
	Language string
	Seed     string // the page's file under framework/statements/pages
	Section  string
	Quote    string
}

// KnownDriftRef is a disagreement the catalogue already records, with its citations.
type KnownDriftRef struct {
	Topic      string
	Statements []string
	Text       string
	Citations  []Citation
}

// SuiteResult is one suite's run.
type SuiteResult struct {
	Version string
	Suite   string
	Column  Column
	// ConfigDerived: the suite recorded no cluster facts, so its configuration comes
	// from its path.
	ConfigDerived                   bool
	Passed, Failed, Skipped, NotRun int
	SetupFailed                     bool
	WallTime                        time.Duration
}

// FindingRef is a drift finding with the spec that found it.
type FindingRef struct {
	drift.Finding
	Spec SpecRef
}

// NoteRef is a free-text drift entry with the spec that recorded it.
type NoteRef struct {
	DriftNote
	Spec SpecRef
}

// FactsView is what the suites of one column recorded about their clusters.
type FactsView struct {
	Column   Column
	Suites   []string
	Clusters []ClusterFacts
	// Derived: suites that recorded no facts; their configuration is derived from
	// their path.
	Derived []string
}

// DelaysRef is a crash loop's measured delays, with the spec that measured them.
type DelaysRef struct {
	NamedDelays
	Spec SpecRef
}

// ExperimentRef is a gmeasure experiment of a spec, flattened into rows.
type ExperimentRef struct {
	Name string
	Spec SpecRef
	Rows []MeasurementRow
}

// MeasurementRow is one measurement of an experiment with the range the spec allowed.
type MeasurementRow struct {
	Name     string
	Measured []float64 // in Unit
	Unit     string    // "ms" for durations
	// Allowed is the annotation as recorded ("allowed 900–4500 ms"); Min and Max its
	// bounds when it has that form.
	Allowed  string
	HasRange bool
	Min, Max float64
}

// Within reports whether every measured value lies in the allowed range.
func (m MeasurementRow) Within() bool {
	for _, v := range m.Measured {
		if v < m.Min || v > m.Max {
			return false
		}
	}
	return true
}

// FailureRef is a failed spec (or suite node) with its evidence.
type FailureRef struct {
	Spec        SpecRef
	NodeType    string // "It", or the suite node that failed
	Message     string
	Location    string // where it failed, relative to the repository
	Timelines   []PodTimeline
	KubeletLogs []KubeletLog
}

// PodTimeline is one pod's record: from the JSON the suite saved, or from the spec's
// report entry when that file is missing (Rows empty, Text set).
type PodTimeline struct {
	Pod       string
	Namespace string
	File      string // relative to the artifacts directory
	Rows      []TimelineRow
	Text      string
}

// TimelineRow is one observation of a pod.
type TimelineRow struct {
	Seen    time.Time
	Offset  time.Duration // since the first observation
	Kind    string
	Summary string
}

// DisagreementView is a claim on which the pages disagree, as the report shows it: its
// claims with their citations, and every answer a spec of the run gave.
type DisagreementView struct {
	Topic      string
	Statements []string
	Note       string
	Claims     []ClaimView
	Answers    []AnswerRef
}

// ClaimView is one page's claim and whether some answer of the run confirmed it.
type ClaimView struct {
	Key       string
	Text      string
	Citations []Citation
	Confirmed bool
}

// AnswerRef is a spec's answer to a disagreement, with the spec whose verdict the
// report shows beside it (a spec answers first, then asserts the catalogue's
// statement, which may fail).
type AnswerRef struct {
	Answer drift.Answer
	Spec   SpecRef
}

// Outcome says what the run found: which claims the cluster confirmed, "neither"
// when it measured but confirmed none, "not measured in this run" when no spec
// answered (a Slow spec in a run without Slow, say).
func (d DisagreementView) Outcome() string {
	if len(d.Answers) == 0 {
		return "not measured in this run"
	}
	var keys []string
	for _, c := range d.Claims {
		if c.Confirmed {
			keys = append(keys, c.Key)
		}
	}
	if len(keys) == 0 {
		return "the cluster confirms none of the claims"
	}
	return "the cluster confirms " + strings.Join(keys, " and ")
}
