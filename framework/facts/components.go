package facts

import (
	"context"
	"fmt"
	"strings"
)

// ControlPlaneComponent is a control-plane component that serves its own /metrics.
// kubeadm binds the controller manager and the scheduler to 127.0.0.1 of the
// control-plane node, and the API server does not proxy to them, so their gates can
// only be read from inside that node.
type ControlPlaneComponent struct {
	Name string
	Port int // kubeadm's secure port, on the node's loopback
}

// ControlPlaneComponents are the components whose gates Gather cannot read through the
// API server.
func ControlPlaneComponents() []ControlPlaneComponent {
	return []ControlPlaneComponent{{"kube-controller-manager", 10257}, {"kube-scheduler", 10259}}
}

// Shell runs a script on a node and returns what it printed.
type Shell func(ctx context.Context, script string) (string, error)

// ComponentGates reads c's gates from its kubernetes_feature_enabled metric, fetched by
// shell on the control-plane node where c listens.
func ComponentGates(ctx context.Context, shell Shell, c ControlPlaneComponent) (Gates, error) {
	out, err := shell(ctx, MetricsScript(c.Port))
	if err != nil {
		return nil, fmt.Errorf("%s /metrics on 127.0.0.1:%d: %w", c.Name, c.Port, err)
	}
	gates, err := ParseFeatureMetrics(strings.NewReader(out))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.Name, err)
	}
	return gates, nil
}

// MetricsScript fetches https://127.0.0.1:<port>/metrics on a kubeadm control-plane
// node as the cluster's admin. The components authorize /metrics through the API
// server: the apiserver-kubelet-client certificate (a user in no group) gets 403 on a
// v1.37.2 node, while admin.conf's user is in kubeadm:cluster-admins. curl is in kind's
// base image and in the project's node image alike.
func MetricsScript(port int) string {
	return fmt.Sprintf(`set -e
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
sed -n 's/^ *client-certificate-data: *//p' /etc/kubernetes/admin.conf | base64 -d >"$d/crt"
sed -n 's/^ *client-key-data: *//p' /etc/kubernetes/admin.conf | base64 -d >"$d/key"
curl -sSk --fail --max-time 10 --cert "$d/crt" --key "$d/key" https://127.0.0.1:%d/metrics`, port)
}
