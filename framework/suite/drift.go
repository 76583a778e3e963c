package suite

import (
	. "github.com/onsi/ginkgo/v2"

	"github.com/podlifecycle/conformance/framework/drift"
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
