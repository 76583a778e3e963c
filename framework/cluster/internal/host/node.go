package host

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// FlushWriteback writes back the page cache that creating the cluster left dirty, by a
// sync(2) inside node (sync is not confined to a mount namespace: it flushes every
// filesystem of the Docker host's kernel).
//
// Why: creating a cluster seeds each node's /var volume and unpacks the preloaded
// images into every node's snapshotter, leaving over a gigabyte dirty on a machine of
// this kind. The first fsync on that filesystem afterwards waits for the writeback.
// Measured here: containerd handled the first container exit after boot 4.1–4.2 s late
// (exit event → "shim disconnected" once Dirty had drained to zero), so a spec's first
// restart came 4–4.8 s after the exit instead of 0.5–1 s. Flushing once, before any
// spec runs, puts that cost where it belongs: in the cluster's creation time.
func FlushWriteback(ctx context.Context, node string) (dirtyKB int, took time.Duration, err error) {
	start := time.Now()
	out, err := exec.CommandContext(ctx, "docker", "exec", node, "sh", "-c", "grep '^Dirty:' /proc/meminfo; sync").CombinedOutput()
	if err != nil {
		return 0, 0, fmt.Errorf("flushing the page cache from node %s: %v: %s", node, err, strings.TrimSpace(string(out)))
	}
	fmt.Sscanf(strings.TrimSpace(strings.TrimPrefix(string(out), "Dirty:")), "%d", &dirtyKB)
	return dirtyKB, time.Since(start), nil
}

// RunsKindNode reports whether a node is a kind node (providerID
// kind://docker/...) whose container this machine's Docker runs: a kind cluster made
// by hand and reached through KUBECONFIG gives the same node shell and the same clock
// as one the suite made.
func RunsKindNode(ctx context.Context, name, providerID string) bool {
	return strings.HasPrefix(providerID, "kind://docker/") &&
		exec.CommandContext(ctx, "docker", "inspect", "--type", "container", name).Run() == nil
}

// NodeImage is the image a node's container was made from and the labels it carries:
// the image's own (a node image with another kubelet names its version and sha256)
// and kind's.
func NodeImage(ctx context.Context, name string) (image string, labels map[string]string, err error) {
	out, err := exec.CommandContext(ctx, "docker", "inspect", "--type", "container", "--format", "{{json .Config}}", name).Output()
	if err != nil {
		return "", nil, fmt.Errorf("docker inspect %s: %w", name, err)
	}
	var cfg struct {
		Image  string
		Labels map[string]string
	}
	if err := json.Unmarshal(out, &cfg); err != nil {
		return "", nil, fmt.Errorf("docker inspect %s: %w", name, err)
	}
	return cfg.Image, cfg.Labels, nil
}
