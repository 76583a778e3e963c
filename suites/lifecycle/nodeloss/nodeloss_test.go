package nodeloss

import (
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/podlifecycle/conformance/framework/drift"
	"github.com/podlifecycle/conformance/framework/facts"
	. "github.com/podlifecycle/conformance/framework/match"
	"github.com/podlifecycle/conformance/framework/observe"
	"github.com/podlifecycle/conformance/framework/suite"
)

const (
	podStartBound = suite.PodStartBound
	// The node lifecycle controller marks a node whose kubelet stopped renewing its
	// lease Unknown once node-monitor-grace-period has passed (50 s, the v1.37.2
	// default: pkg/controller/nodelifecycle/config/v1alpha1/defaults.go), looking
	// every node-monitor-period (5 s); the kubelet renews its lease every 10 s, so the
	// last renewal may be 10 s older than the stop. +15 s for a loaded 2-core machine.
	nodeLostBound = 50*time.Second + 5*time.Second + 10*time.Second + 15*time.Second
	// The pod that tolerates a lost node for a while tolerates it this long.
	shortToleration = 10
	// The taint-eviction controller evicts a pod once its toleration has run out,
	// counted from when it saw the taint, which is at or after the taint's timeAdded.
	// Both the taint's timeAdded and the DisruptionTarget condition's
	// lastTransitionTime are the controller manager's whole-second times: −1 s; +10 s
	// for its queue on a loaded machine.
	evictNotBefore = shortToleration*time.Second - time.Second
	evictBy        = shortToleration*time.Second + 10*time.Second
	// PodGC looks every 20 s (gcCheckPeriod, pkg/controller/podgc/gc_controller.go);
	// +10 s for its queue.
	podGCBound = 20*time.Second + 10*time.Second
	// An orphan waits out PodGC's 40 s quarantine (quarantineTime) and then its next
	// period; +20 s for the controller on a loaded machine.
	orphanBound = 40*time.Second + 20*time.Second + 20*time.Second
	// A started kubelet registers its node (again) and reports it Ready in seconds;
	// 60 s on a loaded machine.
	nodeBackBound = 60 * time.Second
	// What the kubelet needs to stop or start: a systemctl call, seconds.
	kubeletBound = 30 * time.Second
)

