package nodeloss

import (
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
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
	// The pods that tolerate a lost node for a while tolerate it this long: two values,
	// so that a controller that scales or offsets tolerationSeconds fails one of them.
	shortToleration  = 10
	longerToleration = 25
	// The taint-eviction controller evicts a pod once its toleration has run out,
	// counted from when it saw the taint (its node informer, then its node-update
	// queue), which is at or after the taint's timeAdded; the eviction patches
	// DisruptionTarget then deletes. Both the taint's timeAdded and the condition's
	// lastTransitionTime are the controller manager's whole-second times: −1 s early,
	// +1 s late for the truncation, +3 s for the informer, the queue and the patch on a
	// loaded 2-core machine. A controller that counted 1.3× the toleration fails the
	// 25 s pod (32.5 s against ≤ 29 s).
	evictEarly = time.Second
	evictLate  = time.Second + 3*time.Second
	evictBy    = longerToleration*time.Second + evictLate
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
	// The probed pod's readiness period. A kubelet that has just started holds each
	// probe worker's first probe back by a random part of its period, so a kubelet that
	// reports readiness afresh on its return shows ready: false for that long (up to
	// 30 s; under a second about once in thirty runs, when the afresh status may never
	// be written and the answer reads "kept").
	readinessPeriod = 30 * time.Second
)

