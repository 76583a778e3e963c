// Package compare tells what changed between two runs of the suite (a stock kubelet
// and a patched one, a feature gate off and on, one release and the next): per
// statement the verdict in each run and the transition, per measured timing both
// values and whether the change is larger than the tolerance model lets two runs of
// the same kubelet differ, and the cluster facts that differ. It reads two
// report.Documents and renders nothing itself but plain values; markdown.go and
// html.go format them.
package compare

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/podlifecycle/conformance/framework/report"
)

// Transition is how a statement's verdict moved from the base run to the head run.
type Transition string

const (
	// Worse: measured in both, and the head's verdict is heavier (conforms → drift,
	// conforms → fails, drift → fails), or it drifts in both and the head has a
	// finding the base did not.
	Worse Transition = "worse"
	// Better: measured in both, and the head's verdict is lighter.
	Better Transition = "better"
	// Same: measured in both with the same verdict (and, for drift, no new finding).
	Same Transition = "same"
	// Lost: measured in the base only (the head skipped it, or did not run it).
	Lost Transition = "no longer measured"
	// Gained: measured in the head only.
	Gained Transition = "newly measured"
	// Unmeasured: measured in neither run.
	Unmeasured Transition = "measured in neither"
)

// Statement is one statement of the catalogue as the two runs saw it.
type Statement struct {
	ID, Text   string
	Base, Head report.Verdict
	// BaseParts, HeadParts: "3 of 3 parts", or "2 of 3 parts" when some specs of the
	// statement measured nothing in that run.
	BaseParts, HeadParts string
	Transition           Transition
	// Why: for Worse, the head's evidence: the first line of its first failure of a
	// spec of the statement, or the drift topics the base did not have.
	Why string
}

// Timing is one measured value (a crash-loop delay, a row of a spec's measurements)
// found in both runs, with whether the change exceeds the tolerance.
type Timing struct {
	Statement string // the IDs of the spec that measured it
	Spec      string // the spec's text
	Name      string // "restart delays on worker3 (…): delay 2", or the measurement's name
	Unit      string
	Base      float64
	Head      float64
	// Tolerance is how far apart two measurements of one behaviour may lie under the
	// spec's tolerance model: the width of the range the spec allows around the
	// documented value (for a crash-loop delay [b − 100 ms, max(b, 1 s) + 3.5 s]:
	// 3.6 s). Both runs' values inside that range are both "the documented value",
	// so a difference within its width is the kubelet's and the machine's noise (the
	// pod worker's jitter, container start times), not a change of behaviour.
	Tolerance float64
	// Exceeds: |Head − Base| > Tolerance, or, for a crash-loop delay, the documented
	// value itself changed (BaseExpected ≠ HeadExpected: other kubelet settings).
	Exceeds                    bool
	BaseExpected, HeadExpected float64
	// Allowed: the head run's allowed range, as the spec stated it.
	Allowed string
}

// Fact is one cluster fact whose value differs between the runs.
type Fact struct {
	Config string // the kind config (or "existing cluster") the fact belongs to
	Key    string // "node worker3: kubelet sha256", "kube-apiserver: gate X"
	Base   string // "" when the base run had no such fact
	Head   string
}

// Comparison is everything compare reports.
type Comparison struct {
	BaseName, HeadName string
	Statements         []Statement
	Timings            []Timing
	Facts              []Fact
	// OnlyBase, OnlyHead: timings measured in one run only (a spec left out, a
	// crash loop that stopped early), by name.
	OnlyBase, OnlyHead []string
}

// Of compares two runs' documents. Statements are taken in the base's catalogue
// order, then those only the head lists.
func Of(baseName string, base report.Document, headName string, head report.Document) Comparison {
	c := Comparison{BaseName: baseName, HeadName: headName}
	headRows := map[string]report.Row{}
	for _, r := range head.Rows {
		headRows[r.Statement.ID] = r
	}
	seen := map[string]bool{}
	for _, b := range base.Rows {
		h, ok := headRows[b.Statement.ID]
		if !ok {
			h = report.Row{Statement: b.Statement, Verdict: report.NotInRun}
		}
		seen[b.Statement.ID] = true
		c.Statements = append(c.Statements, statement(b, h, base, head))
	}
	for _, h := range head.Rows {
		if !seen[h.Statement.ID] {
			c.Statements = append(c.Statements, statement(report.Row{Statement: h.Statement, Verdict: report.NotInRun}, h, base, head))
		}
	}
	c.Timings, c.OnlyBase, c.OnlyHead = timings(base, head)
	c.Facts = facts(base, head)
	return c
}

