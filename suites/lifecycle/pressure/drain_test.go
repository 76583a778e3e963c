package pressure

import (
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	. "github.com/podlifecycle/conformance/framework/match"
	"github.com/podlifecycle/conformance/framework/observe"
	"github.com/podlifecycle/conformance/framework/suite"
)

const (
	// drainReplicas: the pods on the drained node, several so that "the pods" of the
	// node are more than one.
	drainReplicas = 2
	// drainGrace: each pod stops on TERM at once; its grace only bounds a broken one.
	drainGrace = 5
	// kubectl drain waits for the evicted pods to be gone: their stop (on TERM, at
	// once) and the kubelet's status write, seconds; it gives up after drainTimeout,
	// inside the suite's bound of one kubectl call.
	drainTimeout = 25 * time.Second
	// The ReplicaSet's replacements are scheduled on another node and start there.
	replacementBound = 10*time.Second + podStartBound
	// The watch delivers a deletion within a second of it; 5 s on a loaded machine.
	watchBound = 5 * time.Second
)

func drainSpecs() {
	Describe("kubectl drain", func() {
		It("stops the pods of a node: it cordons the node, evicts each of its pods through the Eviction API, and their ReplicaSet starts them again elsewhere",
			Label("KR-6"), suite.Timeout(podStartBound, suite.KubectlBound, drainReplicas*watchBound, replacementBound, suite.KubectlBound), func(ctx SpecContext) {
				bin := suite.KubectlBinary()
				if bin == "" {
					Skip("needs kubectl: set KUBECTL, put kubectl on PATH, or build the project's images (its kubectl is then in ~/.cache/podlifecycle/bin/kubernetes-" + suite.ExpectedServerVersion() + ")")
				}
				if env.Cluster.Kubeconfig == "" {
					Skip("needs a kubeconfig for kubectl; the suites run in a pod of the cluster, which reaches it through its service account")
				}
				node := env.OwnWorker("node-pressure")
				ns := env.Namespace(ctx)
				// The ReplicaSet's pods start on the worker (its node name and taint in the
				// template); then the template loses both, so that its replacements, and only
				// they, may go to any other node: a ReplicaSet leaves running pods alone when
				// its template changes.
				rs := drainedReplicaSet(ctx, ns, node.Name)
				var onNode []corev1.Pod
				Eventually(func(g Gomega, ctx SpecContext) {
					pods, err := env.ReplicasOf(ctx, ns, rs.Spec.Selector)
					g.Expect(err).NotTo(HaveOccurred())
					g.Expect(pods).To(HaveLen(drainReplicas))
					g.Expect(pods).To(HaveEach(And(HaveField("Spec.NodeName", node.Name), HaveCondition(corev1.PodReady, corev1.ConditionTrue, ""))))
					onNode = pods
				}).WithContext(ctx).WithTimeout(podStartBound).WithPolling(250 * time.Millisecond).Should(Succeed())
				_, err := env.Client.AppsV1().ReplicaSets(ns).Patch(ctx, rs.Name, types.JSONPatchType,
					[]byte(`[{"op":"remove","path":"/spec/template/spec/nodeSelector"},{"op":"remove","path":"/spec/template/spec/tolerations"}]`), metav1.PatchOptions{})
				Expect(err).NotTo(HaveOccurred(), "the ReplicaSet's template no longer names the worker")
				var followed []*observe.Timeline
				for _, p := range onNode {
					followed = append(followed, env.Follow(ctx, ns, p.Name))
				}

				DeferCleanup(func(ctx SpecContext) {
					env.Kubectl(ctx, bin, "uncordon", node.Name)
				})
				// Only DaemonSet pods and the ReplicaSet's are on the worker (its taint keeps
				// the others off); a DaemonSet's pods stay, as drain says.
				r := env.Kubectl(ctx, bin, "drain", node.Name, "--ignore-daemonsets", fmt.Sprintf("--timeout=%s", drainTimeout))
				AddReportEntry("kubectl drain", r.String())
				Expect(r.Code).To(BeZero(), "KR-6: kubectl drain stops the pods of %s: %s", node.Name, r)

				n, err := env.Client.CoreV1().Nodes().Get(ctx, node.Name, metav1.GetOptions{})
				Expect(err).NotTo(HaveOccurred())
				Expect(n.Spec.Unschedulable).To(BeTrue(), "KR-6: kubectl drain cordons %s", node.Name)
				left, err := env.Client.CoreV1().Pods("").List(ctx, metav1.ListOptions{FieldSelector: "spec.nodeName=" + node.Name})
				Expect(err).NotTo(HaveOccurred())
				for _, p := range left.Items {
					owner := metav1.GetControllerOf(&p)
					Expect(owner != nil && owner.Kind == "DaemonSet").To(BeTrue(),
						"KR-6: after kubectl drain only DaemonSet pods are left on %s; %s/%s is too", node.Name, p.Namespace, p.Name)
				}
				for _, tl := range followed {
					// drain returns once the pods are gone; the watch tells it a moment later.
					Eventually(tl.Deleted).WithContext(ctx).WithTimeout(watchBound).Should(BeTrue(),
						"KR-6: drain returned once its pods were gone; %s is still in the API:\n%s", tl.Name, tl)
					Expect(tl.Pods()).To(ContainElement(HaveCondition(corev1.DisruptionTarget, corev1.ConditionTrue, "EvictionByEvictionAPI")),
						"KR-6: %s was evicted through the Eviction API:\n%s", tl.Name, tl)
					Expect(tl.Pods()).To(ContainElement(SatisfyAny(HavePhase(corev1.PodSucceeded), HavePhase(corev1.PodFailed))),
						"KR-6: %s's containers stopped before it left the API:\n%s", tl.Name, tl)
				}

				Eventually(func(g Gomega, ctx SpecContext) {
					pods, err := env.ReplicasOf(ctx, ns, rs.Spec.Selector)
					g.Expect(err).NotTo(HaveOccurred())
					g.Expect(pods).To(HaveLen(drainReplicas))
					for _, p := range pods {
						g.Expect(p.UID).NotTo(BeElementOf(uidsOf(onNode)), "a drained pod")
						g.Expect(p.Spec.NodeName).NotTo(Or(BeEmpty(), Equal(node.Name)), "KR-6: replacement %s on another node", p.Name)
						g.Expect(p).To(HaveCondition(corev1.PodReady, corev1.ConditionTrue, ""), "replacement %s ready", p.Name)
					}
				}).WithContext(ctx).WithTimeout(replacementBound).WithPolling(250*time.Millisecond).Should(Succeed(),
					"KR-6: the ReplicaSet starts the drained pods again on another node")
			})
	})
}

