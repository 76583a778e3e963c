package lifecycle

import (
	"slices"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"

	"github.com/podlifecycle/conformance/framework/crashloop"
	"github.com/podlifecycle/conformance/framework/facts"
	. "github.com/podlifecycle/conformance/framework/match"
	"github.com/podlifecycle/conformance/framework/observe"
	"github.com/podlifecycle/conformance/framework/suite"
)

// resyncWindow: a restarted kubelet syncs every pod it finds at start-up (pod
// additions from the API server), within seconds; a readiness change it makes would
// show in this window.
const resyncWindow = 20 * time.Second

var _ = Describe("Kubelet restart", suite.LongRunning, Label(suite.Disruptive), func() {
	// On the worker set aside for kubelet restarts (kind-configs/default.yaml), so that
	// the restart disturbs no other spec's pods and the spec need not be Serial.
	It("keeps containers running with the same IDs and restart counts, and ready unchanged", Label("KR-1", "KR-2"), suite.Timeout(restartKubeletBound, resyncWindow), func(ctx SpecContext) {
		env.Require(facts.NodeShell(), facts.OneClock()) // restartKubeletUnder reads the node's startedAt on the runner's clock
		node := env.OwnWorker("kubelet-restart")
		Expect(node.KubeletGates).To(HaveKeyWithValue("ChangeContainerStatusOnKubeletRestart", false), "KR-1 needs the default container status on kubelet restart on %s", node.Name)
		tl, before, restartAt := restartKubeletUnder(ctx, node)
		Consistently(tl.Pod).WithContext(ctx).WithTimeout(resyncWindow).Should(HaveCondition(corev1.PodReady, corev1.ConditionTrue, ""))

		expectSameContainers(tl.Pod(), before)
		for _, e := range tl.Entries() {
			if e.Pod != nil && e.Seen.After(restartAt) {
				for _, s := range e.Pod.Status.ContainerStatuses {
					Expect(s.Ready).To(BeTrue(), "KR-2: %s's ready changed across the restart:\n%s", s.Name, tl)
				}
			}
		}
	})

	// On the legacy-status worker, tainted too: no other spec's pods are there.
	It("sets ready false after a kubelet restart with ChangeContainerStatusOnKubeletRestart on, keeping the container", Label("KR-3", "KR-1"), suite.Timeout(restartKubeletBound, resyncWindow, resyncWindow), func(ctx SpecContext) {
		env.Require(facts.NodeShell(), facts.OneClock()) // restartKubeletUnder reads the node's startedAt on the runner's clock
		tl, before, restartAt := restartKubeletUnder(ctx, env.NodeFor("legacy-status", map[string]bool{"ChangeContainerStatusOnKubeletRestart": true}))
		Eventually(func() bool {
			for _, e := range tl.Entries() {
				if e.Pod != nil && e.Seen.After(restartAt) && !e.Pod.Status.ContainerStatuses[0].Ready {
					return true
				}
			}
			return false
		}).WithContext(ctx).WithTimeout(resyncWindow).Should(BeTrue(), "KR-3: ready never went false after the restart:\n%s", tl)
		// Ready again after the next successful probe: within one period (5 s) and the
		// probe's own 3 s.
		Eventually(tl.Pod).WithContext(ctx).WithTimeout(resyncWindow).Should(HaveCondition(corev1.PodReady, corev1.ConditionTrue, ""))
		expectSameContainers(tl.Pod(), before)
	})
})

// restartKubeletBound is the sum of restartKubeletUnder's waits, in order: the pod
// turns ready, its container grows older than the kubelet's restart grace (13 s), the
// restarted kubelet answers.
const restartKubeletBound = podStartBound + 13*time.Second + suite.KubeletBackBound

