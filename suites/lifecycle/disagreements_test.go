package lifecycle

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/podlifecycle/conformance/framework/drift"
	. "github.com/podlifecycle/conformance/framework/match"
	"github.com/podlifecycle/conformance/framework/suite"
)

// Where the pages disagree (the catalogue's disagreements): each spec measures what
// the claims differ on, records the answer with suite.Answer, and only then asserts
// what a statement of the catalogue promises.

// initRuns is how long the init container of the Initialized spec runs: its own sleep.
// The watch sees it Running within a second of its start, so 5 s is a window of
// several status updates in which it has started and not completed.
const initRuns = 5 * time.Second

// gateReadyBound: the kubelet re-evaluates Ready on the status change of a readiness
// gate's condition within its next sync; 10 s, as PC-7's spec in conditions_test.go.
const gateReadyBound = 10 * time.Second

// metricsBound bounds one read of a kubelet's /metrics through the API server's node
// proxy: well under a second, 30 s on a loaded machine.
const metricsBound = 30 * time.Second

var _ = Describe("Where the pages disagree on pod conditions", func() {
	// 002: Initialized means every init container has started; 000, 001 and 003: has
	// completed. Any status the watch saw with the init container Running and
	// Initialized True confirms 002. PC-3 sides with "completed": a kubelet that set
	// Initialized when the init container started fails it, after the answer is
	// recorded.
	It("turn Initialized True once the init containers have completed, not while one still runs",
		Label("PC-3"), suite.Timeout(podStartBound+initRuns), func(ctx SpecContext) {
			ns := env.Namespace(ctx)
			pod := shellPod("slow-init", corev1.RestartPolicyAlways, "sleep 3600")
			pod.Spec.InitContainers = []corev1.Container{{Name: "init", Image: "busybox:1.28",
				Command: []string{"sh", "-c", fmt.Sprintf("sleep %d", int(initRuns.Seconds()))}}}
			tl := env.Run(ctx, ns, pod)
			// Both readings have Initialized True once the init container has exited 0.
			Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound + initRuns).Should(
				HaveCondition(corev1.PodInitialized, corev1.ConditionTrue, ""))

			var running, initializedWhileRunning []string
			for _, e := range tl.Entries() {
				if e.Pod == nil {
					continue
				}
				if ok, _ := HaveContainerState("init", "Running", "").Match(e.Pod); !ok {
					continue
				}
				at := e.Seen.Format("15:04:05.000")
				running = append(running, at)
				if ok, _ := HaveCondition(corev1.PodInitialized, corev1.ConditionTrue, "").Match(e.Pod); ok {
					initializedWhileRunning = append(initializedWhileRunning, at)
				}
			}
			// The premise: the window the claims differ on was seen at all.
			Expect(running).NotTo(BeEmpty(), "the watch never saw the init container Running (%s):\n%s", initRuns, tl)
			suite.Answer(drift.Question[bool]{
				Topic:    "Initialized: init containers started or completed",
				Claims:   map[string]bool{"started": true, "completed": false},
				Measured: len(initializedWhileRunning) > 0,
				Evidence: fmt.Sprintf("init container Running on the statuses seen at %v; Initialized True on those at %v:\n%s",
					running, initializedWhileRunning, tl),
			})
			Expect(initializedWhileRunning).To(BeEmpty(), "PC-3: Initialized True while the init container was still running:\n%s", tl)
		})

	// 000 and 003: the kubelet "sets the pod's condition to ContainersReady"; 001: it
	// sets Ready False with reason ReadinessGatesNotReady. Each claim names the
	// conditions it implies (see conditionsAgree): a cluster can confirm one, both or
	// neither. PC-7 promises 001's, which a broken cluster fails after the answer.
	It("set, while a readiness gate's condition is missing, ContainersReady True and Ready False with reason ReadinessGatesNotReady",
		Label("PC-7"), suite.Timeout(podStartBound), func(ctx SpecContext) {
			ns := env.Namespace(ctx)
			pod := shellPod("unmet-gate", corev1.RestartPolicyAlways, "sleep 3600")
			pod.Spec.ReadinessGates = []corev1.PodReadinessGate{{ConditionType: featureGateCondition}}
			tl := env.Run(ctx, ns, pod)
			// The premise of both: the pod's containers are ready (no probe: ready once
			// running); the kubelet sets the conditions in the same status update.
			Eventually(func() bool { return allContainersReady(tl.Pod()) }).WithContext(ctx).WithTimeout(podStartBound).
				Should(BeTrue(), "the pod's containers never turned ready:\n%s", tl)

			p := tl.Pod()
			suite.Answer(drift.Question[string]{
				Topic: "conditions of a pod whose readiness gate is unmet",
				Claims: map[string]string{
					"containers-ready":          "ContainersReady=True Ready=False",
					"readiness-gates-not-ready": "ContainersReady=True Ready=False(ReadinessGatesNotReady)",
				},
				Measured: readinessOf(p),
				Same:     conditionsAgree,
				Evidence: fmt.Sprintf("the status seen once every container was ready: %s\n%s", readinessOf(p), tl),
			})
			Expect(p).To(And(HaveCondition(corev1.ContainersReady, corev1.ConditionTrue, ""),
				HaveCondition(corev1.PodReady, corev1.ConditionFalse, "ReadinessGatesNotReady")),
				"PC-7: containers ready, a gate's condition missing:\n%s", tl)
		})

	// 000 and 003: kubectl patch cannot patch an object's status; 001: use kubectl
	// patch with --subresource=status. The kubectl of the release the suites check
	// sets the gate's condition; whether the pod has it afterwards decides. When it
	// does, PC-7 promises the pod turns Ready; a kubelet that ignored the condition
	// fails there.
	It("take a readiness gate's condition from kubectl patch --subresource=status",
		Label("PC-7"), suite.Timeout(2*suite.KubectlBound, podStartBound, gateReadyBound), func(ctx SpecContext) {
			bin := suite.KubectlBinary()
			if bin == "" {
				Skip("needs kubectl: set KUBECTL, put kubectl on PATH, or build the project's images (its kubectl is then in ~/.cache/podlifecycle/bin/kubernetes-" + suite.ExpectedServerVersion() + ")")
			}
			if env.Cluster.Kubeconfig == "" {
				Skip("needs a kubeconfig for kubectl; the suites run in a pod of the cluster, which reaches it through its service account")
			}
			version := kubectlVersion(ctx, bin)
			ns := env.Namespace(ctx)
			pod := shellPod("kubectl-gated", corev1.RestartPolicyAlways, "sleep 3600")
			pod.Spec.ReadinessGates = []corev1.PodReadinessGate{{ConditionType: featureGateCondition}}
			tl := env.Run(ctx, ns, pod)
			Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound).Should(HaveCondition(corev1.ContainersReady, corev1.ConditionTrue, ""))

			patch := fmt.Sprintf(`{"status":{"conditions":[{"type":%q,"status":"True"}]}}`, featureGateCondition)
			r := env.Kubectl(ctx, bin, "--namespace", ns, "patch", "pod", pod.Name, "--subresource=status", "--type=strategic", "-p", patch)
			p, err := env.Client.CoreV1().Pods(ns).Get(ctx, pod.Name, metav1.GetOptions{})
			Expect(err).NotTo(HaveOccurred())
			gate := findCondition(p, featureGateCondition)
			applied := gate != nil && gate.Status == corev1.ConditionTrue
			suite.Answer(drift.Question[bool]{
				Topic:    "kubectl patch of a pod's status",
				Claims:   map[string]bool{"not-supported": false, "subresource-status": true},
				Measured: applied,
				Evidence: fmt.Sprintf("%s (%s)\nthe pod's %s afterwards: %+v", r, version, featureGateCondition, gate),
			})
			if applied {
				Eventually(tl.Pod).WithContext(ctx).WithTimeout(gateReadyBound).Should(HaveCondition(corev1.PodReady, corev1.ConditionTrue, ""),
					"PC-7: containers ready and the gate's condition True, set by kubectl: the pod is Ready:\n%s", tl)
			}
		})
})

