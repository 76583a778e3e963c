package report

import (
	"fmt"
	"path"
	"strings"
	"time"
)

// Label names a column for a reader: the version, and the kind config by its file
// name ("v1.37.2 · default").
func (c Column) Label() string {
	config := strings.TrimSuffix(path.Base(c.Config), ".yaml")
	if c.Version == "" {
		return config
	}
	return c.Version + " · " + config
}

// CellText is a cell as one line: its verdict, or "–" where the statement has no spec
// in that configuration (it is checked in another one).
func (c Cell) CellText() string {
	if c.Specs == 0 {
		return "–"
	}
	return c.Verdict.String()
}

// Count is a verdict and how many statements have it.
type Count struct {
	Verdict Verdict
	N       int
}

// CountList is counts heaviest first, as the report shows them.
func CountList(counts map[Verdict]int) []Count {
	out := make([]Count, 0, len(Verdicts()))
	for _, v := range Verdicts() {
		out = append(out, Count{v, counts[v]})
	}
	return out
}

// CountLine is counts on one line: "fails 1 · drift 6 · …". "not in this run" and
// "not checkable here" are left out when none is: only a run of some of the suites
// has the first, only a catalogue that marks statements the second, and a
// configuration's counts never have either (they count statements with specs there).
func CountLine(counts map[Verdict]int) string {
	var parts []string
	for _, c := range CountList(counts) {
		if (c.Verdict == NotInRun || c.Verdict == NotCheckable || c.Verdict == NothingToAssert) && c.N == 0 {
			continue
		}
		parts = append(parts, fmt.Sprintf("%s %d", c.Verdict, c.N))
	}
	return strings.Join(parts, " · ")
}

// roundDuration is a wall time as a reader wants it: to the second above a minute,
// to the millisecond below.
func roundDuration(d time.Duration) time.Duration {
	if d >= time.Minute {
		return d.Round(time.Second)
	}
	return d.Round(time.Millisecond)
}

// formatValues is a measurement's values with its unit: "6008 ms".
func formatValues(vs []float64, unit string) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = fmt.Sprintf("%.0f", v)
		if v != float64(int64(v)) && v < 100 {
			parts[i] = fmt.Sprintf("%.3g", v)
		}
	}
	return strings.TrimSpace(strings.Join(parts, ", ") + " " + unit)
}

// withinText says whether a measurement or delay lay in its allowed range.
func withinText(hasRange, within bool) string {
	switch {
	case !hasRange:
		return ""
	case within:
		return "yes"
	default:
		return "NO"
	}
}

// gatesText lists the enabled gates, sorted by name, after how many of the component's
// gates they are: a component reports every gate it knows (250 or so), and which are
// on is what a reader compares between components and nodes.
func gatesText(gates map[string]bool) string {
	if len(gates) == 0 {
		return ""
	}
	enabled := map[string]bool{}
	for k, v := range gates {
		if v {
			enabled[k] = v
		}
	}
	return fmt.Sprintf("%d enabled of %d: ", len(enabled), len(gates)) + joinSorted(enabled, func(k string, _ bool) string { return k })
}

// settingsText lists kubelet settings as "a=1 b=2", sorted by name.
func settingsText(settings map[string]string) string {
	return joinSorted(settings, func(k, v string) string { return k + "=" + v })
}