// expectSameContainers checks KR-1 on each of the pod's containers: the one running
// before the kubelet restart still runs (same ID), its restart count unchanged.
func expectSameContainers(p *corev1.Pod, before []corev1.ContainerStatus) {
	GinkgoHelper()
	Expect(p.Status.ContainerStatuses).To(HaveLen(len(before)))
	for i, after := range p.Status.ContainerStatuses {
		Expect(after.Name).To(Equal(before[i].Name))
		Expect(after.ContainerID).To(Equal(before[i].ContainerID), "KR-1: %s is the same container", after.Name)
		Expect(after.RestartCount).To(Equal(before[i].RestartCount), "KR-1: %s's restart count unchanged", after.Name)
	}
}

// restartKubeletUnder starts a ready pod of two containers on node (KR-1's
// "containers": a kubelet that keeps one and restarts the other fails), restarts
// that node's kubelet and waits until it answers again.
func restartKubeletUnder(ctx SpecContext, node facts.Node) (*observe.Timeline, []corev1.ContainerStatus, time.Time) {
	GinkgoHelper()
	ns := env.Namespace(ctx)
	// A readiness probe makes the difference: the legacy behaviour resets probe
	// results on restart; a container without probes is ready whenever it runs.
	// The probe takes 3 s to answer: a restarted kubelet probes readiness at once
	// (prober.manager.UpdatePodStatus triggers it), so a kubelet that forgot the
	// container's ready value and waited for the probe would show ready=false in the
	// statuses it writes meanwhile; a probe that answers at once would hide that, its
	// success arriving before the kubelet's first status write.
	pod := shellPod("survivor", corev1.RestartPolicyAlways, "sleep 3600")
	pod.Spec.Containers[0].ReadinessProbe = &corev1.Probe{
		ProbeHandler:   corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"sleep", "3"}}},
		PeriodSeconds:  5,
		TimeoutSeconds: 10,
	}
	second := *pod.Spec.Containers[0].DeepCopy()
	second.Name = "second"
	pod.Spec.Containers = append(pod.Spec.Containers, second)
	suite.PinToOwn(pod, node)
	tl := env.Run(ctx, ns, pod)
	Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound).Should(HaveCondition(corev1.PodReady, corev1.ConditionTrue, ""))
	before := slices.Clone(tl.Pod().Status.ContainerStatuses)
	Expect(tl.Pod().Spec.NodeName).To(Equal(node.Name))

	// The kubelet treats a container that started less than 10 s before the kubelet
	// itself as new, whatever the gate (kubeletRestartGracePeriod in pkg/kubelet/prober),
	// so the container must be older than that: 10 s, +1 s for startedAt's whole-second
	// rounding, +1 s margin. This wait is the precondition, not a synchronisation.
	// startedAt is the node's clock, time.Since the runner's: the callers require
	// facts.OneClock().
	startedAt := before[0].State.Running.StartedAt.Time
	for _, s := range before[1:] {
		if s.State.Running.StartedAt.After(startedAt) {
			startedAt = s.State.Running.StartedAt.Time
		}
	}
	Eventually(func() time.Duration { return time.Since(startedAt) }).WithContext(ctx).WithPolling(500 * time.Millisecond).
		WithTimeout(13 * time.Second).Should(BeNumerically(">", 12*time.Second))

	restart := env.RestartKubelet(ctx, node.Name)
	// The restarted kubelet computes the pod's status at every sync, and the first
	// ones come before its readiness prober has a result: it adds the pod's probe
	// workers during the first sync, each waits up to a period before it probes, and
	// the probe takes 3 s. A kubelet that kept ready only at the first sync would show
	// ready=false at a later one in that window, but nothing syncs the pod there by
	// itself. So the pod is updated every 250 ms from the restart on (an annotation,
	// which the kubelet syncs at once, as the crash loops are paced): ready is then
	// computed, and written if it changed, several times a second throughout the
	// window (the kill matrix's mutant 11, which keeps ready only while the probe
	// worker does not exist yet, got through a spec that left the pod alone).
	crashloop.Pace(ctx, env, ns, pod.Name)
	return tl, before, restart.Called
}
