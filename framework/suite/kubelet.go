package suite

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// KubeletBackBound: `systemctl restart kubelet` returns once the new kubelet process
// has started; its API answers within seconds on kind. 60 s bounds a loaded machine.
const KubeletBackBound = 60 * time.Second

// KubeletRestart is when a node's kubelet was restarted, on the runner's clock: when
// the restart was asked for, when systemctl returned, and when the new kubelet first
// answered through the API server's node proxy.
type KubeletRestart struct{ Called, Returned, Answered time.Time }

// RestartKubelet restarts node's kubelet and waits until it answers again (its wait
// takes KubeletBackBound). A node shell: the spec must be Disruptive.
func (e *Env) RestartKubelet(ctx SpecContext, node string) KubeletRestart {
	GinkgoHelper()
	r := KubeletRestart{Called: time.Now()}
	_, err := e.NodeShell(ctx, node, "systemctl restart kubelet")
	Expect(err).NotTo(HaveOccurred())
	r.Returned = time.Now()
	Eventually(func(ctx SpecContext) error {
		_, err := e.Client.CoreV1().RESTClient().Get().Resource("nodes").Name(node).SubResource("proxy").Suffix("healthz").DoRaw(ctx)
		return err
	}).WithContext(ctx).WithTimeout(KubeletBackBound).WithPolling(100*time.Millisecond).Should(Succeed(), "the kubelet of %s answers again", node)
	r.Answered = time.Now()
	return r
}
