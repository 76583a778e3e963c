package pressure

import (
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	. "github.com/podlifecycle/conformance/framework/match"
	"github.com/podlifecycle/conformance/framework/suite"
)

const (
	podStartBound = suite.PodStartBound
	// The eviction manager looks every 10 s (evictionMonitoringPeriod,
	// pkg/kubelet/eviction/eviction_manager.go) at stats that the kubelet's
	// cAdvisor refreshes every 10 s (housekeeping) and that may be up to one period
	// old: the threshold is seen met at most 20 s after the fill, and the pod, the
	// only one there that may be evicted (the DaemonSets' are system-node-critical),
	// evicted in that same pass. +25 s for a loaded 2-core machine and the status
	// write.
	evictionBound = 10*time.Second + 10*time.Second + 25*time.Second
	// The pod fills this much memory more than the node's allocatable, so that the
	// threshold (capacity − allocatable available) is passed whatever the node's own
	// processes use.
	overAllocatable = 256 << 20
	pressureTaint   = "podlifecycle.io/node-pressure"
)

// The specs that take the worker set aside for them, one after another: draining it
// first, then a graceful shutdown called off once it has stopped the pods, then driving
// it into memory pressure (which outlasts the spec by the kubelet's pressure transition
// period, so it comes last).
var _ = Describe("The worker set aside for node pressure", Label(suite.Disruptive), Ordered, func() {
	drainSpecs()
	shutdownSpecs()
	pressureSpecs()
})

func pressureSpecs() {
	Describe("A pod the kubelet evicts under node memory pressure", pressureSpec)
}

func pressureSpec() {
	It("gets DisruptionTarget with reason TerminationByKubelet",
		Label("PC-8"), suite.Timeout(podStartBound, evictionBound, 10*time.Second), func(ctx SpecContext) {
			node := env.OwnWorker("node-pressure")
			threshold := node.KubeletConfig.EvictionHard["memory.available"]
			Expect(threshold).NotTo(BeEmpty(), "the kubelet of %s has no memory.available hard eviction threshold (evictionHard %v): "+
				"its node is not the one kind-configs/backoff-profiles.yaml describes", node.Name, node.KubeletConfig.EvictionHard)
			n, err := env.Client.CoreV1().Nodes().Get(ctx, node.Name, metav1.GetOptions{})
			Expect(err).NotTo(HaveOccurred())
			allocatable := n.Status.Allocatable.Memory().Value()
			fillMiB := (allocatable + overAllocatable) >> 20
			before := suite.NodeCondition(n, corev1.NodeMemoryPressure)
			AddReportEntry("node under pressure", fmt.Sprintf("%s: capacity %s, memory.available<%s, allocatable %s, MemoryPressure %s before the pod; the pod fills %d MiB",
				node.Name, n.Status.Capacity.Memory(), threshold, n.Status.Allocatable.Memory(), before, fillMiB))

			ns := env.Namespace(ctx)
			tl := env.Run(ctx, ns, filler(node.Name, fillMiB))
			By("the node comes under memory pressure and the kubelet evicts the pod")
			Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound+evictionBound).
				Should(SatisfyAny(HavePhase(corev1.PodSucceeded), HavePhase(corev1.PodFailed)),
					"PC-8: the pod that filled %d MiB on %s (allocatable %s) was not evicted:\n%s", fillMiB, node.Name, n.Status.Allocatable.Memory(), tl)
			evicted := tl.Pod()

			By("PC-8: its DisruptionTarget condition says TerminationByKubelet, for node pressure")
			Expect(evicted).To(HaveCondition(corev1.DisruptionTarget, corev1.ConditionTrue, corev1.PodReasonTerminationByKubelet),
				"PC-8: a pod evicted by its kubelet for node pressure:\n%s", tl)
			// The premise, in the kubelet's own words: it evicted the pod because the node
			// was low on memory, not for anything the pod did against its own limits.
			disruption := suite.ConditionOf(evicted, corev1.DisruptionTarget)
			Expect(disruption.Message).To(HavePrefix("The node was low on resource: memory."), "PC-8: the kubelet's reason for the eviction:\n%s", tl)
			n, err = env.Client.CoreV1().Nodes().Get(ctx, node.Name, metav1.GetOptions{})
			Expect(err).NotTo(HaveOccurred())
			// Not asserted: the pages give an evicted pod no phase. The kubelet writes
			// Failed (reason Evicted) as it kills the pod, and since v1.27 the phase the
			// containers' exits give wins (kubernetes/kubernetes#118310): this pod's exit 0
			// on TERM makes it Succeeded.
			AddReportEntry("eviction", fmt.Sprintf("DisruptionTarget %s: %s; pod phase %s (exit 0 on TERM), reason %q; %s MemoryPressure %s after the eviction",
				disruption.Reason, disruption.Message, evicted.Status.Phase, evicted.Status.Reason, node.Name, suite.NodeCondition(n, corev1.NodeMemoryPressure)))
		})
}

// filler is a Burstable pod (a small memory request, no limit, so that the kubelet
// admits it on a node under memory pressure and ranks it first) that writes fillMiB
// into a memory-backed emptyDir, whose pages the pod's memory cgroup is charged
// for, and then waits.
func filler(node string, fillMiB int64) *corev1.Pod {
	size := resource.MustParse(fmt.Sprintf("%dMi", fillMiB+64))
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "filler"},
		Spec: corev1.PodSpec{
			RestartPolicy: corev1.RestartPolicyNever,
			NodeSelector:  map[string]string{"kubernetes.io/hostname": node},
			Tolerations: []corev1.Toleration{
				{Key: pressureTaint, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
				{Key: corev1.TaintNodeMemoryPressure, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
			},
			Volumes: []corev1.Volume{{Name: "fill", VolumeSource: corev1.VolumeSource{
				EmptyDir: &corev1.EmptyDirVolumeSource{Medium: corev1.StorageMediumMemory, SizeLimit: &size}}}},
			Containers: []corev1.Container{{
				Name: "main", Image: "busybox:1.28",
				Command:      []string{"sh", "-c", fmt.Sprintf("dd if=/dev/zero of=/fill/fill bs=1M count=%d 2>&1; trap 'exit 0' TERM; while true; do sleep 1; done", fillMiB)},
				Resources:    corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("10m"), corev1.ResourceMemory: resource.MustParse("16Mi")}},
				VolumeMounts: []corev1.VolumeMount{{Name: "fill", MountPath: "/fill"}},
			}},
		},
	}
}
