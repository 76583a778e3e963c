package cluster

import (
	"context"
	"fmt"
	"time"

	"k8s.io/client-go/tools/clientcmd"
)

// Existing is a cluster someone else made: the suite only runs specs in it, in
// namespaces of its own, and never creates or deletes the cluster.
type Existing struct {
	// Kubeconfig reaches it; empty for the cluster a runner pod runs in.
	Kubeconfig string
}

func (e Existing) Acquire(ctx context.Context) (*Cluster, error) {
	if e.Kubeconfig == "" {
		c := &Cluster{Name: "in-cluster", Provider: "existing"}
		if err := answers(ctx, c); err != nil {
			return nil, fmt.Errorf("the cluster this pod runs in: %w", err)
		}
		return c, nil
	}
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
