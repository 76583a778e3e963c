package host

import (
	"strings"
	"testing"

	"sigs.k8s.io/kind/pkg/apis/config/v1alpha4"
)

func TestAdapt(t *testing.T) {
	var cfg v1alpha4.Cluster
	if notes := Adapt(&cfg, Constraints{}); len(notes) != 0 || len(cfg.KubeadmConfigPatches) != 0 || len(cfg.ContainerdConfigPatches) != 0 {
		t.Fatalf("an ordinary host needs nothing, got %v", notes)
	}
	notes := Adapt(&cfg, Constraints{CgroupV1: true, CannotLowerOOMScoreAdj: true})
	if len(notes) != 2 || !strings.Contains(cfg.KubeadmConfigPatches[0], "failCgroupV1: false") ||
		!strings.Contains(cfg.ContainerdConfigPatches[0], "restrict_oom_score_adj = true") {
		t.Fatalf("notes %v, patches %v %v", notes, cfg.KubeadmConfigPatches, cfg.ContainerdConfigPatches)
	}
}

// The component's error, not the deprecation warning printed before it.
func TestFailureLine(t *testing.T) {
	out := `I1130 22:00:38.384016       1 feature_gate.go:362] "Warning: setting deprecated feature gate. It will be removed in a future release." featureGate="ChangeContainerStatusOnKubeletRestart"
E1130 22:00:38.499269       1 run.go:72] "command failed" err="unrecognized feature gate: NoSuchGate"`
	if got := failureLine(out); !strings.Contains(got, "unrecognized feature gate: NoSuchGate") {
		t.Errorf("failureLine = %q", got)
	}
}

// The kubelet's refusal names the gate, the kubelet's version and the nodes that run
// it; its refusal of the probe label means the gates were taken.
func TestKubeletGateAnswer(t *testing.T) {
	kubelet := kubeletOf("v1.36.3", "podlifecycle/node:v1.37.2-kubelet-v1.36.3", []string{"plc-default-1-worker4"})
	unknown := `E1201 14:00:00.000000    1 run.go:72] "command failed" err="failed to set feature gates from initial flags-based config: unrecognized feature gate: InPlacePodVerticalScalingMemoryBackedVolumes"`
	err := kubeletGateAnswer(unknown, []string{"InPlacePodVerticalScalingMemoryBackedVolumes=true"}, kubelet)
	want := "feature gates [InPlacePodVerticalScalingMemoryBackedVolumes=true] refused by the kubelet v1.36.3 of node plc-default-1-worker4 (image podlifecycle/node:v1.37.2-kubelet-v1.36.3): unrecognized feature gate: InPlacePodVerticalScalingMemoryBackedVolumes"
	if err == nil || err.Error() != want {
		t.Errorf("unknown gate: %v\nwant %s", err, want)
	}
	taken := `E1201 14:00:00.000000    1 run.go:72] "command failed" err="failed to validate kubelet flags: unknown 'kubernetes.io' or 'k8s.io' labels specified with --node-labels: [kubernetes.io/podlifecycle-gate-check]"`
	if err := kubeletGateAnswer(taken, []string{"A=true"}, kubelet); err != nil {
		t.Errorf("gates taken: %v", err)
	}
	if err := kubeletGateAnswer("exec format error", []string{"A=true"}, kubelet); err == nil || !strings.Contains(err.Error(), "unexpected answer") {
		t.Errorf("an unexpected answer must be an error: %v", err)
	}
}