var _ = Describe("Feature gates the pages name", func() {
	// 000 and 003 call KubeletCrashLoopBackOffMax alpha; 001 calls
	// PodReadyToStartContainersCondition a gate that is usually on. The stage the
	// kubelet reports in its kubernetes_feature_enabled metric is the cluster's answer.
	// What fails: a kubelet that does not know a gate the pages tell you to turn on, or
	// one with PodReadyToStartContainersCondition on whose pod lacks the condition, or
	// off whose pod has it (PC-16).
	It("are known to the kubelet with the stage of its release, and PodReadyToStartContainersCondition adds its condition while on",
		Label("PC-16"), suite.Timeout(metricsBound, podStartBound), func(ctx SpecContext) {
			node := env.NodeFor("defaults", nil)
			stages := kubeletGateStages(ctx, node.Name)
			const backoffMax, readyToStart = "KubeletCrashLoopBackOffMax", "PodReadyToStartContainersCondition"
			for _, g := range []string{backoffMax, readyToStart} {
				Expect(stages).To(HaveKey(g), "the kubelet of %s (%s) does not know the gate %s the pages name", node.Name, node.KubeletVersion, g)
			}
			evidence := func(g string) string {
				return fmt.Sprintf("kubernetes_feature_enabled{name=%q} of the kubelet of %s (%s): stage %q, enabled %t",
					g, node.Name, node.KubeletVersion, stages[g].label, stages[g].enabled)
			}
			suite.Answer(drift.Question[string]{
				Topic:    "stage of KubeletCrashLoopBackOffMax",
				Claims:   map[string]string{"alpha": "alpha", "beta": "beta"},
				Measured: stages[backoffMax].stage(),
				Evidence: evidence(backoffMax),
			})
			suite.Answer(drift.Question[string]{
				Topic:    "stage of PodReadyToStartContainersCondition",
				Claims:   map[string]string{"beta": "beta", "ga": "ga"},
				Measured: stages[readyToStart].stage(),
				Evidence: evidence(readyToStart),
			})

			By("PC-16: the condition is in status.conditions exactly when the gate is on")
			ns := env.Namespace(ctx)
			tl := env.Run(ctx, ns, suite.PinTo(shellPod("gated-condition", corev1.RestartPolicyAlways, "sleep 3600"), node))
			Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound).Should(HaveCondition(corev1.PodReady, corev1.ConditionTrue, ""))
			if stages[readyToStart].enabled {
				Expect(tl.Pod()).To(HaveCondition(corev1.PodReadyToStartContainers, corev1.ConditionTrue, ""),
					"PC-16: %s is on: the pod's status.conditions carry PodReadyToStartContainers:\n%s", readyToStart, tl)
				return
			}
			for _, p := range tl.Pods() {
				Expect(findCondition(p, corev1.PodReadyToStartContainers)).To(BeNil(),
					"PC-16: %s is off, yet a status carries PodReadyToStartContainers:\n%s", readyToStart, tl)
			}
		})
})

