package report

import (
	"slices"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/podlifecycle/conformance/framework/drift"
	"github.com/podlifecycle/conformance/framework/statements"
)

// Verdict is what the run says about a statement. Verdicts are ordered by weight: across
// several specs (or configurations) the heaviest one stands, so one failure is never
// hidden by passes, and a drift never by conformance. NotInRun sits between NotRun
// and NoSpec: like NotRun it says what the run left out (whole suites rather than
// specs it held), where NoSpec says the project has no spec for the statement.
// NotCheckable is a statement with no spec that the catalogue says cannot be checked
// on the project's clusters, with the reason; NothingToAssert one that the catalogue
// says permits every outcome (the pages promise no order, say), so that a spec could
// only ever pass. Both are only ever a row's verdict.
type Verdict int

const (
	NoSpec          Verdict = iota // no spec carries the statement's ID, and the run left out no suite
	NothingToAssert                // no spec, and the catalogue says why the statement permits every outcome
	NotCheckable                   // no spec, and the catalogue says why none can check it here
	NotInRun                       // no spec in this run, which left out some of the project's suites
	NotRun                         // every spec was filtered out (Slow, label filter, focus)
	Skipped                        // the specs skipped themselves, with a reason
	Conforms                       // a spec passed; none failed or found drift
	Drift                          // no spec failed; a passed one found the docs contradicted
	Fails                          // a spec failed
)

// Verdicts lists every verdict, heaviest first, as the report counts them.
func Verdicts() []Verdict {
	return []Verdict{Fails, Drift, Conforms, Skipped, NotRun, NotInRun, NotCheckable, NothingToAssert, NoSpec}
}

func (v Verdict) String() string {
	switch v {
	case NotRun:
		return "not run"
	case NotInRun:
		return "not in this run"
	case NotCheckable:
		return "not checkable here"
	case NothingToAssert:
		return "nothing to assert"
	case Skipped:
		return "skipped"
	case Conforms:
		return "conforms"
	case Drift:
		return "drift"
	case Fails:
		return "fails"
	default:
		return "no spec"
	}
}

// Class is the verdict as a CSS class name.
func (v Verdict) Class() string {
	switch v {
	case NotRun:
		return "notrun"
	case NotInRun:
		return "notinrun"
	case NotCheckable:
		return "notcheckable"
	case NothingToAssert:
		return "nothingtoassert"
	case NoSpec:
		return "nospec"
	default:
		return v.String()
	}
}

// specVerdict is what spec s says about statement id, given the drift findings it
// recorded. A finding names its statement; one without a statement is about every
// statement of the spec.
func specVerdict(s types.SpecReport, id string, findings []drift.Finding) Verdict {
	switch {
	case s.State.Is(types.SpecStateFailureStates):
		if on := failedOn(s); id != "" && len(on) > 0 && !slices.Contains(on, id) {
			return NotRun
		}
		return Fails
	case s.State == types.SpecStatePassed:
		if slices.ContainsFunc(findings, func(f drift.Finding) bool { return f.Statement == "" || f.Statement == id }) {
			return Drift
		}
		return Conforms
	case s.State == types.SpecStateSkipped && s.Failure.Message != "":
		// Skip(reason) inside the spec: it ran and found the cluster cannot check it.
		return Skipped
	default:
		// Skipped with no message, pending: Ginkgo never ran the spec's body.
		return NotRun
	}
}

// failedOn names the statements a failed spec failed on: those of its labels that its
// failure message names (the specs' assertions say which statement they check: "RS-6
// delay 4 too long", "PC-2/PC-4: …"). For its other statements the spec decided
// nothing: their checks came after the failure, or passed before it. So a spec of RS-6
// and RS-8 that fails RS-6's delay does not fail RS-8, which a kubelet that changed
// only the delays never broke; RS-8 is not measured by it. A message that names none
// of its labels (a pod that never started, say) fails every statement of the spec.
func failedOn(s types.SpecReport) []string {
	labels := statements.IDs(s.Labels())
	var on []string
	for _, id := range statements.Mentioned(s.Failure.Message) {
		if slices.Contains(labels, id) {
			on = append(on, id)
		}
	}
	return on
}

// heaviest is the verdict that stands among vs.
func heaviest(vs ...Verdict) Verdict {
	out := NoSpec
	for _, v := range vs {
		out = max(out, v)
	}
	return out
}
