package suite

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/podlifecycle/conformance/framework/cluster"
	"github.com/podlifecycle/conformance/framework/entries"
	"github.com/podlifecycle/conformance/framework/facts"
)

const cp = "node-role.kubernetes.io/control-plane"

func testFacts() *facts.Facts {
	f := &facts.Facts{
		ServerVersion:  "v1.37.2",
		APIServerGates: facts.Gates{"ContainerStopSignals": true},
		LocalNodes:     true,
		Nodes: []facts.Node{
			{Name: "plc-cp", Labels: map[string]string{cp: ""}, KubeletVersion: "v1.37.2", KubeletGates: facts.Gates{"ContainerStopSignals": true},
				Taints: []corev1.Taint{{Key: cp, Effect: corev1.TaintEffectNoSchedule}}},
			{Name: "plc-worker", Labels: map[string]string{facts.ProfileLabel: "max-2s"}, KubeletVersion: "v1.37.2",
				KubeletGates: facts.Gates{"KubeletCrashLoopBackOffMax": true}, DeclaredFeatures: []string{"ContainerRestartRules"}},
			{Name: "plc-worker2", Labels: map[string]string{facts.ProfileLabel: "older"}, KubeletVersion: "v1.36.3",
				Taints: []corev1.Taint{{Key: "podlifecycle.io/older", Value: "true", Effect: corev1.TaintEffectNoSchedule}}},
		},
	}
	f.Nodes[1].KubeletConfig.CrashLoopBackOff.MaxContainerRestartPeriod = "2s"
	return f
}

