package restart

import (
	"fmt"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"

	"github.com/podlifecycle/conformance/framework/facts"
	. "github.com/podlifecycle/conformance/framework/match"
	"github.com/podlifecycle/conformance/framework/observe"
	"github.com/podlifecycle/conformance/framework/suite"
)

// crictlBound bounds one crictl call on a node (a docker exec and the runtime's answer)
// on a loaded 2-core machine.
const crictlBound = 30 * time.Second

var _ = Describe("In-place pod restart", Label("RestartAllContainersOnContainerExits", suite.Disruptive), func() {
	// RS-11's "the pod sandbox is kept": the runtime's own record, read with crictl on
	// the node, before and after. A kubelet that made a new sandbox (a new network
	// namespace, the pod's IP given again) shows another sandbox ID, and the old one gone.
	It("keeps the pod's sandbox: the same sandbox, still ready, before and after", Label("RS-11"),
		suite.Timeout(podStartBound, crictlBound, 4*time.Second+30*time.Second, crictlBound), func(ctx SpecContext) {
			env.Require(facts.NodeShell())
			node := restartAllContainersNode()
			ns := env.Namespace(ctx)
			trigger := allRestartTrigger()
			p := observe.WithMarkers(pod("sandboxed", corev1.RestartPolicyNever, container("main", "mark start; exec sleep 3600"), trigger))
			suite.PinTo(p, node)
			tl := env.Run(ctx, ns, p)
			Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound).Should(HaveContainerState("trigger", "Running", ""))
			uid := tl.Pod().UID
			sandboxes := func() string {
				GinkgoHelper()
				out, err := env.NodeShell(ctx, node.Name, fmt.Sprintf("crictl --timeout=%ds pods --namespace '^%s$' --label io.kubernetes.pod.uid=%s -q", int(crictlBound.Seconds()), ns, uid))
				Expect(err).NotTo(HaveOccurred(), "crictl pods on %s: %s", node.Name, out)
				return strings.Join(strings.Fields(out), " ")
			}
			before := sandboxes()
			Expect(strings.Fields(before)).To(HaveLen(1), "one sandbox for the pod before the restart: %q", before)

			Eventually(tl.Pod).WithContext(ctx).WithTimeout(4*time.Second + 30*time.Second).Should(And(
				HaveContainerRestarts("main", 1), HaveContainerState("main", "Running", "")))
			after := sandboxes()
			AddReportEntry("pod sandboxes (crictl pods) before and after the in-place restart", before+" → "+after)
			Expect(after).To(Equal(before), "RS-11: the in-place restart kept the pod's sandbox (crictl pods for pod UID %s)", uid)
			out, err := env.NodeShell(ctx, node.Name, fmt.Sprintf("crictl --timeout=%ds pods -q --state ready --id %s", int(crictlBound.Seconds()), before))
			Expect(err).NotTo(HaveOccurred())
			Expect(strings.TrimSpace(out)).To(Equal(before), "RS-11: the kept sandbox is still ready")
		})
})
