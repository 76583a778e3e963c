package report

import (
	"strconv"
	"strings"
)

// compareVersions orders Kubernetes versions ("v1.36.3" before "v1.37.2") by their
// numbers, so that columns read oldest to newest; the default run ("") comes first
// and names that are not versions after the versions, by name.
func compareVersions(a, b string) int {
	na, okA := versionNumbers(a)
	nb, okB := versionNumbers(b)
	switch {
	case a == b:
		return 0
	case a == "":
		return -1
	case b == "":
		return 1
	case okA && !okB:
		return -1
	case !okA && okB:
		return 1
	case okA && okB:
		for i := range min(len(na), len(nb)) {
			if na[i] != nb[i] {
				return na[i] - nb[i]
			}
		}
		if len(na) != len(nb) {
			return len(na) - len(nb)
		}
	}
	return strings.Compare(a, b)
}

// versionNumbers is v1.37.2's [1 37 2]; a pre-release or build suffix is ignored.
func versionNumbers(v string) ([]int, bool) {
	rest, ok := strings.CutPrefix(v, "v")
	if !ok {
		return nil, false
	}
	if i := strings.IndexAny(rest, "-+"); i >= 0 {
		rest = rest[:i]
	}
	var out []int
	for _, part := range strings.Split(rest, ".") {
		n, err := strconv.Atoi(part)
		if err != nil {
			return nil, false
		}
		out = append(out, n)
	}
	return out, true
}
