package cluster

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
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

// runClusterPatience is how long a suite waits for a cluster its run made ahead to
// answer again: long enough for the load of suites starting side by side to pass; a
// cluster still not ready after it is broken rather than busy.
const runClusterPatience = 3 * time.Minute

// answersWithin is answers, tried again every 5 s for up to patience.
func answersWithin(ctx context.Context, c *Cluster, patience time.Duration) error {
	var last error
	err := wait.PollUntilContextTimeout(ctx, 5*time.Second, patience, true, func(ctx context.Context) (bool, error) {
		last = answers(ctx, c)
		return last == nil, nil
	})
	if err != nil && last != nil {
		return last
	}
	return err
}

func (Existing) Release(context.Context, *Cluster, Outcome) error { return nil }
