package facts

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// Facts is what one cluster has, read once per suite run.
type Facts struct {
	ServerVersion  string
	APIServerGates Gates
	Nodes          []Node
	// LocalNodes: every node is a container of this machine's Docker (a kind cluster,
	// the suite's own or one reached through KUBECONFIG): specs can run commands in
	// the nodes, and the nodes read the runner's clock. Set by the suite, which knows
	// the provider.
	LocalNodes bool
}

// Node is what one node's kubelet reports about itself.
type Node struct {
	Name             string
	ProviderID       string // node.spec.providerID: kind://docker/<cluster>/<node> on kind
	Labels           map[string]string
	Taints           []corev1.Taint
	KubeletVersion   string // node.status.nodeInfo.kubeletVersion
	KubeletGates     Gates
	KubeletConfig    KubeletConfig
	DeclaredFeatures []string
}

// KubeletConfig holds the /configz fields specs depend on; Raw keeps the rest.
type KubeletConfig struct {
	CrashLoopBackOff struct {
		MaxContainerRestartPeriod string `json:"maxContainerRestartPeriod,omitempty"`
	} `json:"crashLoopBackOff"`
	FeatureGates map[string]bool `json:"featureGates,omitempty"`
	// EvictionHard is the kubelet's hard eviction thresholds by signal
	// ("memory.available": "97%").
	EvictionHard map[string]string `json:"evictionHard,omitempty"`
	// ShutdownGracePeriod is how long the kubelet delays a node shutdown for its pods
	// ("20s"); empty where graceful node shutdown is off.
	ShutdownGracePeriod string          `json:"shutdownGracePeriod,omitempty"`
	Raw                 json.RawMessage `json:"-"`
}

// ParseConfigz decodes the kubelet's /configz answer ({"kubeletconfig": {...}}).
func ParseConfigz(b []byte) (KubeletConfig, error) {
	var wrapper struct {
		KubeletConfig json.RawMessage `json:"kubeletconfig"`
	}
	if err := json.Unmarshal(b, &wrapper); err != nil {
		return KubeletConfig{}, fmt.Errorf("decoding /configz: %w", err)
	}
	if len(wrapper.KubeletConfig) == 0 {
		return KubeletConfig{}, fmt.Errorf("decoding /configz: no kubeletconfig object")
	}
	var kc KubeletConfig
	if err := json.Unmarshal(wrapper.KubeletConfig, &kc); err != nil {
		return KubeletConfig{}, fmt.Errorf("decoding /configz kubeletconfig: %w", err)
	}
	kc.Raw = wrapper.KubeletConfig
	return kc, nil
}

// Gather reads the facts through the API server: /version, /metrics, and for each node
// its kubelet's /metrics and /configz through the node proxy.
func Gather(ctx context.Context, client kubernetes.Interface) (*Facts, error) {
	f := &Facts{}
	v, err := client.Discovery().ServerVersion()
	if err != nil {
		return nil, fmt.Errorf("reading server version: %w", err)
	}
	f.ServerVersion = v.GitVersion

	rest := client.CoreV1().RESTClient()
	raw, err := client.Discovery().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading API server /metrics: %w", err)
	}
	if f.APIServerGates, err = ParseFeatureMetrics(bytes.NewReader(raw)); err != nil {
		return nil, fmt.Errorf("API server: %w", err)
	}

	nodes, err := client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("listing nodes: %w", err)
	}
	sort.Slice(nodes.Items, func(i, j int) bool { return nodes.Items[i].Name < nodes.Items[j].Name })
	for _, n := range nodes.Items {
		node := Node{Name: n.Name, ProviderID: n.Spec.ProviderID, Labels: n.Labels, Taints: n.Spec.Taints,
			KubeletVersion: n.Status.NodeInfo.KubeletVersion, DeclaredFeatures: n.Status.DeclaredFeatures}
		metrics, err := rest.Get().Resource("nodes").Name(n.Name).SubResource("proxy").Suffix("metrics").DoRaw(ctx)
		if err != nil {
			return nil, fmt.Errorf("reading kubelet /metrics of node %s: %w", n.Name, err)
		}
		if node.KubeletGates, err = ParseFeatureMetrics(bytes.NewReader(metrics)); err != nil {
			return nil, fmt.Errorf("kubelet of node %s: %w", n.Name, err)
		}
		configz, err := rest.Get().Resource("nodes").Name(n.Name).SubResource("proxy").Suffix("configz").DoRaw(ctx)
		if err != nil {
			return nil, fmt.Errorf("reading kubelet /configz of node %s: %w", n.Name, err)
		}
		if node.KubeletConfig, err = ParseConfigz(configz); err != nil {
			return nil, fmt.Errorf("kubelet of node %s: %w", n.Name, err)
		}
		f.Nodes = append(f.Nodes, node)
	}
	return f, nil
}

// NodesWithLabel returns the nodes carrying label key=value.
func (f *Facts) NodesWithLabel(key, value string) []Node {
	var out []Node
	for _, n := range f.Nodes {
		if n.Labels[key] == value {
			out = append(out, n)
		}
	}
	return out
}

// Candidates are the nodes a spec that wants the kubelet of profile may run on, and
// how to name them in a message. Where a kind config made nodes of that profile on
// purpose (they carry ProfileLabel=profile), only those; on a cluster where no
// node carries it (made without the project's configs, or a user's), every
// schedulable node, and the spec picks one whose gates and /configz fit. Profile ""
// means any schedulable node.
func (f *Facts) Candidates(profile string) ([]Node, string) {
	if profile != "" {
		if labelled := f.NodesWithLabel(ProfileLabel, profile); len(labelled) > 0 {
			return labelled, fmt.Sprintf("nodes labelled %s=%s", ProfileLabel, profile)
		}
	}
	var out []Node
	for _, n := range f.Nodes {
		if n.Schedulable(f.Nodes) {
			out = append(out, n)
		}
	}
	return out, "any schedulable node"
}

// NodeFor is the first candidate of profile whose kubelet has every gate of gates as
// given.
func (f *Facts) NodeFor(profile string, gates map[string]bool) (Node, bool) {
	nodes, _ := f.Candidates(profile)
	for _, n := range nodes {
		fits := true
		for g, on := range gates {
			have, known := n.KubeletGates[g]
			fits = fits && known && have == on
		}
		if fits {
			return n, true
		}
	}
	return Node{}, false
}

// Worker reports whether n runs workloads: it is not a control-plane node in a
// cluster that has workers. A pod bound to it with spec.nodeName runs there whatever
// its taints.
func (n Node) Worker(all []Node) bool {
	_, cp := n.Labels["node-role.kubernetes.io/control-plane"]
	return !cp || len(all) == 1
}

// Schedulable reports whether the scheduler may place pods without tolerations on n:
// a worker with no NoSchedule or NoExecute taint (the declared-features suite's
// older kubelet is such a tainted worker).
func (n Node) Schedulable(all []Node) bool {
	if !n.Worker(all) {
		return false
	}
	for _, t := range n.Taints {
		if t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute {
			return false
		}
	}
	return true
}
