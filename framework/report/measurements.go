package report

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/onsi/gomega/gmeasure"
)

// allowedRange reads the annotation framework/suite's Record puts on a measured span:
// "allowed 900–4500 ms" (an en dash; a hyphen is accepted too).
var allowedRange = regexp.MustCompile(`allowed\s+(-?[0-9.]+)\s*[–-]\s*(-?[0-9.]+)\s*ms`)

// measurementRows flattens an experiment: durations in milliseconds, values in their
// own units, each with the range the spec allowed when its annotation says so.
func measurementRows(exp *gmeasure.Experiment) []MeasurementRow {
	var out []MeasurementRow
	for _, m := range exp.Measurements {
		row := MeasurementRow{Name: m.Name}
		switch m.Type {
		case gmeasure.MeasurementTypeDuration:
			row.Unit = "ms"
			for _, d := range m.Durations {
				row.Measured = append(row.Measured, float64(d)/float64(time.Millisecond))
			}
		case gmeasure.MeasurementTypeValue:
			row.Unit = m.Units
			row.Measured = m.Values
		default:
			continue // notes carry no value
		}
		var annotations []string
		for _, a := range m.Annotations {
			if a = strings.TrimSpace(a); a != "" && !slices.Contains(annotations, a) {
				annotations = append(annotations, a)
			}
		}
		row.Allowed = strings.Join(annotations, "; ")
		if len(annotations) == 1 {
			if r := allowedRange.FindStringSubmatch(annotations[0]); r != nil {
				lo, errLo := strconv.ParseFloat(r[1], 64)
				hi, errHi := strconv.ParseFloat(r[2], 64)
				row.Min, row.Max, row.HasRange = lo, hi, errLo == nil && errHi == nil
			}
		}
		out = append(out, row)
	}
	return out
}
