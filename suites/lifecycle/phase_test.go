package lifecycle

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"

	"github.com/podlifecycle/conformance/framework/examples"
	. "github.com/podlifecycle/conformance/framework/match"
)

// podStartBound bounds the start of a pod whose images are already on the node: the
// kubelet's pod worker, sandbox creation and container start take seconds on kind;
// 60 s leaves room for a 2-core machine under load without hiding a stuck pod.
const podStartBound = 60 * time.Second

var _ = Describe("Pod phase", func() {
	It("takes the docs' web-server pod from Pending to Running, with every lifecycle condition True in order",
		Label("PL-1", "PL-2", "PC-2"), func(ctx SpecContext) {
			ns := env.Namespace(ctx)
			tl := env.Run(ctx, ns, examples.WebServer())

			Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound).Should(And(
				HavePhase(corev1.PodRunning), HaveCondition(corev1.PodReady, corev1.ConditionTrue, "")))

			By("PL-1: Pending until bound and started, then Running with its container running")
			Expect(tl.Phases()).To(Equal([]corev1.PodPhase{corev1.PodPending, corev1.PodRunning}),
				"phases seen, in order:\n%s", tl)
			for _, p := range tl.Pods() {
				if p.Status.Phase == corev1.PodPending {
					continue
				}
				Expect(p).To(HaveContainerState("nginx", "Running", ""), "at the first Running status")
				break
			}
			for _, p := range tl.Pods() {
				if p.Spec.NodeName == "" {
					Expect(p).To(HavePhase(corev1.PodPending), "while the pod was not yet bound to a node")
				}
			}

			By("PL-2: every phase seen is one of the five documented values")
			for _, phase := range tl.Phases() {
				Expect(phase).To(BeElementOf(corev1.PodPending, corev1.PodRunning, corev1.PodSucceeded, corev1.PodFailed, corev1.PodUnknown))
			}

			By("PC-2: the lifecycle conditions became True in the documented order")
			// The docs give the order "roughly" as PodScheduled, PodReadyToStartContainers,
			// Initialized, ContainersReady, Ready; PC-3 makes it precise for a pod without
			// init containers: Initialized turns True before the sandbox exists. So the
			// order asserted is PodScheduled ≤ Initialized ≤ PodReadyToStartContainers ≤
			// ContainersReady ≤ Ready, on the API's whole-second lastTransitionTimes.
			Expect(tl.Pod()).To(HaveConditionsTrueInOrder(corev1.PodScheduled, corev1.PodInitialized,
				corev1.PodReadyToStartContainers, corev1.ContainersReady, corev1.PodReady))
			AddReportEntry("conditions first seen True (watch, ms)", tl.ConditionsFirstTrue())
		})
})