var _ = Describe("A node whose kubelet stops answering", Label("Slow", suite.Disruptive), func() {
	It("is tainted unreachable; its pods keep their containers ready, are evicted with DisruptionTarget once their toleration runs out, and a terminating one is collected once the node is out of service",
		Label("PC-14", "KR-4", "PL-15", "TM-20", "KR-1"),
		suite.Timeout(5*podStartBound, kubeletBound, nodeLostBound, evictBy, 2*podGCBound, kubeletBound, nodeBackBound, readinessPeriod), func(ctx SpecContext) {
			env.Require(facts.NodeShell())
			node := env.OwnWorker("lost-kubelet").Name
			ns := env.Namespace(ctx)
			short := env.Run(ctx, ns, onNode(sleeper("short", 30), node, lossFor(ptr(int64(shortToleration)))...))
			longer := env.Run(ctx, ns, onNode(sleeper("longer", 30), node, lossFor(ptr(int64(longerToleration)))...))
			kept := env.Run(ctx, ns, onNode(sleeper("kept", 30), node, append(lossFor(nil), outOfServiceTolerated)...))
			// A long grace keeps it Terminating for as long as its kubelet is away.
			terminating := env.Run(ctx, ns, onNode(sleeper("terminating", 600), node, append(lossFor(nil), outOfServiceTolerated)...))
			// A container whose readiness comes from a probe: what its kubelet reports
			// after it returns tells a restart (ready kept) from a start (ready afresh).
			probedPod := sleeper("probed", 30)
			probedPod.Spec.Containers[0].ReadinessProbe = &corev1.Probe{
				ProbeHandler:  corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"true"}}},
				PeriodSeconds: int32(readinessPeriod / time.Second),
			}
			probed := env.Run(ctx, ns, onNode(probedPod, node, append(lossFor(nil), outOfServiceTolerated)...))
			for _, tl := range []*observe.Timeline{short, longer, kept, terminating, probed} {
				Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound).Should(HaveCondition(corev1.PodReady, corev1.ConditionTrue, ""))
			}
			before := kept.Pod().Status.ContainerStatuses[0]

			stopped := stopKubelet(ctx, node)
			By("PC-14: the control plane marks the node Unknown and taints it node.kubernetes.io/unreachable:NoExecute")
			var lost corev1.Taint
			Eventually(func(g Gomega, ctx SpecContext) {
				n, err := env.Client.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
				g.Expect(err).NotTo(HaveOccurred())
				g.Expect(suite.NodeCondition(n, corev1.NodeReady)).To(Equal(corev1.ConditionUnknown), "node %s Ready", node)
				t := taintOf(n, corev1.TaintNodeUnreachable, corev1.TaintEffectNoExecute)
				g.Expect(t).NotTo(BeNil(), "taints of %s: %v", node, n.Spec.Taints)
				lost = *t
			}).WithContext(ctx).WithTimeout(nodeLostBound).WithPolling(time.Second).Should(Succeed())
			AddReportEntry("node lost", fmt.Sprintf("kubelet of %s stopped at %s; taint %s added at %s", node, stopped.Format(time.RFC3339), lost.ToString(), lost.TimeAdded))

			By("PC-14: the pods that tolerate it for 10 s and 25 s are evicted with DisruptionTarget (DeletionByTaintManager) once that has run out, not before")
			for _, e := range []struct {
				tl      *observe.Timeline
				seconds int
			}{{short, shortToleration}, {longer, longerToleration}} {
				toleration := time.Duration(e.seconds) * time.Second
				Eventually(e.tl.Pod).WithContext(ctx).WithTimeout(toleration+evictLate).
					Should(HaveCondition(corev1.DisruptionTarget, corev1.ConditionTrue, "DeletionByTaintManager"), "PC-14: %s (tolerationSeconds %d) is evicted", e.tl.Name, e.seconds)
				evicted := suite.ConditionOf(e.tl.Pod(), corev1.DisruptionTarget).LastTransitionTime.Sub(lost.TimeAdded.Time)
				AddReportEntry(fmt.Sprintf("taint added → eviction (ms), tolerationSeconds %d", e.seconds), evicted.Milliseconds())
				Expect(evicted).To(And(BeNumerically(">=", toleration-evictEarly), BeNumerically("<=", toleration+evictLate)),
					"PC-14: %s evicted %s after the taint; tolerationSeconds %d (allowed %s to %s)", e.tl.Name, evicted, e.seconds, toleration-evictEarly, toleration+evictLate)
				Eventually(func() bool { p := e.tl.Pod(); return p == nil || p.DeletionTimestamp != nil }).WithContext(ctx).
					WithTimeout(podGCBound).Should(BeTrue(), "PC-14: the evicted pod %s is deleted", e.tl.Name)
			}

			By("KR-4: the pods the control plane marks not Ready keep their containers ready: true, with a readiness probe or without")
			for _, tl := range []*observe.Timeline{kept, probed} {
				Eventually(tl.Pod).WithContext(ctx).WithTimeout(podGCBound).Should(HaveCondition(corev1.PodReady, corev1.ConditionFalse, ""))
				seen := 0
				for _, e := range tl.Entries() {
					if e.Kind == "pod" && e.Seen.After(stopped) {
						seen++
						Expect(e.Pod.Status.ContainerStatuses).To(HaveEach(HaveField("Ready", BeTrue())),
							"KR-4: a container of a pod on the lost node turned ready: false:\n%s", tl)
					}
				}
				Expect(seen).To(BeNumerically(">", 0), "KR-4: no status of the pod was seen while its node was lost:\n%s", tl)
			}

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
			back := time.Now()
			startKubelet(ctx, node)
			Eventually(kept.Pod).WithContext(ctx).WithTimeout(nodeBackBound).Should(HaveCondition(corev1.PodReady, corev1.ConditionTrue, ""))
			after := kept.Pod().Status.ContainerStatuses[0]
			Expect(after.ContainerID).To(Equal(before.ContainerID), "KR-1: the same container after the kubelet's stop")
			Expect(after.RestartCount).To(Equal(before.RestartCount), "KR-1: no restart across the kubelet's stop")

			// Where the pages disagree: a kubelet back after its node went NotReady is
			// treated as stopped and started (KR-5), yet by default the kubelet keeps its
			// containers' ready values, and the long-stop paragraph is the default's own
			// (KR-2, KR-4). Only the kubelet writes the pod's Ready True again, so every
			// status from its start until then is its own: a container ready: false among
			// them is readiness reported afresh.
			Eventually(probed.Pod).WithContext(ctx).WithTimeout(nodeBackBound + readinessPeriod).Should(HaveCondition(corev1.PodReady, corev1.ConditionTrue, ""))
			answer, statuses := "kept", 0
			for _, e := range probed.Entries() {
				if e.Kind != "pod" || !e.Seen.After(back) {
					continue
				}
				statuses++
				if !ContainerStatus(e.Pod, "main").Ready {
					answer = "afresh"
				}
				if suite.ConditionOf(e.Pod, corev1.PodReady).Status == corev1.ConditionTrue {
					break
				}
			}
			suite.Answer(drift.Question[string]{
				Topic:    "containers' ready after a kubelet returns to a NotReady node",
				Claims:   map[string]string{"kept": "kept", "afresh": "afresh"},
				Measured: answer,
				Evidence: fmt.Sprintf("kubelet of %s started again at %s, %d statuses of %s (readiness probe every %s) until its Ready True:\n%s", node, back.Format(time.RFC3339Nano), statuses, probed.Name, readinessPeriod, probed),
			})
		})
})