var _ = Describe("A node whose kubelet stops answering", Label("Slow", suite.Disruptive), func() {
	It("is tainted unreachable; its pods keep their containers ready, are evicted with DisruptionTarget once their toleration runs out, and a terminating one is collected once the node is out of service",
		Label("PC-14", "KR-4", "PL-15", "TM-20", "KR-1"),
		suite.Timeout(3*podStartBound, kubeletBound, nodeLostBound, evictBy, podGCBound, kubeletBound, nodeBackBound), func(ctx SpecContext) {
			env.Require(facts.NodeShell())
			node := env.OwnWorker("lost-kubelet").Name
			ns := env.Namespace(ctx)
			short := env.Run(ctx, ns, onNode(sleeper("short", 30), node, lossFor(ptr(int64(shortToleration)))...))
			kept := env.Run(ctx, ns, onNode(sleeper("kept", 30), node, append(lossFor(nil), outOfServiceTolerated)...))
			// A long grace keeps it Terminating for as long as its kubelet is away.
			terminating := env.Run(ctx, ns, onNode(sleeper("terminating", 600), node, append(lossFor(nil), outOfServiceTolerated)...))
			for _, tl := range []*observe.Timeline{short, kept, terminating} {
				Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound).Should(HaveCondition(corev1.PodReady, corev1.ConditionTrue, ""))
			}
			before := kept.Pod().Status.ContainerStatuses[0]

			stopped := stopKubelet(ctx, node)
			By("PC-14: the control plane marks the node Unknown and taints it node.kubernetes.io/unreachable:NoExecute")
			var lost corev1.Taint
			Eventually(func(g Gomega, ctx SpecContext) {
				n, err := env.Client.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
				g.Expect(err).NotTo(HaveOccurred())
				g.Expect(readyOf(n)).To(Equal(corev1.ConditionUnknown), "node %s Ready", node)
				t := taintOf(n, corev1.TaintNodeUnreachable, corev1.TaintEffectNoExecute)
				g.Expect(t).NotTo(BeNil(), "taints of %s: %v", node, n.Spec.Taints)
				lost = *t
			}).WithContext(ctx).WithTimeout(nodeLostBound).WithPolling(time.Second).Should(Succeed())
			AddReportEntry("node lost", fmt.Sprintf("kubelet of %s stopped at %s; taint %s added at %s", node, stopped.Format(time.RFC3339), lost.ToString(), lost.TimeAdded))

			By("PC-14: the pod that tolerates it for 10 s is evicted with DisruptionTarget (DeletionByTaintManager) once that has run out, not before")
			Eventually(short.Pod).WithContext(ctx).WithTimeout(evictBy).
				Should(HaveCondition(corev1.DisruptionTarget, corev1.ConditionTrue, "DeletionByTaintManager"))
			evicted := suite.ConditionOf(short.Pod(), corev1.DisruptionTarget).LastTransitionTime.Sub(lost.TimeAdded.Time)
			AddReportEntry("taint added → eviction (ms)", evicted.Milliseconds())
			Expect(evicted).To(And(BeNumerically(">=", evictNotBefore), BeNumerically("<=", evictBy)),
				"PC-14: evicted %s after the taint; tolerationSeconds %d", evicted, shortToleration)
			Eventually(func() bool { p := short.Pod(); return p == nil || p.DeletionTimestamp != nil }).WithContext(ctx).
				WithTimeout(podGCBound).Should(BeTrue(), "PC-14: the evicted pod is deleted")

			By("KR-4: the pods the control plane marks not Ready keep their containers ready: true")
			Eventually(kept.Pod).WithContext(ctx).WithTimeout(podGCBound).Should(HaveCondition(corev1.PodReady, corev1.ConditionFalse, ""))
			seen := 0
			for _, e := range kept.Entries() {
				if e.Kind == "pod" && e.Seen.After(stopped) {
					seen++
					Expect(e.Pod.Status.ContainerStatuses).To(HaveEach(HaveField("Ready", BeTrue())),
						"KR-4: a container of a pod on the lost node turned ready: false:\n%s", kept)
				}
			}
			Expect(seen).To(BeNumerically(">", 0), "KR-4: no status of the pod was seen while its node was lost:\n%s", kept)

			By("PL-15: the phase of a pod on the lost node")
			phase := kept.Pod().Status.Phase
			suite.Drift(drift.Observation[corev1.PodPhase]{
				Statement:  "PL-15",
				Topic:      "phase of a pod on a lost node",
				Docs:       "a pod whose state cannot be obtained, usually for a communication error with its node, is Unknown",
				Documented: corev1.PodUnknown,
				Measured:   phase,
				Evidence:   fmt.Sprintf("node %s Unknown and tainted %s since %s; the pod's Ready condition False (NodeNotReady), its phase %s:\n%s", node, corev1.TaintNodeUnreachable, lost.TimeAdded, phase, kept),
				Reproducer: suite.Reproducer(kept.Pod(), "stop the kubelet of its node for over a minute (systemctl stop kubelet)"),
			})
			// Where the pages disagree: 000, 002 and 003 set every pod of a lost node Failed,
			// 003's phase table calls a pod whose node cannot be reached Unknown. This pod
			// tolerates the node's taints, so no eviction takes it out of the question.
			suite.Answer(drift.Question[corev1.PodPhase]{
				Topic:    "phase of the pods on a lost node",
				Claims:   map[string]corev1.PodPhase{"failed": corev1.PodFailed, "unknown": corev1.PodUnknown},
				Measured: phase,
				Evidence: fmt.Sprintf("node %s Unknown and tainted %s since %s; the phase of %s, which tolerates that forever, %s:\n%s", node, corev1.TaintNodeUnreachable, lost.TimeAdded, kept.Name, phase, kept),
			})

			By("TM-20: a terminating pod on the lost node is marked Failed and deleted by PodGC once the node carries node.kubernetes.io/out-of-service")
			Expect(env.Client.CoreV1().Pods(ns).Delete(ctx, terminating.Name, metav1.DeleteOptions{})).To(Succeed())
			Consistently(terminating.Pod).WithContext(ctx).WithTimeout(podGCBound).Should(Not(BeNil()),
				"TM-20: without out-of-service the pod stays Terminating while its kubelet is away")
			outOfService := corev1.Taint{Key: corev1.TaintNodeOutOfService, Value: "nodeshutdown", Effect: corev1.TaintEffectNoExecute}
			env.AddTaint(ctx, node, outOfService)
			Eventually(terminating.Pod).WithContext(ctx).WithTimeout(podGCBound).Should(BeNil(), "TM-20: PodGC deletes the terminating pod")
			Expect(terminating.Phases()).To(ContainElement(corev1.PodFailed), "TM-20: PodGC marks it Failed before it deletes it:\n%s", terminating)
			env.RemoveTaint(ctx, node, outOfService)

			By("KR-1: the kubelet comes back and finds the pod's container still running, not restarted")
			startKubelet(ctx, node)
			Eventually(kept.Pod).WithContext(ctx).WithTimeout(nodeBackBound).Should(HaveCondition(corev1.PodReady, corev1.ConditionTrue, ""))
			after := kept.Pod().Status.ContainerStatuses[0]
			Expect(after.ContainerID).To(Equal(before.ContainerID), "KR-1: the same container after the kubelet's stop")
			Expect(after.RestartCount).To(Equal(before.RestartCount), "KR-1: no restart across the kubelet's stop")
		})
})

