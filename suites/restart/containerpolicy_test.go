package restart

import (
	"context"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/types"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/podlifecycle/conformance/framework/backoff"
	"github.com/podlifecycle/conformance/framework/crashloop"
	"github.com/podlifecycle/conformance/framework/drift"
	"github.com/podlifecycle/conformance/framework/examples"
	"github.com/podlifecycle/conformance/framework/facts"
	. "github.com/podlifecycle/conformance/framework/match"
	"github.com/podlifecycle/conformance/framework/observe"
	"github.com/podlifecycle/conformance/framework/suite"
)

// containerPolicyNode is where a pod with a container-level restartPolicy on a regular
// container is pinned: the API server must accept the field (without
// ContainerRestartRules, v1.37.2 validation says "may not be set for non-init
// containers") and the node's kubelet must carry it out. The "defaults" worker's
// backoff settings are the documented defaults, as RS-6's loop uses.
func containerPolicyNode() facts.Node {
	GinkgoHelper()
	env.Require(facts.APIServerGate("ContainerRestartRules", true))
	return env.NodeFor("defaults", map[string]bool{"ContainerRestartRules": true})
}

func withPolicy(c corev1.Container, policy corev1.ContainerRestartPolicy) corev1.Container {
	c.RestartPolicy = &policy
	return c
}

// onExitCode is a restart rule: Restart when the container exits with code.
func onExitCode(code int32) corev1.ContainerRestartRule {
	return corev1.ContainerRestartRule{Action: corev1.ContainerRestartRuleActionRestart,
		ExitCodes: &corev1.ContainerRestartRuleOnExitCodes{Operator: corev1.ContainerRestartRuleOnExitCodesOpIn, Values: []int32{code}}}
}

// failsOnce is a script that exits code on its first run and 0 on every later one
// (the count lives in the pod's marker emptyDir, which outlives the container).
func failsOnce(code int) string {
	return fmt.Sprintf("n=$(cat %[1]s/runs 2>/dev/null || echo 0); echo $((n+1)) > %[1]s/runs; mark start; if [ $n -eq 0 ]; then exit %[2]d; fi; exit 0",
		observe.MarkerDir, code)
}

// matches turns a pod matcher into a predicate for Timeline.FirstPod.
func matches(m types.GomegaMatcher) func(*corev1.Pod) bool {
	return func(p *corev1.Pod) bool {
		ok, err := m.Match(p)
		return ok && err == nil
	}
}