// allContainersReady: the pod has a status for each of its containers, all ready.
func allContainersReady(p *corev1.Pod) bool {
	if p == nil || len(p.Status.ContainerStatuses) != len(p.Spec.Containers) {
		return false
	}
	for _, s := range p.Status.ContainerStatuses {
		if !s.Ready {
			return false
		}
	}
	return true
}

// findCondition is p's condition of type t, nil when it has none.
func findCondition(p *corev1.Pod, t corev1.PodConditionType) *corev1.PodCondition {
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == t {
			return &p.Status.Conditions[i]
		}
	}
	return nil
}

// readinessOf renders p's ContainersReady and Ready conditions as the claims of the
// readiness gate disagreement name them: "Type=Status(Reason)", the reason left out
// when there is none, "Type=none" for a condition the pod lacks.
func readinessOf(p *corev1.Pod) string {
	var out []string
	for _, t := range []corev1.PodConditionType{corev1.ContainersReady, corev1.PodReady} {
		c := findCondition(p, t)
		switch {
		case c == nil:
			out = append(out, string(t)+"=none")
		case c.Reason == "":
			out = append(out, fmt.Sprintf("%s=%s", t, c.Status))
		default:
			out = append(out, fmt.Sprintf("%s=%s(%s)", t, c.Status, c.Reason))
		}
	}
	return strings.Join(out, " ")
}

