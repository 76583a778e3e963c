package facts

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
// which wins over the cluster-wide featureGates.
func (r Requested) KubeletGate(gate, profile string) (on, asked bool) {
	if profile != "" {
		if on, ok := r.KubeletGates[profile][gate]; ok {
			return on, true
		}
	}
	if on, ok := r.AllKubeletGates[gate]; ok {
		return on, true
	}
	on, asked = r.ClusterGates[gate]
	return on, asked
}
