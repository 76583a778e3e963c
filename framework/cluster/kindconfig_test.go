package cluster

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/kind/pkg/apis/config/v1alpha4"

	"github.com/podlifecycle/conformance/framework/facts"
)

// requestedOf is what the kind config content asks for.
func requestedOf(t *testing.T, name, content string) facts.Requested {
	t.Helper()
	k, err := LoadKindConfig(writeConfig(t, name, content))
	if err != nil {
		t.Fatal(err)
	}
	r, err := k.Requested()
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// allGates lists every gate r asks for, sorted, as "Name=true"; a gate set both ways
// appears twice.
func allGates(r facts.Requested) []string {
	all := append(gateList(r.ClusterGates), gateList(r.AllKubeletGates)...)
	all = append(all, gateList(r.APIServerGates)...)
	for _, gates := range r.KubeletGates {
		all = append(all, gateList(gates)...)
	}
	return sortedUnique(all)
}

func writeConfig(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const profiles = `kind: Cluster
apiVersion: kind.x-k8s.io/v1alpha4
featureGates:
  ContainerStopSignals: true
nodes:
- role: control-plane
- role: worker
  labels:
    podlifecycle.io/profile: restart-all-off
  kubeadmConfigPatches:
  - |
    kind: JoinConfiguration
    nodeRegistration:
      kubeletExtraArgs:
      - name: feature-gates
        value: RestartAllContainersOnContainerExits=false,ContainerRestartRules=true
- role: worker
  labels:
    podlifecycle.io/profile: decay
  kubeadmConfigPatches:
  - |
    kind: KubeletConfiguration
    featureGates:
      ReduceDefaultCrashLoopBackOffDecay: true
`

func TestClusterNameFollowsContent(t *testing.T) {
	a, err := LoadKindConfig(writeConfig(t, "Default Config.yaml", profiles))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := LoadKindConfig(writeConfig(t, "Default Config.yaml", profiles))
	c, _ := LoadKindConfig(writeConfig(t, "Default Config.yaml", profiles+"- role: worker\n"))
	if a.ClusterName() != b.ClusterName() {
		t.Errorf("same content, different names: %s %s", a.ClusterName(), b.ClusterName())
	}
	if a.ClusterName() == c.ClusterName() {
		t.Errorf("changed content kept the name %s", a.ClusterName())
	}
	if a.ClusterName("sha256:aaa") == a.ClusterName("sha256:bbb") || a.ClusterName("sha256:aaa") != b.ClusterName("sha256:aaa") {
		t.Errorf("the node image ID must be part of the name, and only it")
	}
	if !strings.HasPrefix(a.ClusterName(), "plc-default-config-") || len(a.ClusterName()) != len("plc-default-config-")+8 {
		t.Errorf("name %q: want plc-default-config-<8 hex>", a.ClusterName())
	}
}

func TestRequested(t *testing.T) {
	k, err := LoadKindConfig(writeConfig(t, "p.yaml", profiles))
	if err != nil {
		t.Fatal(err)
	}
	r, err := k.Requested()
	if err != nil {
		t.Fatal(err)
	}
	if !r.ClusterGates["ContainerStopSignals"] {
		t.Errorf("cluster gates: %v", r.ClusterGates)
	}
	if on, ok := r.KubeletGates["restart-all-off"]["RestartAllContainersOnContainerExits"]; !ok || on {
		t.Errorf("kubeletExtraArgs gates: %v", r.KubeletGates)
	}
	if !r.KubeletGates["decay"]["ReduceDefaultCrashLoopBackOffDecay"] {
		t.Errorf("KubeletConfiguration gates: %v", r.KubeletGates)
	}
	want := "ContainerRestartRules=true,ContainerStopSignals=true,ReduceDefaultCrashLoopBackOffDecay=true,RestartAllContainersOnContainerExits=false"
	if got := strings.Join(allGates(r), ","); got != want {
		t.Errorf("gates = %s, want %s", got, want)
	}
}

func TestRequestedNeedsAProfileLabel(t *testing.T) {
	unlabelled := strings.Replace(profiles, "  labels:\n    podlifecycle.io/profile: decay\n", "", 1)
	k, err := LoadKindConfig(writeConfig(t, "p.yaml", unlabelled))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := k.Requested(); err == nil || !strings.Contains(err.Error(), facts.ProfileLabel) {
		t.Fatalf("want an error naming %s, got %v", facts.ProfileLabel, err)
	}
}

func TestLoadKindConfigRejectsTypos(t *testing.T) {
	_, err := LoadKindConfig(writeConfig(t, "typo.yaml", "kind: Cluster\napiVersion: kind.x-k8s.io/v1alpha4\nnodes:\n- role: worker\n  lables: {}\n"))
	if err == nil || !strings.Contains(err.Error(), "lables") {
		t.Fatalf("want an error naming the unknown field, got %v", err)
	}
}

// Gates set by cluster-level patches count as asked for: a KubeletConfiguration for
// every kubelet, a ClusterConfiguration's apiServer extraArgs for the API server.
func TestRequestedReadsClusterPatches(t *testing.T) {
	k, err := LoadKindConfig(writeConfig(t, "c.yaml", `kind: Cluster
apiVersion: kind.x-k8s.io/v1alpha4
kubeadmConfigPatches:
- |
  kind: KubeletConfiguration
  featureGates:
    KubeletCrashLoopBackOffMax: false
- |
  kind: ClusterConfiguration
  apiServer:
    extraArgs:
    - name: feature-gates
      value: ContainerStopSignals=true
  controllerManager:
    extraArgs:
    - name: terminated-pod-gc-threshold
      value: "5"
nodes:
- role: control-plane
- role: worker
  labels:
    podlifecycle.io/profile: max-on
  kubeadmConfigPatches:
  - |
    kind: KubeletConfiguration
    featureGates:
      KubeletCrashLoopBackOffMax: true
`))
	if err != nil {
		t.Fatal(err)
	}
	r, err := k.Requested()
	if err != nil {
		t.Fatal(err)
	}
	if on, asked := r.AllKubeletGates["KubeletCrashLoopBackOffMax"]; !asked || on {
		t.Errorf("every kubelet: got %t, asked %t", on, asked)
	}
	if on, asked := r.KubeletGates["max-on"]["KubeletCrashLoopBackOffMax"]; !asked || !on {
		t.Errorf("the profile's node: got %t, asked %t", on, asked)
	}
	if on, asked := r.APIServerGates["ContainerStopSignals"]; !asked || !on {
		t.Errorf("apiServer extraArgs: got %t, asked %t", on, asked)
	}
	if len(r.ClusterGates) != 0 {
		t.Errorf("no cluster-wide featureGates in the config, got %v", r.ClusterGates)
	}
	want := "ContainerStopSignals=true,KubeletCrashLoopBackOffMax=false,KubeletCrashLoopBackOffMax=true"
	if got := strings.Join(allGates(r), ","); got != want {
		t.Errorf("gates = %s, want %s", got, want)
	}
}

// Each node's kubelet is checked with the gates it will be given: cluster-wide,
// every kubelet's (KUBELET_FEATURE_GATES) and its own, the own winning; a node that
// names an image of its own (a kubelet of another version) by that image's kubelet,
// named in the check. The API server checks the cluster-wide and its own gates only.
func TestKubeletGateChecksPerNode(t *testing.T) {
	path := writeConfig(t, "mixed.yaml", profiles+`- role: worker
  image: podlifecycle/node:v1.37.2-kubelet-v1.36.3
  labels:
    podlifecycle.io/profile: kubelet-v1.36.3
  kubeadmConfigPatches:
  - |
    kind: JoinConfiguration
    nodeRegistration:
      kubeletExtraArgs:
      - name: feature-gates
        value: InPlacePodVerticalScalingInitContainers=false
`)
	k, err := LoadKindConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	k.Override(nil, map[string]bool{"InPlacePodVerticalScalingMemoryBackedVolumes": true, "RestartAllContainersOnContainerExits": true})
	r, err := k.Requested()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(apiServerGateSet(r), " "); got != "ContainerStopSignals=true" {
		t.Errorf("API server's gate set = %s, want the cluster-wide gate only", got)
	}
	cfg := k.Config
	cfg.Name = "plc-mixed"
	for i := range cfg.Nodes {
		if cfg.Nodes[i].Image == "" {
			cfg.Nodes[i].Image = "podlifecycle/node:v1.37.2"
		}
	}
	checks, err := kubeletGateChecks(cfg, r)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, c := range checks {
		for _, n := range c.Nodes {
			got[n] = c.Image + " " + strings.Join(c.Gates, ",")
		}
	}
	const every = "ContainerStopSignals=true,InPlacePodVerticalScalingMemoryBackedVolumes=true"
	want := map[string]string{
		"plc-mixed-control-plane": "podlifecycle/node:v1.37.2 " + every + ",RestartAllContainersOnContainerExits=true",
		// the profile's own flag wins over KUBELET_FEATURE_GATES on its node
		"plc-mixed-worker":  "podlifecycle/node:v1.37.2 ContainerRestartRules=true," + every + ",RestartAllContainersOnContainerExits=false",
		"plc-mixed-worker2": "podlifecycle/node:v1.37.2 " + every + ",ReduceDefaultCrashLoopBackOffDecay=true,RestartAllContainersOnContainerExits=true",
		"plc-mixed-worker3": "podlifecycle/node:v1.37.2-kubelet-v1.36.3 ContainerStopSignals=true,InPlacePodVerticalScalingInitContainers=false,InPlacePodVerticalScalingMemoryBackedVolumes=true,RestartAllContainersOnContainerExits=true",
	}
	for n, w := range want {
		if got[n] != w {
			t.Errorf("%s: checked as %q, want %q", n, got[n], w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("checked nodes %v, want %d", got, len(want))
	}
}

// FEATURE_GATES and KUBELET_FEATURE_GATES land on top of the config, count as asked
// for, and give the cluster another name.
func TestOverride(t *testing.T) {
	path := writeConfig(t, "profiles.yaml", profiles)
	plain, err := LoadKindConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	cfg, _ := LoadKindConfig(path)
	cfg.Override(map[string]bool{"ReduceDefaultCrashLoopBackOffDecay": true}, map[string]bool{"KubeletCrashLoopBackOffMax": false})
	if cfg.ClusterName() == plain.ClusterName() {
		t.Errorf("overrides must change the cluster's name")
	}
	r, err := cfg.Requested()
	if err != nil {
		t.Fatal(err)
	}
	if on, asked := r.APIServerGate("ReduceDefaultCrashLoopBackOffDecay"); !on || !asked {
		t.Errorf("FEATURE_GATES override not asked of the API server: %v %v", on, asked)
	}
	if on, asked := r.KubeletGate("KubeletCrashLoopBackOffMax", ""); on || !asked {
		t.Errorf("KUBELET_FEATURE_GATES override not asked of kubelets: %v %v", on, asked)
	}
	// A profile's own flag still wins on its node.
	if on, _ := r.KubeletGate("RestartAllContainersOnContainerExits", "restart-all-off"); on {
		t.Errorf("the restart-all-off profile's own gate must win")
	}
	if plain.Config.FeatureGates["ReduceDefaultCrashLoopBackOffDecay"] {
		t.Errorf("Override changed another loaded copy")
	}
}

// In a version matrix, a node naming a kubelet variant keeps its kubelet but takes
// the run's Kubernetes version for everything else.
func TestRebaseKubeletImages(t *testing.T) {
	for _, c := range []struct{ nodeImage, want string }{
		{"podlifecycle/node:v1.37.2", "podlifecycle/node:v1.37.2-kubelet-v1.36.3"},
		{"podlifecycle/node:v1.36.3", "podlifecycle/node:v1.36.3"},
		{"podlifecycle/node:v1.38.0", "podlifecycle/node:v1.38.0-kubelet-v1.36.3"},
		{"podlifecycle/node:v1.38.0-kubelet-sha256-0123456789ab", "podlifecycle/node:v1.38.0-kubelet-v1.36.3"},
		{"registry.example/my-node:1", "podlifecycle/node:v1.37.2-kubelet-v1.36.3"},
	} {
		cfg := &KindConfig{}
		cfg.Config.Nodes = append(cfg.Config.Nodes, v1alpha4.Node{Image: "podlifecycle/node:v1.37.2-kubelet-v1.36.3"}, v1alpha4.Node{})
		cfg.RebaseKubeletImages(c.nodeImage)
		if got := cfg.Config.Nodes[0].Image; got != c.want {
			t.Errorf("default node image %s: node image %s, want %s", c.nodeImage, got, c.want)
		}
		if cfg.Config.Nodes[1].Image != "" {
			t.Errorf("a node naming no image must keep the default")
		}
	}
}