func TestBuildClusterFacts(t *testing.T) {
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	env, err := os.ReadFile(filepath.Join(root, "images", "versions.env"))
	if err != nil {
		t.Fatal(err)
	}
	in := factsInput{
		Config: "kind-configs/default.yaml", Cluster: "plc-default-8ba62178", Facts: testFacts(),
		ControlPlane: []entries.Component{
			{Name: "kube-controller-manager", Node: "plc-cp", Gates: map[string]bool{"ContainerStopSignals": true}, Source: "kubernetes_feature_enabled of https://127.0.0.1:10257/metrics inside node plc-cp"},
			{Name: "kube-scheduler", Node: "plc-cp", Source: "unknown: kube-scheduler /metrics on 127.0.0.1:10259: exit status 22"},
		},
		Software: map[string]nodeSoftware{
			"plc-cp":     {Image: "podlifecycle/node:v1.37.2", Labels: map[string]string{"podlifecycle.inputs": "fcf30d4585253319"}, KubeletSHA256: "5e1f"},
			"plc-worker": {Image: "podlifecycle/node:v1.37.2", KubeletSHA256: "5e1f"},
			"plc-worker2": {Image: "podlifecycle/node:v1.37.2-kubelet-v1.36.3", KubeletSHA256: "15d1",
				Labels: map[string]string{cluster.KubeletVersionLabel: "v1.36.3", cluster.KubeletSHA256Label: "15d1"}},
		},
		Versions: parseVersionsEnv(string(env)),
	}
	cf := buildClusterFacts(in)
	data, err := json.MarshalIndent(cf, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s", data)

	var names []string
	for _, c := range cf.Components {
		names = append(names, c.Name+"@"+c.Node)
	}
	if got := strings.Join(names, " "); got != "kube-apiserver@ kube-controller-manager@plc-cp kube-scheduler@plc-cp kubelet@plc-cp kubelet@plc-worker kubelet@plc-worker2" {
		t.Errorf("components: %s", got)
	}
	w := cf.Nodes[1]
	if w.Profile != "max-2s" || w.KubeletSettings["crashLoopBackOff.maxContainerRestartPeriod"] != "2s" || w.KubeletSHA256 != "5e1f" || w.DeclaredFeatures[0] != "ContainerRestartRules" {
		t.Errorf("worker: %+v", w)
	}
	if got := strings.Join(cf.Nodes[2].Taints, ","); got != "podlifecycle.io/older=true:NoSchedule" {
		t.Errorf("taints: %s", got)
	}
	if len(cf.Images) != 2 || cf.Images[0].Image != "podlifecycle/node:v1.37.2" || cf.Images[1].Image != "podlifecycle/node:v1.37.2-kubelet-v1.36.3" {
		t.Fatalf("images: %+v", cf.Images)
	}
	for _, want := range []string{"Kubernetes v1.37.2", "k8s.io/kubernetes@v1.37.2", "containerd " + in.Versions["CONTAINERD_VERSION"], "Debian " + in.Versions["DEBIAN_SUITE"]} {
		if !strings.Contains(cf.Images[0].Source, want) {
			t.Errorf("stock node image's source lacks %q: %s", want, cf.Images[0].Source)
		}
	}
	if !strings.HasPrefix(cf.Images[1].Source, "kubelet v1.36.3 (sha256 15d1) from Go module k8s.io/kubernetes@v1.36.3 in place of the stock one") {
		t.Errorf("variant node image's source: %s", cf.Images[1].Source)
	}
	// What the report reads back must be what was recorded.
	var back entries.ClusterFacts
	if err := json.Unmarshal(data, &back); err != nil || back.Nodes[2].KubeletSHA256 != "15d1" || !back.Components[1].Gates["ContainerStopSignals"] {
		t.Errorf("round trip: %v %+v", err, back)
	}
}

func TestBuildClusterFactsWithoutNodeShell(t *testing.T) {
	f := testFacts()
	f.LocalNodes = false
	cf := buildClusterFacts(factsInput{Config: "KUBECONFIG", Cluster: "kind-mine", Facts: f})
	for _, c := range cf.Components[1:3] {
		if c.Gates != nil || !strings.HasPrefix(c.Source, "unknown: no node shell") {
			t.Errorf("%s: %+v", c.Name, c)
		}
	}
	if cf.Images != nil || cf.Nodes[0].KubeletSHA256 != "" {
		t.Errorf("nothing known of images or binaries without Docker: %+v %+v", cf.Images, cf.Nodes[0])
	}
	f.Nodes = f.Nodes[1:]
	cf = buildClusterFacts(factsInput{Config: "KUBECONFIG", Facts: f})
	if !strings.Contains(cf.Components[1].Source, "no node is labelled "+cp) {
		t.Errorf("a cluster that hides its control plane: %+v", cf.Components[1])
	}
	f.LocalNodes = true
	cf = buildClusterFacts(factsInput{Facts: f, Software: map[string]nodeSoftware{"plc-worker": {Err: errors.New("gone")}}})
	if cf.Images != nil {
		t.Errorf("an image Docker could not name: %+v", cf.Images)
	}
}

func TestImageSource(t *testing.T) {
	v := map[string]string{"CONTAINERD_VERSION": "v2.4.2"}
	cases := []struct {
		image  string
		labels map[string]string
		want   string
	}{
		{"podlifecycle/node:v1.36.3", nil, "images/build.sh: Kubernetes v1.36.3 (kubelet"},
		{"podlifecycle/node:v1.37.2-kubelet-sha256-ce5f0f9bbb57", map[string]string{cluster.KubeletVersionLabel: "v1.37.2-dirty", cluster.KubeletSHA256Label: "ce5f"},
			"kubelet v1.37.2-dirty (sha256 ce5f) given as KUBELET in place of the stock one; the rest images/build.sh: Kubernetes v1.37.2"},
		{"podlifecycle/node:v1.37.2-kubelet-v1.36.3", nil, "kubelet v1.36.3 from Go module k8s.io/kubernetes@v1.36.3 in place"},
		{"kindest/node:v1.37.2", nil, "not built by images/build.sh"},
		{"kindest/node:v1.37.2", map[string]string{"org.opencontainers.image.source": "https://github.com/kubernetes-sigs/kind"},
			"image labels: org.opencontainers.image.source=https://github.com/kubernetes-sigs/kind"},
	}
	for _, c := range cases {
		if got := imageSource(c.image, c.labels, v); !strings.HasPrefix(got, c.want) {
			t.Errorf("%s: got %q, want it to start with %q", c.image, got, c.want)
		}
	}
}

func TestParseVersionsEnv(t *testing.T) {
	got := parseVersionsEnv("# comment\nKUBERNETES_VERSION=${KUBERNETES_VERSION:-v1.37.2}\nETCD_VERSION=v3.7.0\n\nDEBIAN_SUITE=\"bookworm\"\n")
	if got["KUBERNETES_VERSION"] != "v1.37.2" || got["ETCD_VERSION"] != "v3.7.0" || got["DEBIAN_SUITE"] != "bookworm" || len(got) != 3 {
		t.Errorf("got %v", got)
	}
}
