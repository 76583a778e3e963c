package report

import (
	"slices"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/podlifecycle/conformance/framework/drift"
	"github.com/podlifecycle/conformance/framework/statements"
)

// Build reads the runs of an artifacts directory against the catalogue into the
// report's document: the verdict of every statement per configuration and version,
// and the evidence behind them. suites is the project's suites, as directories below
// suites/ ("restart/profiles"): a statement with no spec in runs that left some of them
// out is "not in this run"; with suites nil the runs are taken to be the whole project.
func Build(artifacts string, runs []Run, cat statements.Catalogue, suites []string) (Document, error) {
	b := builder{doc: Document{Artifacts: artifacts, KnownDrift: knownDrift(cat), Disagreements: disagreements(cat), LeftOut: leftOut(suites, runs)},
		artifacts: artifacts, columns: map[Column]int{}, facts: map[Column]int{}, byID: map[string]map[Column][]SpecRef{}}
	for _, run := range runs {
		b.addRun(run)
	}
	b.rows(cat)
	return b.doc, nil
}

// builder accumulates a document while the runs are read.
type builder struct {
	doc       Document
	artifacts string
	columns   map[Column]int // index in doc.Columns
	facts     map[Column]int // index in doc.Facts
	// byID: every spec carrying a statement ID, by ID and column, with its verdict
	// for that ID.
	byID map[string]map[Column][]SpecRef
}

func (b *builder) addRun(run Run) {
	version := run.Version
	if version == "" {
		// The default run writes no version directory; the suites say what they ran on.
		for _, suite := range run.Suites {
			if f := clusterFactsOf(suite); f != nil && f.ServerVersion != "" {
				version = f.ServerVersion
				break
			}
		}
	}
	var start, end time.Time
	for _, suite := range run.Suites {
		if start.IsZero() || suite.StartTime.Before(start) {
			start = suite.StartTime
		}
		if suite.EndTime.After(end) {
			end = suite.EndTime
		}
		b.addSuite(run, version, suite)
	}
	if !start.IsZero() && end.After(start) {
		b.doc.WallTime += end.Sub(start)
	}
}

