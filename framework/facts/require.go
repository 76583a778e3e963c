package facts

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"
)

// Requirement is one thing a spec needs from the cluster.
type Requirement interface {
	// Check says whether f meets it; if not, why, and whether the cluster's own
	// configuration asked for it (then its absence is a misconfiguration).
	Check(f *Facts, asked Requested) (ok bool, why string, misconfigured bool)
}

// Verdict is the outcome of Evaluate.
type Verdict struct {
	Skip, Fail string
}

// Evaluate checks every requirement; the first unmet one decides the verdict.
func Evaluate(f *Facts, asked Requested, reqs ...Requirement) Verdict {
	for _, r := range reqs {
		ok, why, misconfigured := r.Check(f, asked)
		switch {
		case ok:
		case misconfigured:
			return Verdict{Fail: "misconfigured cluster: " + why}
		default:
			return Verdict{Skip: why}
		}
	}
	return Verdict{}
}

// APIServerGate needs gate name enabled (on=true) or disabled in the API server.
func APIServerGate(name string, on bool) Requirement { return apiServerGate{name, on} }

type apiServerGate struct {
	name string
	on   bool
}

func (g apiServerGate) Check(f *Facts, asked Requested) (bool, string, bool) {
	have, known := f.APIServerGates[g.name]
	if known && have == g.on {
		return true, "", false
	}
	why := fmt.Sprintf("needs feature gate %s=%t in kube-apiserver; its kubernetes_feature_enabled metric says %s", g.name, g.on, describe(have, known))
	want, askedFor := asked.APIServerGate(g.name)
	return false, why, askedFor && want == g.on
}

// KubeletGate needs gate name enabled (on=true) or disabled in the kubelet of at least
// one candidate node of the given profile (Facts.Candidates).
func KubeletGate(name string, on bool, profile string) Requirement {
	return kubeletGate{name, on, profile}
}

type kubeletGate struct {
	name    string
	on      bool
	profile string
}

func (g kubeletGate) Check(f *Facts, asked Requested) (bool, string, bool) {
	nodes, where := f.Candidates(g.profile)
	var seen []string
	for _, n := range nodes {
		have, known := n.KubeletGates[g.name]
		if known && have == g.on {
			return true, "", false
		}
		seen = append(seen, fmt.Sprintf("%s: %s", n.Name, describe(have, known)))
	}
	sort.Strings(seen)
	why := fmt.Sprintf("needs feature gate %s=%t in the kubelet of %s; kubernetes_feature_enabled says [%s]", g.name, g.on, where, strings.Join(seen, "; "))
	want, askedFor := asked.KubeletGate(g.name, g.profile)
	// A gate the run asked of every component but left out of the kubelets of every
	// candidate (their release does not know it) was not asked of them: a skip.
	if len(nodes) > 0 && !slices.ContainsFunc(nodes, func(n Node) bool { return !asked.LeftOut(g.name, n.Labels[ProfileLabel]) }) {
		askedFor = false
		why += fmt.Sprintf("; %s was left out of these kubelets, whose release does not know it", g.name)
	}
	return false, why, askedFor && want == g.on
}

// OneClock needs the nodes and the runner to read one clock, for specs that compare
// a time a container wrote (a marker) with one the runner saw (a watch event, a
// request it made): true of kind clusters on this machine, whose nodes are containers
// on the runner's kernel; on another cluster the node clocks may be off by more than
// the spans those specs resolve.
func OneClock() Requirement {
	return capability{func(f *Facts) bool { return f.LocalNodes },
		"compares times the containers wrote with times this runner saw; only on a kind cluster on this machine do both come from one clock"}
}

// NodeShell needs a shell in the nodes, for what only a node can do (restart its
// kubelet, stop a pod sandbox): true of kind clusters on this machine.
func NodeShell() Requirement {
	return capability{func(f *Facts) bool { return f.LocalNodes },
		"needs a shell on the node, which only a kind cluster on this machine gives (docker exec)"}
}

// capability is a requirement on what the cluster as a whole allows; lacking it is
// never a misconfiguration, only a cluster of another kind.
type capability struct {
	has     func(*Facts) bool
	without string
}

func (c capability) Check(f *Facts, _ Requested) (bool, string, bool) {
	if c.has(f) {
		return true, "", false
	}
	return false, c.without, false
}

// SchedulableNodes needs at least n nodes that take ordinary pods.
func SchedulableNodes(n int) Requirement { return schedulableNodes(n) }

type schedulableNodes int

func (s schedulableNodes) Check(f *Facts, _ Requested) (bool, string, bool) {
	count := 0
	for _, n := range f.Nodes {
		if n.Schedulable(f.Nodes) {
			count++
		}
	}
	if count >= int(s) {
		return true, "", false
	}
	return false, fmt.Sprintf("needs %d schedulable nodes; the cluster has %d", int(s), count), false
}

func describe(have, known bool) string {
	switch {
	case !known:
		return "no such gate"
	case have:
		return "enabled"
	default:
		return "disabled"
	}
}

// KubeletMaxRestartPeriod needs the worker of profile to run with
// crashLoopBackOff.maxContainerRestartPeriod = want, as its /configz reports. A node
// of that profile exists only because a kind config asked for it, so a different
// value there is a misconfiguration.
func KubeletMaxRestartPeriod(profile, want string) Requirement {
	return maxRestartPeriod{profile, want}
}

type maxRestartPeriod struct{ profile, want string }

func (m maxRestartPeriod) Check(f *Facts, _ Requested) (bool, string, bool) {
	want, err := time.ParseDuration(m.want)
	if err != nil {
		return false, fmt.Sprintf("bad duration %q in the spec: %v", m.want, err), true
	}
	nodes, where := f.Candidates(m.profile)
	labelled := len(f.NodesWithLabel(ProfileLabel, m.profile)) > 0
	var seen []string
	for _, n := range nodes {
		got := n.KubeletConfig.CrashLoopBackOff.MaxContainerRestartPeriod
		// /configz renders durations as Go does ("1m40s" for 100s).
		if d, err := time.ParseDuration(got); err == nil && d == want {
			return true, "", false
		}
		seen = append(seen, fmt.Sprintf("%s: %q", n.Name, got))
	}
	// A node of the profile exists only because a kind config asked for it, so a
	// different value there is a misconfiguration.
	return false, fmt.Sprintf("needs crashLoopBackOff.maxContainerRestartPeriod %s in the kubelet of %s; /configz says [%s]", m.want, where, strings.Join(seen, "; ")), labelled
}

// MaxRestartPeriod is the node's crashLoopBackOff.maxContainerRestartPeriod as its
// /configz reports it (0 when absent or unreadable).
func (n Node) MaxRestartPeriod() time.Duration {
	d, _ := time.ParseDuration(n.KubeletConfig.CrashLoopBackOff.MaxContainerRestartPeriod)
	return d
}
