package declaredfeatures

import (
	"fmt"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ndffeatures "k8s.io/component-helpers/nodedeclaredfeatures/features"

	"github.com/podlifecycle/conformance/framework/drift"
	"github.com/podlifecycle/conformance/framework/examples"
	"github.com/podlifecycle/conformance/framework/facts"
	. "github.com/podlifecycle/conformance/framework/match"
	"github.com/podlifecycle/conformance/framework/suite"
)

const restartAll = "RestartAllContainersOnContainerExits"

var _ = Describe("Declared features", func() {
	It("are listed by each kubelet exactly as its feature gates enable them", Label("DF-1"), suite.Timeout(), func(ctx SpecContext) {
		// First the expectation written from the page itself, not from the code the
		// kubelet uses to declare features (an error in that shared table would agree
		// with itself): its example feature, RestartAllContainersOnContainerExits, is
		// declared when the kubelet's feature gate of that name is on ("Приклад
		// оголошеної функції"), and only enabled features are listed ("Як це працює").
		// The page gives it no version bounds (no MaxVersion, DF-5), so a kubelet that
		// has the gate declares it exactly when the gate is on, and one without the gate
		// (too old to know the feature) does not. Both sides are measured: the
		// default cluster has workers with the gate on and off (checked at the end).
		for _, n := range env.Facts.Nodes {
			declared := slices.Contains(n.DeclaredFeatures, restartAll)
			gate, known := n.KubeletGates[restartAll]
			Expect(declared).To(Equal(known && gate), "DF-1 (the page's example): node %s (kubelet %s) declares %s = %t; its kubelet's gate %s is %s (kubernetes_feature_enabled)",
				n.Name, n.KubeletVersion, restartAll, declared, restartAll, gateValue(n.KubeletGates, restartAll))
		}
		// Then every declarable feature of v1.37.2 and the gates each depends on
		// (k8s.io/component-helpers nodedeclaredfeatures); features that also depend on
		// a runtime capability are checked one way only: declared implies the gates.
		// A kubelet of an older version knows fewer features: one it does not know has
		// no gate in its metrics, so it must not declare it either.
		known := map[string]bool{}
		var table []string
		for _, n := range env.Facts.Nodes {
			var gateCells []string
			for _, f := range ndffeatures.AllFeatures {
				known[f.Name()] = true
				req := f.Requirements()
				gatesOn := true
				for _, g := range req.EnabledFeatureGates {
					gatesOn = gatesOn && n.KubeletGates[g]
					gateCells = append(gateCells, fmt.Sprintf("%s=%s", g, gateValue(n.KubeletGates, g)))
				}
				declared := slices.Contains(n.DeclaredFeatures, f.Name())
				if req.RequiredRuntimeFeatures == nil {
					Expect(declared).To(Equal(gatesOn), "DF-1: node %s (kubelet %s) declares %s = %t, but its kubelet's gates %v are on = %t (kubernetes_feature_enabled)",
						n.Name, n.KubeletVersion, f.Name(), declared, req.EnabledFeatureGates, gatesOn)
				} else if declared {
					Expect(gatesOn).To(BeTrue(), "DF-1: node %s declares %s without its gates %v", n.Name, f.Name(), req.EnabledFeatureGates)
				}
			}
			slices.Sort(gateCells)
			table = append(table, fmt.Sprintf("| %s | %s | %s | %s |", n.Name, n.KubeletVersion,
				strings.Join(slices.Compact(gateCells), ", "), strings.Join(n.DeclaredFeatures, ", ")))
		}
		for _, n := range env.Facts.Nodes {
			for _, f := range n.DeclaredFeatures {
				Expect(known).To(HaveKey(f), "DF-1: node %s declares %s, which v1.37.2 does not define", n.Name, f)
			}
		}
		AddReportEntry("declared features per node",
			"| node | kubelet | gates of the declarable features (kubernetes_feature_enabled) | node.status.declaredFeatures |\n|---|---|---|---|\n"+
				strings.Join(table, "\n"))
		lacking, declaring := nodesBy(restartAll, schedulable)
		Expect(lacking).NotTo(BeEmpty(), "the default cluster's restart-all-off worker should lack %s", restartAll)
		Expect(declaring).NotTo(BeEmpty())
	})

	It("let the scheduler place a pod that needs a feature only on nodes declaring it", Label("DF-2"), suite.Timeout(suite.PodStartBound), func(ctx SpecContext) {
		lacking, declaring := requireMixed(restartAll, schedulable)
		ns := env.Namespace(ctx)
		// 20 copies of the docs' example-pod, unpinned: with a third of the workers
		// lacking the feature, a scheduler ignoring it would put one there with
		// probability 1-(2/3)^20 > 0.999.
		const copies = 20
		for i := range copies {
			p := examples.ExamplePod()
			p.Name = fmt.Sprintf("example-pod-%d", i)
			p.Spec.Containers[0].Command = []string{"sleep", "3600"}
			_, err := env.Client.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{})
			Expect(err).NotTo(HaveOccurred())
		}
		var placed map[string]string
		Eventually(func() int {
			placed = scheduled(ctx, ns)
			return len(placed)
		}).WithContext(ctx).WithTimeout(suite.PodStartBound).Should(Equal(copies))
		for pod, node := range placed {
			Expect(declaring).To(ContainElement(node), "DF-2: %s landed on %s, which does not declare %s (lacking: %v)", pod, node, restartAll, lacking)
		}
		AddReportEntry("example-pod placements", fmt.Sprint(placed))
	})

	It("keep a pod that needs a feature no candidate node declares unschedulable, and a pod needing none schedules there", Label("DF-2"), suite.Timeout(30*time.Second, suite.PodStartBound), func(ctx SpecContext) {
		lacking, _ := requireMixed(restartAll, schedulable)
		ns := env.Namespace(ctx)
		// Only the lacking node is a candidate, by its hostname: no node is changed.
		onLacking := map[string]string{corev1.LabelHostname: lacking[0]}
		needs := examples.ExamplePod()
		needs.Spec.NodeSelector = onLacking
		tl := env.Run(ctx, ns, needs)
		Eventually(tl.Pod).WithContext(ctx).WithTimeout(30 * time.Second).Should(HaveCondition(corev1.PodScheduled, corev1.ConditionFalse, "Unschedulable"))
		cond := podScheduled(tl.Pod())
		Expect(cond.Message).To(ContainSubstring("didn't match Pod's required features"), "DF-2: the rejection is attributed to the pod's required features")
		if !strings.Contains(cond.Message, restartAll) {
			AddReportEntry("finding: DF-2 unschedulable message", "the scheduler's message does not name the missing feature: "+cond.Message)
		}

		plain := examples.ExamplePod()
		plain.Name = "needs-nothing"
		plain.Spec.Containers[0].RestartPolicy, plain.Spec.Containers[0].RestartPolicyRules = nil, nil
		plain.Spec.NodeSelector = onLacking
		tlPlain := env.Run(ctx, ns, plain)
		Eventually(tlPlain.Pod).WithContext(ctx).WithTimeout(suite.PodStartBound).Should(HaveCondition(corev1.PodScheduled, corev1.ConditionTrue, ""))
		Expect(tl.Pod().Spec.NodeName).To(BeEmpty(), "DF-2: the pod that needs the feature is still not bound")
	})

	It("make the kubelet reject a pod bound to it that needs a feature it lacks, and run it where declared", Label("DF-4"), suite.Timeout(30*time.Second, suite.PodStartBound, suite.PodStartBound), func(ctx SpecContext) {
		lacking, declaring := requireMixed(restartAll, worker)
		ns := env.Namespace(ctx)
		rejected := examples.ExamplePod()
		rejected.Name = "bound-to-lacking"
		rejected.Spec.NodeName = lacking[0]
		rejected.Spec.Containers[0].Command = []string{"sleep", "3600"}
		tl := env.Run(ctx, ns, rejected)
		// Rejected (Failed) or run without the rule (Running): the page says both, and the
		// kubelet's answer comes within its admission, seconds after the bind.
		Eventually(tl.Pod).WithContext(ctx).WithTimeout(30*time.Second).
			Should(SatisfyAny(HavePhase(corev1.PodFailed), HavePhase(corev1.PodRunning)), "the kubelet of %s neither rejected nor ran the pod:\n%s", lacking[0], tl)
		suite.Answer(drift.Question[corev1.PodPhase]{
			Topic:    "a kubelet without a feature a pod needs",
			Claims:   map[string]corev1.PodPhase{"rejects-the-pod": corev1.PodFailed, "ignores-the-rule": corev1.PodRunning},
			Measured: tl.Pod().Status.Phase,
			Evidence: fmt.Sprintf("bound to %s, which does not declare %s: phase %s, reason %q\n%s", lacking[0], restartAll, tl.Pod().Status.Phase, tl.Pod().Status.Reason, tl),
		})
		Expect(tl.Pod()).To(HavePhase(corev1.PodFailed), "DF-4: the kubelet of %s rejects the pod at admission", lacking[0])
		Expect(tl.Pod().Status.Reason).To(Equal("PodFeatureUnsupported"))
		Expect(tl.Pod().Status.Message).To(ContainSubstring(restartAll), "the rejection names the missing feature")
		AddReportEntry("kubelet rejection", tl.Pod().Status.Reason+": "+tl.Pod().Status.Message)

		accepted := examples.ExamplePod()
		accepted.Name = "bound-to-declaring"
		accepted.Spec.NodeName = declaring[0]
		accepted.Spec.Containers[0].Command = []string{"sleep", "3600"}
		tlOK := env.Run(ctx, ns, accepted)
		Eventually(tlOK.Pod).WithContext(ctx).WithTimeout(suite.PodStartBound).Should(HavePhase(corev1.PodRunning), "DF-4: the kubelet of %s runs the pod", declaring[0])
	})

	// A pod on each of two nodes, waited for in turn.
	It("make admission reject resizing an init container on a node that does not declare InPlacePodVerticalScalingInitContainers", Label("DF-3"), suite.Timeout(2*suite.PodStartBound), func(ctx SpecContext) {
		// InPlacePodVerticalScalingInitContainers is GA and locked on in 1.37: every
		// v1.37 kubelet declares it; only an older kubelet (a mixed-version cluster, the
		// default cluster's kubelet-v1.36.3 worker) can lack it. The pods are bound by
		// spec.nodeName, so that worker's taint does not keep them off it.
		lacking, declaring := requireMixed(ipprInitContainers, worker)
		ns := env.Namespace(ctx)
		for _, target := range []struct {
			node     string
			accepted bool
		}{{lacking[0], false}, {declaring[0], true}} {
			p := &corev1.Pod{
				ObjectMeta: metav1.ObjectMeta{Name: "resize-on-" + target.node},
				Spec: corev1.PodSpec{
					NodeName:    target.node,
					Tolerations: []corev1.Toleration{{Key: skewTaint, Operator: corev1.TolerationOpExists}},
					InitContainers: []corev1.Container{{Name: "setup", Image: "busybox:1.28", Command: []string{"true"},
						Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}}}},
					Containers: []corev1.Container{{Name: "main", Image: "busybox:1.28", Command: []string{"sleep", "3600"}}},
				},
			}
			tl := env.Run(ctx, ns, p)
			Eventually(tl.Pod).WithContext(ctx).WithTimeout(suite.PodStartBound).Should(HavePhase(corev1.PodRunning))
			resized := tl.Pod().DeepCopy()
			resized.Spec.InitContainers[0].Resources.Requests[corev1.ResourceCPU] = resource.MustParse("150m")
			_, err := env.Client.CoreV1().Pods(ns).UpdateResize(ctx, p.Name, resized, metav1.UpdateOptions{})
			if target.accepted {
				Expect(err).NotTo(HaveOccurred(), "DF-3: a node declaring %s takes the resize", ipprInitContainers)
				continue
			}
			Expect(err).To(MatchError(ContainSubstring(ipprInitContainers)), "DF-3: NodeDeclaredFeatureValidator rejects the resize, naming the feature")
			AddReportEntry("admission rejection", err.Error())
		}
	})
})