func (b *builder) addSuite(run Run, version string, suite types.Report) {
	root, dir := repoRoot(suite.SuitePath), suiteDir(suite)
	facts := clusterFactsOf(suite)
	config := derivedConfig(dir)
	if facts != nil && facts.Config != "" {
		config = facts.Config
	}
	col := Column{Version: version, Config: config}
	if _, ok := b.columns[col]; !ok {
		b.columns[col] = len(b.doc.Columns)
		b.doc.Columns = append(b.doc.Columns, col)
	}
	b.addFacts(col, dir, facts)

	b.doc.Spans = append(b.doc.Spans, suiteSpans(dir, col, suite)...)
	result := SuiteResult{Version: run.Version, Suite: dir, Column: col, ConfigDerived: facts == nil, WallTime: suite.RunTime}
	for _, s := range suite.SpecReports {
		if s.LeafNodeType.Is(types.NodeTypeSynchronizedBeforeSuite|types.NodeTypeBeforeSuite) && s.State.Is(types.SpecStateFailureStates) {
			result.SetupFailed = true
		}
	}
	// A suite that failed without a failed node to show for it (its tree refused at
	// construction, a process that never reported) is a failure of its own: otherwise
	// its specs would read "not run" and the run green.
	if !suite.SuiteSucceeded && !slices.ContainsFunc(suite.SpecReports, func(s types.SpecReport) bool { return s.State.Is(types.SpecStateFailureStates) }) {
		why := strings.Join(suite.SpecialSuiteFailureReasons, "; ")
		if why == "" {
			why = "the suite failed without reporting a failed spec"
		}
		b.doc.Failures = append(b.doc.Failures, FailureRef{Spec: SpecRef{Suite: dir, Column: col, Text: dir + ": the suite", Verdict: Fails, Reason: why},
			NodeType: "suite", Message: why, Location: dir})
	}
	how := suiteRun{setupFailed: result.SetupFailed, existing: config == ExistingConfig,
		interrupted: slices.ContainsFunc(suite.SpecialSuiteFailureReasons, func(r string) bool { return strings.Contains(r, "Interrupted") })}
	for _, s := range suite.SpecReports {
		ref := SpecRef{Suite: dir, Column: col, Text: s.FullText(), State: s.State,
			Location: location(root, s.LeafNodeLocation)}
		if s.LeafNodeType != types.NodeTypeIt {
			if s.State.Is(types.SpecStateFailureStates) {
				ref.Text = dir + ": " + s.LeafNodeType.String()
				ref.Verdict, ref.Reason = Fails, FirstLine(s.Failure.Message)
				b.addFailure(run, root, dir, ref, s)
			}
			continue
		}
		findings, notes := driftOf(s)
		ref.Verdict = specVerdict(s, "", findings)
		ref.Reason = reasonOf(s, ref.Verdict, "", findings, how)
		switch ref.Verdict {
		case Fails:
			result.Failed++
			b.addFailure(run, root, dir, ref, s)
		case Drift, Conforms:
			result.Passed++
		case Skipped:
			result.Skipped++
		default:
			result.NotRun++
		}
		for _, f := range findings {
			b.doc.Findings = append(b.doc.Findings, FindingRef{Finding: f, Spec: ref})
		}
		for _, n := range notes {
			b.doc.DriftNotes = append(b.doc.DriftNotes, NoteRef{DriftNote: n, Spec: ref})
		}
		for _, a := range answersOf(s) {
			b.addAnswer(a, ref)
		}
		b.doc.InfraRetries = append(b.doc.InfraRetries, entriesNamed(s, InfraRetryEntryPrefix, func(pod, text string) InfraRetryRef {
			return InfraRetryRef{Spec: ref, Pod: pod, Error: text}
		})...)
		for _, d := range delaysOf(s) {
			b.doc.Delays = append(b.doc.Delays, DelaysRef{NamedDelays: d, Spec: ref})
		}
		for _, exp := range experimentsOf(s) {
			b.doc.Experiments = append(b.doc.Experiments, ExperimentRef{Name: exp.Name, Spec: ref, Rows: measurementRows(exp)})
		}
		for _, id := range statements.IDs(s.Labels()) {
			forID := ref
			forID.Verdict = specVerdict(s, id, findings)
			forID.Reason = reasonOf(s, forID.Verdict, id, findings, how)
			if b.byID[id] == nil {
				b.byID[id] = map[Column][]SpecRef{}
			}
			b.byID[id][col] = append(b.byID[id][col], forID)
		}
	}
	b.doc.Suites = append(b.doc.Suites, result)
}

// suiteRun is what a spec's reason depends on beyond the spec: whether its suite's
// setup failed, whether the run was interrupted, and whether the cluster was one the
// suite did not make (KUBECONFIG).
type suiteRun struct{ setupFailed, interrupted, existing bool }

// reasonOf says why spec s has verdict v for statement id ("" for the spec as a whole).
func reasonOf(s types.SpecReport, v Verdict, id string, findings []drift.Finding, how suiteRun) string {
	switch v {
	case Fails:
		return FirstLine(s.Failure.Message)
	case Drift:
		var topics []string
		for _, f := range findings {
			if id == "" || f.Statement == "" || f.Statement == id {
				topics = append(topics, f.Topic)
			}
		}
		return "drift: " + strings.Join(topics, "; ")
	case Skipped:
		return strings.TrimSpace(s.Failure.Message)
	case NotRun:
		switch {
		case s.State.Is(types.SpecStateFailureStates):
			return "not decided: the spec failed on " + strings.Join(failedOn(s), ", ") + " first (" + TellingLine(s.Failure.Message) + ")"
		case how.setupFailed:
			return "suite setup failed"
		case slices.Contains(s.Labels(), "Slow"):
			return "Slow"
		case how.existing && slices.Contains(s.Labels(), DisruptiveLabel):
			return NotRunDisruptive
		case how.interrupted:
			return "filtered out, or not reached before the run was interrupted"
		default:
			return "filtered out (label filter or focus)"
		}
	}
	return ""
}

