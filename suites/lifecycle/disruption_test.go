package lifecycle

import (
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/podlifecycle/conformance/framework/facts"
	. "github.com/podlifecycle/conformance/framework/match"
	"github.com/podlifecycle/conformance/framework/suite"
)

// stopsOnTerm is a container that exits 0 as soon as it gets TERM.
const stopsOnTerm = `trap "exit 0" TERM; while true; do sleep 0.2; done`

// The taint and preemption specs are Serial: they take a node (a NoExecute taint, three
// quarters of its CPU) that other specs' pods would be evicted from or not fit on. For
// the same reason, and because the preemption spec makes two PriorityClasses
// (cluster-scoped, named <namespace>-low and -high, deleted by DeferCleanup), both are
// Disruptive. The PodGC spec disturbs no node and runs beside anything.
var _ = Describe("DisruptionTarget", func() {
	// The last TaintUpdateBound is the cleanup that takes the taint off again: it runs
	// within the spec's deadline, and a node left tainted would evict later specs' pods.
	It("is added with reason DeletionByTaintManager to a pod that does not tolerate a NoExecute taint", suite.Quiet, Label("PC-8", suite.Disruptive), suite.Timeout(podStartBound, suite.TaintUpdateBound, 10*time.Second, terminationBound, suite.TaintUpdateBound), func(ctx SpecContext) {
		env.Require(facts.SchedulableNodes(2))
		ns := env.Namespace(ctx)
		pod := env.Hold(ns, shellPod("tainted-out", corev1.RestartPolicyAlways, stopsOnTerm))
		suite.PinTo(pod, env.NodeFor("defaults", nil))
		tl := env.Run(ctx, ns, pod)
		Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound).Should(HavePhase(corev1.PodRunning))
		node := tl.Pod().Spec.NodeName

		env.AddTaint(ctx, node, corev1.Taint{Key: "podlifecycle.io/evict", Value: ns, Effect: corev1.TaintEffectNoExecute})
		// The taint manager acts on the node update at once; 10 s covers its queue.
		Eventually(tl.Pod).WithContext(ctx).WithTimeout(10 * time.Second).Should(
			HaveCondition(corev1.DisruptionTarget, corev1.ConditionTrue, "DeletionByTaintManager"))
		Eventually(tl.Pod).WithContext(ctx).WithTimeout(terminationBound).Should(HavePhase(corev1.PodSucceeded))
	})

	It("is added with reason PreemptionByScheduler to a pod preempted for a higher-priority one", suite.Quiet, Label("PC-8", suite.Disruptive), suite.Timeout(podStartBound, 10*time.Second, terminationBound+podStartBound), func(ctx SpecContext) {
		env.Require(facts.SchedulableNodes(2))
		ns := env.Namespace(ctx)
		low, high := priorityClass(ctx, ns+"-low", 1000), priorityClass(ctx, ns+"-high", 1000000)
		n, err := env.Client.CoreV1().Nodes().Get(ctx, env.NodeFor("defaults", nil).Name, metav1.GetOptions{})
		Expect(err).NotTo(HaveOccurred())
		// Each pod asks for 3/4 of the node's allocatable CPU: one fits, two cannot.
		share := resource.NewMilliQuantity(n.Status.Allocatable.Cpu().MilliValue()*3/4, resource.DecimalSI)

		victim := env.Hold(ns, shellPod("victim", corev1.RestartPolicyAlways, stopsOnTerm))
		victim.Spec.PriorityClassName = low
		victim.Spec.NodeSelector = map[string]string{"kubernetes.io/hostname": n.Name}
		victim.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: *share}
		victimTL := env.Run(ctx, ns, victim)
		Eventually(victimTL.Pod).WithContext(ctx).WithTimeout(podStartBound).Should(HavePhase(corev1.PodRunning))

		preemptor := shellPod("preemptor", corev1.RestartPolicyAlways, "sleep 3600")
		preemptor.Spec.PriorityClassName = high
		preemptor.Spec.NodeSelector = victim.Spec.NodeSelector
		preemptor.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: *share}
		preemptorTL := env.Run(ctx, ns, preemptor)
		// The scheduler preempts in its first cycle for the pod; 10 s covers retries.
		Eventually(victimTL.Pod).WithContext(ctx).WithTimeout(10 * time.Second).Should(
			HaveCondition(corev1.DisruptionTarget, corev1.ConditionTrue, "PreemptionByScheduler"))
		env.Release(ctx, ns, victim.Name)
		Eventually(preemptorTL.Pod).WithContext(ctx).WithTimeout(terminationBound + podStartBound).Should(HavePhase(corev1.PodRunning))
	})

	// TerminationByKubelet, for node pressure and for a graceful node shutdown, is
	// checked by suites/lifecycle/pressure on a worker of its own.

	It("marks a pod bound to a node that does not exist Failed with DisruptionTarget (DeletionByPodGC)",
		Label("PL-10", "PC-8", "TM-14", "Slow"), suite.Timeout(80*time.Second, 10*time.Second), func(ctx SpecContext) {
			ns := env.Namespace(ctx)
			pod := env.Hold(ns, shellPod("orphan", corev1.RestartPolicyAlways, "sleep 3600"))
			// Bound at creation to a node that is gone: exactly what PodGC sees when a Node
			// object is deleted, without disturbing a node the other specs use.
			pod.Spec.NodeName = fmt.Sprintf("plc-gone-%s", ns)
			tl := env.Run(ctx, ns, pod)
			// PodGC checks every 20 s and quarantines an orphan for 40 s before acting:
			// at most 60 s, plus 20 s for the controller's queue on a loaded machine.
			// PodGC patches the status and deletes the pod in one go: the status is looked
			// for among every one the watch saw, not only the last.
			Eventually(tl.Pods).WithContext(ctx).WithTimeout(80 * time.Second).Should(ContainElement(And(
				HavePhase(corev1.PodFailed), HaveCondition(corev1.DisruptionTarget, corev1.ConditionTrue, "DeletionByPodGC"))))
			Eventually(func() bool { p := tl.Pod(); return p == nil || p.DeletionTimestamp != nil }).WithContext(ctx).
				WithTimeout(10*time.Second).Should(BeTrue(), "TM-14: PodGC deletes the orphan after marking it Failed")
		})
})

func priorityClass(ctx SpecContext, name string, value int32) string {
	GinkgoHelper()
	_, err := env.Client.SchedulingV1().PriorityClasses().Create(ctx, &schedulingv1.PriorityClass{
		ObjectMeta: metav1.ObjectMeta{Name: name}, Value: value}, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func(ctx SpecContext) {
		Expect(env.Client.SchedulingV1().PriorityClasses().Delete(ctx, name, metav1.DeleteOptions{})).To(Succeed())
	})
	return name
}