var _ = Describe("Container-level restart policy", Label("ContainerRestartRules"), func() {
	It("restarts a container with its own restartPolicy OnFailure in a pod with restartPolicy Never with the pod-level backoff: at once, then after 10 s, 20 s, 40 s",
		suite.LongRunning, Label("RS-17", "RS-8"), suite.Timeout(crashLoopBound(longestDelays.Expected(4), 0)), func(ctx SpecContext) {
			node := containerPolicyNode()
			ns := env.Namespace(ctx)
			looper := crashloop.CrashLooper(node)
			// The changes the statement needs: the pod's policy Never, under which the
			// crasher would stay stopped after its first exit, and the crasher's own
			// OnFailure. Everything else is RS-6's loop, measured and toleranced as there.
			looper.Spec.RestartPolicy = corev1.RestartPolicyNever
			for i := range looper.Spec.Containers {
				if looper.Spec.Containers[i].Name == "crasher" {
					looper.Spec.Containers[i] = withPolicy(looper.Spec.Containers[i], corev1.ContainerRestartPolicyOnFailure)
				}
			}
			tl := env.Run(ctx, ns, looper)
			// A kubelet that ignored the container's policy leaves the crasher stopped (the
			// wait for 4 restarts runs out); one that kept no backoff for container-level
			// restarts restarts it at once each time ("delay 2 too short"). Four delays, as
			// RS-6's: the fourth (40 s, allowed up to 43.5 s) tells the documented backoff
			// from one 10 % longer (44 s) every time; over three delays only the whole-loop
			// rule could, at its edge (a kubelet starting at 11 s gave Σ 5027 ms against
			// 5000 ms allowed in one run and passed in the next).
			crashloop.CheckLoop(ctx, env, tl, "RS-17", crashloop.NodeAndSettings(node)+", crasher's own restartPolicy OnFailure in a Never pod",
				backoff.SettingsOf(node).Expected(4), 0)
		})

	It("under a pod's restartPolicy Never, restarts a container with restartPolicy Always after exit 0, and not one with OnFailure", Label("RS-9"),
		suite.Timeout(podStartBound+firstRestartBound, firstRestartBound, firstRestartBound), func(ctx SpecContext) {
			node := containerPolicyNode()
			ns := env.Namespace(ctx)
			// Both exit 0, a second or two after they start.
			p := pod("container-policies", corev1.RestartPolicyNever,
				withPolicy(container("always", "mark start; sleep 2; exit 0"), corev1.ContainerRestartPolicyAlways),
				withPolicy(container("on-failure", "mark start; sleep 1; exit 0"), corev1.ContainerRestartPolicyOnFailure))
			tl := env.Run(ctx, ns, suite.PinTo(p, node))
			// A cluster that applies the pod's Never leaves "always" stopped (the pod ends
			// Succeeded) and the wait runs out; one that restarts "on-failure" too fails
			// the Expect.
			Eventually(tl.Pods).WithContext(ctx).WithTimeout(podStartBound + firstRestartBound).Should(
				restartedAfter("always", "Completed"))
			// The kubelet starts a pod's containers one after another, seconds apart on a
			// loaded machine, so "on-failure" may still run here; once it has exited 0 it
			// must stay stopped: its restart would come at once, within firstRestartBound.
			Eventually(tl.Pod).WithContext(ctx).WithTimeout(firstRestartBound).Should(HaveContainerState("on-failure", "Terminated", "Completed"))
			Consistently(tl.Pod).WithContext(ctx).WithTimeout(firstRestartBound).Should(HaveContainerRestarts("on-failure", 0),
				"RS-9: the container with restartPolicy OnFailure was restarted after exit 0:\n%s", tl)
		})

	DescribeTable("apply to a regular init container: under a pod's restartPolicy Never it is restarted after its failure, then the main container starts", Label("RS-9"),
		func(ctx SpecContext, policy corev1.ContainerRestartPolicy, rules []corev1.ContainerRestartRule, code int) {
			node := containerPolicyNode()
			ns := env.Namespace(ctx)
			initC := withPolicy(container("init", failsOnce(code)), policy)
			initC.RestartPolicyRules = rules
			p := pod("init-own-policy", corev1.RestartPolicyNever, container("main", "mark start; exec sleep 3600"))
			p.Spec.InitContainers = []corev1.Container{initC}
			tl := env.Run(ctx, ns, suite.PinTo(observe.WithMarkers(p), node))
			// Under the pod's Never alone the failed init container fails the pod (RS-4):
			// a cluster that ignores the init container's own policy or rule shows Failed
			// and main never starts, so the wait runs out. The restart comes at once after
			// a first exit.
			Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound + firstRestartBound).Should(HaveContainerState("main", "Running", ""))
			Expect(tl.Pods()).To(restartedAfter("init", "Error", And(HaveContainerRestarts("init", 1), HaveContainerState("init", "Terminated", "Completed"))))
		},
		Entry("its own restartPolicy OnFailure, first run exits 1", suite.Timeout(podStartBound+firstRestartBound),
			corev1.ContainerRestartPolicyOnFailure, []corev1.ContainerRestartRule(nil), 1),
		// A rule on an init container is RS-10's too: its matching rule applies.
		Entry("its own restartPolicy Never and a Restart rule on exit 42, first run exits 42", Label("RS-10"), suite.Timeout(podStartBound+firstRestartBound),
			corev1.ContainerRestartPolicyNever, []corev1.ContainerRestartRule{onExitCode(42)}, 42),
	)

	It("rules are rejected by the API on an init container without its own restartPolicy", Label("RS-10"), suite.Timeout(), func(ctx SpecContext) {
		env.Require(facts.APIServerGate("ContainerRestartRules", true))
		ns := env.Namespace(ctx)
		initC := container("init", "exit 0")
		initC.RestartPolicyRules = []corev1.ContainerRestartRule{onExitCode(42)}
		p := pod("init-rules-without-policy", corev1.RestartPolicyNever, container("main", "sleep 3600"))
		p.Spec.InitContainers = []corev1.Container{initC}
		p.Namespace = ns
		_, err := env.Client.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{})
		Expect(apierrors.IsInvalid(err)).To(BeTrue(), "want 422 Invalid, got %v", err)
		Expect(err.Error()).To(ContainSubstring("must specify restartPolicy when restart rules are used"))
	})
})

