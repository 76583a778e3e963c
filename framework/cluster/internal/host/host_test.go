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