func (b *builder) addFacts(col Column, dir string, facts *ClusterFacts) {
	i, ok := b.facts[col]
	if !ok {
		i = len(b.doc.Facts)
		b.facts[col] = i
		b.doc.Facts = append(b.doc.Facts, FactsView{Column: col})
	}
	view := &b.doc.Facts[i]
	view.Suites = append(view.Suites, dir)
	if facts == nil {
		view.Derived = append(view.Derived, dir)
		return
	}
	// Suites of a run share their clusters: each cluster once.
	if !slices.ContainsFunc(view.Clusters, func(c ClusterFacts) bool { return c.Cluster == facts.Cluster }) {
		view.Clusters = append(view.Clusters, *facts)
	}
}

func (b *builder) addFailure(run Run, root, dir string, ref SpecRef, s types.SpecReport) {
	f := FailureRef{Spec: ref, NodeType: s.LeafNodeType.String(), Message: s.Failure.Message,
		Location: location(root, s.Failure.Location), KubeletLogs: kubeletLogsOf(s)}
	if s.LeafNodeType == types.NodeTypeIt {
		f.Timelines = timelinesOf(run.Dir, b.artifacts, dir, s)
	}
	b.doc.Failures = append(b.doc.Failures, f)
}

// rows makes the matrix: the catalogue's statements in its order, then IDs that specs
// carry and the catalogue does not list, so that neither goes unnoticed.
func (b *builder) rows(cat statements.Catalogue) {
	listed := map[string]bool{}
	for _, st := range cat.Statements() {
		listed[st.ID] = true
		r := b.row(st, true)
		r.Citations = citations(cat, st.Sources)
		b.doc.Rows = append(b.doc.Rows, r)
	}
	var extra []string
	for id := range b.byID {
		if !listed[id] {
			extra = append(extra, id)
		}
	}
	slices.Sort(extra)
	for _, id := range extra {
		b.doc.Rows = append(b.doc.Rows, b.row(statements.Statement{ID: id, Text: "(not in the catalogue)"}, false))
	}
	b.doc.Counts = map[Verdict]int{}
	b.doc.ColumnCounts = make([]map[Verdict]int, len(b.doc.Columns))
	for i := range b.doc.ColumnCounts {
		b.doc.ColumnCounts[i] = map[Verdict]int{}
	}
	b.doc.InPart = map[Verdict]int{}
	for _, r := range b.doc.Rows {
		b.doc.Counts[r.Verdict]++
		if r.InPart() {
			b.doc.InPart[r.Verdict]++
		}
		for i, c := range r.Cells {
			if c.Specs > 0 {
				b.doc.ColumnCounts[i][c.Verdict]++
			}
		}
	}
}

func (b *builder) row(st statements.Statement, catalogued bool) Row {
	r := Row{Statement: st, Catalogued: catalogued, Cells: make([]Cell, len(b.doc.Columns))}
	for i, col := range b.doc.Columns {
		specs := b.byID[st.ID][col]
		cell := Cell{Specs: len(specs)}
		for _, s := range specs {
			cell.Verdict = heaviest(cell.Verdict, s.Verdict)
		}
		for _, s := range specs {
			if s.Verdict == cell.Verdict && s.Reason != "" && !slices.Contains(cell.Reasons, FirstLine(s.Reason)) {
				cell.Reasons = append(cell.Reasons, FirstLine(s.Reason))
			}
		}
		r.Cells[i] = cell
		r.Verdict = heaviest(r.Verdict, cell.Verdict)
		r.Specs = append(r.Specs, specs...)
	}
	r.Parts, r.Unmeasured = parts(r.Specs)
	switch {
	case len(r.Specs) > 0:
	case st.NotCheckable != "":
		// Said before "not in this run": a suite left out would not have checked it either.
		r.Verdict, r.Reason = NotCheckable, st.NotCheckable
	case st.NothingToAssert != "":
		r.Verdict, r.Reason = NothingToAssert, st.NothingToAssert
	case len(b.doc.LeftOut) > 0:
		r.Verdict, r.Reason = NotInRun, notInRunReason(b.doc.LeftOut)
	}
	return r
}

