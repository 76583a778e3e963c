package cluster

import "slices"

// SuiteGroup is a run of consecutive suites on the same kind clusters.
type SuiteGroup struct {
	Suites, Configs []string
	// Done: the configs of Configs no later group uses, whose clusters can go once
	// this group has passed.
	Done []string
}

// Groups groups suites, in their order, by the kind configs they use (configsOf), so
// that a run in one stream, or the kill matrix, can delete a cluster as soon as the
// suites on it are done, before the next cluster is made.
func Groups(suites []string, configsOf map[string][]string) []SuiteGroup {
	var groups []SuiteGroup
	for _, s := range suites {
		c := configsOf[s]
		if n := len(groups); n > 0 && slices.Equal(groups[n-1].Configs, c) {
			groups[n-1].Suites = append(groups[n-1].Suites, s)
			continue
		}
		groups = append(groups, SuiteGroup{Suites: []string{s}, Configs: c})
	}
	later := map[string]bool{}
	for i := len(groups) - 1; i >= 0; i-- {
		for _, c := range groups[i].Configs {
			if !later[c] {
				groups[i].Done = append(groups[i].Done, c)
			}
			later[c] = true
		}
	}
	return groups
}

// Holds reports whether g holds at least one of suites.
func (g SuiteGroup) Holds(suites []string) bool {
	return slices.ContainsFunc(g.Suites, func(s string) bool { return slices.Contains(suites, s) })
}
