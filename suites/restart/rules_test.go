package restart

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/podlifecycle/conformance/framework/examples"
	"github.com/podlifecycle/conformance/framework/facts"
	. "github.com/podlifecycle/conformance/framework/match"
	"github.com/podlifecycle/conformance/framework/observe"
	"github.com/podlifecycle/conformance/framework/suite"
)

// The docs' restart-rules containers sleep 10 s before they exit.
const docsSleep = 10 * time.Second

var _ = Describe("Container restart rules", Label("ContainerRestartRules"), func() {
	BeforeEach(func() {
		env.Require(facts.APIServerGate("ContainerRestartRules", true), facts.KubeletGate("ContainerRestartRules", true, ""))
	})

	It("on-failure-pod: the try-once container runs once while the other restarts on failure", Label("RS-9"), suite.Timeout(podStartBound+docsSleep+firstRestartBound), func(ctx SpecContext) {
		ns := env.Namespace(ctx)
		pod := examples.OnFailurePod()
		// The change the statement needs: the second container fails after 2 s instead
		// of after 30 minutes, so its restart can be seen.
		pod.Spec.Containers[1].Command = []string{"sh", "-c", `echo "Keep restarting" && sleep 2 && exit 1`}
		tl := env.Run(ctx, ns, pod)
		Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound + docsSleep + firstRestartBound).Should(And(
			HaveContainerState("try-once-container", "Terminated", "Error"), HaveContainerRestarts("on-failure-container", BeNumerically(">=", 1))))
		Expect(tl.Pod()).To(And(HaveContainerRestarts("try-once-container", 0), HavePhase(corev1.PodRunning)))
	})

	It("fail-pod-if-init-fails: an init container with restartPolicy Never that fails fails the pod", Label("RS-9"), suite.Timeout(podStartBound+docsSleep+firstRestartBound), func(ctx SpecContext) {
		ns := env.Namespace(ctx)
		tl := env.Run(ctx, ns, examples.FailPodIfInitFails())
		Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound + docsSleep + firstRestartBound).Should(HavePhase(corev1.PodFailed))
		Expect(tl.Pod()).To(And(HaveContainerRestarts("init-once", 0), HaveContainerState("init-once", "Terminated", "Error"),
			HaveContainerState("main-container", "Waiting", "PodInitializing")))
	})

	DescribeTable("restart-on-exit-codes restarts its container only on exit 42", Label("RS-9", "RS-10"),
		func(ctx SpecContext, code string, restarts bool) {
			ns := env.Namespace(ctx)
			pod := examples.RestartOnExitCodes()
			// The change the statement needs: exit after 1 s with the code under test.
			pod.Spec.Containers[0].Command = []string{"sh", "-c", "sleep 1 && exit " + code}
			tl := env.Run(ctx, ns, pod)
			if restarts {
				Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound + firstRestartBound).Should(
					HaveContainerRestarts("restart-on-exit-codes", BeNumerically(">=", 1)))
				Expect(tl.Pod()).To(HavePhase(corev1.PodRunning))
				return
			}
			// No rule matches: the container's own restartPolicy Never applies (RS-10).
			want := corev1.PodSucceeded
			if code != "0" {
				want = corev1.PodFailed
			}
			Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound).Should(HavePhase(want))
			Expect(tl.Pod()).To(HaveContainerRestarts("restart-on-exit-codes", 0))
		},
		Entry("exit 42: restarted", suite.Timeout(podStartBound+firstRestartBound), "42", true),
		Entry("exit 0: not restarted, Succeeded", suite.Timeout(podStartBound), "0", false),
		Entry("exit 3: no rule matches, the container policy Never applies, Failed", suite.Timeout(podStartBound), "3", false),
	)

	// Two rules that both match exit 7, in both orders: the first one's action applies.
	// One order alone passes a kubelet that prefers one action whatever the order (the
	// Restart-first order passes "Restart wins", the other "RestartAllContainers wins").
	// The second rule must be one the cluster would carry out, or it could not be told
	// apart from a rule that was skipped: both actions are, on the RestartAllContainers
	// node.
	DescribeTable("apply the first matching rule, in order", Label("RS-10"),
		func(ctx SpecContext, first, second corev1.ContainerRestartRuleAction) {
			node := restartAllContainersNode()
			ns := env.Namespace(ctx)
			on7 := func(a corev1.ContainerRestartRuleAction) corev1.ContainerRestartRule {
				return corev1.ContainerRestartRule{Action: a, ExitCodes: &corev1.ContainerRestartRuleOnExitCodes{Operator: corev1.ContainerRestartRuleOnExitCodesOpIn, Values: []int32{7}}}
			}
			// main exits 7 on its first run only, so that what follows the first
			// action is not a second trigger.
			c := container("main", "if [ ! -e "+observe.MarkerDir+"/exited ]; then touch "+observe.MarkerDir+"/exited; mark exit; sleep 1; exit 7; fi; mark start; sleep 3600")
			c.RestartPolicyRules = []corev1.ContainerRestartRule{on7(first), on7(second)}
			c.RestartPolicy = ptr(corev1.ContainerRestartPolicyNever)
			p := observe.WithMarkers(pod("first-match", corev1.RestartPolicyNever, c, container("other", "mark start; sleep 3600")))
			suite.PinTo(p, node)
			tl := env.Run(ctx, ns, p)
			Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound + firstRestartBound).Should(
				And(HaveContainerRestarts("main", 1), HaveContainerState("main", "Running", "")))
			if first == corev1.ContainerRestartRuleActionRestart {
				Expect(tl.Pods()).NotTo(ContainElement(HaveCondition(corev1.AllContainersRestarting, corev1.ConditionTrue, "")),
					"RS-10: the second rule (RestartAllContainers) applied:\n%s", tl)
				Consistently(tl.Pod).WithContext(ctx).WithTimeout(3*time.Second).Should(HaveContainerRestarts("other", 0),
					"RS-10: the first rule is Restart of main alone; other was restarted:\n%s", tl)
				return
			}
			Eventually(tl.Pod).WithContext(ctx).WithTimeout(firstRestartBound).Should(
				And(HaveContainerRestarts("other", 1), HaveContainerState("other", "Running", "")),
				"RS-10: the first rule is RestartAllContainers; other was not restarted:\n%s", tl)
		},
		Entry("Restart, then RestartAllContainers: main alone restarts", suite.Timeout(podStartBound+firstRestartBound, 3*time.Second),
			corev1.ContainerRestartRuleActionRestart, corev1.ContainerRestartRuleActionRestartAllContainers),
		Entry("RestartAllContainers, then Restart: every container restarts", suite.Timeout(podStartBound+firstRestartBound, firstRestartBound),
			corev1.ContainerRestartRuleActionRestartAllContainers, corev1.ContainerRestartRuleActionRestart),
	)

	It("are rejected by the API on a container without its own restartPolicy", Label("RS-10"), suite.Timeout(), func(ctx SpecContext) {
		ns := env.Namespace(ctx)
		pod := examples.RestartOnExitCodes()
		pod.Spec.Containers[0].RestartPolicy = nil
		_, err := env.Client.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{})
		Expect(apierrors.IsInvalid(err)).To(BeTrue(), "want 422 Invalid, got %v", err)
		Expect(err.Error()).To(ContainSubstring("must specify restartPolicy when restart rules are used"))
	})
})

