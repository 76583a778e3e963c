package lifecycle

import (
	"fmt"
	"slices"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podlifecycle/conformance/framework/drift"
	"github.com/podlifecycle/conformance/framework/examples"
	"github.com/podlifecycle/conformance/framework/facts"
	. "github.com/podlifecycle/conformance/framework/match"
	"github.com/podlifecycle/conformance/framework/observe"
	"github.com/podlifecycle/conformance/framework/suite"
)

var _ = Describe("Pod phase", func() {
	It("takes the docs' web-server pod from Pending to Running, with every lifecycle condition True in order",
		Label("PL-1", "PL-2", "PC-2", "CS-1"), suite.Timeout(podStartBound), func(ctx SpecContext) {
			ns := env.Namespace(ctx)
			tl := env.Run(ctx, ns, examples.WebServer())

			Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound).Should(And(
				HavePhase(corev1.PodRunning), HaveCondition(corev1.PodReady, corev1.ConditionTrue, "")))

			By("PL-1: Pending until bound and started, then Running with its container running")
			Expect(tl.Phases()).To(Equal([]corev1.PodPhase{corev1.PodPending, corev1.PodRunning}),
				"phases seen, in order:\n%s", tl)
			for _, p := range tl.Pods() {
				if p.Status.Phase == corev1.PodPending {
					continue
				}
				Expect(p).To(HaveContainerState("nginx", "Running", ""), "at the first Running status")
				break
			}
			for _, p := range tl.Pods() {
				if p.Spec.NodeName == "" {
					Expect(p).To(HavePhase(corev1.PodPending), "while the pod was not yet bound to a node")
				}
			}

			By("CS-1: while the container was being created it was Waiting with reason ContainerCreating")
			Expect(tl.Pods()).To(ContainElement(HaveContainerState("nginx", "Waiting", "ContainerCreating")))

			By("PL-2: every phase seen is one of the five documented values")
			for _, phase := range tl.Phases() {
				Expect(phase).To(BeElementOf(corev1.PodPending, corev1.PodRunning, corev1.PodSucceeded, corev1.PodFailed, corev1.PodUnknown))
			}

			By("PC-2: the lifecycle conditions became True in the documented order")
			// The order is read from the watch: the position of the first status in which
			// each condition was True (statusWrite), exact where the whole-second
			// lastTransitionTimes tie. Conditions that turn True in one status write share
			// a position, and a tie shows no order either way: only the strict steps the
			// kubelet takes in separate writes are asserted strict. The scheduler binds
			// the pod before the kubelet writes any status of it; ContainersReady and
			// Ready come from the same container readiness in one status
			// (status.GenerateContainersReadyCondition, GeneratePodReadyCondition), so
			// Ready never comes before ContainersReady.
			expectStrictlyBefore(tl, corev1.PodScheduled, corev1.PodReadyToStartContainers)
			expectNotBefore(tl, corev1.ContainersReady, corev1.PodReadyToStartContainers)
			expectNotBefore(tl, corev1.PodReady, corev1.ContainersReady)
			// Initialized: the pages give PodReadyToStartContainers, then Initialized, and
			// also (PC-3) that a pod without init containers is Initialized before its
			// sandbox is created, which is the other order. What this pod shows is
			// measured, and where it is not the order of the list it is drift of PC-2
			// (the init-container spec below checks the list's order where PC-3 agrees).
			initialized, sandbox := statusWrite(tl, corev1.PodInitialized), statusWrite(tl, corev1.PodReadyToStartContainers)
			Expect(initialized).To(BeNumerically(">=", 0), "PC-2: Initialized never seen True:\n%s", tl)
			suite.Drift(drift.Observation[bool]{
				Statement:  "PC-2",
				Topic:      "Initialized before PodReadyToStartContainers without init containers",
				Docs:       "PodReadyToStartContainers, then Initialized (the list's order)",
				Documented: true,
				Measured:   initialized >= sandbox,
				Evidence:   fmt.Sprintf("first True in status write %d (Initialized) and %d (PodReadyToStartContainers), of the pod's statuses as the watch saw them:\n%s", initialized, sandbox, tl),
				Reproducer: suite.Reproducer(examples.WebServer(), "any node"),
			})
			AddReportEntry("conditions first seen True (watch, ms)", tl.ConditionsFirstTrue())
		})

	It("takes a pod with an init container through every lifecycle condition in the documented order, each staying True once True",
		Label("PC-2", "PC-4"), suite.Timeout(podStartBound), func(ctx SpecContext) {
			// With an init container (2 s) and a readiness probe held back 2 s, the kubelet
			// turns each condition True in a status write of its own: the sandbox before
			// the init container runs, Initialized once it has completed (PC-3), then
			// ContainersReady and Ready at the first successful probe.
			ns := env.Namespace(ctx)
			pod := shellPod("ordered", corev1.RestartPolicyAlways, "exec sleep 3600")
			pod.Spec.InitContainers = []corev1.Container{{Name: "init", Image: "busybox:1.28", Command: []string{"sleep", "2"}}}
			pod.Spec.Containers[0].ReadinessProbe = &corev1.Probe{
				ProbeHandler:        corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"true"}}},
				InitialDelaySeconds: 2, PeriodSeconds: 1,
			}
			tl := env.Run(ctx, ns, pod)
			Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound).Should(HaveCondition(corev1.PodReady, corev1.ConditionTrue, ""))
			order := []corev1.PodConditionType{corev1.PodScheduled, corev1.PodReadyToStartContainers,
				corev1.PodInitialized, corev1.ContainersReady}
			for i := 1; i < len(order); i++ {
				expectStrictlyBefore(tl, order[i-1], order[i])
			}
			expectNotBefore(tl, corev1.PodReady, corev1.ContainersReady)
			// And as their lastTransitionTimes show (whole seconds: equal counts as in order).
			Expect(tl.Pod()).To(HaveConditionsTrueInOrder(append(order, corev1.PodReady)...))
			// Become True in order, and stay: nothing in this pod's start undoes a step
			// (its sandbox lives on, no container exits but the init container, which
			// completes). A condition True, then False, then True again would pass the
			// first-True order above while the pod went back a step in between: for
			// PodReadyToStartContainers that is PC-4's "True afterwards" broken, the
			// sandbox ready and the condition False while the init container runs.
			for _, c := range append(order, corev1.PodReady) {
				expectStaysTrue(tl, c)
			}
			AddReportEntry("conditions first seen True (watch, ms)", tl.ConditionsFirstTrue())
		})

	It("ends Succeeded when every container exits 0 and none will restart", Label("PL-3", "CS-3"), suite.Timeout(podStartBound), func(ctx SpecContext) {
		ns := env.Namespace(ctx)
		tl := env.Run(ctx, ns, shellPod("succeeds", corev1.RestartPolicyOnFailure, "mark done; exit 0"))
		Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound).Should(HavePhase(corev1.PodSucceeded))
		Expect(tl.Pod()).To(And(HaveContainerState("main", "Terminated", "Completed"), HaveContainerRestarts("main", 0)))
		expectTerminated(tl.Pod(), "main", 0)
	})

	It("ends the docs' migration-task pod Failed, its container terminated with exit 1 and not restarted",
		Label("PL-4", "CS-3", "RS-3"), suite.Timeout(podStartBound), func(ctx SpecContext) {
			ns := env.Namespace(ctx)
			tl := env.Run(ctx, ns, examples.MigrationTask())
			Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound).Should(HavePhase(corev1.PodFailed))
			Expect(tl.Pod()).To(And(HaveContainerState("migrate", "Terminated", "Error"), HaveContainerRestarts("migrate", 0)))
			expectTerminated(tl.Pod(), "migrate", 1)
		})

	// "All its containers": two, the second ending 3 s after the first. A kubelet that
	// ends the pod on the first container's exit shows the terminal phase while the
	// second still runs.
	DescribeTable("waits for every container: the phase turns terminal only once both have exited",
		func(ctx SpecContext, policy corev1.RestartPolicy, secondExit int, phase corev1.PodPhase) {
			ns := env.Namespace(ctx)
			pod := shellPod("two-exit", policy, "mark done; exit 0")
			second := pod.Spec.Containers[0]
			second.Name = "second"
			second.Command = []string{"sh", "-c", observe.MarkShell("second") + fmt.Sprintf("sleep 3; mark done; exit %d", secondExit)}
			pod.Spec.Containers = append(pod.Spec.Containers, second)
			tl := env.Run(ctx, ns, pod)
			Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound + 3*time.Second).Should(HavePhase(phase))
			p := tl.Pod()
			expectTerminated(p, "main", 0)
			expectTerminated(p, "second", int32(secondExit))
			Expect(p).To(And(HaveContainerRestarts("main", 0), HaveContainerRestarts("second", 0)))
			// Every status seen in the terminal phase had both containers Terminated, and
			// one with main exited and second running was seen Running.
			for _, q := range tl.Pods() {
				if q.Status.Phase == phase {
					Expect(q).To(And(HaveContainerState("main", "Terminated", ""), HaveContainerState("second", "Terminated", "")),
						"%s with a container still running:\n%s", phase, tl)
				}
			}
			mainDone, _ := tl.FirstPod(func(q *corev1.Pod) bool {
				ok, _ := And(HaveContainerState("main", "Terminated", ""), HaveContainerState("second", "Running", "")).Match(q)
				return ok
			})
			Expect(mainDone).NotTo(BeNil(), "no status showed main exited while second ran:\n%s", tl)
			Expect(mainDone).To(HavePhase(corev1.PodRunning), "main exited, second running:\n%s", tl)
		},
		Entry("both exit 0 (OnFailure): Succeeded", Label("PL-3"), suite.Timeout(podStartBound+3*time.Second), corev1.RestartPolicyOnFailure, 0, corev1.PodSucceeded),
		Entry("one exits 0, the other 1 (Never): Failed", Label("PL-4"), suite.Timeout(podStartBound+3*time.Second), corev1.RestartPolicyNever, 1, corev1.PodFailed),
	)

	It("stays Pending while no node fits, with PodScheduled False (Unschedulable)", Label("PL-5", "PC-10"), suite.Timeout(30*time.Second), func(ctx SpecContext) {
		ns := env.Namespace(ctx)
		pod := shellPod("nowhere", corev1.RestartPolicyAlways, "sleep 3600")
		pod.Spec.NodeSelector = map[string]string{"podlifecycle.io/no-such-node": "true"}
		tl := env.Run(ctx, ns, pod)
		// The scheduler's first attempt comes within a second of creation (the PL-1
		// timeline shows +10 ms); 30 s covers its retry after a failed attempt.
		Eventually(tl.Pod).WithContext(ctx).WithTimeout(30 * time.Second).Should(
			HaveCondition(corev1.PodScheduled, corev1.ConditionFalse, corev1.PodReasonUnschedulable))
		Expect(tl.Phases()).To(Equal([]corev1.PodPhase{corev1.PodPending}))
		Expect(tl.Pod().Spec.NodeName).To(BeEmpty())

		// DOC-DRIFT: the Chinese article lists "Unschedulable" as a condition type; the
		// cluster reports it as the reason of PodScheduled, and has no such type.
		var types []string
		for _, c := range tl.Pod().Status.Conditions {
			types = append(types, string(c.Type))
		}
		suite.Drift(drift.Observation[bool]{
			Statement:  "PC-10",
			Topic:      "Unschedulable is a PodScheduled reason, not a condition type",
			Docs:       "the Chinese article lists Unschedulable among the pod condition types",
			Documented: true,
			Measured:   slices.Contains(types, "Unschedulable"),
			Evidence:   fmt.Sprintf("condition types of the unschedulable pod: %v; PodScheduled reason: %s", types, corev1.PodReasonUnschedulable),
			Reproducer: suite.Reproducer(tl.Pod(), "any cluster"),
		})
	})

	It("stays Pending while its image cannot be pulled, the container Waiting in ErrImagePull then ImagePullBackOff",
		Label("PL-5", "CS-1"), suite.Timeout(podStartBound, 40*time.Second), func(ctx SpecContext) {
			ns := env.Namespace(ctx)
			pod := shellPod("no-image", corev1.RestartPolicyAlways, "sleep 3600")
			// .invalid is reserved (RFC 2606): the pull fails on every machine, offline or not.
			pod.Spec.Containers[0].Image = "registry.invalid/podlifecycle/absent:1"
			tl := env.Run(ctx, ns, pod)
			Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound).Should(HaveContainerState("main", "Waiting", "ErrImagePull"))
			// The kubelet's image pull backoff starts at 10 s; 40 s allows one failed retry
			// and the sync that reports it.
			Eventually(tl.Pod).WithContext(ctx).WithTimeout(40 * time.Second).Should(HaveContainerState("main", "Waiting", "ImagePullBackOff"))
			Expect(tl.Phases()).To(Equal([]corev1.PodPhase{corev1.PodPending}))
		})

	// The pages' other Waiting example: "applying Secret data". An env var from a Secret
	// that does not exist yet keeps the container from being created; the kubelet's pod
	// worker retries the sync after its backoff (10 s, jittered up to 50 %), so the pod
	// runs within secretRetryBound of the Secret's creation.
	It("stays Pending while a Secret its container's env needs is missing, the container Waiting in CreateContainerConfigError, and runs once the Secret exists",
		Label("PL-5", "CS-1"), suite.Timeout(podStartBound, secretRetryBound), func(ctx SpecContext) {
			ns := env.Namespace(ctx)
			pod := shellPod("needs-secret", corev1.RestartPolicyAlways, "sleep 3600")
			pod.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "TOKEN", ValueFrom: &corev1.EnvVarSource{
				SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "late"}, Key: "token"}}}}
			tl := env.Run(ctx, ns, pod)
			Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound).Should(HaveContainerState("main", "Waiting", "CreateContainerConfigError"))
			Expect(tl.Phases()).To(Equal([]corev1.PodPhase{corev1.PodPending}), "PL-5: Pending while the Secret data cannot be applied:\n%s", tl)
			Expect(env.Create(ctx, ns, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "late"}, StringData: map[string]string{"token": "t"}})).To(Succeed())
			Eventually(tl.Pod).WithContext(ctx).WithTimeout(secretRetryBound).Should(HavePhase(corev1.PodRunning),
				"PL-5: once the Secret exists the container is created and the pod runs")
			Expect(tl.Phases()).To(Equal([]corev1.PodPhase{corev1.PodPending, corev1.PodRunning}))
		})

	It("stays Running while its container crash-loops under restartPolicy Always", Label("PL-6", "RS-2"), suite.Timeout(podStartBound+10*time.Second+20*time.Second), func(ctx SpecContext) {
		ns := env.Namespace(ctx)
		tl := env.Run(ctx, ns, shellPod("crash-loop", corev1.RestartPolicyAlways, "mark start; exit 1"))
		// Two restarts: the first comes at once, the second after the documented 10 s
		// backoff; plus the pod start and 20 s for kubelet syncs on a loaded machine.
		Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound + 10*time.Second + 20*time.Second).
			Should(HaveContainerRestarts("main", BeNumerically(">=", 2)))
		Expect(tl.Phases()).To(Equal([]corev1.PodPhase{corev1.PodPending, corev1.PodRunning}),
			"a crash-looping pod under Always never leaves Running:\n%s", tl)
	})

	It("keeps its phase while Terminating, until the kubelet sets a terminal one", Label("PL-6", "TM-2"), suite.Timeout(podStartBound, 5*time.Second+terminationBound), func(ctx SpecContext) {
		ns := env.Namespace(ctx)
		// The container ignores TERM, so the pod stays Terminating for its whole grace period.
		pod := env.Hold(ns, shellPod("slow-to-stop", corev1.RestartPolicyAlways, `trap "mark term" TERM; while true; do sleep 0.2; done`))
		pod.Spec.TerminationGracePeriodSeconds = ptr(int64(5))
		tl := env.Run(ctx, ns, pod)
		Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound).Should(HavePhase(corev1.PodRunning))
		deletePod(ctx, ns, pod.Name, nil)
		Eventually(tl.Pod).WithContext(ctx).WithTimeout(5*time.Second + terminationBound).Should(HavePhase(corev1.PodFailed))

		var terminating []corev1.PodPhase
		for _, p := range tl.Pods() {
			if p.DeletionTimestamp != nil {
				Expect(p.DeletionGracePeriodSeconds).To(HaveValue(BeEquivalentTo(5)), "TM-2: deletionGracePeriodSeconds")
				if len(terminating) == 0 || terminating[len(terminating)-1] != p.Status.Phase {
					terminating = append(terminating, p.Status.Phase)
				}
			}
		}
		Expect(terminating).To(Equal([]corev1.PodPhase{corev1.PodRunning, corev1.PodFailed}),
			"phases seen while the pod had a deletionTimestamp:\n%s", tl)
	})

	DescribeTable("a deleted pod held by a finalizer is moved to the terminal phase its containers' exits decide",
		Label("PL-7"), func(ctx SpecContext, exitCode int, want corev1.PodPhase) {
			ns := env.Namespace(ctx)
			pod := env.Hold(ns, shellPod("held", corev1.RestartPolicyAlways, fmt.Sprintf(`trap "exit %d" TERM; while true; do sleep 0.2; done`, exitCode)))
			tl := env.Run(ctx, ns, pod)
			Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound).Should(HavePhase(corev1.PodRunning))
			deletePod(ctx, ns, pod.Name, nil)
			Eventually(tl.Pod).WithContext(ctx).WithTimeout(terminationBound).Should(HavePhase(want))
			Expect(tl.Pod().DeletionTimestamp).NotTo(BeNil())
			expectTerminated(tl.Pod(), "main", int32(exitCode))
		},
		Entry("exit 0 on TERM: Succeeded", suite.Timeout(podStartBound, terminationBound), 0, corev1.PodSucceeded),
		Entry("exit 1 on TERM: Failed", suite.Timeout(podStartBound, terminationBound), 1, corev1.PodFailed),
	)

	// PL-8: once bound, a pod stays on its node for its whole life. Checked three ways:
	// the node it was seen on never changes while it lives; the API refuses to move it
	// (a second binding, an update of spec.nodeName); and what replaces it after
	// deletion is a new pod (a new UID), not the old one moved.
	It("is never moved: bound to one node for its whole life, and a replacement of the same name is a new pod", Label("PL-8"), suite.Timeout(podStartBound, terminationBound, podStartBound), func(ctx SpecContext) {
		env.Require(facts.SchedulableNodes(2))
		ns := env.Namespace(ctx)
		pod := examples.WebServer()
		tl := env.Run(ctx, ns, pod)
		Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound).Should(HavePhase(corev1.PodRunning))
		bound := tl.Pod()
		var other string
		for _, n := range env.Facts.Nodes {
			if n.Schedulable(env.Facts.Nodes) && n.Name != bound.Spec.NodeName {
				other = n.Name
				break
			}
		}

		By("a second binding to another node is refused")
		err := env.Client.CoreV1().Pods(ns).Bind(ctx, &corev1.Binding{
			ObjectMeta: metav1.ObjectMeta{Name: pod.Name, UID: bound.UID},
			Target:     corev1.ObjectReference{Kind: "Node", Name: other}}, metav1.CreateOptions{})
		Expect(err).To(HaveOccurred(), "PL-8: the API server bound pod %s, already on %s, to %s", pod.Name, bound.Spec.NodeName, other)
		Expect(apierrors.IsConflict(err)).To(BeTrue(), "PL-8: a second binding is a conflict, got: %v", err)

		By("an update of spec.nodeName is refused")
		moved := bound.DeepCopy()
		moved.Spec.NodeName = other
		_, err = env.Client.CoreV1().Pods(ns).Update(ctx, moved, metav1.UpdateOptions{})
		Expect(err).To(HaveOccurred(), "PL-8: the API server let spec.nodeName change from %s to %s", bound.Spec.NodeName, other)
		Expect(apierrors.IsInvalid(err)).To(BeTrue(), "PL-8: spec.nodeName is immutable, got: %v", err)

		deletePod(ctx, ns, pod.Name, ptr(int64(0)))
		Eventually(tl.Deleted).WithContext(ctx).WithTimeout(terminationBound).Should(BeTrue())
		Expect(nodesSeen(tl, bound.UID)).To(ConsistOf(bound.Spec.NodeName), "PL-8: the pod was seen on more than one node:\n%s", tl)

		pod.Namespace = ns
		_, err = env.Client.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())
		Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound).Should(HavePhase(corev1.PodRunning))
		Expect(tl.Pod().UID).NotTo(Equal(bound.UID), "PL-8: the replacement is a new pod")
	})

	It("stays unscheduled while it has scheduling gates, and is scheduled once they are removed", Label("PL-9"), suite.Timeout(10*time.Second, 5*time.Second, podStartBound), func(ctx SpecContext) {
		ns := env.Namespace(ctx)
		pod := shellPod("gated", corev1.RestartPolicyAlways, "sleep 3600")
		pod.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: "podlifecycle.io/gate-a"}, {Name: "podlifecycle.io/gate-b"}}
		tl := env.Run(ctx, ns, pod)
		Eventually(tl.Pod).WithContext(ctx).WithTimeout(10 * time.Second).Should(
			HaveCondition(corev1.PodScheduled, corev1.ConditionFalse, corev1.PodReasonSchedulingGated))

		By("removing one gate of two: still gated")
		setGates(ctx, ns, pod.Name, `[{"name":"podlifecycle.io/gate-b"}]`)
		// An ungated pod is bound within a second here (PL-1 timeline: +10 ms); 5 s of
		// staying unbound is a clear sign the remaining gate holds it.
		Consistently(tl.Pod).WithContext(ctx).WithTimeout(5 * time.Second).Should(
			HaveCondition(corev1.PodScheduled, corev1.ConditionFalse, corev1.PodReasonSchedulingGated))

		By("removing the last gate: scheduled")
		setGates(ctx, ns, pod.Name, `null`)
		Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound).Should(And(
			HaveCondition(corev1.PodScheduled, corev1.ConditionTrue, ""), HavePhase(corev1.PodRunning)))
		Expect(tl.Pod().Spec.NodeName).NotTo(BeEmpty())
	})
})