// Worse is the statements that got worse: what a CI gate on a kubelet change fails on.
func (c Comparison) Worse() []Statement { return c.with(Worse) }

// Better is the statements that got better.
func (c Comparison) Better() []Statement { return c.with(Better) }

func (c Comparison) with(t Transition) []Statement {
	var out []Statement
	for _, s := range c.Statements {
		if s.Transition == t {
			out = append(out, s)
		}
	}
	return out
}

// Changed is every statement whose transition is not Same or Unmeasured.
func (c Comparison) Changed() []Statement {
	var out []Statement
	for _, s := range c.Statements {
		if s.Transition != Same && s.Transition != Unmeasured {
			out = append(out, s)
		}
	}
	return out
}

// ExceedingTimings is the timings whose change exceeds the tolerance.
func (c Comparison) ExceedingTimings() []Timing {
	var out []Timing
	for _, t := range c.Timings {
		if t.Exceeds {
			out = append(out, t)
		}
	}
	return out
}

// measured: the verdicts that come from a spec that ran to its end.
func measured(v report.Verdict) bool {
	return v == report.Conforms || v == report.Drift || v == report.Fails
}

func statement(b, h report.Row, base, head report.Document) Statement {
	s := Statement{ID: b.Statement.ID, Text: b.Statement.Text, Base: b.Verdict, Head: h.Verdict,
		BaseParts: partsOf(b), HeadParts: partsOf(h)}
	switch mb, mh := measured(b.Verdict), measured(h.Verdict); {
	case mb && mh && h.Verdict > b.Verdict:
		s.Transition = Worse
		s.Why = evidence(head, s.ID)
	case mb && mh && h.Verdict < b.Verdict:
		s.Transition = Better
	case mb && mh:
		s.Transition = Same
		if h.Verdict == report.Drift {
			if topics := newTopics(base, head, s.ID); len(topics) > 0 {
				s.Transition = Worse
				s.Why = "new drift: " + strings.Join(topics, "; ")
			}
		}
	case mb:
		s.Transition = Lost
	case mh:
		s.Transition = Gained
	default:
		s.Transition = Unmeasured
	}
	return s
}

func partsOf(r report.Row) string {
	if r.Parts == 0 {
		return ""
	}
	return fmt.Sprintf("%d of %d parts", r.Parts-len(r.Unmeasured), r.Parts)
}

// evidence is the first line of the head's first failure of a spec of statement id,
// or its drift topics.
func evidence(d report.Document, id string) string {
	specs := map[string]bool{}
	for _, r := range d.Rows {
		if r.Statement.ID == id {
			for _, s := range r.Specs {
				specs[s.Suite+"\x00"+s.Text] = true
			}
		}
	}
	for _, f := range d.Failures {
		if specs[f.Spec.Suite+"\x00"+f.Spec.Text] {
			return report.TellingLine(f.Message) + " (" + f.Location + ")"
		}
	}
	if topics := topicsOf(d, id); len(topics) > 0 {
		return "drift: " + strings.Join(topics, "; ")
	}
	return ""
}

func topicsOf(d report.Document, id string) []string {
	var out []string
	for _, f := range d.Findings {
		if f.Statement == id && !slices.Contains(out, f.Topic) {
			out = append(out, f.Topic)
		}
	}
	slices.Sort(out)
	return out
}

func newTopics(base, head report.Document, id string) []string {
	had := topicsOf(base, id)
	var out []string
	for _, t := range topicsOf(head, id) {
		if !slices.Contains(had, t) {
			out = append(out, t)
		}
	}
	return out
}

// clusterName matches the suite's cluster names (plc-<config>-<hash>, plus the
// overrides a run gave it) inside node names and measurement names, so that the
// same node of two clusters made from one config (one with FEATURE_GATES, say) is
// one key: "plc-default-8ba62178-worker3" is "worker3".
var clusterName = regexp.MustCompile(`plc-[a-z0-9-]*?[0-9a-f]{8}-`)

func normalise(s string) string { return clusterName.ReplaceAllString(s, "") }
