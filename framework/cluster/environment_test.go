package cluster

import (
	"strings"
	"testing"
)

// In a pod of the cluster (the runner Job) with no kubeconfig the provider is an
// existing cluster reached by the pod's service account; outside a pod its
// configuration says what is missing.
func TestSelectInCluster(t *testing.T) {
	p, err := Select("kind-configs/default.yaml", "", true, DefaultKindOptions())
	if err != nil {
		t.Fatal(err)
	}
	if e, ok := p.(Existing); !ok || e.Kubeconfig != "" {
		t.Fatalf("provider = %#v, want Existing without a kubeconfig", p)
	}
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	c := &Cluster{Name: "in-cluster", Provider: "existing"}
	if _, err := c.RestConfig(); err == nil || !strings.Contains(err.Error(), "runner Job") {
		t.Errorf("outside a pod: %v, want an error naming the runner Job", err)
	}
}