func setGates(ctx SpecContext, ns, name, gates string) {
	GinkgoHelper()
	_, err := env.Client.CoreV1().Pods(ns).Patch(ctx, name, types.MergePatchType,
		[]byte(`{"spec":{"schedulingGates":`+gates+`}}`), metav1.PatchOptions{})
	Expect(err).NotTo(HaveOccurred())
}

// expectTerminated checks CS-3: a Terminated state carries reason, exit code and both
// times, finishedAt not before startedAt.
func expectTerminated(p *corev1.Pod, container string, exitCode int32) {
	GinkgoHelper()
	var t *corev1.ContainerStateTerminated
	for _, s := range p.Status.ContainerStatuses {
		if s.Name == container {
			t = s.State.Terminated
		}
	}
	Expect(t).NotTo(BeNil(), "container %s is not Terminated: %s", container, observe.SummarizePod(p))
	Expect(t.ExitCode).To(Equal(exitCode))
	Expect(t.Reason).NotTo(BeEmpty())
	Expect(t.StartedAt.IsZero()).To(BeFalse(), "startedAt is set")
	Expect(t.FinishedAt.IsZero()).To(BeFalse(), "finishedAt is set")
	Expect(t.FinishedAt.Before(&t.StartedAt)).To(BeFalse(), "finishedAt %s is not before startedAt %s", t.FinishedAt, t.StartedAt)
}

