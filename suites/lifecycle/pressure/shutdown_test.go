package pressure

import (
	"fmt"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/podlifecycle/conformance/framework/facts"
	. "github.com/podlifecycle/conformance/framework/match"
	"github.com/podlifecycle/conformance/framework/suite"
)

const (
	// logind's signal of a coming shutdown (true) or of its cancellation (false), sent
	// on the node's system bus as the upstream node e2e tests emulate one: the kubelet
	// listens for it, and nothing else on a kind node does.
	prepareForShutdown = "dbus-send --system --type=signal /org/freedesktop/login1 org.freedesktop.login1.Manager.PrepareForShutdown boolean:"
	// The kubelet stops its ordinary pods within the first shutdownGracePeriod −
	// shutdownGracePeriodCriticalPods (15 s on the node-pressure worker); the spec's pod
	// exits on TERM at once, so what counts is the signal's delivery and the status
	// write: seconds. +10 s for a loaded 2-core machine.
	shutdownStopBound = 15*time.Second + 10*time.Second
	// After the cancellation the kubelet reports its node Ready again at its next
	// status update (10 s), and the DaemonSets replace the node's critical pods the
	// shutdown stopped: 60 s on a loaded machine.
	shutdownBackBound = 60 * time.Second
)

func shutdownSpecs() {
	Describe("A graceful node shutdown", func() {
		It("stops the node's pods with DisruptionTarget reason TerminationByKubelet",
			Label("PC-8"), suite.Timeout(podStartBound, shutdownStopBound, shutdownBackBound), func(ctx SpecContext) {
				env.Require(facts.NodeShell())
				node := env.OwnWorker("node-pressure")
				Expect(node.KubeletConfig.ShutdownGracePeriod).NotTo(Or(BeEmpty(), Equal("0s")),
					"the kubelet of %s has no shutdownGracePeriod: its node is not the one kind-configs/backoff-profiles.yaml describes", node.Name)
				ns := env.Namespace(ctx)
				tl := env.Run(ctx, ns, suite.PinToOwn(&corev1.Pod{
					ObjectMeta: metav1.ObjectMeta{Name: "shut-down"},
					Spec: corev1.PodSpec{
						RestartPolicy: corev1.RestartPolicyNever,
						Containers: []corev1.Container{{
							Name: "main", Image: "busybox:1.28",
							Command: []string{"sh", "-c", "trap 'exit 0' TERM; while true; do sleep 1; done"},
						}},
					},
				}, node))
				Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound).Should(HaveCondition(corev1.PodReady, corev1.ConditionTrue, ""))

				// Whatever the spec's outcome, the shutdown is called off and the node and
				// its critical pods are back before the next spec takes the worker.
				DeferCleanup(func(ctx SpecContext) {
					_, err := env.NodeShell(ctx, node.Name, prepareForShutdown+"false")
					Expect(err).NotTo(HaveOccurred())
					Eventually(func(g Gomega, ctx SpecContext) {
						n, err := env.Client.CoreV1().Nodes().Get(ctx, node.Name, metav1.GetOptions{})
						g.Expect(err).NotTo(HaveOccurred())
						g.Expect(suite.NodeCondition(n, corev1.NodeReady)).To(Equal(corev1.ConditionTrue), "node %s Ready", node.Name)
						pods, err := env.Client.CoreV1().Pods("kube-system").List(ctx, metav1.ListOptions{FieldSelector: "spec.nodeName=" + node.Name})
						g.Expect(err).NotTo(HaveOccurred())
						g.Expect(pods.Items).NotTo(BeEmpty())
						g.Expect(pods.Items).To(HaveEach(HaveCondition(corev1.PodReady, corev1.ConditionTrue, "")), "the critical pods of %s", node.Name)
					}).WithContext(ctx).WithTimeout(shutdownBackBound).WithPolling(time.Second).Should(Succeed(), "node %s back after the cancelled shutdown", node.Name)
				}, NodeTimeout(suite.KubectlBound+shutdownBackBound))

				By("logind announces a shutdown on the node; the kubelet stops the pod")
				sent := time.Now()
				_, err := env.NodeShell(ctx, node.Name, prepareForShutdown+"true")
				Expect(err).NotTo(HaveOccurred())
				Eventually(tl.Pod).WithContext(ctx).WithTimeout(shutdownStopBound).
					Should(SatisfyAny(HavePhase(corev1.PodSucceeded), HavePhase(corev1.PodFailed)),
						"PC-8: the pod on %s was not stopped for the node's shutdown:\n%s", node.Name, tl)
				stopped := tl.Pod()

				By("PC-8: its DisruptionTarget condition says TerminationByKubelet, for the node's shutdown")
				Expect(stopped).To(HaveCondition(corev1.DisruptionTarget, corev1.ConditionTrue, corev1.PodReasonTerminationByKubelet),
					"PC-8: a pod stopped by its kubelet for a graceful node shutdown:\n%s", tl)
				// The premise, in the kubelet's own words: the pod was stopped for the node's
				// shutdown, not for pressure or anything the pod did.
				disruption := suite.ConditionOf(stopped, corev1.DisruptionTarget)
				Expect(strings.ToLower(disruption.Message)).To(ContainSubstring("shutdown"), "PC-8: the kubelet's reason:\n%s", tl)
				AddReportEntry("graceful node shutdown", fmt.Sprintf("%s (shutdownGracePeriod %s): PrepareForShutdown sent at %s; DisruptionTarget %s at %s: %s; pod phase %s, reason %q",
					node.Name, node.KubeletConfig.ShutdownGracePeriod, sent.Format(time.RFC3339Nano), disruption.Reason, disruption.LastTransitionTime.Format(time.RFC3339), disruption.Message, stopped.Status.Phase, stopped.Status.Reason))
			})
	})
}
