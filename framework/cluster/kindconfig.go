package cluster

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"github.com/podlifecycle/conformance/framework/config"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"sigs.k8s.io/kind/pkg/apis/config/v1alpha4"
	"sigs.k8s.io/yaml"

	"github.com/podlifecycle/conformance/framework/facts"
)

// KindConfig is one of the project's kind cluster configs.
type KindConfig struct {
	Path   string
	Raw    []byte
	Config v1alpha4.Cluster

	// runGates are the gates of the run's overrides (Override); authoredGates those the
	// config itself sets cluster-wide (featureGates, cluster-level KubeletConfiguration
	// patches) before them.
	runGates, authoredGates map[string]bool
	// leftOut: per profile, the run's gates left out of its kubelet (LeaveOutUnknownKubeletGates).
	leftOut map[string][]string
}

// LoadKindConfig reads and strictly decodes a kind v1alpha4 cluster config.
func LoadKindConfig(path string) (*KindConfig, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading kind config: %w", err)
	}
	var cfg v1alpha4.Cluster
	if err := yaml.UnmarshalStrict(raw, &cfg); err != nil {
		return nil, fmt.Errorf("decoding kind config %s: %w", path, err)
	}
	if cfg.Kind != "Cluster" || cfg.APIVersion != "kind.x-k8s.io/v1alpha4" {
		return nil, fmt.Errorf("kind config %s: want kind Cluster, apiVersion kind.x-k8s.io/v1alpha4; got %q, %q", path, cfg.Kind, cfg.APIVersion)
	}
	return &KindConfig{Path: path, Raw: raw, Config: cfg}, nil
}

// Override applies gate overrides on top of the config: all to every component of
// every node (the config's cluster-wide featureGates, which kind hands to the API
// server, controller manager, scheduler, kube-proxy and kubelets), kubelet to every
// kubelet (a cluster-level KubeletConfiguration patch). A node's own kubelet
// --feature-gates still win on that node: a profile is a deliberate exception. The
// overrides become part of the content the cluster's name is derived from, and of
// what Requested reports as asked for.
func (k *KindConfig) Override(all, kubelet map[string]bool) {
	if len(all) == 0 && len(kubelet) == 0 {
		return
	}
	k.authoredGates = map[string]bool{}
	for g := range k.Config.FeatureGates {
		k.authoredGates[g] = true
	}
	for _, p := range k.Config.KubeadmConfigPatches {
		gates := map[string]bool{}
		_ = kubeletGatesOfPatch(p, gates) // a patch that does not decode is Requested's error
		for g := range gates {
			k.authoredGates[g] = true
		}
	}
	k.runGates = map[string]bool{}
	for g := range all {
		k.runGates[g] = true
	}
	for g := range kubelet {
		k.runGates[g] = true
	}
	if k.Config.FeatureGates == nil {
		k.Config.FeatureGates = map[string]bool{}
	}
	for g, on := range all {
		k.Config.FeatureGates[g] = on
	}
	if len(kubelet) > 0 {
		patch := "kind: KubeletConfiguration\nfeatureGates:\n"
		for _, g := range slices.Sorted(maps.Keys(kubelet)) {
			patch += fmt.Sprintf("  %s: %t\n", g, kubelet[g])
		}
		k.Config.KubeadmConfigPatches = append(k.Config.KubeadmConfigPatches, patch)
	}
	k.Raw = append(slices.Clone(k.Raw), fmt.Sprintf("\n# overrides: all components %v; kubelets %v\n", all, kubelet)...)
}

// kubeletVariant matches the node images images/scripts/kubelet.sh makes: the stock
// node image of Kubernetes <base> with the kubelet of release <kubelet>.
var (
	kubeletVariant = regexp.MustCompile(`^podlifecycle/node:(v[0-9]+\.[0-9]+\.[0-9]+)-kubelet-(v[0-9]+\.[0-9]+\.[0-9]+)$`)
	stockNode      = regexp.MustCompile(`^podlifecycle/node:(v[0-9]+\.[0-9]+\.[0-9]+)(-kubelet-.*)?$`)
)

// RebaseKubeletImages moves the nodes that name a kubelet variant of the project's
// node image (podlifecycle/node:v1.37.2-kubelet-v1.36.3) onto the Kubernetes version
// of nodeImage, the run's default node image, so that a version matrix run
// (K8S_VERSIONS) keeps every node's kubeadm at the control plane's version: on
// v1.38.0 that node becomes podlifecycle/node:v1.38.0-kubelet-v1.36.3, and on v1.36.3,
// where the kubelet is the stock one, the stock podlifecycle/node:v1.36.3.
func (k *KindConfig) RebaseKubeletImages(nodeImage string) {
	m := stockNode.FindStringSubmatch(nodeImage)
	if m == nil {
		return
	}
	version := m[1]
	for i := range k.Config.Nodes {
		v := kubeletVariant.FindStringSubmatch(k.Config.Nodes[i].Image)
		if v == nil || v[1] == version {
			continue
		}
		if v[2] == version {
			k.Config.Nodes[i].Image = "podlifecycle/node:" + version
		} else {
			k.Config.Nodes[i].Image = "podlifecycle/node:" + version + "-kubelet-" + v[2]
		}
	}
}

