package suite

import (
	. "github.com/onsi/ginkgo/v2"

	"github.com/podlifecycle/conformance/framework/drift"
	"github.com/podlifecycle/conformance/framework/statements"
)

// Drift records the observation's finding in the spec's report when the measured
// value contradicts the documented one, and nothing when they agree. A spec that
// asserts what the cluster does where the docs say otherwise states the docs' value
// here, so that the report shows the statement as drift, not as plain conformance.
// It reports whether there was drift.
func Drift[T any](o drift.Observation[T]) bool {
	GinkgoHelper()
	f, ok := drift.Observe(o)
	if ok {
		AddReportEntry(drift.EntryPrefix+f.Topic, f)
	}
	return ok
}

// Answer records in the spec's report which of the pages' claims on the question's
// topic the measurement confirms (framework/statements: the catalogue's
// disagreements); the report's "where the pages disagree" shows it next to the
// claims. The topic and the claims' keys must be the catalogue's: a spec that names
// others fails, since its answer could not be shown.
func Answer[T any](q drift.Question[T]) drift.Answer {
	GinkgoHelper()
	cat, err := statements.Load()
	if err == nil {
		err = cat.CheckAnswerKeys(q.Topic, keysOf(q.Claims))
	}
	if err != nil {
		Fail(err.Error())
	}
	a := drift.Decide(q)
	AddReportEntry(drift.AnswerPrefix+a.Topic, a)
	return a
}

func keysOf[T any](m map[string]T) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
