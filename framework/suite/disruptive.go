package suite

import (
	"slices"

	. "github.com/onsi/ginkgo/v2"

	"github.com/podlifecycle/conformance/framework/entries"
)

// Disruptive is the label of a spec that can disturb what is not its own. The rule, one
// for every suite: a spec is Disruptive when it taints or cordons a node, preempts
// pods, restarts or stops a kubelet, touches the container runtime directly (crictl),
// runs a shell on a node, or creates cluster-scoped objects (a PriorityClass). On a
// cluster the suite made (kind) Disruptive specs run as any other; on a cluster it did
// not make (KUBECONFIG) they run only with ALLOW_DISRUPTIVE=1, since there they would
// evict other people's pods or restart a kubelet they depend on. make e2e leaves them
// out by label filter; refuseDisruptive skips them for a Ginkgo run made by hand.
// Env.NodeShell refuses a spec without the label, so the shell part of the rule
// cannot be forgotten.
const Disruptive = entries.DisruptiveLabel

// disruptiveRefusal says why Disruptive specs may not run on a cluster of provider
// ("kind": the suite's own), or "" when they may: the reason the report gives a
// Disruptive spec left out by make e2e's label filter, so both ways read the same.
func disruptiveRefusal(provider string) string {
	if run, _ := Run(); provider == "kind" || run.Config.AllowDisruptive {
		return ""
	}
	return entries.NotRunDisruptive
}

// refuseDisruptive skips every Disruptive spec of the suite when the cluster is not the
// suite's own and ALLOW_DISRUPTIVE is not 1.
func refuseDisruptive(env *Env) {
	BeforeEach(func() {
		if !slices.Contains(CurrentSpecReport().Labels(), Disruptive) {
			return
		}
		if why := disruptiveRefusal(env.Cluster.Provider); why != "" {
			Skip(why)
		}
	})
}
