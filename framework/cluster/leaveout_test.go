package cluster

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/podlifecycle/conformance/framework/preflight"
)

// skewed: the control plane (the default node image, v1.37.2), a worker of the stock
// image, and a worker with the kubelet of v1.36.3 that sets a gate of its own.
const skewed = `kind: Cluster
apiVersion: kind.x-k8s.io/v1alpha4
nodes:
- role: control-plane
- role: worker
  labels:
    podlifecycle.io/profile: defaults
- role: worker
  image: podlifecycle/node:v1.37.2-kubelet-v1.36.3
  labels:
    podlifecycle.io/profile: kubelet-v1.36.3
  kubeadmConfigPatches:
  - |
    kind: JoinConfiguration
    nodeRegistration:
      kubeletExtraArgs:
      - name: feature-gates
        value: OwnGate=false
`

// fakeKnows: v1.37.2 knows NewGate, OldGate and OwnGate; v1.36.3 only the last two.
func fakeKnows(release string) (map[string]bool, error) {
	switch release {
	case "v1.37.2":
		return map[string]bool{"NewGate": true, "OldGate": true, "OwnGate": true, "AuthoredNewGate": true}, nil
	case "v1.36.3":
		return map[string]bool{"OldGate": true, "OwnGate": true}, nil
	}
	return nil, os.ErrNotExist
}

func skewedOptions(stateDir string) KindOptions {
	return KindOptions{NodeImage: "podlifecycle/node:v1.37.2", StateDir: stateDir, KubeletKnows: fakeKnows,
		FeatureGates: map[string]bool{"NewGate": true, "OldGate": false}}
}

// nameOf is the cluster name Acquire derives, with fake image IDs (no Docker).
func nameOf(t *testing.T, k *KindConfig, nodeImage string) string {
	t.Helper()
	_, salt, err := k.clusterConfig(nodeImage, func(image string) (string, error) { return "sha256:" + image, nil })
	if err != nil {
		t.Fatal(err)
	}
	return k.ClusterName(salt...)
}

