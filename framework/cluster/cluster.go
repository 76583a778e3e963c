// Package cluster gets the suites a Kubernetes cluster to test: a kind cluster made
// from one of the project's kind configs, or an existing cluster named by KUBECONFIG.
// It does nothing else: what the cluster has on is package facts' job.
package cluster

import (
	"context"
	"fmt"
	"os"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// Cluster is a cluster the suite may use.
type Cluster struct {
	// Name identifies the cluster in messages (the kind cluster name, or the
	// kubeconfig's current context).
	Name string
	// Kubeconfig is the path of a kubeconfig file that reaches the cluster.
	Kubeconfig string
	// Provider is "kind" or "existing".
	Provider string
	// Requested is what the cluster's configuration asked for; a gate it asked for
	// but the cluster lacks is a misconfiguration, not a reason to skip.
	Requested Requested
}

// Requested lists the feature gates a kind config turned on or off.
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

// ProfileLabel is the node label that names a worker's kubelet profile in the
// project's kind configs; specs that need a profile are pinned to it with this label.
const ProfileLabel = "podlifecycle.io/profile"

// Outcome tells Release how the run went.
type Outcome int

const (
	Succeeded Outcome = iota
	Failed
	Interrupted
)

// Provider hands out a cluster and takes it back.
type Provider interface {
	// Acquire returns a cluster ready for specs, creating it if the provider does.
	Acquire(ctx context.Context) (*Cluster, error)
	// Release deletes what Acquire created when the run succeeded or was interrupted,
	// and keeps it after a failure, saying how to inspect and delete it.
	Release(ctx context.Context, c *Cluster, o Outcome) error
}

// RestConfig loads the client configuration of c.
func (c *Cluster) RestConfig() (*rest.Config, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", c.Kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("loading kubeconfig %s of cluster %s: %w", c.Kubeconfig, c.Name, err)
	}
	cfg.QPS, cfg.Burst = 50, 100
	return cfg, nil
}

// Client returns a clientset for c.
func (c *Cluster) Client() (kubernetes.Interface, error) {
	cfg, err := c.RestConfig()
	if err != nil {
		return nil, err
	}
	return kubernetes.NewForConfig(cfg)
}

// FromEnvironment picks the provider: an existing cluster when KUBECONFIG is set
// (how users validate their own kubelet), otherwise a kind cluster made from
// kindConfig, a path relative to the repository root.
func FromEnvironment(kindConfig string) (Provider, error) {
	if kc := os.Getenv("KUBECONFIG"); kc != "" {
		for _, v := range []string{"FEATURE_GATES", "KUBELET_FEATURE_GATES", "KUBELET", "KUBELET_VERSION"} {
			if os.Getenv(v) != "" {
				return nil, fmt.Errorf("%s is set, but KUBECONFIG names an existing cluster, which the suite never changes: %s applies only to the kind clusters the suite creates; unset one of the two", v, v)
			}
		}
		return Existing{Kubeconfig: kc}, nil
	}
	return NewKind(kindConfig, KindOptionsFromEnvironment())
}
