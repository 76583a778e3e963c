package suite

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	corev1 "k8s.io/api/core/v1"

	"github.com/podlifecycle/conformance/framework/cluster"
	"github.com/podlifecycle/conformance/framework/entries"
	"github.com/podlifecycle/conformance/framework/facts"
)

// factsBound bounds what the facts entry reads beyond env.Facts: per node a docker
// inspect, per control-plane node two metrics fetches;
// each takes under a second, several on a loaded 2-core machine.
const factsBound = 60 * time.Second

// recordClusterFacts records the report's ClusterFacts entry. Nothing it cannot read
// fails the suite: the report shows why a fact is unknown instead.
//
// The suites of one run (its ID) share their clusters, whose software does not
// change during the run: the first suite on a cluster reads the facts (Docker, node
// shells, metrics fetches: seconds at every suite's start otherwise) and keeps them
// beside the cluster's kubeconfig; the next ones record that copy.
func (e *Env) recordClusterFacts(ctx context.Context, kindConfig string) {
	config := kindConfig
	if e.Cluster.Provider == "existing" {
		config = entries.ExistingConfig
	}
	var cf entries.ClusterFacts
	saved := ""
	if run, _ := Run(); run.ID != "" && e.Cluster.Kubeconfig != "" {
		saved = e.Cluster.Kubeconfig + ".facts-" + run.ID + ".json"
	}
	if saved != "" {
		if b, err := os.ReadFile(saved); err == nil && json.Unmarshal(b, &cf) == nil && cf.Config == config {
			AddReportEntry(entries.FactsEntry, cf, ReportEntryVisibilityNever)
			return
		}
	}
	cf = e.readClusterFacts(ctx, config)
	if saved != "" {
		if b, err := json.Marshal(cf); err == nil {
			// Only a cache: the next suite reads the facts again without it. Written
			// whole, then renamed: suites side by side read it while another writes it.
			tmp := fmt.Sprintf("%s.%d.tmp", saved, os.Getpid())
			if os.WriteFile(tmp, b, 0o644) != nil || os.Rename(tmp, saved) != nil {
				_ = os.Remove(tmp)
			}
		}
	}
	AddReportEntry(entries.FactsEntry, cf, ReportEntryVisibilityNever)
}

// readClusterFacts reads what the facts entry holds beyond env.Facts.
func (e *Env) readClusterFacts(ctx context.Context, config string) entries.ClusterFacts {
	ctx, cancel := context.WithTimeout(ctx, factsBound)
	defer cancel()
	in := factsInput{Config: config, Cluster: e.Cluster.Name, Facts: e.Facts, Software: map[string]nodeSoftware{}, Requested: e.Cluster.Requested}
	if root, err := RepoRoot(); err == nil {
		if b, err := os.ReadFile(filepath.Join(root, "images", "versions.env")); err == nil {
			in.Versions = parseVersionsEnv(string(b))
		}
	}
	for _, n := range e.Facts.Nodes {
		if !e.Facts.LocalNodes {
			break // no Docker of ours runs the nodes
		}
		var sw nodeSoftware
		sw.Image, sw.Labels, sw.Err = cluster.NodeImage(ctx, n.Name)
		// Every node image the project builds names its kubelet's sha256; the cluster
		// suite proves the running kubelet is that binary.
		sw.KubeletSHA256 = sw.Labels[cluster.KubeletSHA256Label]
		in.Software[n.Name] = sw
	}
	for _, n := range controlPlaneNodes(e.Facts.Nodes) {
		for _, c := range facts.ControlPlaneComponents() {
			comp := entries.Component{Name: c.Name, Node: n.Name}
			if e.Facts.LocalNodes {
				shell := func(ctx context.Context, script string) (string, error) { return e.nodeShell(ctx, n.Name, script) }
				gates, err := facts.ComponentGates(ctx, shell, c)
				comp.Gates, comp.Source = gates, fmt.Sprintf("kubernetes_feature_enabled of https://127.0.0.1:%d/metrics inside node %s", c.Port, n.Name)
				if err != nil {
					comp.Source = "unknown: " + err.Error()
				}
			}
			in.ControlPlane = append(in.ControlPlane, comp)
		}
	}
	return buildClusterFacts(in)
}

