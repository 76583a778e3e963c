package lifecycle

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/types"
	corev1 "k8s.io/api/core/v1"

	"github.com/podlifecycle/conformance/framework/facts"
	. "github.com/podlifecycle/conformance/framework/match"
	"github.com/podlifecycle/conformance/framework/observe"
	"github.com/podlifecycle/conformance/framework/suite"
)

// hookPod is a busybox pod whose container and hooks all write markers.
func hookPod(name string) *corev1.Pod {
	p := shellPod(name, corev1.RestartPolicyAlways, `mark main-started; trap "mark term; exit 0" TERM; while true; do sleep 0.2; done`)
	p.Spec.Containers[0].Lifecycle = &corev1.Lifecycle{}
	return p
}

func execHook(container, script string) *corev1.LifecycleHandler {
	return &corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: []string{"sh", "-c", observe.MarkShell(container) + script}}}
}

var _ = Describe("Container states", func() {
	It("reports Running, with startedAt, only after the postStart hook has completed", Label("CS-2"), suite.Timeout(podStartBound), func(ctx SpecContext) {
		env.Require(facts.OneClock())
		ns := env.Namespace(ctx)
		pod := hookPod("post-start")
		// The hook takes 2 s, long enough that Running reported early would be seen early.
		pod.Spec.Containers[0].Lifecycle.PostStart = execHook("main", "mark poststart-begin; sleep 2; mark poststart-done")
		tl := env.Run(ctx, ns, pod)
		Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound).Should(HaveContainerState("main", "Running", ""))

		markers, err := env.Markers(ctx, ns, pod.Name, "main", false)
		Expect(err).NotTo(HaveOccurred())
		Expect(markers).To(HaveMarked(observe.MarkOf("main", "poststart-done")), "the postStart hook's last marker")
		done, _ := markers.When(observe.MarkOf("main", "poststart-done"))
		running := firstSeen(tl, HaveContainerState("main", "Running", ""))
		Expect(running).NotTo(BeZero())
		AddReportEntry("postStart done → Running seen (ms)", running.Sub(done).Milliseconds())
		// Both times come from the host's clock (markers: the container's adjtimex; the
		// watch: this process), so no tolerance: Running must not be seen before the
		// hook's last marker was written.
		Expect(running).To(BeTemporally(">=", done), "Running was reported before the postStart hook finished:\n%v\n%s", markers, tl)
		Expect(tl.Pod().Status.ContainerStatuses[0].State.Running.StartedAt.IsZero()).To(BeFalse(), "Running carries startedAt")
	})

	It("runs the preStop hook before the container is Terminated, and TERM after the hook", Label("CS-4", "TM-3", "CS-3"), suite.Timeout(podStartBound, terminationBound), func(ctx SpecContext) {
		env.Require(facts.OneClock())
		ns := env.Namespace(ctx)
		pod := env.Hold(ns, hookPod("pre-stop"))
		pod.Spec.Containers[0].Lifecycle.PreStop = execHook("main", "mark prestop-begin; sleep 1; mark prestop-done")
		tl := env.Run(ctx, ns, pod)
		// The log is followed from the start: once the deleted pod is terminal the
		// kubelet removes its containers, logs included, and a read after the stop
		// races with that (suite.MarkerFollower).
		follower := env.FollowMarkers(ctx, ns, pod.Name, "main")
		Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound).Should(HavePhase(corev1.PodRunning))
		deletePod(ctx, ns, pod.Name, nil)
		Eventually(tl.Pod).WithContext(ctx).WithTimeout(terminationBound).Should(HaveContainerState("main", "Terminated", ""))

		markers, err := follower.Wait(terminationBound)
		Expect(err).NotTo(HaveOccurred())
		// CS-4 first, so that a kubelet that skips the hook fails CS-4 (a hook that never
		// ran did not run before Terminated), not only TM-3's order below.
		done, ran := markers.When(observe.MarkOf("main", "prestop-done"))
		Expect(ran).To(BeTrue(), "CS-4: the container is Terminated and its preStop hook never finished:\n%v\n%s", markers, tl)
		terminated := firstSeen(tl, HaveContainerState("main", "Terminated", ""))
		Expect(terminated).To(BeTemporally(">=", done), "CS-4: Terminated seen before preStop finished:\n%v\n%s", markers, tl)
		Expect(markers.Events()).To(Equal([]string{"main-started", "prestop-begin", "prestop-done", "term"}),
			"TM-3: preStop runs first, then TERM reaches PID 1")
		expectTerminated(tl.Pod(), "main", 0)
	})

	// "Each container": two, each with its own preStop hook. A kubelet that runs only
	// the first container's hook, or sends TERM to one container before its own hook,
	// fails on that container's markers.
	It("runs each container's own preStop hook before TERM reaches that container", Label("TM-3"), suite.Timeout(podStartBound, terminationBound), func(ctx SpecContext) {
		ns := env.Namespace(ctx)
		pod := env.Hold(ns, hookPod("pre-stop-each"))
		second := pod.Spec.Containers[0]
		second.Name = "second"
		second.Command = []string{"sh", "-c", observe.MarkShell("second") + `mark second-started; trap "mark term; exit 0" TERM; while true; do sleep 0.2; done`}
		second.Lifecycle = &corev1.Lifecycle{PreStop: execHook("second", "mark prestop-begin; sleep 1; mark prestop-done")}
		pod.Spec.Containers[0].Lifecycle.PreStop = execHook("main", "mark prestop-begin; sleep 1; mark prestop-done")
		pod.Spec.Containers = append(pod.Spec.Containers, second)
		tl := env.Run(ctx, ns, pod)
		follower := env.FollowMarkers(ctx, ns, pod.Name, "main", "second")
		Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound).Should(HavePhase(corev1.PodRunning))
		deletePod(ctx, ns, pod.Name, nil)
		Eventually(tl.Pod).WithContext(ctx).WithTimeout(terminationBound).Should(
			And(HaveContainerState("main", "Terminated", ""), HaveContainerState("second", "Terminated", "")))

		markers, err := follower.Wait(terminationBound)
		Expect(err).NotTo(HaveOccurred())
		for _, c := range []string{"main", "second"} {
			Expect(markers.Of(c).Events()).To(Equal([]string{c + "-started", "prestop-begin", "prestop-done", "term"}),
				"TM-3: %s's own preStop runs first, then TERM reaches its PID 1:\n%s", c, markers)
			expectTerminated(tl.Pod(), c, 0)
		}
	})

	It("shows a container Waiting with reason PodInitializing while init containers run", Label("CS-1"), suite.Timeout(podStartBound+3*time.Second), func(ctx SpecContext) {
		ns := env.Namespace(ctx)
		pod := shellPod("initializing", corev1.RestartPolicyAlways, "sleep 3600")
		pod.Spec.InitContainers = []corev1.Container{{Name: "init", Image: "busybox:1.28", Command: []string{"sh", "-c", "sleep 3"}}}
		tl := env.Run(ctx, ns, pod)
		Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound + 3*time.Second).Should(HaveContainerState("main", "Running", ""))
		Expect(tl.Pods()).To(ContainElement(HaveContainerState("main", "Waiting", "PodInitializing")), "%s", tl)
	})
})

// firstSeen is when the watch first delivered a status that m matches.
func firstSeen(tl *observe.Timeline, m types.GomegaMatcher) time.Time {
	for _, e := range tl.Entries() {
		if e.Pod == nil {
			continue
		}
		if ok, err := m.Match(e.Pod); ok && err == nil {
			return e.Seen
		}
	}
	return time.Time{}
}