// nodesSeen lists the distinct nodes the pod of uid was seen bound to.
func nodesSeen(tl *observe.Timeline, uid types.UID) []string {
	var nodes []string
	for _, e := range tl.Entries() {
		if e.Pod != nil && e.Pod.UID == uid && e.Pod.Spec.NodeName != "" && !slices.Contains(nodes, e.Pod.Spec.NodeName) {
			nodes = append(nodes, e.Pod.Spec.NodeName)
		}
	}
	return nodes
}

func ptr[T any](v T) *T { return &v }

// statusWrite is the position, among the statuses of the pod the watch saw, of the
// first one in which condition c is True; -1 if none.
func statusWrite(tl *observe.Timeline, c corev1.PodConditionType) int {
	for i, p := range tl.Pods() {
		if ok, err := HaveCondition(c, corev1.ConditionTrue, "").Match(p); ok && err == nil {
			return i
		}
	}
	return -1
}

// expectStrictlyBefore: a turned True in an earlier status write than b (PC-2).
func expectStrictlyBefore(tl *observe.Timeline, a, b corev1.PodConditionType) {
	GinkgoHelper()
	wa, wb := statusWrite(tl, a), statusWrite(tl, b)
	Expect(wa).To(BeNumerically(">=", 0), "PC-2: %s never seen True:\n%s", a, tl)
	Expect(wb).To(BeNumerically(">", wa), "PC-2: %s (status write %d) not True after %s (status write %d):\n%s", b, wb, a, wa, tl)
}

// expectStaysTrue: from the first status in which condition c is True, every later
// status the watch saw has it True (PC-2; PC-4 for PodReadyToStartContainers).
func expectStaysTrue(tl *observe.Timeline, c corev1.PodConditionType) {
	GinkgoHelper()
	first := statusWrite(tl, c)
	for i, p := range tl.Pods() {
		if i > first {
			Expect(p).To(HaveCondition(c, corev1.ConditionTrue, ""), "PC-2/PC-4: %s True in status write %d, not True again in write %d, with nothing in the pod's start to undo it:\n%s", c, first, i, tl)
		}
	}
}

// expectNotBefore: a turned True no earlier than b, in the same status write or later
// (PC-2).
func expectNotBefore(tl *observe.Timeline, a, b corev1.PodConditionType) {
	GinkgoHelper()
	wa, wb := statusWrite(tl, a), statusWrite(tl, b)
	Expect(wb).To(BeNumerically(">=", 0), "PC-2: %s never seen True:\n%s", b, tl)
	Expect(wa).To(BeNumerically(">=", wb), "PC-2: %s (status write %d) True before %s (status write %d):\n%s", a, wa, b, wb, tl)
}