// factsInput is what the facts entry is made of, read beforehand.
type factsInput struct {
	Config, Cluster string
	Facts           *facts.Facts
	// ControlPlane: the controller managers' and schedulers' gates, read in their
	// nodes; empty without a node shell.
	ControlPlane []entries.Component
	// Software of each node, by name; empty without a node shell.
	Software map[string]nodeSoftware
	// Versions: images/versions.env.
	Versions map[string]string
	// Requested: what the cluster's configuration asked for, with the gates left out
	// of a skewed kubelet that does not know them.
	Requested facts.Requested
}

// nodeSoftware is what Docker and the node itself say of a node's software.
type nodeSoftware struct {
	Image         string
	Labels        map[string]string
	Err           error // from docker inspect
	KubeletSHA256 string
}

func buildClusterFacts(in factsInput) entries.ClusterFacts {
	f := in.Facts
	cf := entries.ClusterFacts{Config: in.Config, Cluster: in.Cluster, ServerVersion: f.ServerVersion}
	cf.Components = append(cf.Components, entries.Component{Name: "kube-apiserver", Gates: f.APIServerGates,
		Source: "kubernetes_feature_enabled of the API server's /metrics"})
	cf.Components = append(cf.Components, controlPlaneComponents(in)...)
	for _, n := range f.Nodes {
		cf.Components = append(cf.Components, entries.Component{Name: "kubelet", Node: n.Name, Gates: n.KubeletGates,
			Source: "kubernetes_feature_enabled of the kubelet's /metrics, through the API server's node proxy"})
	}
	images := map[string]string{}
	for _, n := range f.Nodes {
		sw := in.Software[n.Name]
		nf := entries.NodeFacts{Name: n.Name, Profile: n.Labels[facts.ProfileLabel], KubeletVersion: n.KubeletVersion,
			KubeletSHA256: sw.KubeletSHA256, DeclaredFeatures: n.DeclaredFeatures}
		if v := n.KubeletConfig.CrashLoopBackOff.MaxContainerRestartPeriod; v != "" {
			nf.KubeletSettings = map[string]string{"crashLoopBackOff.maxContainerRestartPeriod": v}
		}
		if key, value := in.Requested.LeftOutSetting(nf.Profile); key != "" {
			if nf.KubeletSettings == nil {
				nf.KubeletSettings = map[string]string{}
			}
			nf.KubeletSettings[key] = value
		}
		for _, t := range n.Taints {
			nf.Taints = append(nf.Taints, taintString(t))
		}
		cf.Nodes = append(cf.Nodes, nf)
		if sw.Image != "" && sw.Err == nil {
			images[sw.Image] = imageSource(sw.Image, sw.Labels, in.Versions)
		}
	}
	for _, image := range slices.Sorted(maps.Keys(images)) {
		cf.Images = append(cf.Images, entries.ImageProvenance{Image: image, Source: images[image]})
	}
	return cf
}

// controlPlaneComponents are the controller managers and schedulers as read, or as
// unknown with the reason.
func controlPlaneComponents(in factsInput) []entries.Component {
	if len(in.ControlPlane) > 0 {
		return in.ControlPlane
	}
	why := "no node is labelled node-role.kubernetes.io/control-plane"
	if len(controlPlaneNodes(in.Facts.Nodes)) > 0 {
		why = "no node shell on this cluster (its nodes are not containers of this machine's Docker), " +
			"and the component serves /metrics on its node's loopback only (kubeadm's bind address), which the API server does not proxy to"
	}
	var out []entries.Component
	for _, c := range facts.ControlPlaneComponents() {
		out = append(out, entries.Component{Name: c.Name, Source: "unknown: " + why})
	}
	return out
}

