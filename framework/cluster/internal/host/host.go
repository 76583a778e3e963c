// Package host is the kind provider's plumbing on this machine's Docker: it checks a
// config's feature gates with the node image's own Kubernetes before any node boots,
// probes what the Docker host imposes on nodes and adapts a config to it, flushes the
// page cache a new cluster left dirty, and tells whether a node is a container here.
// It is internal so that package cluster's API stays the provider's, as in kind's
// own pkg/cluster.
package host

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
)

// CheckDocker fails unless a Docker daemon answers, saying how to start one: every
// kind node is a container of it.
func CheckDocker() error {
	if out, err := exec.Command("docker", "info", "--format", "{{.ServerVersion}}").CombinedOutput(); err != nil {
		return fmt.Errorf("kind needs a Docker daemon and none answers (docker info: %v: %s); start dockerd, or run `make images`, which starts one under CI", err, bytes.TrimSpace(out))
	}
	return nil
}

// ImageID is the Docker ID of a local image; the project uses no registry, so an
// image missing here has to be built.
func ImageID(image string) (string, error) {
	out, err := exec.Command("docker", "image", "inspect", "--format", "{{.Id}}", image).Output()
	if err != nil {
		return "", fmt.Errorf("node image %s is not in Docker; build it with `make images` (no registry is used)", image)
	}
	return strings.TrimSpace(string(out)), nil
}

func dockerRunOutput(ctx context.Context, args ...string) (string, error) {
	out, err := exec.CommandContext(ctx, "docker", append([]string{"run", "--rm"}, args...)...).CombinedOutput()
	return string(out), err
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
