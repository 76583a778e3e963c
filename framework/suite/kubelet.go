package suite

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// KubeletBackBound: `systemctl restart kubelet` returns once the new kubelet process
// has started; its API answers within seconds on kind. 60 s bounds a loaded machine.
// It bounds the container runtime's return as well: containerd is a notify service,
// so systemctl returns once it is ready, and crictl answers a moment later.
const KubeletBackBound = 60 * time.Second

// ServiceRestart is when a node service (the kubelet, or the container runtime) was
// restarted, on the runner's clock: when the restart was asked for, when systemctl
// returned, and when the service first answered again (the kubelet through the API
// server's node proxy, the runtime to crictl on the node).
type ServiceRestart struct{ Called, Returned, Answered time.Time }

// RestartKubelet restarts node's kubelet and waits until it answers again through the
// API server's node proxy (its wait takes KubeletBackBound). A node shell: the spec
// must be Disruptive.
func (e *Env) RestartKubelet(ctx SpecContext, node string) ServiceRestart {
	GinkgoHelper()
	return e.restartService(ctx, node, "kubelet", func(ctx SpecContext) error {
		_, err := e.Client.CoreV1().RESTClient().Get().Resource("nodes").Name(node).SubResource("proxy").Suffix("healthz").DoRaw(ctx)
		return err
	})
}

// RestartRuntime restarts node's container runtime service (containerd on a kind node;
// the containers' shims run on, as on any containerd node) and waits until it answers
// crictl again. A node shell: the spec must be Disruptive.
func (e *Env) RestartRuntime(ctx SpecContext, node string) ServiceRestart {
	GinkgoHelper()
	return e.restartService(ctx, node, "containerd", func(ctx SpecContext) error {
		_, err := e.NodeShell(ctx, node, "crictl --timeout 2s info >/dev/null")
		return err
	})
}

// restartService restarts unit on node and polls answers until it succeeds.
func (e *Env) restartService(ctx SpecContext, node, unit string, answers func(SpecContext) error) ServiceRestart {
	GinkgoHelper()
	r := ServiceRestart{Called: time.Now()}
	_, err := e.NodeShell(ctx, node, "systemctl restart "+unit)
	Expect(err).NotTo(HaveOccurred())
	r.Returned = time.Now()
	Eventually(answers).WithContext(ctx).WithTimeout(KubeletBackBound).WithPolling(100*time.Millisecond).
		Should(Succeed(), "%s of %s answers again", unit, node)
	r.Answered = time.Now()
	return r
}