// firstDownSecondFails: "first" fails on every run, so after its second exit the
// kubelet holds it back for the 10 s backoff (RS-6); right after that exit "second"
// exits 1, once, and sleeps on its later runs. Container 1 is not running, and
// container 2 exits with failure.
func firstDownSecondFails(policy corev1.RestartPolicy) *corev1.Pod {
	exits := observe.MarkerDir + "/first-exits"
	first := container("first", "mark start; mark exit; echo x >> "+exits+"; exit 1")
	second := container("second", "mark start; if [ -f "+observe.MarkerDir+"/second-failed ]; then exec sleep 3600; fi; "+
		"until [ -f "+exits+" ] && [ $(wc -l < "+exits+") -ge 2 ]; do sleep 0.05; done; touch "+observe.MarkerDir+"/second-failed; mark exit; exit 1")
	return observe.WithMarkers(pod("first-down", policy, first, second))
}

// The second container of the Never case below runs this long after its start, so
// that the kubelet reports the first one's exit while it still runs.
const secondRuns = 8 * time.Second

// statusBound: the kubelet notices an exit within its 1 s relist (backoff.Detection)
// and writes the pod's status in the same sync; 10 s leaves room for a loaded machine.
const statusBound = 10 * time.Second

var _ = Describe("Restart policy with two containers", func() {
	DescribeTable("container 1 not running and container 2 exits with failure: container 2 restarts and the pod stays Running", Label("RS-2"),
		func(ctx SpecContext, policy corev1.RestartPolicy) {
			ns := env.Namespace(ctx)
			p := firstDownSecondFails(policy)
			tl := env.Run(ctx, ns, p)
			// first's at-once restart, then second's at-once restart.
			Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound + 2*firstRestartBound).Should(And(
				HaveContainerRestarts("second", BeNumerically(">=", 1)), HaveContainerState("second", "Running", ""), HavePhase(corev1.PodRunning)))
			Expect(tl.Pods()).To(ContainElement(exitedWith("second", "Error")), "RS-2: second's restart followed its exit 1:\n%s", tl)
			Expect(tl.Phases()).NotTo(ContainElement(BeElementOf(corev1.PodSucceeded, corev1.PodFailed)), "the phase must stay Running:\n%s", tl)

			By("the premise: first was down (between its second exit and its next start) when second exited")
			ms := markersOf(ctx, ns, p.Name, "second")
			firstExits := ms.Of("first").WithEvent("exit")
			Expect(len(firstExits)).To(BeNumerically(">=", 2), "markers: %v", ms)
			secondExit, ok := ms.When(observe.MarkOf("second", "exit"))
			Expect(ok).To(BeTrue(), "markers: %v", ms)
			Expect(secondExit).To(BeTemporally(">", firstExits[1].At), "markers: %v", ms)
			if next := ms.Of("first").WithEvent("start").After(firstExits[1].At); len(next) > 0 {
				Expect(secondExit).To(BeTemporally("<", next[0].At), "markers: %v", ms)
			}
		},
		Entry("Always", suite.Timeout(podStartBound+2*firstRestartBound), corev1.RestartPolicyAlways),
		Entry("OnFailure", suite.Timeout(podStartBound+2*firstRestartBound), corev1.RestartPolicyOnFailure),
	)

	It("under Never, both fail: Running while container 2 runs, Failed once container 2 has exited too (the pages disagree)", Label("RS-2"),
		suite.Timeout(podStartBound, secondRuns+statusBound, statusBound), func(ctx SpecContext) {
			ns := env.Namespace(ctx)
			p := pod("both-fail-never", corev1.RestartPolicyNever,
				container("first", "mark start; exit 1"),
				container("second", fmt.Sprintf("mark start; sleep %d; exit 1", int(secondRuns.Seconds()))))
			tl := env.Run(ctx, ns, p)
			// Premises only: the first status with first exited and second running, then
			// the first with both exited. The kubelet may write the containers' exits a
			// status before the phase they give (v1.37.2: Running with Ready False
			// (PodFailed), then Failed), so the phase after both is the one the pod settles
			// on: terminal, or still not after statusBound.
			var whileRuns, afterBoth *corev1.Pod
			Eventually(func() *corev1.Pod {
				whileRuns, _ = tl.FirstPod(matches(And(HaveContainerState("first", "Terminated", "Error"), HaveContainerState("second", "Running", ""))))
				return whileRuns
			}).WithContext(ctx).WithTimeout(podStartBound).ShouldNot(BeNil(), "no status showed first exited while second ran:\n%s", tl)
			Eventually(func() *corev1.Pod {
				afterBoth, _ = tl.FirstPod(matches(And(HaveContainerState("first", "Terminated", "Error"), HaveContainerState("second", "Terminated", "Error"))))
				return afterBoth
			}).WithContext(ctx).WithTimeout(secondRuns+statusBound).ShouldNot(BeNil(), "no status showed both exited:\n%s", tl)
			_ = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, statusBound, true, func(context.Context) (bool, error) {
				p := tl.Pod()
				if p != nil && (p.Status.Phase == corev1.PodFailed || p.Status.Phase == corev1.PodSucceeded) {
					afterBoth = p
					return true, nil
				}
				return false, nil
			})

			outcome := func(one, both corev1.PodPhase) string {
				return fmt.Sprintf("%s while container 2 runs, %s once both have exited", one, both)
			}
			suite.Answer(drift.Question[string]{
				Topic: "two containers under restartPolicy Never",
				Claims: map[string]string{
					"running-until-all-exit": outcome(corev1.PodRunning, corev1.PodFailed),
					"failed-when-one-fails":  outcome(corev1.PodFailed, corev1.PodRunning),
				},
				Measured: outcome(whileRuns.Status.Phase, afterBoth.Status.Phase),
				Evidence: "first exited, second running: " + observe.SummarizePod(whileRuns) + "; both exited: " + observe.SummarizePod(afterBoth),
			})

			// What RS-2 promises: Never restarts neither; Running while one runs; Failed
			// once all have exited.
			Expect(whileRuns).To(HavePhase(corev1.PodRunning))
			Expect(afterBoth).To(And(HavePhase(corev1.PodFailed), HaveContainerRestarts("first", 0), HaveContainerRestarts("second", 0)))
		})
})

