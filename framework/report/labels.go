package report

import (
	"slices"
	"strings"
)

// StatementIDs picks the statement IDs (like PL-1) out of a spec's labels: two to four
// upper-case letters, a dash, a number. framework/suite keys its specs by it too.
func StatementIDs(labels []string) []string {
	var out []string
	for _, l := range labels {
		if i := strings.IndexByte(l, '-'); i > 0 && i <= 4 && strings.ToUpper(l[:i]) == l[:i] && l[i+1:] != "" && strings.Trim(l[i+1:], "0123456789") == "" {
			out = append(out, l)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
