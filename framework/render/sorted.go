package render

import (
	"maps"
	"slices"
	"strings"
)

// joinSorted formats a map's entries in key order, space-separated, so that the
// report reads the same every time.
func joinSorted[V any](m map[string]V, format func(string, V) string) string {
	parts := make([]string, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, format(k, m[k]))
	}
	return strings.Join(parts, " ")
}