var _ = Describe("A Node object that goes away", Label("Slow", suite.Disruptive), func() {
	It("leaves its pods orphaned: PodGC marks them Failed with DisruptionTarget (DeletionByPodGC) and deletes them, and their ReplicaSet replaces its pod on another node; a pod bound to it after its kubelet stopped never starts and never moves",
		Label("PL-10", "PC-8", "TM-14", "PL-17", "PL-19"), suite.Timeout(2*podStartBound, kubeletBound, podStartBound, orphanBound, podGCBound, podStartBound, kubeletBound, nodeBackBound), func(ctx SpecContext) {
			env.Require(facts.NodeShell())
			node := env.OwnWorker("deleted-node").Name
			ns := env.Namespace(ctx)
			tl := env.Run(ctx, ns, onNode(sleeper("orphan", 30), node))
			Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound).Should(HaveCondition(corev1.PodReady, corev1.ConditionTrue, ""))

			// PL-19: a ReplicaSet's pod on the node. Its template prefers the node and
			// tolerates its taint, and may run on any other node, so that the controller's
			// replacement has somewhere to go once the node is gone.
			rs := replicatedOn(ctx, ns, node)
			var first corev1.Pod
			Eventually(func(g Gomega, ctx SpecContext) {
				pods, err := env.ReplicasOf(ctx, ns, rs.Spec.Selector)
				g.Expect(err).NotTo(HaveOccurred())
				g.Expect(pods).To(HaveLen(1))
				g.Expect(pods[0].Status.Phase).To(Equal(corev1.PodRunning))
				first = pods[0]
			}).WithContext(ctx).WithTimeout(podStartBound).Should(Succeed())
			Expect(first.Spec.NodeName).To(Equal(node), "the ReplicaSet's pod should have been scheduled on the node it prefers, %s, to be lost with it", node)
			replica := env.Follow(ctx, ns, first.Name)

			// Stopped first, so that the kubelet does not register the node again at once;
			// started when the spec ends, it registers it again (its labels and taints are
			// its own flags).
			stopKubelet(ctx, node)

			// PL-17: the node has failed, and is still Ready to the scheduler (its lease is
			// fresh), so a pod created now is bound to it and cannot be started there.
			unstarted := env.Run(ctx, ns, onNode(sleeper("unstarted", 30), node))
			Eventually(unstarted.Pod).WithContext(ctx).WithTimeout(podStartBound).Should(
				HaveCondition(corev1.PodScheduled, corev1.ConditionTrue, ""), "PL-17: the scheduler binds the pod to %s", node)
			bound := unstarted.Pod()
			Expect(bound.Spec.NodeName).To(Equal(node))

			Expect(env.Client.CoreV1().Nodes().Delete(ctx, node, metav1.DeleteOptions{})).To(Succeed())
			// PodGC patches the status and deletes the pod in one go: the status is looked
			// for among every one the watch saw, not only the last.
			for _, orphan := range []*observe.Timeline{tl, unstarted, replica} {
				Eventually(orphan.Pods).WithContext(ctx).WithTimeout(orphanBound).Should(ContainElement(And(
					HavePhase(corev1.PodFailed), HaveCondition(corev1.DisruptionTarget, corev1.ConditionTrue, "DeletionByPodGC"))),
					"PL-10: a pod bound to a Node that no longer exists is marked Failed:\n%s", orphan)
				Eventually(orphan.Pod).WithContext(ctx).WithTimeout(podGCBound).Should(BeNil(), "TM-14: PodGC deletes the orphan after marking it Failed")
			}

			// PL-17 over the pod's whole life, binding to deletion: every status the watch
			// saw kept the same node and UID, and none was Running or had a container started.
			statuses := unstarted.Pods()
			Expect(statuses).NotTo(BeEmpty())
			for _, p := range statuses {
				Expect(p.UID).To(Equal(bound.UID), "PL-17: the pod was made again:\n%s", unstarted)
				if p.Spec.NodeName == "" {
					continue // before its binding
				}
				Expect(p.Spec.NodeName).To(Equal(node), "PL-17: the pod moved to another node:\n%s", unstarted)
				Expect(p.Status.Phase).NotTo(Equal(corev1.PodRunning), "PL-17: the pod ran:\n%s", unstarted)
				for _, c := range p.Status.ContainerStatuses {
					Expect(c.State.Running).To(BeNil(), "PL-17: container %s ran:\n%s", c.Name, unstarted)
					Expect(c.ContainerID).To(BeEmpty(), "PL-17: container %s was created:\n%s", c.Name, unstarted)
				}
			}
			By("PL-19: the ReplicaSet replaces its lost pod with one on another node")
			var replacement corev1.Pod
			Eventually(func(g Gomega, ctx SpecContext) {
				pods, err := env.ReplicasOf(ctx, ns, rs.Spec.Selector)
				g.Expect(err).NotTo(HaveOccurred())
				g.Expect(pods).To(HaveLen(1))
				g.Expect(pods[0].UID).NotTo(Equal(first.UID))
				g.Expect(pods[0].Status.Phase).To(Equal(corev1.PodRunning))
				replacement = pods[0]
			}).WithContext(ctx).WithTimeout(podStartBound).Should(Succeed(), "PL-19: ReplicaSet %s/%s has no replacement running", ns, rs.Name)
			Expect(replacement.Spec.NodeName).NotTo(Equal(node), "PL-19: the replacement is on the lost node")
			AddReportEntry("PL-19: replacement", fmt.Sprintf("%s (uid %s) on %s replaces %s (uid %s) of the lost node %s", replacement.Name, replacement.UID, replacement.Spec.NodeName, first.Name, first.UID, node))

			AddReportEntry("PL-17: the unstarted pod's statuses", fmt.Sprintf("%d statuses from its binding to %s until PodGC deleted it, none Running, no container created:\n%s", len(statuses), node, unstarted))
		})
})

