package compare

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/podlifecycle/conformance/framework/entries"
	"github.com/podlifecycle/conformance/framework/report"
)

// facts lists the cluster facts whose values differ between the runs, per kind
// config: server version, each component's gates, per node (by its name within the
// cluster: "worker3") kubelet version and sha256, settings, declared features,
// taints and profile. Where several suites recorded one cluster, the first record
// stands (they read the same cluster).
//
// A configuration whose facts only one run recorded (a run of fewer suites made
// fewer clusters) is one fact, "recorded in one run only", not each of its values.
func facts(base, head report.Document) []Fact {
	b, h := flatFacts(base), flatFacts(head)
	var out []Fact
	for _, config := range sortedKeys(b, h) {
		_, inBase := b[config]
		_, inHead := h[config]
		if !inBase || !inHead {
			out = append(out, Fact{Config: config, Key: "cluster facts", Base: recorded(inBase), Head: recorded(inHead)})
			continue
		}
		for _, key := range sortedKeys(b[config], h[config]) {
			if bv, hv := b[config][key], h[config][key]; bv != hv {
				out = append(out, Fact{Config: config, Key: key, Base: bv, Head: hv})
			}
		}
	}
	return out
}

func recorded(in bool) string {
	if in {
		return "recorded"
	}
	return ""
}

// flatFacts is config → fact → value.
func flatFacts(d report.Document) map[string]map[string]string {
	out := map[string]map[string]string{}
	for _, view := range d.Facts {
		for _, c := range view.Clusters {
			config := c.Config
			if view.Column.Version != "" && !strings.HasSuffix(config, "@"+view.Column.Version) {
				config += " @" + view.Column.Version
			}
			if _, done := out[config]; done {
				continue
			}
			out[config] = flatten(c)
		}
	}
	return out
}

func flatten(c entries.ClusterFacts) map[string]string {
	f := map[string]string{"server version": c.ServerVersion}
	for _, comp := range c.Components {
		who := comp.Name
		if comp.Node != "" {
			who += " on " + normalise(comp.Node)
		}
		for gate, on := range comp.Gates {
			f[who+": gate "+gate] = fmt.Sprint(on)
		}
	}
	for _, n := range c.Nodes {
		node := "node " + normalise(n.Name)
		f[node+": kubelet version"] = n.KubeletVersion
		f[node+": kubelet sha256"] = n.KubeletSHA256
		f[node+": profile"] = n.Profile
		for k, v := range n.KubeletSettings {
			f[node+": "+k] = v
		}
		f[node+": declared features"] = strings.Join(slices.Sorted(slices.Values(n.DeclaredFeatures)), ", ")
		f[node+": taints"] = strings.Join(slices.Sorted(slices.Values(n.Taints)), ", ")
	}
	return f
}

func sortedKeys[V any](ms ...map[string]V) []string {
	set := map[string]bool{}
	for _, m := range ms {
		for k := range maps.Keys(m) {
			set[k] = true
		}
	}
	return slices.Sorted(maps.Keys(set))
}