// drainedReplicaSet creates a ReplicaSet of drainReplicas pods that stop on TERM at
// once, on node and tolerating its taint; the spec's namespace takes it away.
func drainedReplicaSet(ctx SpecContext, ns, node string) *appsv1.ReplicaSet {
	GinkgoHelper()
	labels := map[string]string{"app": "drained"}
	rs, err := env.Client.AppsV1().ReplicaSets(ns).Create(ctx, &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: "drained"},
		Spec: appsv1.ReplicaSetSpec{
			Replicas: ptr(int32(drainReplicas)),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: corev1.PodSpec{
				NodeSelector:                  map[string]string{corev1.LabelHostname: node},
				Tolerations:                   []corev1.Toleration{{Key: pressureTaint, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}},
				TerminationGracePeriodSeconds: ptr(int64(drainGrace)),
				Containers: []corev1.Container{{
					Name: "main", Image: "busybox:1.28",
					Command: []string{"sh", "-c", "trap 'exit 0' TERM; while true; do sleep 1 & wait; done"},
				}},
			}},
		},
	}, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred(), "creating ReplicaSet %s/drained", ns)
	return rs
}

func uidsOf(pods []corev1.Pod) []types.UID {
	var uids []types.UID
	for _, p := range pods {
		uids = append(uids, p.UID)
	}
	return uids
}

func ptr[T any](v T) *T { return &v }
