package cluster

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"k8s.io/client-go/tools/clientcmd"
)

// Existing is a cluster someone else made: the suite only runs specs in it, in
// namespaces of its own, and never creates or deletes the cluster.
type Existing struct {
	Kubeconfig string
}

func (e Existing) Acquire(ctx context.Context) (*Cluster, error) {
	raw, err := clientcmd.LoadFromFile(e.Kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("reading KUBECONFIG %s: %w", e.Kubeconfig, err)
	}
	c := &Cluster{Name: raw.CurrentContext, Kubeconfig: e.Kubeconfig, Provider: "existing"}
	if err := answers(ctx, c); err != nil {
		return nil, fmt.Errorf("cluster %q of KUBECONFIG %s: %w", c.Name, e.Kubeconfig, err)
	}
	return c, nil
}

// answers checks that the cluster's API server is reachable and ready.
func answers(ctx context.Context, c *Cluster) error {
	client, err := c.Client()
	if err != nil {
		return err
	}
	// /readyz answers in milliseconds on a live API server; 15 s covers a loaded one.
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	if _, err := client.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx); err != nil {
		return fmt.Errorf("unreachable or not ready (GET /readyz): %w", err)
	}
	return nil
}

func (Existing) Release(context.Context, *Cluster, Outcome) error { return nil }

// IsLocalKindNode reports whether a node is a kind node (providerID
// kind://docker/...) whose container this machine's Docker runs: a kind cluster made
// by hand and reached through KUBECONFIG gives the same node shell and the same clock
// as one the suite made.
func IsLocalKindNode(ctx context.Context, name, providerID string) bool {
	return strings.HasPrefix(providerID, "kind://docker/") &&
		exec.CommandContext(ctx, "docker", "inspect", "--type", "container", name).Run() == nil
}