// replicatedOn makes a ReplicaSet of one pod that prefers node and tolerates node's own
// node-loss taint (not the other lost worker's), free to run on any other node.
func replicatedOn(ctx SpecContext, ns, node string) *appsv1.ReplicaSet {
	GinkgoHelper()
	labels := map[string]string{"app": "replicated"}
	template := sleeper("replicated", 30)
	template.Spec.Tolerations = []corev1.Toleration{{Key: nodeLossTaint, Operator: corev1.TolerationOpEqual, Value: "deleted-node", Effect: corev1.TaintEffectNoSchedule}}
	template.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
		PreferredDuringSchedulingIgnoredDuringExecution: []corev1.PreferredSchedulingTerm{{Weight: 100, Preference: corev1.NodeSelectorTerm{
			MatchExpressions: []corev1.NodeSelectorRequirement{{Key: corev1.LabelHostname, Operator: corev1.NodeSelectorOpIn, Values: []string{node}}}}}}}}
	rs, err := env.Client.AppsV1().ReplicaSets(ns).Create(ctx, &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: "replicated"},
		Spec: appsv1.ReplicaSetSpec{
			Replicas: ptr(int32(1)),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: template.Spec},
		},
	}, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred(), "creating ReplicaSet %s/replicated", ns)
	return rs
}

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
		return suite.NodeCondition(n, corev1.NodeReady), nil
	}).WithContext(ctx).WithTimeout(nodeBackBound).WithPolling(time.Second).Should(Equal(corev1.ConditionTrue), "node %s Ready again", node)
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
