package host

import (
	"context"
	"fmt"
	"os/exec"
	"strings"

	"sigs.k8s.io/kind/pkg/apis/config/v1alpha4"
)

// Constraints are what the Docker host imposes on every kind node.
type Constraints struct {
	// CgroupV1: kubelet v1.37 refuses cgroup v1 unless failCgroupV1 is false.
	CgroupV1 bool
	// CannotLowerOOMScoreAdj: containerd must then keep pods' oom_score_adj at or
	// above its own (restrict_oom_score_adj), or every sandbox fails to start.
	CannotLowerOOMScoreAdj bool
}

// Probe finds out what the Docker host imposes on nodes, by asking Docker and by
// trying, in a throw-away privileged node container, what containerd would do.
func Probe(ctx context.Context, nodeImage string) (Constraints, error) {
	var c Constraints
	out, err := exec.CommandContext(ctx, "docker", "info", "--format", "{{.CgroupVersion}}").Output()
	if err != nil {
		return c, fmt.Errorf("docker info: %w", err)
	}
	c.CgroupV1 = strings.TrimSpace(string(out)) == "1"
	_, err = dockerRunOutput(ctx, "--privileged", "--entrypoint", "sh", nodeImage, "-c", "echo -999 > /proc/self/oom_score_adj")
	c.CannotLowerOOMScoreAdj = err != nil
	return c, nil
}

// Adapt adds the patches this host needs to cfg and returns what it added, to be
// printed; on an ordinary host it adds nothing.
func Adapt(cfg *v1alpha4.Cluster, c Constraints) []string {
	var notes []string
	if c.CgroupV1 {
		cfg.KubeadmConfigPatches = append(cfg.KubeadmConfigPatches,
			"kind: KubeletConfiguration\nfailCgroupV1: false\n")
		notes = append(notes, "host uses cgroup v1: KubeletConfiguration failCgroupV1: false")
	}
	if c.CannotLowerOOMScoreAdj {
		cfg.ContainerdConfigPatches = append(cfg.ContainerdConfigPatches,
			"[plugins.\"io.containerd.grpc.v1.cri\"]\n  restrict_oom_score_adj = true\n")
		notes = append(notes, "host cannot lower oom_score_adj: containerd restrict_oom_score_adj = true")
	}
	return notes
}