// conditionsAgree: the measured conditions give every condition the claim names the
// claim's status and, where the claim names a reason, that reason. A claim that names
// no reason says nothing of it, so one measurement can confirm both claims.
func conditionsAgree(claimed, measured string) bool {
	have := parseConditions(measured)
	for t, want := range parseConditions(claimed) {
		got, ok := have[t]
		if !ok || got[0] != want[0] || (want[1] != "" && got[1] != want[1]) {
			return false
		}
	}
	return true
}

// parseConditions reads readinessOf's form: type → (status, reason).
func parseConditions(s string) map[string][2]string {
	out := map[string][2]string{}
	for _, tok := range strings.Fields(s) {
		t, rest, _ := strings.Cut(tok, "=")
		status, reason, _ := strings.Cut(strings.TrimSuffix(rest, ")"), "(")
		out[t] = [2]string{status, reason}
	}
	return out
}

// gateStage is one gate of a component's kubernetes_feature_enabled metric.
type gateStage struct {
	label   string // the metric's stage label: ALPHA, BETA, DEPRECATED, "" for GA
	enabled bool
}

// stage is the label as the claims name it: alpha, beta, ga, deprecated.
func (g gateStage) stage() string {
	if g.label == "" {
		return "ga"
	}
	return strings.ToLower(g.label)
}

// kubeletGateStages reads the node's kubelet /metrics through the API server's node
// proxy, as facts.Gather does, keeping each gate's stage label, which facts.Gates
// drops.
func kubeletGateStages(ctx context.Context, node string) map[string]gateStage {
	GinkgoHelper()
	ctx, cancel := context.WithTimeout(ctx, metricsBound)
	defer cancel()
	raw, err := env.Client.CoreV1().RESTClient().Get().Resource("nodes").Name(node).SubResource("proxy").Suffix("metrics").DoRaw(ctx)
	Expect(err).NotTo(HaveOccurred(), "reading the kubelet /metrics of node %s", node)
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(bytes.NewReader(raw))
	Expect(err).NotTo(HaveOccurred(), "parsing the kubelet /metrics of node %s", node)
	fam, ok := families["kubernetes_feature_enabled"]
	Expect(ok).To(BeTrue(), "no kubernetes_feature_enabled metric in the kubelet /metrics of node %s", node)
	out := map[string]gateStage{}
	for _, m := range fam.GetMetric() {
		var name string
		var g gateStage
		for _, l := range m.GetLabel() {
			switch l.GetName() {
			case "name":
				name = l.GetValue()
			case "stage":
				g.label = l.GetValue()
			}
		}
		if name != "" && m.GetGauge() != nil {
			g.enabled = m.GetGauge().GetValue() == 1
			out[name] = g
		}
	}
	return out
}

// kubectlVersion is the client version bin reports, for the evidence.
func kubectlVersion(ctx context.Context, bin string) string {
	GinkgoHelper()
	return strings.TrimSpace(env.Kubectl(ctx, bin, "version", "--client").Stdout)
}
