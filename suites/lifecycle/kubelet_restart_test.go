package lifecycle

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"

	"github.com/podlifecycle/conformance/framework/facts"
	. "github.com/podlifecycle/conformance/framework/match"
)

// kubeletBackBound: `systemctl restart kubelet` returns once the new kubelet process
// has started; its API answers within seconds on kind. 60 s bounds a loaded machine.
const kubeletBackBound = 60 * time.Second

// resyncWindow: a restarted kubelet syncs every pod it finds at start-up (pod
// additions from the API server), within seconds; a readiness change it makes would
// show in this window.
const resyncWindow = 20 * time.Second

var _ = Describe("Kubelet restart", Serial, func() {
	It("keeps containers running with the same IDs and restart counts, and ready unchanged", Label("KR-1", "KR-2"), func(ctx SpecContext) {
		env.Require(facts.KubeletGate("ChangeContainerStatusOnKubeletRestart", false, ""))
		ns := env.Namespace(ctx)
		tl := env.Run(ctx, ns, shellPod("survivor", corev1.RestartPolicyAlways, "sleep 3600"))
		Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound).Should(HaveCondition(corev1.PodReady, corev1.ConditionTrue, ""))
		before := tl.Pod().Status.ContainerStatuses[0]
		node := tl.Pod().Spec.NodeName

		restartAt := time.Now()
		_, err := env.NodeShell(ctx, node, "systemctl restart kubelet")
		Expect(err).NotTo(HaveOccurred())
		Eventually(func(ctx SpecContext) error {
			_, err := env.Client.CoreV1().RESTClient().Get().Resource("nodes").Name(node).SubResource("proxy").Suffix("healthz").DoRaw(ctx)
			return err
		}).WithContext(ctx).WithTimeout(kubeletBackBound).Should(Succeed())
		Consistently(tl.Pod).WithContext(ctx).WithTimeout(resyncWindow).Should(HaveCondition(corev1.PodReady, corev1.ConditionTrue, ""))

		after := tl.Pod().Status.ContainerStatuses[0]
		Expect(after.ContainerID).To(Equal(before.ContainerID), "KR-1: same container")
		Expect(after.RestartCount).To(Equal(before.RestartCount), "KR-1: restart count unchanged")
		for _, e := range tl.Entries() {
			if e.Pod != nil && e.Seen.After(restartAt) {
				Expect(e.Pod.Status.ContainerStatuses[0].Ready).To(BeTrue(), "KR-2: ready changed across the restart:\n%s", tl)
			}
		}
	})
})