var _ = Describe("Sidecar restart", func() {
	// "Sidecars", two of them: the docs' logging-sidecar and a copy of it that exits a
	// second later, so that a kubelet that restarts only the first sidecar, or only the
	// first to exit, leaves the other stopped.
	DescribeTable("restarts each sidecar whatever the pod's restartPolicy and its exit code, while the main container keeps running", Label("RS-5"),
		func(ctx SpecContext, policy corev1.RestartPolicy, code string) {
			ns := env.Namespace(ctx)
			pod := examples.AppWithSidecar()
			// The changes the statement needs: the pod's restartPolicy under test, and
			// sidecars that exit with code after 2 s and 3 s. Under Never (and, for exit
			// 0, OnFailure) a regular container would stay stopped.
			pod.Spec.RestartPolicy = policy
			pod.Spec.InitContainers[0].Image = "busybox:1.28"
			pod.Spec.InitContainers[0].Command = []string{"sh", "-c", "sleep 2; exit " + code}
			second := *pod.Spec.InitContainers[0].DeepCopy()
			second.Name = "logging-sidecar-2"
			second.Command = []string{"sh", "-c", "sleep 3; exit " + code}
			pod.Spec.InitContainers = append(pod.Spec.InitContainers, second)
			reason := "Error"
			if code == "0" {
				reason = "Completed"
			}
			tl := env.Run(ctx, ns, pod)
			// 3 s of running, then the restart at once after a first exit.
			for _, sidecar := range []string{"logging-sidecar", "logging-sidecar-2"} {
				Eventually(tl.Pods).WithContext(ctx).WithTimeout(podStartBound+3*time.Second+firstRestartBound).Should(
					restartedAfter(sidecar, reason), "RS-5: %s restarted:\n%s", sidecar, tl)
			}
			Expect(tl.Pod()).To(And(HavePhase(corev1.PodRunning), HaveContainerRestarts("main-app", 0), HaveContainerState("main-app", "Running", "")))
		},
		Entry("pod Never, sidecars exit 1", suite.Timeout(podStartBound+3*time.Second+firstRestartBound, firstRestartBound), corev1.RestartPolicyNever, "1"),
		Entry("pod Never, sidecars exit 0", suite.Timeout(podStartBound+3*time.Second+firstRestartBound, firstRestartBound), corev1.RestartPolicyNever, "0"),
		Entry("pod OnFailure, sidecars exit 1", suite.Timeout(podStartBound+3*time.Second+firstRestartBound, firstRestartBound), corev1.RestartPolicyOnFailure, "1"),
	)
})
