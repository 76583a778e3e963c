package host

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// ValidateGates asks the node image's own Kubernetes whether it knows the gates and
// may set them, before any node boots: the kube-apiserver image of the same version
// parses --feature-gates exactly as every component does, and rejects unknown gates
// and locked ones set to their non-default value.
func ValidateGates(ctx context.Context, gates []string, nodeImage string) error {
	if len(gates) == 0 {
		return nil
	}
	version, err := dockerRunOutput(ctx, "--entrypoint", "cat", nodeImage, "/kind/version")
	if err != nil {
		return fmt.Errorf("reading /kind/version of node image %s: %w", nodeImage, err)
	}
	apiserver := "registry.k8s.io/kube-apiserver:" + strings.TrimSpace(version)
	if _, err := ImageID(apiserver); err != nil {
		fmt.Fprintf(os.Stderr, "warning: %s is not in Docker; feature gates %v are checked only when the cluster boots\n", apiserver, gates)
		return nil
	}
	out, err := dockerRunOutput(ctx, "--entrypoint", "kube-apiserver", apiserver, "--feature-gates="+strings.Join(gates, ","), "--version")
	if err != nil {
		return fmt.Errorf("feature gates rejected by Kubernetes %s: %s", strings.TrimSpace(version), failureLine(out))
	}
	return nil
}

// ValidateKubeletGates asks the kubelet of a node image whether it knows the gates
// and may set them, for the nodes that will run it: the kubelet applies
// --feature-gates before it validates its other flags, so with a node label it must
// refuse it stops at the first of the two checks that fails, without starting. The
// error names the nodes and the kubelet's version (the image's label), so a gate an
// older worker's kubelet does not know is refused with that worker named.
func ValidateKubeletGates(ctx context.Context, gates []string, nodeImage string, nodes []string) error {
	if len(gates) == 0 {
		return nil
	}
	if _, err := ImageID(nodeImage); err != nil {
		return err
	}
	version, _ := exec.CommandContext(ctx, "docker", "image", "inspect", "--format", `{{index .Config.Labels "podlifecycle.kubelet.version"}}`, nodeImage).Output()
	out, _ := dockerRunOutput(ctx, "--entrypoint", "/usr/bin/kubelet", nodeImage,
		"--feature-gates="+strings.Join(gates, ","), "--node-labels=kubernetes.io/podlifecycle-gate-check=refused")
	return kubeletGateAnswer(out, gates, kubeletOf(strings.TrimSpace(string(version)), nodeImage, nodes))
}

// kubeletOf names a kubelet for an error: its version, the nodes that run it, their image.
func kubeletOf(version, image string, nodes []string) string {
	if version == "" {
		version = "(version unknown)"
	}
	node := "node"
	if len(nodes) > 1 {
		node = "nodes"
	}
	return fmt.Sprintf("the kubelet %s of %s %s (image %s)", version, node, strings.Join(nodes, ", "), image)
}

// kubeletGateAnswer reads the kubelet's answer to the gate check.
func kubeletGateAnswer(out string, gates []string, kubelet string) error {
	switch {
	case strings.Contains(out, "failed to set feature gates"):
		_, why, _ := strings.Cut(out, "failed to set feature gates")
		why = strings.TrimSuffix(firstLine(why), `"`)
		why = strings.TrimPrefix(why, "from initial flags-based config: ")
		return fmt.Errorf("feature gates %v refused by %s: %s", gates, kubelet, why)
	case strings.Contains(out, "podlifecycle-gate-check"):
		return nil // the gates were taken; the label check refused, as meant
	default:
		return fmt.Errorf("checking feature gates %v with %s: unexpected answer: %s", gates, kubelet, firstLine(out))
	}
}

// failureLine picks the component's own error out of its output: the line that says
// the command failed, not a warning printed before it (a deprecated gate's).
func failureLine(out string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "command failed") || strings.Contains(l, "Error:") {
			return strings.TrimSpace(l)
		}
	}
	return firstLine(out)
}