const (
	ipprInitContainers = "InPlacePodVerticalScalingInitContainers"
	// skewTaint keeps unpinned pods off the default cluster's older kubelet.
	skewTaint = "podlifecycle.io/kubelet-skew"
)

// lackingProfile names, for each feature this suite mixes, the worker of
// kind-configs/default.yaml that lacks it.
var lackingProfile = map[string]string{
	restartAll:         "restart-all-off", // RestartAllContainersOnContainerExits off
	ipprInitContainers: "kubelet-v1.36.3", // a v1.36.3 kubelet with the gate off
}

// Which nodes count: those the scheduler may choose for an untolerating pod (DF-2),
// or every worker, for pods bound with spec.nodeName (DF-3, DF-4).
type nodeSet func(facts.Node, []facts.Node) bool

var (
	schedulable nodeSet = facts.Node.Schedulable
	worker      nodeSet = facts.Node.Worker
)

// nodesBy splits the nodes of set into those lacking and those declaring feature.
func nodesBy(feature string, set nodeSet) (lacking, declaring []string) {
	for _, n := range env.Facts.Nodes {
		if !set(n, env.Facts.Nodes) {
			continue
		}
		switch {
		case slices.Contains(n.DeclaredFeatures, feature):
			declaring = append(declaring, n.Name)
		case n.Labels[facts.ProfileLabel] == lackingProfile[feature]:
			// The node the kind config made to lack feature comes first: it lacks
			// nothing else (an older kubelet lacks more than one feature).
			lacking = append([]string{n.Name}, lacking...)
		default:
			lacking = append(lacking, n.Name)
		}
	}
	return lacking, declaring
}

