package compare

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/podlifecycle/conformance/framework/report"
)

// measurement is one measured value of a run, keyed so that the same value of the
// other run finds it: the spec, the table or experiment, the row.
type measurement struct {
	key, statement, spec, name, unit string
	value, expected                  float64
	// documented: expected is the documented value (a crash-loop delay's b). A
	// measurement row's range may rest on the run's own values (a grace counted from
	// the moment the kubelet came back, say), so its midpoint is no documented value
	// and a change of it says nothing by itself.
	documented bool
	min, max   float64
	allowed    string
}

// timings pairs the measurements of the two runs. A crash loop's delay table gives
// one measurement a delay; a spec's gmeasure rows one a row (their mean, when a row
// holds several values), for the rows that state their allowed range: a row without
// one states no tolerance to judge a change by.
func timings(base, head report.Document) (paired []Timing, onlyBase, onlyHead []string) {
	b, h := measurementsOf(base), measurementsOf(head)
	byKey := map[string]measurement{}
	for _, m := range h {
		byKey[m.key] = m
	}
	inBase := map[string]bool{}
	for _, mb := range b {
		inBase[mb.key] = true
		mh, ok := byKey[mb.key]
		if !ok {
			onlyBase = append(onlyBase, mb.spec+": "+mb.name)
			continue
		}
		t := Timing{Statement: mb.statement, Spec: mb.spec, Name: mb.name, Unit: mb.unit,
			Base: mb.value, Head: mh.value, BaseExpected: mb.expected, HeadExpected: mh.expected,
			Tolerance: mb.max - mb.min, Allowed: mh.allowed}
		t.Exceeds = math.Abs(t.Head-t.Base) > t.Tolerance || (mb.documented && t.BaseExpected != t.HeadExpected)
		paired = append(paired, t)
	}
	for _, m := range h {
		if !inBase[m.key] {
			onlyHead = append(onlyHead, m.spec+": "+m.name)
		}
	}
	return paired, onlyBase, onlyHead
}

func measurementsOf(d report.Document) []measurement {
	ids := statementsOfSpecs(d)
	var out []measurement
	for _, ref := range d.Delays {
		spec := specKey(ref.Spec)
		for _, row := range ref.Table {
			name := fmt.Sprintf("restart delays on %s: delay %d", normalise(ref.What), row.Restart)
			out = append(out, measurement{
				key: spec + "\x00" + name, statement: ids[spec], spec: ref.Spec.Text, name: name, unit: "ms",
				value: float64(row.MeasuredMs), expected: float64(row.ExpectedMs), documented: true,
				min: float64(row.MinMs), max: float64(row.MaxMs),
				allowed: fmt.Sprintf("%d–%d ms", row.MinMs, row.MaxMs),
			})
		}
	}
	for _, exp := range d.Experiments {
		spec := specKey(exp.Spec)
		for _, row := range exp.Rows {
			if !row.HasRange || len(row.Measured) == 0 {
				continue
			}
			name := normalise(exp.Name) + ": " + normalise(row.Name)
			out = append(out, measurement{
				key: spec + "\x00" + name, statement: ids[spec], spec: exp.Spec.Text, name: name, unit: row.Unit,
				value: mean(row.Measured), expected: (row.Min + row.Max) / 2, min: row.Min, max: row.Max,
				allowed: row.Allowed,
			})
		}
	}
	return out
}

// specKey names a spec across runs: its suite and text (its line may move between
// two commits; its configuration column is part of what is compared).
func specKey(s report.SpecRef) string {
	return s.Suite + "\x00" + s.Column.Config + "\x00" + s.Text
}

// statementsOfSpecs maps each spec to the statement IDs whose rows list it.
func statementsOfSpecs(d report.Document) map[string]string {
	ids := map[string][]string{}
	for _, r := range d.Rows {
		for _, s := range r.Specs {
			k := specKey(s)
			if !slices.Contains(ids[k], r.Statement.ID) {
				ids[k] = append(ids[k], r.Statement.ID)
			}
		}
	}
	out := map[string]string{}
	for k, v := range ids {
		out[k] = strings.Join(v, " ")
	}
	return out
}

func mean(v []float64) float64 {
	sum := 0.0
	for _, x := range v {
		sum += x
	}
	return sum / float64(len(v))
}
