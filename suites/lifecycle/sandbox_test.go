package lifecycle

import (
	"context"
	"fmt"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"

	"github.com/podlifecycle/conformance/framework/facts"
	. "github.com/podlifecycle/conformance/framework/match"
	"github.com/podlifecycle/conformance/framework/suite"
)

// sandboxRemovalBound: the kubelet of v1.37.2 removes a sandbox only in its container
// garbage collection (kuberuntime_gc.go, evictSandboxes: a sandbox not ready, with no
// containers, of a pod whose content may be removed), which runs every
// ContainerGCPeriod (1 min, pkg/kubelet/kubelet.go); the pod worker knows the pod is
// gone by the next housekeeping (housekeepingPeriod, 2 s). 15 s more for the GC pass
// on a loaded node and this spec's own polling (5 s, each a docker exec).
const sandboxRemovalBound = time.Minute + 2*time.Second + 15*time.Second

var _ = Describe("Pod sandbox", func() {
	It("is stopped once the deleted pod has left the API, and then removed from its node", suite.LongRunning, Label("TM-19", suite.Disruptive),
		suite.Timeout(podStartBound, 2*stopSandboxBound, terminationBound, 2*stopSandboxBound, sandboxRemovalBound), func(ctx SpecContext) {
			env.Require(facts.NodeShell())
			ns := env.Namespace(ctx)
			pod := shellPod("short-lived", corev1.RestartPolicyAlways, `trap "exit 0" TERM; while true; do sleep 0.2; done`)
			tl := env.Run(ctx, ns, pod)
			Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound).Should(HavePhase(corev1.PodRunning))
			running := tl.Pod()
			node := running.Spec.NodeName

			// The UID label makes the sandbox this pod's, not one of an earlier pod of the name.
			out, err := crictl(ctx, node, fmt.Sprintf("pods --namespace '^%s$' --name '^%s$' --label io.kubernetes.pod.uid=%s -q", ns, pod.Name, running.UID))
			Expect(err).NotTo(HaveOccurred())
			Expect(strings.Fields(out)).To(HaveLen(1), "one sandbox of the running pod on %s", node)
			id := strings.TrimSpace(out)
			_, err = crictl(ctx, node, "inspectp "+id)
			Expect(err).NotTo(HaveOccurred(), "the running pod's sandbox %s can be inspected", id)

			deletePod(ctx, ns, pod.Name, nil)
			Eventually(tl.Pod).WithContext(ctx).WithTimeout(terminationBound).Should(BeNil(), "the pod leaves the API")
			// The kubelet deletes the API object only after it has killed the pod, its
			// pause container with it (StopPodSandbox).
			Expect(crictl(ctx, node, "pods -q --state ready --id "+id)).To(BeEmpty(), "TM-19: the sandbox of a pod gone from the API is not Ready")

			// A kubelet that never removes sandboxes leaves this listing the NotReady
			// sandbox until the bound.
			Eventually(crictl).WithContext(ctx).WithArguments(node, "pods -q --id "+id).WithTimeout(sandboxRemovalBound).WithPolling(5*time.Second).
				Should(BeEmpty(), "TM-19: the sandbox %s of the deleted pod is removed from %s", id, node)
			out, err = crictl(ctx, node, "inspectp "+id)
			Expect(err).To(HaveOccurred(), "TM-19: inspectp still finds sandbox %s: %s", id, out)
			Expect(out).To(MatchRegexp(`(?i)not ?found`), "TM-19: inspectp fails because the sandbox is gone")
		})
})

// crictl runs one crictl command on node and returns its output, trimmed. Each call
// gets stopSandboxBound, as PC-4's do.
func crictl(ctx context.Context, node, args string) (string, error) {
	out, err := env.NodeShell(ctx, node, fmt.Sprintf("crictl --timeout=%ds %s", int(stopSandboxBound.Seconds()), args))
	return strings.TrimSpace(out), err
}