func controlPlaneNodes(nodes []facts.Node) []facts.Node {
	var out []facts.Node
	for _, n := range nodes {
		if _, ok := n.Labels["node-role.kubernetes.io/control-plane"]; ok {
			out = append(out, n)
		}
	}
	return out
}

// taintString is a taint as kubectl taint takes it: key[=value]:Effect.
func taintString(t corev1.Taint) string {
	s := t.Key
	if t.Value != "" {
		s += "=" + t.Value
	}
	return s + ":" + string(t.Effect)
}

// parseVersionsEnv reads images/versions.env's NAME=value lines; NAME=${NAME:-value}
// gives its default.
func parseVersionsEnv(text string) map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(text, "\n") {
		name, value, ok := strings.Cut(strings.TrimSpace(line), "=")
		if !ok || strings.HasPrefix(name, "#") || strings.ContainsAny(name, " \t") {
			continue
		}
		if inner, ok := strings.CutPrefix(value, "${"); ok {
			if _, def, ok := strings.Cut(strings.TrimSuffix(inner, "}"), ":-"); ok {
				value = def
			}
		}
		out[name] = strings.Trim(value, `"'`)
	}
	return out
}

// imageSource says where a node image was built from: what its labels say, or, for the
// node images images/build.sh makes (podlifecycle/node:<Kubernetes version>, and
// …-kubelet-<version> or …-kubelet-sha256-<digest> with another kubelet), the sources
// images/build.sh names for that Kubernetes version in images/versions.env.
func imageSource(image string, labels, versions map[string]string) string {
	var said []string
	for _, k := range slices.Sorted(maps.Keys(labels)) {
		if strings.HasPrefix(k, "org.opencontainers.image.") || strings.HasPrefix(k, "podlifecycle.source.") {
			said = append(said, k+"="+labels[k])
		}
	}
	if len(said) > 0 {
		return "image labels: " + strings.Join(said, ", ")
	}
	tag, ok := strings.CutPrefix(image, "podlifecycle/node:")
	if !ok {
		return "not built by images/build.sh; its labels name no sources"
	}
	k8s, variant, _ := strings.Cut(tag, "-kubelet-")
	v := func(name string) string {
		if s := versions[name]; s != "" {
			return s
		}
		return "?"
	}
	built := "kubelet, kubeadm, kubectl, control-plane images"
	if variant != "" {
		built = strings.TrimPrefix(built, "kubelet, ")
	}
	src := fmt.Sprintf("images/build.sh: Kubernetes %s (%s) from Go module k8s.io/kubernetes@%s; "+
		"containerd %s (github.com/containerd/containerd/v2), runc %s (github.com/opencontainers/runc), crictl %s (sigs.k8s.io/cri-tools), "+
		"CNI plugins %s (github.com/containernetworking/plugins), etcd %s (go.etcd.io/etcd/server/v3), CoreDNS %s (github.com/coredns/coredns); "+
		"kind %s's node files; Debian %s packages (images/versions.env)",
		k8s, built, k8s, v("CONTAINERD_VERSION"), v("RUNC_VERSION"), v("CRICTL_VERSION"), v("CNI_PLUGINS_VERSION"),
		v("ETCD_VERSION"), v("COREDNS_VERSION"), v("KIND_VERSION"), v("DEBIAN_SUITE"))
	if variant == "" {
		return src
	}
	version := labels[cluster.KubeletVersionLabel]
	if version == "" && !strings.HasPrefix(variant, "sha256-") {
		version = variant
	}
	kubelet := strings.TrimSpace("kubelet " + version)
	if sum := labels[cluster.KubeletSHA256Label]; sum != "" {
		kubelet += " (sha256 " + sum + ")"
	}
	if strings.HasPrefix(variant, "sha256-") {
		kubelet += " given as KUBELET"
	} else {
		kubelet += " from Go module k8s.io/kubernetes@" + variant
	}
	return kubelet + " in place of the stock one; the rest " + src
}