// RS-18: the rules' grammar, asked of the API server with a server-side dry run (it
// validates as a create does; nothing runs): each supported condition operator and
// action accepted, and one of each class outside them refused (another action, a
// supported action's spelling in another case, another operator, no condition).
var _ = Describe("Container restart rules' conditions and actions", Label("ContainerRestartRules"), func() {
	exitCodes := func(op corev1.ContainerRestartRuleOnExitCodesOperator, codes ...int32) *corev1.ContainerRestartRuleOnExitCodes {
		return &corev1.ContainerRestartRuleOnExitCodes{Operator: op, Values: codes}
	}
	DescribeTable("are exitCodes and Restart, RestartAllContainers besides where its gate is on, and nothing else",
		Label("RS-18"), func(ctx SpecContext, rule corev1.ContainerRestartRule, accepted bool, gates []string) {
			env.Require(facts.APIServerGate("ContainerRestartRules", true))
			for _, g := range gates {
				env.Require(facts.APIServerGate(g, true))
			}
			ns := env.Namespace(ctx)
			c := container("main", "exit 0")
			c.RestartPolicy = ptr(corev1.ContainerRestartPolicyNever)
			c.RestartPolicyRules = []corev1.ContainerRestartRule{rule}
			_, err := env.Client.CoreV1().Pods(ns).Create(ctx, pod("rule", corev1.RestartPolicyNever, c), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
			if accepted {
				Expect(err).NotTo(HaveOccurred(), "RS-18: a rule of a supported condition and action: %+v", rule)
				return
			}
			Expect(apierrors.IsInvalid(err)).To(BeTrue(), "RS-18: want 422 Invalid for the rule %+v, got %v", rule, err)
			Expect(err.Error()).To(ContainSubstring("restartPolicyRules"), "the refusal names the field")
		},
		Entry("Restart on exitCodes In [42]: accepted", suite.Timeout(10*time.Second),
			corev1.ContainerRestartRule{Action: corev1.ContainerRestartRuleActionRestart, ExitCodes: exitCodes(corev1.ContainerRestartRuleOnExitCodesOpIn, 42)}, true, nil),
		Entry("Restart on exitCodes NotIn [0]: accepted", suite.Timeout(10*time.Second),
			corev1.ContainerRestartRule{Action: corev1.ContainerRestartRuleActionRestart, ExitCodes: exitCodes(corev1.ContainerRestartRuleOnExitCodesOpNotIn, 0)}, true, nil),
		Entry("RestartAllContainers on exitCodes In [42]: accepted with its gate on", suite.Timeout(10*time.Second),
			corev1.ContainerRestartRule{Action: corev1.ContainerRestartRuleActionRestartAllContainers, ExitCodes: exitCodes(corev1.ContainerRestartRuleOnExitCodesOpIn, 42)}, true, []string{"RestartAllContainersOnContainerExits"}),
		Entry("action Ignore: refused", suite.Timeout(10*time.Second),
			corev1.ContainerRestartRule{Action: "Ignore", ExitCodes: exitCodes(corev1.ContainerRestartRuleOnExitCodesOpIn, 42)}, false, nil),
		Entry("action restart, in lower case: refused", suite.Timeout(10*time.Second),
			corev1.ContainerRestartRule{Action: "restart", ExitCodes: exitCodes(corev1.ContainerRestartRuleOnExitCodesOpIn, 42)}, false, nil),
		Entry("operator Equals: refused", suite.Timeout(10*time.Second),
			corev1.ContainerRestartRule{Action: corev1.ContainerRestartRuleActionRestart, ExitCodes: exitCodes("Equals", 42)}, false, nil),
		Entry("no condition: refused", suite.Timeout(10*time.Second),
			corev1.ContainerRestartRule{Action: corev1.ContainerRestartRuleActionRestart}, false, nil),
	)
})
