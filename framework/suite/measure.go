package suite

import (
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega/gmeasure"
)

// Timings is a gmeasure experiment attached to the current spec's report, and so to
// the statement report (structured, under data), for the spans a spec measures.
func Timings(name string) *gmeasure.Experiment {
	exp := gmeasure.NewExperiment(name)
	AddReportEntry(exp.Name, exp)
	return exp
}

// Record keeps a measured span in exp, in milliseconds, annotated with the range the
// spec allows for it, so the report shows expected against measured.
func Record(exp *gmeasure.Experiment, name string, measured, min, max time.Duration) {
	record(exp, name, measured, fmt.Sprintf("allowed %d–%d ms", min.Milliseconds(), max.Milliseconds()))
}

// RecordAtLeast keeps a measured span in exp whose only bound is a minimum (a span
// from a moment known to come before the one the statement times from).
func RecordAtLeast(exp *gmeasure.Experiment, name string, measured, min time.Duration) {
	record(exp, name, measured, fmt.Sprintf("allowed at least %d ms", min.Milliseconds()))
}

// RecordAtMost keeps a measured span in exp whose only bound is a maximum (a span
// from a moment known to come after the one the statement times from).
func RecordAtMost(exp *gmeasure.Experiment, name string, measured, max time.Duration) {
	record(exp, name, measured, fmt.Sprintf("allowed at most %d ms", max.Milliseconds()))
}

// record keeps measured in milliseconds with the allowed range as its annotation,
// which the statement report reads (framework/report's allowedRange).
func record(exp *gmeasure.Experiment, name string, measured time.Duration, allowed string) {
	exp.RecordDuration(name, measured, gmeasure.Precision(time.Millisecond), gmeasure.Annotation(allowed))
}