var unsafeNameChars = regexp.MustCompile(`[^a-z0-9-]+`)

// ClusterName derives the kind cluster name from the config's file name and content,
// and from salt (the IDs of the node images it will use): suites sharing a config share
// a cluster, and an edited config or a rebuilt node image gets a new one.
func (k *KindConfig) ClusterName(salt ...string) string {
	h := sha256.New()
	h.Write(k.Raw)
	for _, s := range salt {
		h.Write([]byte{0})
		h.Write([]byte(s))
	}
	sum := h.Sum(nil)
	base := strings.TrimSuffix(filepath.Base(k.Path), filepath.Ext(k.Path))
	base = strings.Trim(unsafeNameChars.ReplaceAllString(strings.ToLower(base), "-"), "-")
	if len(base) > 20 {
		base = base[:20]
	}
	return "plc-" + base + "-" + hex.EncodeToString(sum[:])[:8]
}

// Requested reads which feature gates the config sets: cluster-wide featureGates;
// cluster-level patches (a KubeletConfiguration's featureGates for every kubelet, a
// ClusterConfiguration's apiServer extraArgs "feature-gates"); and kubelet gates of
// each labelled node (JoinConfiguration/InitConfiguration kubeletExtraArgs
// "feature-gates", or a KubeletConfiguration patch's featureGates).
func (k *KindConfig) Requested() (facts.Requested, error) {
	r := facts.Requested{ClusterGates: map[string]bool{}, KubeletGates: map[string]map[string]bool{},
		AllKubeletGates: map[string]bool{}, APIServerGates: map[string]bool{}, ProfileImages: map[string]string{}}
	for g, on := range k.Config.FeatureGates {
		r.ClusterGates[g] = on
	}
	for _, p := range k.Config.KubeadmConfigPatches {
		if err := kubeletGatesOfPatch(p, r.AllKubeletGates); err != nil {
			return r, fmt.Errorf("%s: cluster patch: %w", k.Path, err)
		}
		if err := apiServerGatesOfPatch(p, r.APIServerGates); err != nil {
			return r, fmt.Errorf("%s: cluster patch: %w", k.Path, err)
		}
	}
	for i, n := range k.Config.Nodes {
		gates := map[string]bool{}
		for _, p := range n.KubeadmConfigPatches {
			if err := kubeletGatesOfPatch(p, gates); err != nil {
				return r, fmt.Errorf("%s: node %d: %w", k.Path, i, err)
			}
		}
		if len(gates) == 0 && n.Image == "" {
			continue
		}
		profile := n.Labels[facts.ProfileLabel]
		if profile == "" {
			return r, fmt.Errorf("%s: node %d sets kubelet feature gates or a node image of its own but has no %s label, so no spec could be pinned to it", k.Path, i, facts.ProfileLabel)
		}
		if len(gates) > 0 {
			r.KubeletGates[profile] = gates
		}
		if n.Image != "" {
			r.ProfileImages[profile] = n.Image
		}
	}
	if len(k.leftOut) > 0 {
		r.LeftOutKubeletGates = map[string][]string{}
		for p, gates := range k.leftOut {
			r.LeftOutKubeletGates[p] = slices.Clone(gates)
		}
	}
	return r, nil
}

// apiServerGateSet is what the control plane's own Kubernetes (the default node
// image's) checks before any node boots: the cluster-wide gates, which every
// component of every node is given, and the API server's own. The kubelets' gates are
// checked by each node's own kubelet (kubeletGateChecks).
func apiServerGateSet(r facts.Requested) []string {
	return sortedUnique(append(gateList(r.ClusterGates), gateList(r.APIServerGates)...))
}

// kubeletGateCheck is one check before any node boots: the kubelet of Image, given
// Gates, as each of Nodes will be.
type kubeletGateCheck struct {
	Image string
	Nodes []string
	Gates []string
}

