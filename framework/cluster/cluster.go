// Package cluster gets the suites a Kubernetes cluster to test: a kind cluster made
// from one of the project's kind configs, or an existing cluster named by KUBECONFIG.
// It does nothing else: what the cluster has on is package facts' job.
package cluster

import (
	"context"
	"fmt"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/podlifecycle/conformance/framework/cluster/internal/host"
	"github.com/podlifecycle/conformance/framework/facts"
)

// Cluster is a cluster the suite may use.
type Cluster struct {
	// Name identifies the cluster in messages (the kind cluster name, or the
	// kubeconfig's current context).
	Name string
	// Kubeconfig is the path of a kubeconfig file that reaches the cluster; empty for
	// the cluster a runner pod runs in (its service account reaches it).
	Kubeconfig string
	// Provider is "kind" or "existing".
	Provider string
	// Requested is what the cluster's configuration asked for; a gate it asked for
	// but the cluster lacks is a misconfiguration, not a reason to skip.
	Requested facts.Requested
}

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

// RestConfig loads the client configuration of c: its kubeconfig, or, for the
// cluster a runner pod runs in (no kubeconfig), the pod's service account.
func (c *Cluster) RestConfig() (*rest.Config, error) {
	var cfg *rest.Config
	var err error
	if c.Kubeconfig == "" {
		if cfg, err = rest.InClusterConfig(); err != nil {
			return nil, fmt.Errorf("the in-cluster configuration of cluster %s (the runner Job: run in a pod with a service account): %w", c.Name, err)
		}
	} else if cfg, err = clientcmd.BuildConfigFromFlags("", c.Kubeconfig); err != nil {
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

// LocalNodes reports whether every node of c is a container of this machine's
// Docker, which gives specs a shell in the nodes and one clock with the runner: true
// of a kind cluster the suite made, and of one made by hand and reached through
// KUBECONFIG (its nodes' providerIDs are kind://docker/... and Docker here runs
// them). nodes are c's nodes as facts.Gather listed them, so none is listed again.
func (c *Cluster) LocalNodes(ctx context.Context, nodes []facts.Node) bool {
	if c.Provider == "kind" {
		return true
	}
	for _, n := range nodes {
		if !host.RunsKindNode(ctx, n.Name, n.ProviderID) {
			return false
		}
	}
	return len(nodes) > 0
}

// Labels images/scripts/node.sh and kubelet.sh put on every node image, naming the
// kubelet it holds: the cluster suite proves each node runs that very binary, and the
// report names both per node.
const (
	KubeletVersionLabel = "podlifecycle.kubelet.version"
	KubeletSHA256Label  = "podlifecycle.kubelet.sha256"
)

// NodeImage is the image the container of a node of a cluster with LocalNodes was made
// from, and its labels: the report says where each node's software came from.
func NodeImage(ctx context.Context, node string) (image string, labels map[string]string, err error) {
	return host.NodeImage(ctx, node)
}

// Select picks the provider: an existing cluster when kubeconfig names one (how
// users validate their own kubelet) or when the suites run in a pod of it
// (inCluster: the runner Job), otherwise a kind cluster made from kindConfig, a path
// relative to the repository root, with o.
func Select(kindConfig, kubeconfig string, inCluster bool, o KindOptions) (Provider, error) {
	if kubeconfig != "" || inCluster {
		return Existing{Kubeconfig: kubeconfig}, nil
	}
	return NewKind(kindConfig, o)
}
