package facts

import (
	"fmt"
	"slices"
	"strings"
)

// Requested is what a cluster's own configuration asked for: the feature gates a
// kind config turned on or off. Requirements consult it to tell a cluster of another
// kind (skip) from one that was asked for something and lacks it (misconfigured).
type Requested struct {
	// ClusterGates are set for every component of every node.
	ClusterGates map[string]bool
	// KubeletGates are kubelet gates set for nodes carrying a label, keyed by the
	// value of the node's ProfileLabel.
	KubeletGates map[string]map[string]bool
	// AllKubeletGates are kubelet gates set for every node: a cluster-level
	// KubeletConfiguration patch.
	AllKubeletGates map[string]bool
	// APIServerGates are set in the API server alone: a cluster-level
	// ClusterConfiguration patch's apiServer extraArgs.
	APIServerGates map[string]bool
	// ProfileImages are the node images of labelled nodes whose config names one
	// (a kubelet of another version: node image podlifecycle/node:<k8s>-kubelet-<v>),
	// keyed by profile. Their kubelet gates are checked by that kubelet.
	ProfileImages map[string]string
	// LeftOutKubeletGates are, per profile, gates of the run's cluster-wide overrides
	// (FEATURE_GATES, KUBELET_FEATURE_GATES) left out of that profile's kubelet because
	// its release (another kubelet than the control plane's: ProfileImages) does not
	// know them: every other component has them, that kubelet keeps its default (it has
	// no such gate). They are not asked of that profile's kubelet.
	LeftOutKubeletGates map[string][]string `json:",omitempty"`
}

// ProfileLabel is the node label that names a worker's kubelet profile in the
// project's kind configs; specs that need a profile are pinned to it with this label.
const ProfileLabel = "podlifecycle.io/profile"

// APIServerGate is what the config asked of gate in the API server, if anything.
func (r Requested) APIServerGate(gate string) (on, asked bool) {
	if on, ok := r.APIServerGates[gate]; ok {
		return on, true
	}
	on, asked = r.ClusterGates[gate]
	return on, asked
}

// KubeletGate is what the config asked of gate in the kubelets of profile ("" for
// any node), if anything: the profile's own setting wins over one for every kubelet,
// which wins over the cluster-wide featureGates; a gate left out of the profile's
// kubelet (LeftOutKubeletGates) is not asked of it.
func (r Requested) KubeletGate(gate, profile string) (on, asked bool) {
	if profile != "" {
		if on, ok := r.KubeletGates[profile][gate]; ok {
			return on, true
		}
		if r.LeftOut(gate, profile) {
			return false, false
		}
	}
	if on, ok := r.AllKubeletGates[gate]; ok {
		return on, true
	}
	on, asked = r.ClusterGates[gate]
	return on, asked
}

// LeftOut says whether gate, asked of every component by the run, was left out of the
// kubelet of profile, whose release does not know it (LeftOutKubeletGates).
func (r Requested) LeftOut(gate, profile string) bool {
	return profile != "" && slices.Contains(r.LeftOutKubeletGates[profile], gate)
}

// LeftOutSetting is how a node's facts name the gates left out of the kubelet of
// profile: a kubelet setting (key, value), empty when none was left out, e.g.
// "featureGates left out" = "NewGate (unknown to kubelet v1.36.3: at its default)".
func (r Requested) LeftOutSetting(profile string) (key, value string) {
	gates := r.LeftOutKubeletGates[profile]
	if profile == "" || len(gates) == 0 {
		return "", ""
	}
	kubelet := "its kubelet"
	if _, v, ok := strings.Cut(r.ProfileImages[profile], "-kubelet-"); ok {
		kubelet = "kubelet " + v
	}
	return "featureGates left out", fmt.Sprintf("%s (unknown to %s: at its default)", strings.Join(slices.Sorted(slices.Values(gates)), ","), kubelet)
}