// requireMixed needs nodes of set on both sides of feature. The project's default
// kind config gives this suite such a cluster for each feature of lackingProfile: a
// kind cluster that is not mixed is misconfigured, and the spec fails rather than
// pass vacuously or skip. On a cluster of the user's, the spec is skipped with the
// reason.
func requireMixed(feature string, set nodeSet) (lacking, declaring []string) {
	GinkgoHelper()
	env.Require(facts.SchedulableNodes(2))
	lacking, declaring = nodesBy(feature, set)
	if len(lacking) > 0 && len(declaring) > 0 {
		return lacking, declaring
	}
	why := fmt.Sprintf("needs nodes that declare %s and nodes that do not; declaring: %v, lacking: %v", feature, declaring, lacking)
	// A gate override (FEATURE_GATES, KUBELET_FEATURE_GATES) that turns the feature's
	// gate off for every kubelet leaves no declaring node on purpose.
	if on, asked := env.Cluster.Requested.KubeletGate(feature, ""); asked && !on && len(declaring) == 0 {
		Skip(fmt.Sprintf("the run turned %s off for every kubelet; %s", feature, why))
	}
	if profile, ok := lackingProfile[feature]; ok && env.Cluster.Provider == "kind" {
		Fail(fmt.Sprintf("misconfigured cluster: kind-configs/default.yaml should give this suite a worker without %s (profile %s); %s",
			feature, profile, why))
	}
	Skip(why)
	return nil, nil
}

func gateValue(g facts.Gates, name string) string {
	if on, ok := g[name]; ok {
		return fmt.Sprint(on)
	}
	return "unknown"
}

// scheduled maps each pod of ns that is bound to its node.
func scheduled(ctx SpecContext, ns string) map[string]string {
	GinkgoHelper()
	pods, err := env.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	Expect(err).NotTo(HaveOccurred())
	out := map[string]string{}
	for _, p := range pods.Items {
		if p.Spec.NodeName != "" {
			out[p.Name] = p.Spec.NodeName
		}
	}
	return out
}

func podScheduled(p *corev1.Pod) corev1.PodCondition {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled {
			return c
		}
	}
	return corev1.PodCondition{}
}