// parts counts a statement's specs once each (by suite and text, whatever the
// column) and lists those that measured nothing in any column, with the heaviest of
// their verdicts and its reason, in the order they were run.
func parts(specs []SpecRef) (int, []PartRef) {
	type key struct{ suite, text string }
	var order []key
	byKey := map[key]PartRef{}
	measured := map[key]bool{}
	for _, s := range specs {
		k := key{s.Suite, s.Text}
		old, seen := byKey[k]
		if !seen {
			order = append(order, k)
		}
		if s.Verdict >= Conforms {
			measured[k] = true
		}
		if !seen || s.Verdict > old.Verdict {
			byKey[k] = PartRef{Text: s.Text, Verdict: s.Verdict, Reason: FirstLine(s.Reason)}
		}
	}
	var out []PartRef
	for _, k := range order {
		if !measured[k] {
			out = append(out, byKey[k])
		}
	}
	return len(order), out
}

// citations are a statement's sources with the catalogue's page addresses and titles.
func citations(cat statements.Catalogue, sources []statements.Source) []Citation {
	var out []Citation
	for _, s := range sources {
		p, _ := cat.Page(s.Seed)
		out = append(out, Citation{URL: cat.URL(s), Page: p.Title, Language: p.Language, Seed: s.Seed, Section: s.Section, Quote: s.Quote})
	}
	return out
}

func disagreements(cat statements.Catalogue) []DisagreementView {
	var out []DisagreementView
	for _, d := range cat.Disagreements {
		v := DisagreementView{Topic: d.Topic, Statements: d.Statements, Note: d.Note}
		for _, c := range d.Claims {
			v.Claims = append(v.Claims, ClaimView{Key: c.Key, Text: c.Text, Citations: citations(cat, c.Sources)})
		}
		out = append(out, v)
	}
	return out
}

// addAnswer puts a spec's answer under its disagreement; an answer on a topic the
// catalogue lacks (suite.Answer refuses those) gets a view of its own, claims as
// answered, so that it is not lost.
func (b *builder) addAnswer(a drift.Answer, spec SpecRef) {
	i := slices.IndexFunc(b.doc.Disagreements, func(d DisagreementView) bool { return d.Topic == a.Topic })
	if i < 0 {
		v := DisagreementView{Topic: a.Topic, Note: "(not in the catalogue)"}
		for key, text := range a.Claims {
			v.Claims = append(v.Claims, ClaimView{Key: key, Text: text})
		}
		slices.SortFunc(v.Claims, func(x, y ClaimView) int { return strings.Compare(x.Key, y.Key) })
		b.doc.Disagreements = append(b.doc.Disagreements, v)
		i = len(b.doc.Disagreements) - 1
	}
	d := &b.doc.Disagreements[i]
	// A spec answers before it asserts anything beyond its premises, so an answer it
	// recorded stands even when the spec then failed on the catalogue's statement (the
	// RS-14 cap spec measures the release's 300 s cap, then fails on the pages' 60 s).
	d.Answers = append(d.Answers, AnswerRef{Answer: a, Spec: spec})
	for ci := range d.Claims {
		if slices.Contains(a.Confirmed, d.Claims[ci].Key) {
			d.Claims[ci].Confirmed = true
		}
	}
}

func knownDrift(cat statements.Catalogue) []KnownDriftRef {
	var out []KnownDriftRef
	for _, d := range cat.KnownDrift {
		out = append(out, KnownDriftRef{Topic: d.Topic, Statements: d.Statements, Text: d.Text, Citations: citations(cat, d.Sources)})
	}
	return out
}

// firstLine is the first line of a message, for a table cell; the full message is
// shown with the spec.
func FirstLine(s string) string {
	s = strings.TrimSpace(s)
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// TellingLine is a failure message's first line that says what failed: Gomega's own
// "Timed out after 10.001s." or "Failed after 0.000s." lines, which open the
// message of an Eventually or a Consistently, say only when.
func TellingLine(msg string) string {
	lines := strings.Split(strings.TrimSpace(msg), "\n")
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "Timed out after") || strings.HasPrefix(l, "Failed after") || strings.HasPrefix(l, "The function passed to") {
			continue
		}
		return l
	}
	return strings.TrimSpace(lines[0])
}
