package cluster

import (
	"strings"
	"testing"
)

// E2E_IN_CLUSTER=1 without KUBECONFIG is an existing cluster reached by the pod's
// service account; the kind-only switches are refused there as with KUBECONFIG; and
// outside a pod its configuration says what is missing.
func TestFromEnvironmentInCluster(t *testing.T) {
	t.Setenv("KUBECONFIG", "")
	t.Setenv(InClusterVar, "1")
	for _, v := range []string{"FEATURE_GATES", "KUBELET_FEATURE_GATES", "KUBELET", "KUBELET_VERSION"} {
		t.Setenv(v, "")
	}
	p, err := FromEnvironment("kind-configs/default.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if e, ok := p.(Existing); !ok || e.Kubeconfig != "" {
		t.Fatalf("provider = %#v, want Existing without a kubeconfig", p)
	}
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	c := &Cluster{Name: "in-cluster", Provider: "existing"}
	if _, err := c.RestConfig(); err == nil || !strings.Contains(err.Error(), InClusterVar+"=1") {
		t.Errorf("outside a pod: %v, want an error naming %s", err, InClusterVar)
	}
	t.Setenv("FEATURE_GATES", "A=true")
	if _, err := FromEnvironment("kind-configs/default.yaml"); err == nil || !strings.Contains(err.Error(), "FEATURE_GATES is set, but E2E_IN_CLUSTER=1 runs in an existing cluster") {
		t.Errorf("FEATURE_GATES in a pod: %v", err)
	}
}