// A FEATURE_GATES gate the v1.36.3 kubelet does not know is deleted from that node's
// KubeletConfiguration by a merge patch in a patches directory of its own; the other
// nodes, and the gates that kubelet knows, are untouched.
func TestLeaveOutUnknownKubeletGates(t *testing.T) {
	path := writeConfig(t, "skewed.yaml", skewed)
	state := t.TempDir()
	k, err := prepareKindConfig(path, skewedOptions(state))
	if err != nil {
		t.Fatal(err)
	}
	if got := k.LeftOut(); len(got) != 1 || !slices.Equal(got["kubelet-v1.36.3"], []string{"NewGate"}) {
		t.Fatalf("LeftOut() = %v, want NewGate on kubelet-v1.36.3 only", got)
	}
	for i, n := range k.Config.Nodes {
		var mounts []string
		for _, m := range n.ExtraMounts {
			mounts = append(mounts, m.ContainerPath)
		}
		if i != 2 {
			if len(mounts) != 0 || len(n.KubeadmConfigPatches) != 0 {
				t.Errorf("node %d: mounts %v, patches %v; want none", i, mounts, n.KubeadmConfigPatches)
			}
			continue
		}
		if !slices.Equal(mounts, []string{leftOutPatchesPath}) {
			t.Fatalf("variant node: mounts %v, want %s", mounts, leftOutPatchesPath)
		}
		last := n.KubeadmConfigPatches[len(n.KubeadmConfigPatches)-1]
		var join struct {
			Kind    string
			Patches struct{ Directory string }
		}
		if err := yaml.Unmarshal([]byte(last), &join); err != nil || join.Kind != "JoinConfiguration" || join.Patches.Directory != leftOutPatchesPath {
			t.Errorf("variant node's last patch %q: want a JoinConfiguration naming %s (%v)", last, leftOutPatchesPath, err)
		}
		dir := n.ExtraMounts[0].HostPath
		if !strings.HasPrefix(dir, state+string(filepath.Separator)) {
			t.Errorf("patches directory %s is not under the state directory %s", dir, state)
		}
		entries, _ := os.ReadDir(dir)
		if len(entries) != 1 || entries[0].Name() != leftOutPatchFile {
			t.Fatalf("patches directory holds %v, want %s alone", entries, leftOutPatchFile)
		}
		b, _ := os.ReadFile(filepath.Join(dir, leftOutPatchFile))
		t.Logf("%s:\n%s", leftOutPatchFile, b)
		var patch map[string]any
		if err := yaml.Unmarshal(b, &patch); err != nil {
			t.Fatal(err)
		}
		gates, _ := patch["featureGates"].(map[string]any)
		if v, ok := gates["NewGate"]; !ok || v != nil || len(gates) != 1 || patch["kind"] != "KubeletConfiguration" {
			t.Errorf("patch %v: want a KubeletConfiguration merge patch with featureGates {NewGate: null} only", patch)
		}
	}
	if !strings.Contains(string(k.Raw), "[NewGate]") {
		t.Errorf("Raw does not name what is left out:\n%s", k.Raw)
	}

	// The facts: NewGate is not asked of that profile's kubelet, still of the others
	// and of the API server; OldGate of every kubelet.
	r, err := k.Requested()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(r.LeftOutKubeletGates["kubelet-v1.36.3"], []string{"NewGate"}) {
		t.Errorf("Requested.LeftOutKubeletGates = %v", r.LeftOutKubeletGates)
	}
	if _, asked := r.KubeletGate("NewGate", "kubelet-v1.36.3"); asked {
		t.Error("NewGate asked of the kubelet it was left out of")
	}
	if on, asked := r.KubeletGate("NewGate", "defaults"); !on || !asked {
		t.Error("NewGate not asked of the other kubelets")
	}
	if on, asked := r.KubeletGate("OldGate", "kubelet-v1.36.3"); on || !asked {
		t.Error("OldGate, known to v1.36.3, not asked of its kubelet")
	}
	if on, asked := r.APIServerGate("NewGate"); !on || !asked {
		t.Error("NewGate not asked of the API server")
	}
	if key, value := r.LeftOutSetting("kubelet-v1.36.3"); key != "featureGates left out" || value != "NewGate (unknown to kubelet v1.36.3: at its default)" {
		t.Errorf("LeftOutSetting = %q, %q", key, value)
	}

	// The pre-boot checks: NewGate is checked by the API server and the v1.37.2
	// kubelets, not by the v1.36.3 one.
	if got := strings.Join(apiServerGateSet(r), ","); got != "NewGate=true,OldGate=false" {
		t.Errorf("API server's gate set = %s", got)
	}
	cfg, _, err := k.clusterConfig("podlifecycle/node:v1.37.2", func(string) (string, error) { return "id", nil })
	if err != nil {
		t.Fatal(err)
	}
	cfg.Name = "plc-skewed"
	checks, err := kubeletGateChecks(cfg, r)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, c := range checks {
		for _, n := range c.Nodes {
			got[n] = strings.Join(c.Gates, ",")
		}
	}
	want := map[string]string{
		"plc-skewed-control-plane": "NewGate=true,OldGate=false",
		"plc-skewed-worker":        "NewGate=true,OldGate=false",
		"plc-skewed-worker2":       "OldGate=false,OwnGate=false",
	}
	if !maps.Equal(got, want) {
		t.Errorf("kubelet checks %v, want %v", got, want)
	}

	// The cluster's name: the same from the same inputs, in another process too
	// (another state directory), and another one without the patch.
	again, err := prepareKindConfig(path, skewedOptions(state))
	if err != nil {
		t.Fatal(err)
	}
	elsewhere, err := prepareKindConfig(path, skewedOptions(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	name := nameOf(t, k, "podlifecycle/node:v1.37.2")
	if n := nameOf(t, again, "podlifecycle/node:v1.37.2"); n != name {
		t.Errorf("same inputs, names %s and %s", name, n)
	}
	if n := nameOf(t, elsewhere, "podlifecycle/node:v1.37.2"); n != name {
		t.Errorf("another state directory, names %s and %s", name, n)
	}
	o := skewedOptions(state)
	o.KubeletKnows = nil
	plain, err := prepareKindConfig(path, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(plain.LeftOut()) != 0 {
		t.Errorf("KubeletKnows nil left %v out", plain.LeftOut())
	}
	if n := nameOf(t, plain, "podlifecycle/node:v1.37.2"); n == name {
		t.Errorf("the patch must be part of the name %s", n)
	}
}

// What is never left out: a gate the config sets itself (cluster-wide or on that
// node), one no release knows (the API server refuses it before any node boots), and
// anything on a node running the control plane's kubelet (no skew: the run's node
// image is v1.36.3, where the variant is the stock image).
func TestLeaveOutKeepsWhatIsNotTheRunsToLeave(t *testing.T) {
	content := strings.Replace(skewed, "nodes:\n", "featureGates:\n  AuthoredNewGate: true\nnodes:\n", 1)
	path := writeConfig(t, "skewed.yaml", content)
	o := skewedOptions(t.TempDir())
	o.FeatureGates = map[string]bool{"NewGate": true, "AuthoredNewGate": true, "OwnGate": true, "NoSuchGate": true}
	k, err := prepareKindConfig(path, o)
	if err != nil {
		t.Fatal(err)
	}
	if got := k.LeftOut()["kubelet-v1.36.3"]; !slices.Equal(got, []string{"NewGate"}) {
		t.Errorf("left out %v, want NewGate only", got)
	}
	r, _ := k.Requested()
	if !slices.Contains(apiServerGateSet(r), "NoSuchGate=true") {
		t.Errorf("the API server's check lacks NoSuchGate: %v", apiServerGateSet(r))
	}
	cfg, _, _ := k.clusterConfig("podlifecycle/node:v1.37.2", func(string) (string, error) { return "id", nil })
	cfg.Name = "c"
	checks, _ := kubeletGateChecks(cfg, r)
	for _, c := range checks {
		if slices.Contains(c.Nodes, "c-worker2") {
			if got := strings.Join(c.Gates, ","); got != "AuthoredNewGate=true,NoSuchGate=true,OwnGate=false" {
				t.Errorf("v1.36.3 kubelet checked with %s", got)
			}
		}
	}

	o = skewedOptions(t.TempDir())
	o.NodeImage = "podlifecycle/node:v1.36.3"
	k, err = prepareKindConfig(path, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(k.LeftOut()) != 0 {
		t.Errorf("no skew on v1.36.3, yet %v left out", k.LeftOut())
	}
}

// A node that already has a patches directory gets one with its files and the
// generated patch; a patch there that sets the gate keeps it; a directory that is not
// mounted from the host cannot be merged and is refused with the reason.
func TestLeaveOutMergesANodesPatchesDirectory(t *testing.T) {
	dir := t.TempDir()
	own := filepath.Join(dir, "kubelet-patches", "max-2s")
	if err := os.MkdirAll(own, 0o755); err != nil {
		t.Fatal(err)
	}
	existing := "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncrashLoopBackOff:\n  maxContainerRestartPeriod: 2s\nfeatureGates:\n  PatchedGate: true\n"
	if err := os.WriteFile(filepath.Join(own, "kubeletconfiguration0+merge.yaml"), []byte(existing), 0o644); err != nil {
		t.Fatal(err)
	}
	// The node names a patches directory, mounted from the host.
	withDir := strings.Replace(skewed, "        value: OwnGate=false\n", "        value: OwnGate=false\n  - |\n    kind: JoinConfiguration\n    patches:\n      directory: /kind/kubelet-patches\n"+
		"  extraMounts:\n  - hostPath: kubelet-patches/max-2s\n    containerPath: /kind/kubelet-patches\n    readOnly: true\n", 1)
	path := filepath.Join(dir, "skewed.yaml")
	if err := os.WriteFile(path, []byte(withDir), 0o644); err != nil {
		t.Fatal(err)
	}
	o := skewedOptions(t.TempDir())
	o.FeatureGates = map[string]bool{"NewGate": true, "PatchedGate": true}
	knows := func(release string) (map[string]bool, error) {
		known, err := fakeKnows(release)
		if release == "v1.37.2" {
			known["PatchedGate"] = true
		}
		return known, err
	}
	o.KubeletKnows = knows
	k, err := prepareKindConfig(path, o)
	if err != nil {
		t.Fatal(err)
	}
	if got := k.LeftOut()["kubelet-v1.36.3"]; !slices.Equal(got, []string{"NewGate"}) {
		t.Errorf("left out %v, want NewGate (PatchedGate is the node's own patch's)", got)
	}
	n := k.Config.Nodes[2]
	m := n.ExtraMounts[len(n.ExtraMounts)-1]
	if m.ContainerPath != leftOutPatchesPath {
		t.Fatalf("last mount %v", m)
	}
	b, err := os.ReadFile(filepath.Join(m.HostPath, "kubeletconfiguration0+merge.yaml"))
	if err != nil || string(b) != existing {
		t.Errorf("the node's own patch is not in the generated directory: %q, %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(m.HostPath, leftOutPatchFile)); err != nil {
		t.Error(err)
	}

	// Without the mount, the directory's files cannot be read from the host.
	unmounted := strings.Replace(withDir, "  extraMounts:\n  - hostPath: kubelet-patches/max-2s\n    containerPath: /kind/kubelet-patches\n    readOnly: true\n", "", 1)
	if err := os.WriteFile(path, []byte(unmounted), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := prepareKindConfig(path, o); err == nil || !strings.Contains(err.Error(), "is not mounted from the host") {
		t.Errorf("an unmounted patches directory: %v", err)
	}
}

// The real gate lists: the gates v1.37.2 knows and v1.36.3 does not, one of which a
// run's FEATURE_GATES leaves out of kind-configs/default.yaml's v1.36.3 worker.
func TestLeaveOutWithTheRealGateLists(t *testing.T) {
	if testing.Short() {
		t.Skip("reads the module cache")
	}
	ctx := context.Background()
	newer, err := preflight.KnownGates(ctx, "v1.37.2")
	if err != nil {
		t.Skip("the module cache lacks v1.37.2's sources (offline):", err)
	}
	older, err := preflight.KnownGates(ctx, "v1.36.3")
	if err != nil {
		t.Skip("the module cache lacks v1.36.3's sources (offline):", err)
	}
	var added []string
	for g := range newer {
		if !older[g] {
			added = append(added, g)
		}
	}
	slices.Sort(added)
	t.Logf("%d gates v1.37.2 knows and v1.36.3 does not: %s", len(added), strings.Join(added, " "))
	const example = "StatefulSetRecreateStrategy"
	if !slices.Contains(added, example) {
		t.Fatalf("%s is not among them", example)
	}
	o := KindOptions{NodeImage: "podlifecycle/node:v1.37.2", StateDir: t.TempDir(),
		FeatureGates: map[string]bool{example: true, "ContainerStopSignals": true},
		KubeletKnows: func(release string) (map[string]bool, error) { return preflight.KnownGates(ctx, release) }}
	k, err := prepareKindConfig("../../kind-configs/default.yaml", o)
	if err != nil {
		t.Fatal(err)
	}
	if got := k.LeftOut(); len(got) != 1 || !slices.Equal(got["kubelet-v1.36.3"], []string{example}) {
		t.Errorf("kind-configs/default.yaml: left out %v, want %s on kubelet-v1.36.3 only", got, example)
	}
	t.Logf("FEATURE_GATES=%s=true on kind-configs/default.yaml: left out %v", example, k.LeftOut())
}