// kubeletGateChecks lists, for every node of cfg (images filled in, named as kind
// names them), the gates its kubelet will be given: the cluster-wide ones, those of
// the cluster-level KubeletConfiguration patches (KUBELET_FEATURE_GATES), then the
// node's own, which win. Nodes whose kubelet and gates are the same share one check.
// A worker that runs an older kubelet (a node image with another kubelet) is checked
// by that kubelet, which may not know a gate new in the API server's release; the
// run's gates left out of that kubelet (Requested.LeftOutKubeletGates of its
// profile, see KindConfig.LeaveOutUnknownKubeletGates) are not checked there, since
// it is not given them.
func kubeletGateChecks(cfg v1alpha4.Cluster, r facts.Requested) ([]kubeletGateCheck, error) {
	names := nodeNames(cfg)
	var checks []kubeletGateCheck
	for i, n := range cfg.Nodes {
		gates := maps.Clone(r.ClusterGates)
		if gates == nil {
			gates = map[string]bool{}
		}
		maps.Copy(gates, r.AllKubeletGates)
		if profile := n.Labels[facts.ProfileLabel]; profile != "" {
			for _, g := range r.LeftOutKubeletGates[profile] {
				delete(gates, g)
			}
		}
		for _, p := range n.KubeadmConfigPatches {
			if err := kubeletGatesOfPatch(p, gates); err != nil {
				return nil, fmt.Errorf("node %s: %w", names[i], err)
			}
		}
		if len(gates) == 0 {
			continue
		}
		list := sortedUnique(gateList(gates))
		j := slices.IndexFunc(checks, func(c kubeletGateCheck) bool { return c.Image == n.Image && slices.Equal(c.Gates, list) })
		if j < 0 {
			checks = append(checks, kubeletGateCheck{Image: n.Image, Gates: list})
			j = len(checks) - 1
		}
		checks[j].Nodes = append(checks[j].Nodes, names[i])
	}
	return checks, nil
}

// nodeNames are the names kind gives the nodes of cfg: <cluster>-<role>, then
// <cluster>-<role>2, … per role in the config's order (kind's MakeNodeNamer).
func nodeNames(cfg v1alpha4.Cluster) []string {
	count := map[v1alpha4.NodeRole]int{}
	names := make([]string, len(cfg.Nodes))
	for i, n := range cfg.Nodes {
		count[n.Role]++
		names[i] = fmt.Sprintf("%s-%s", cfg.Name, n.Role)
		if count[n.Role] > 1 {
			names[i] += fmt.Sprint(count[n.Role])
		}
	}
	return names
}

func gateList(gates map[string]bool) (out []string) {
	for g, on := range gates {
		out = append(out, fmt.Sprintf("%s=%t", g, on))
	}
	return out
}

func sortedUnique(s []string) []string {
	sort.Strings(s)
	return slices.Compact(s)
}

func kubeletGatesOfPatch(patch string, into map[string]bool) error {
	var doc struct {
		Kind             string          `json:"kind"`
		FeatureGates     map[string]bool `json:"featureGates"`
		NodeRegistration struct {
			KubeletExtraArgs []extraArg `json:"kubeletExtraArgs"`
		} `json:"nodeRegistration"`
	}
	if err := yaml.Unmarshal([]byte(patch), &doc); err != nil {
		return fmt.Errorf("decoding kubeadm config patch: %w", err)
	}
	switch doc.Kind {
	case "KubeletConfiguration":
		for g, on := range doc.FeatureGates {
			into[g] = on
		}
	case "JoinConfiguration", "InitConfiguration":
		return gatesOfArgs(doc.NodeRegistration.KubeletExtraArgs, into)
	}
	return nil
}

// extraArg is one entry of a kubeadm v1beta4 extraArgs list.
type extraArg struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// gatesOfArgs adds the gates of a "feature-gates" argument in args to into.
func gatesOfArgs(args []extraArg, into map[string]bool) error {
	for _, a := range args {
		if a.Name != "feature-gates" {
			continue
		}
		gates, err := config.ParseGates(a.Value)
		if err != nil {
			return err
		}
		for g, on := range gates {
			into[g] = on
		}
	}
	return nil
}

// apiServerGatesOfPatch reads a ClusterConfiguration patch's apiServer extraArgs
// "feature-gates" (kubeadm v1beta4: a list of name/value pairs).
func apiServerGatesOfPatch(patch string, into map[string]bool) error {
	var doc struct {
		Kind      string `json:"kind"`
		APIServer struct {
			ExtraArgs []extraArg `json:"extraArgs"`
		} `json:"apiServer"`
	}
	if err := yaml.Unmarshal([]byte(patch), &doc); err != nil {
		return fmt.Errorf("decoding kubeadm config patch: %w", err)
	}
	if doc.Kind != "ClusterConfiguration" {
		return nil
	}
	return gatesOfArgs(doc.APIServer.ExtraArgs, into)
}
