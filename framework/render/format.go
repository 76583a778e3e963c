package render

import (
	"fmt"
	"strings"
	"time"
)

// Formatting shared by the Markdown, the HTML and the summary.

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
