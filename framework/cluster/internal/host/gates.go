package host

import (
	"context"
	"fmt"
	"os"
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
// and may set them: the kubelet applies --feature-gates before it validates its other
// flags, so with a node label it must refuse, it stops at the first of the two checks
// that fails, without starting. Used for nodes whose kubelet is of another version
// than the node image's API server.
func ValidateKubeletGates(ctx context.Context, gates []string, nodeImage string) error {
	if len(gates) == 0 {
		return nil
	}
	if _, err := ImageID(nodeImage); err != nil {
		return err
	}
	out, _ := dockerRunOutput(ctx, "--entrypoint", "/usr/bin/kubelet", nodeImage,
		"--feature-gates="+strings.Join(gates, ","), "--node-labels=kubernetes.io/podlifecycle-gate-check=refused")
	switch {
	case strings.Contains(out, "failed to set feature gates"):
		_, why, _ := strings.Cut(out, "failed to set feature gates")
		return fmt.Errorf("kubelet feature gates %v rejected by the kubelet of node image %s: failed to set feature gates%s", gates, nodeImage, strings.TrimSuffix(firstLine(why), `"`))
	case strings.Contains(out, "podlifecycle-gate-check"):
		return nil // the gates were taken; the label check refused, as meant
	default:
		return fmt.Errorf("checking kubelet feature gates %v with the kubelet of node image %s: unexpected answer: %s", gates, nodeImage, firstLine(out))
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