var _ = Describe("A Node object that goes away", Label("Slow", suite.Disruptive), func() {
	It("leaves its pods orphaned: PodGC marks them Failed with DisruptionTarget (DeletionByPodGC) and deletes them",
		Label("PL-10", "PC-8", "TM-14"), suite.Timeout(podStartBound, kubeletBound, orphanBound, podGCBound, kubeletBound, nodeBackBound), func(ctx SpecContext) {
			env.Require(facts.NodeShell())
			node := env.OwnWorker("deleted-node").Name
			ns := env.Namespace(ctx)
			tl := env.Run(ctx, ns, onNode(sleeper("orphan", 30), node))
			Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound).Should(HaveCondition(corev1.PodReady, corev1.ConditionTrue, ""))

			// Stopped first, so that the kubelet does not register the node again at once;
			// started when the spec ends, it registers it again (its labels and taints are
			// its own flags).
			stopKubelet(ctx, node)
			Expect(env.Client.CoreV1().Nodes().Delete(ctx, node, metav1.DeleteOptions{})).To(Succeed())
			// PodGC patches the status and deletes the pod in one go: the status is looked
			// for among every one the watch saw, not only the last.
			Eventually(tl.Pods).WithContext(ctx).WithTimeout(orphanBound).Should(ContainElement(And(
				HavePhase(corev1.PodFailed), HaveCondition(corev1.DisruptionTarget, corev1.ConditionTrue, "DeletionByPodGC"))),
				"PL-10: a pod bound to a Node that no longer exists is marked Failed:\n%s", tl)
			Eventually(tl.Pod).WithContext(ctx).WithTimeout(podGCBound).Should(BeNil(), "TM-14: PodGC deletes the orphan after marking it Failed")
		})
})

// nodeLossTaint keeps every other spec's pods off the workers these specs lose.
const nodeLossTaint = "podlifecycle.io/node-loss"

func sleeper(name string, grace int64) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.PodSpec{
			TerminationGracePeriodSeconds: &grace,
			Containers: []corev1.Container{{
				Name: "main", Image: "busybox:1.28",
				// TERM is ignored, so a graceful stop would take the whole grace period.
				Command: []string{"sh", "-c", "trap '' TERM; while true; do sleep 1; done"},
			}},
		},
	}
}

func onNode(p *corev1.Pod, node string, tolerations ...corev1.Toleration) *corev1.Pod {
	p.Spec.NodeSelector = map[string]string{"kubernetes.io/hostname": node}
	p.Spec.Tolerations = append([]corev1.Toleration{{Key: nodeLossTaint, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}}, tolerations...)
	return p
}

// lossFor tolerates a lost node (not-ready and unreachable, NoExecute) for seconds,
// or forever when nil. A pod that names these tolerations itself keeps them: the
// DefaultTolerationSeconds admission adds its 300 s only to a pod that has none.
func lossFor(seconds *int64) []corev1.Toleration {
	var out []corev1.Toleration
	for _, key := range []string{corev1.TaintNodeNotReady, corev1.TaintNodeUnreachable} {
		out = append(out, corev1.Toleration{Key: key, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: seconds})
	}
	return out
}

// outOfServiceTolerated keeps the taint-eviction controller from acting on the
// out-of-service taint, so that what removes a terminating pod there is PodGC.
var outOfServiceTolerated = corev1.Toleration{Key: corev1.TaintNodeOutOfService, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute}

// stopKubelet stops the node's kubelet and starts it again when the spec ends; it
// returns when the stop was asked for.
func stopKubelet(ctx SpecContext, node string) time.Time {
	GinkgoHelper()
	DeferCleanup(func(ctx SpecContext) { startKubelet(ctx, node) }, NodeTimeout(kubeletBound+nodeBackBound))
	at := time.Now()
	_, err := env.NodeShell(ctx, node, "systemctl stop kubelet")
	Expect(err).NotTo(HaveOccurred())
	return at
}

// startKubelet starts the node's kubelet and waits for the node to be Ready.
func startKubelet(ctx SpecContext, node string) {
	GinkgoHelper()
	_, err := env.NodeShell(ctx, node, "systemctl start kubelet")
	Expect(err).NotTo(HaveOccurred())
	Eventually(func(ctx SpecContext) (corev1.ConditionStatus, error) {
		n, err := env.Client.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return "", nil // not registered again yet
		}
		if err != nil {
			return "", err
		}
		return readyOf(n), nil
	}).WithContext(ctx).WithTimeout(nodeBackBound).WithPolling(time.Second).Should(Equal(corev1.ConditionTrue), "node %s Ready again", node)
}

func readyOf(n *corev1.Node) corev1.ConditionStatus {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status
		}
	}
	return ""
}

func taintOf(n *corev1.Node, key string, effect corev1.TaintEffect) *corev1.Taint {
	for i := range n.Spec.Taints {
		if n.Spec.Taints[i].Key == key && n.Spec.Taints[i].Effect == effect {
			return &n.Spec.Taints[i]
		}
	}
	return nil
}

func ptr[T any](v T) *T { return &v }
