package lifecycle

import (
	"encoding/json"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	resourcehelper "k8s.io/component-helpers/resource"

	"github.com/podlifecycle/conformance/framework/facts"
	. "github.com/podlifecycle/conformance/framework/match"
	"github.com/podlifecycle/conformance/framework/observe"
	"github.com/podlifecycle/conformance/framework/suite"
)

// resizeDecisionBound: the kubelet allocates, defers or refuses a resize when it sees
// the pod's update, and reports it with the next status write; 10 s, as PC-9's
// Deferred wait.
const resizeDecisionBound = 10 * time.Second

// resizeActuationBound: the kubelet applies an allocated resize on its next sync of the
// pod (a CRI UpdateContainerResources, or a restart under RestartContainer) and reports
// it; 30 s, as PC-9's in-place wait.
const resizeActuationBound = 30 * time.Second

// The gates of pod-level resources and of resizing them (PC-15): Beta and on by default
// in k8s.io/kubernetes v1.37.2 (since v1.34 and v1.36), pkg/features/kube_features.go.
const (
	podLevelResources = "PodLevelResources"
	podLevelResize    = "InPlacePodLevelResourcesVerticalScaling"
)

// What became of a resize no node could ever fit (PC-9): the pages' Infeasible, or
// v1.37.2's API server refusing it before the kubelet sees it (the PodResizeValidator
// admission plugin compares the requests with the node's allocatable).
const (
	resizeInfeasible         = "PodResizePending(Infeasible)"
	resizeRefusedAtAdmission = "refused at admission (403 Forbidden)"
)

var _ = Describe("In-place resize", func() {
	// 40 MiB written to /dev/shm (tmpfs) are charged to the container and cannot be
	// reclaimed without swap, so a memory limit of 32 MiB stays below its usage.
	It("report PodResizeInProgress True while a resize is applied, with reason Error and a message while it cannot be",
		Label("PC-9"), suite.Timeout(podStartBound, resizeActuationBound, resizeDecisionBound, resizeActuationBound, resizeActuationBound), func(ctx SpecContext) {
			ns := env.Namespace(ctx)
			pod := shellPod("in-progress", corev1.RestartPolicyAlways, "dd if=/dev/zero of=/dev/shm/fill bs=1M count=40 && touch /tmp/filled; "+stopsOnTerm)
			pod.Spec.Containers[0].Resources = guaranteed("100m", "64Mi")
			pod.Spec.Containers[0].ReadinessProbe = &corev1.Probe{PeriodSeconds: 1,
				ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"test", "-e", "/tmp/filled"}}}}
			tl := env.Run(ctx, ns, pod)
			Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound).Should(HaveCondition(corev1.PodReady, corev1.ConditionTrue, ""))

			By("raising memory to 96Mi: applied; whether the watch caught PodResizeInProgress is measured")
			// The pages: "usually brief". The kubelet may write True and clear it before a
			// watch sees it, so this step reports what it saw and asserts only the result.
			Expect(resizeContainers(ctx, ns, pod.Name, map[string]corev1.ResourceRequirements{"main": memoryOnly("96Mi")})).To(Succeed())
			Eventually(appliedLimit(tl, "main", corev1.ResourceMemory)).WithContext(ctx).WithTimeout(resizeActuationBound).Should(Equal("96Mi"))
			Eventually(tl.Pod).WithContext(ctx).WithTimeout(resizeDecisionBound).ShouldNot(HaveCondition(corev1.PodResizeInProgress, corev1.ConditionTrue, ""))
			AddReportEntry("PodResizeInProgress during a memory increase", fmt.Sprintf("seen True: %t; resize conditions seen: %v", inProgressSeen(tl), resizeConditionsSeen(tl)))

			By("lowering the memory limit to 32Mi, below what the container uses: PodResizeInProgress True, reason Error, with a message")
			// A broken kubelet shows no condition (or clears it) while the limit stays 96Mi.
			Expect(resizeContainers(ctx, ns, pod.Name, map[string]corev1.ResourceRequirements{"main": memoryOnly("32Mi")})).To(Succeed())
			Eventually(tl.Pod).WithContext(ctx).WithTimeout(resizeActuationBound).Should(HaveCondition(corev1.PodResizeInProgress, corev1.ConditionTrue, corev1.PodReasonError))
			failed := suite.ConditionOf(tl.Pod(), corev1.PodResizeInProgress)
			Expect(failed.Message).NotTo(BeEmpty(), "PC-9: the error is reported in the message:\n%s", tl)
			Expect(appliedLimit(tl, "main", corev1.ResourceMemory)()).To(Equal("96Mi"), "the limit the container could not take was not applied")
			AddReportEntry("PodResizeInProgress (Error)", failed.Message)

			By("raising it back to 96Mi: nothing is left to apply and the condition goes")
			Expect(resizeContainers(ctx, ns, pod.Name, map[string]corev1.ResourceRequirements{"main": memoryOnly("96Mi")})).To(Succeed())
			Eventually(tl.Pod).WithContext(ctx).WithTimeout(resizeActuationBound).ShouldNot(HaveCondition(corev1.PodResizeInProgress, corev1.ConditionTrue, ""))
			Expect(tl.Pod()).To(HaveContainerRestarts("main", 0))
		})

	It("restart a container whose memory resizePolicy is RestartContainer on a memory resize, and not one with NotRequired",
		Label("PC-9"), suite.Timeout(podStartBound, 2*resizeActuationBound, resizeDecisionBound), func(ctx SpecContext) {
			ns := env.Namespace(ctx)
			pod := &corev1.Pod{
				ObjectMeta: metav1.ObjectMeta{Name: "resize-policy"},
				Spec: corev1.PodSpec{Containers: []corev1.Container{
					policyContainer("restarted", corev1.RestartContainer), policyContainer("in-place", corev1.NotRequired)}},
			}
			tl := env.Run(ctx, ns, pod)
			Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound).Should(HaveCondition(corev1.PodReady, corev1.ConditionTrue, ""))

			both := map[string]corev1.ResourceRequirements{"restarted": memoryOnly("96Mi"), "in-place": memoryOnly("96Mi")}
			Expect(resizeContainers(ctx, ns, pod.Name, both)).To(Succeed())
			for _, c := range []string{"restarted", "in-place"} {
				Eventually(appliedLimit(tl, c, corev1.ResourceMemory)).WithContext(ctx).WithTimeout(resizeActuationBound).Should(Equal("96Mi"), "%s resized:\n%s", c, tl)
			}
			// A kubelet that ignored resizePolicy shows restartCount 0 for "restarted", or
			// restarts "in-place" too.
			Eventually(tl.Pod).WithContext(ctx).WithTimeout(resizeDecisionBound).Should(HaveContainerRestarts("restarted", 1))
			Expect(tl.Pod()).To(HaveContainerRestarts("in-place", 0), "PC-9: NotRequired resizes without a restart")
		})

	// Refused by the API server's validation of the resize (ValidatePodResize), before any
	// kubelet sees it: 422 Invalid, with its message quoted in the report.
	DescribeTable("refuse a resize",
		func(ctx SpecContext, to corev1.ResourceRequirements, says string) {
			ns := env.Namespace(ctx)
			pod := shellPod("refused", corev1.RestartPolicyAlways, stopsOnTerm)
			pod.Spec.Containers[0].Resources = guaranteed("100m", "64Mi")
			storage := resource.MustParse("64Mi")
			pod.Spec.Containers[0].Resources.Requests[corev1.ResourceEphemeralStorage] = storage
			pod.Spec.Containers[0].Resources.Limits[corev1.ResourceEphemeralStorage] = storage
			tl := env.Run(ctx, ns, pod)
			Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound).Should(HavePhase(corev1.PodRunning))
			Expect(tl.Pod().Status.QOSClass).To(Equal(corev1.PodQOSGuaranteed))

			err := resizeContainers(ctx, ns, pod.Name, map[string]corev1.ResourceRequirements{"main": to})
			Expect(apierrors.IsInvalid(err)).To(BeTrue(), "PC-9: want 422 Invalid, got %v", err)
			Expect(err.Error()).To(ContainSubstring(says))
			AddReportEntry("refusal", err.Error())
			Expect(tl.Pod().Status.QOSClass).To(Equal(corev1.PodQOSGuaranteed))
		},
		Entry("of anything but CPU and memory: ephemeral-storage", Label("PC-9"), suite.Timeout(podStartBound),
			corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceEphemeralStorage: resource.MustParse("128Mi")},
				Limits:   corev1.ResourceList{corev1.ResourceEphemeralStorage: resource.MustParse("128Mi")}},
			"only cpu and memory resources are mutable"),
		Entry("that would change the QoS class: Guaranteed to Burstable by lowering only the CPU request", Label("PC-9"), suite.Timeout(podStartBound),
			corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("50m")}},
			"Pod QOS Class may not change as a result of resizing"),
	)

	// Serial: the spec counts what the node has left of its CPU, which a neighbour's pod
	// (or PC-9's own ask for all of it) would change between the count and the ask.
	It("apply a Deferred resize by itself once a pod holding the node's CPU is deleted",
		Label("PC-9"), suite.Quiet, suite.Timeout(podStartBound, podStartBound, resizeDecisionBound, terminationBound+resizeActuationBound), func(ctx SpecContext) {
			ns := env.Namespace(ctx)
			pod := shellPod("deferred", corev1.RestartPolicyAlways, stopsOnTerm)
			pod.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}
			tl := env.Run(ctx, ns, pod)
			Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound).Should(HavePhase(corev1.PodRunning))

			By("a second pod takes all but 50m of the node's unrequested CPU")
			// What the node has left, as the API shows it: between counting the pods that
			// are being deleted (earlier specs' namespaces) and not, since the kubelet
			// stops counting each once it has terminated. The ask is above the most the
			// kubelet can see free (50m and those pods' share) and below what the holder's
			// deletion frees.
			node, free, uncertain := unrequestedCPU(ctx, tl.Pod().Spec.NodeName)
			more := 100 + uncertain
			if free-50 < more {
				Skip(fmt.Sprintf("node %s has %dm CPU unrequested (%dm of it held by pods being deleted); a Deferred ask needs more", node.Name, free, uncertain))
			}
			holder := shellPod("holder", corev1.RestartPolicyAlways, stopsOnTerm)
			holder.Spec.NodeSelector = map[string]string{corev1.LabelHostname: node.Labels[corev1.LabelHostname]}
			holder.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: *resource.NewMilliQuantity(free-50, resource.DecimalSI)}
			holderTL := env.Run(ctx, ns, holder)
			Eventually(holderTL.Pod).WithContext(ctx).WithTimeout(podStartBound).Should(HavePhase(corev1.PodRunning))

			By("asking for more than the node has left: Deferred")
			want := resource.NewMilliQuantity(100+more, resource.DecimalSI).String()
			Expect(resizeContainers(ctx, ns, pod.Name, map[string]corev1.ResourceRequirements{"main": {
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(want)}}})).To(Succeed())
			Eventually(tl.Pod).WithContext(ctx).WithTimeout(resizeDecisionBound).Should(
				HaveCondition(corev1.PodResizePending, corev1.ConditionTrue, corev1.PodReasonDeferred))

			By("deleting the holder: the kubelet retries the resize and applies it, with no new request")
			// The v1.37.2 kubelet retries pending resizes when a pod on the node terminates
			// or is removed (HandlePodReconcile, HandlePodRemoves); its periodic retry (3
			// min) is not waited for. A kubelet that never retries keeps the pod Deferred.
			deleted := time.Now()
			deletePod(ctx, ns, holder.Name, nil)
			Eventually(appliedRequest(tl, "main", corev1.ResourceCPU)).WithContext(ctx).WithTimeout(terminationBound + resizeActuationBound).Should(Equal(want))
			Expect(tl.Pod()).NotTo(HaveCondition(corev1.PodResizePending, corev1.ConditionTrue, ""))
			Expect(tl.Pod()).To(HaveContainerRestarts("main", 0))
			AddReportEntry("deferred resize applied", fmt.Sprintf("%s after the holder's delete; conditions seen: %v",
				time.Since(deleted).Round(time.Millisecond), resizeConditionsSeen(tl)))
		})

	It("resize pod-level resources (spec.resources) in place through /resize, applied by the kubelet without a restart",
		Label("PC-15"), suite.Timeout(podStartBound, resizeActuationBound, resizeDecisionBound), func(ctx SpecContext) {
			env.Require(facts.APIServerGate(podLevelResources, true), facts.APIServerGate(podLevelResize, true))
			node := env.NodeFor("", map[string]bool{podLevelResources: true, podLevelResize: true})
			ns := env.Namespace(ctx)
			pod := suite.PinTo(shellPod("pod-level", corev1.RestartPolicyAlways, stopsOnTerm), node)
			pod.Spec.Resources = ptr(guaranteed("100m", "64Mi"))
			tl := env.Run(ctx, ns, pod)
			Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound).Should(HavePhase(corev1.PodRunning))
			Expect(tl.Pod().Status.QOSClass).To(Equal(corev1.PodQOSGuaranteed))

			// CPU and memory, both named by the statement: a kubelet that applies one of
			// the two keeps the other at its old value.
			Expect(resizePodLevel(ctx, ns, pod.Name, guaranteed("200m", "128Mi"))).To(Succeed())
			// A kubelet that ignores pod-level resizes keeps status.resources at 100m, 64Mi.
			Eventually(func() string {
				p := tl.Pod()
				if p.Status.Resources == nil {
					return ""
				}
				return p.Status.Resources.Requests.Cpu().String() + " " + p.Status.Resources.Requests.Memory().String()
			}).WithContext(ctx).WithTimeout(resizeActuationBound).Should(Equal("200m 128Mi"), "status.resources:\n%s", tl)
			allocated := tl.Pod().Status.AllocatedResources
			Expect(allocated.Cpu().String()+" "+allocated.Memory().String()).To(Equal("200m 128Mi"), "status.allocatedResources")
			Eventually(tl.Pod).WithContext(ctx).WithTimeout(resizeDecisionBound).ShouldNot(Or(
				HaveCondition(corev1.PodResizePending, corev1.ConditionTrue, ""), HaveCondition(corev1.PodResizeInProgress, corev1.ConditionTrue, "")))
			Expect(tl.Pod()).To(HaveContainerRestarts("main", 0))
			Expect(tl.Pod().Status.QOSClass).To(Equal(corev1.PodQOSGuaranteed))
		})

	// Where the gate is off: in the API server, its validation refuses the resize (422);
	// in a node's kubelet, the node does not declare the feature (DF-1) and
	// NodeDeclaredFeatureValidator refuses it (403). The default cluster has the gate on
	// everywhere (its v1.37.2 default), so there the spec is skipped with the reason.
	It("refuse resizing pod-level resources where InPlacePodLevelResourcesVerticalScaling is off",
		Label("PC-15"), suite.Timeout(podStartBound), func(ctx SpecContext) {
			env.Require(facts.APIServerGate(podLevelResources, true))
			nodeName, refused := podLevelResizeOff()
			ns := env.Namespace(ctx)
			pod := shellPod("pod-level-off", corev1.RestartPolicyAlways, stopsOnTerm)
			pod.Spec.NodeName = nodeName
			pod.Spec.Tolerations = []corev1.Toleration{{Operator: corev1.TolerationOpExists}}
			pod.Spec.Resources = ptr(guaranteed("100m", "64Mi"))
			tl := env.Run(ctx, ns, pod)
			Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound).Should(HavePhase(corev1.PodRunning))

			err := resizePodLevel(ctx, ns, pod.Name, guaranteed("200m", "64Mi"))
			Expect(err).To(HaveOccurred(), "PC-15: the resize was accepted on %s with %s off", nodeName, podLevelResize)
			Expect(refused(err)).To(BeTrue(), "PC-15: refused, but not as expected: %v", err)
			Expect(err.Error()).To(ContainSubstring(podLevelResize), "the refusal names the gate or the feature")
			AddReportEntry("refusal", err.Error())
		})
})

// resizeBeyondNode asks for CPU no node has and waits for either answer the cluster may
// give: refused at admission (v1.37.2), or accepted and then PodResizePending
// Infeasible (the pages). Anything else fails the spec; which of the two it was is
// the caller's to record.
func resizeBeyondNode(ctx SpecContext, tl *observe.Timeline, ns, name string) (outcome, evidence string) {
	GinkgoHelper()
	err := resizeErr(ctx, ns, name, "1000", "1000")
	if err != nil {
		Expect(apierrors.IsForbidden(err)).To(BeTrue(), "PC-9: a resize beyond the node was refused, but not at admission (403): %v", err)
		return resizeRefusedAtAdmission, err.Error()
	}
	Eventually(tl.Pod).WithContext(ctx).WithTimeout(resizeDecisionBound).Should(
		HaveCondition(corev1.PodResizePending, corev1.ConditionTrue, corev1.PodReasonInfeasible),
		"PC-9: accepted by the API server, a resize beyond the node is pending as Infeasible:\n%s", tl)
	return resizeInfeasible, suite.ConditionOf(tl.Pod(), corev1.PodResizePending).Message
}

// podLevelResizeOff is where a pod-level resize must be refused, and how: any node when
// the API server has the gate off (422 from validation), else a worker whose kubelet has
// it off and PodLevelResources on (403 from admission). It skips the spec when there is
// no such place.
func podLevelResizeOff() (node string, refused func(error) bool) {
	GinkgoHelper()
	if on, known := env.Facts.APIServerGates[podLevelResize]; known && !on {
		return env.NodeFor("", map[string]bool{podLevelResources: true}).Name, apierrors.IsInvalid
	}
	var seen []string
	for _, n := range env.Facts.Nodes {
		on, known := n.KubeletGates[podLevelResize]
		if n.Worker(env.Facts.Nodes) && known && !on && n.KubeletGates[podLevelResources] {
			return n.Name, apierrors.IsForbidden
		}
		seen = append(seen, fmt.Sprintf("%s: %s=%s", n.Name, podLevelResize, gateState(n.KubeletGates, podLevelResize)))
	}
	Skip(fmt.Sprintf("%s is on in the API server and in every kubelet [%v] (its v1.37.2 default): no place to check its refusal; "+
		"turn it off in a worker's kubelet (KUBELET_FEATURE_GATES, or the kind config) to check it", podLevelResize, seen))
	return "", nil
}

func gateState(g facts.Gates, name string) string {
	if on, ok := g[name]; ok {
		return fmt.Sprint(on)
	}
	return "unknown"
}

// guaranteed is CPU and memory requests equal to limits.
func guaranteed(cpu, memory string) corev1.ResourceRequirements {
	both := func() corev1.ResourceList {
		return corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(memory)}
	}
	return corev1.ResourceRequirements{Requests: both(), Limits: both()}
}

// memoryOnly sets a Guaranteed container's memory request and limit, leaving its CPU.
func memoryOnly(memory string) corev1.ResourceRequirements {
	q := resource.MustParse(memory)
	return corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceMemory: q}, Limits: corev1.ResourceList{corev1.ResourceMemory: q}}
}

// policyContainer is a Guaranteed container whose memory resizePolicy is memory (CPU:
// NotRequired), exiting on TERM so that a restart takes no grace period.
func policyContainer(name string, memory corev1.ResourceResizeRestartPolicy) corev1.Container {
	return corev1.Container{
		Name: name, Image: "busybox:1.28", Command: []string{"sh", "-c", stopsOnTerm},
		Resources: guaranteed("100m", "64Mi"),
		ResizePolicy: []corev1.ContainerResizePolicy{
			{ResourceName: corev1.ResourceCPU, RestartPolicy: corev1.NotRequired},
			{ResourceName: corev1.ResourceMemory, RestartPolicy: memory},
		},
	}
}

// resizeContainers patches the named containers' resources through the resize
// subresource (a strategic merge: the resources not given keep their values).
func resizeContainers(ctx SpecContext, ns, name string, byContainer map[string]corev1.ResourceRequirements) error {
	GinkgoHelper()
	// In the pod's own order: a strategic merge patch whose list order differs from the
	// pod's reorders the containers, which the resize subresource refuses ("containers
	// may not be renamed or reordered on resize"); a map's order is random.
	pod, err := env.Client.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
	Expect(err).NotTo(HaveOccurred())
	var containers []map[string]any
	for _, c := range pod.Spec.Containers {
		if r, ok := byContainer[c.Name]; ok {
			containers = append(containers, map[string]any{"name": c.Name, "resources": r})
		}
	}
	Expect(containers).To(HaveLen(len(byContainer)), "resize of containers the pod %s does not have: %v", name, byContainer)
	return patchResize(ctx, ns, name, map[string]any{"containers": containers})
}

// resizePodLevel patches the pod's spec.resources through the resize subresource.
func resizePodLevel(ctx SpecContext, ns, name string, r corev1.ResourceRequirements) error {
	GinkgoHelper()
	return patchResize(ctx, ns, name, map[string]any{"resources": r})
}

func patchResize(ctx SpecContext, ns, name string, spec map[string]any) error {
	GinkgoHelper()
	patch, err := json.Marshal(map[string]any{"spec": spec})
	Expect(err).NotTo(HaveOccurred())
	_, err = env.Client.CoreV1().Pods(ns).Patch(ctx, name, types.StrategicMergePatchType, patch, metav1.PatchOptions{}, "resize")
	return err
}

// appliedLimit and appliedRequest read what the kubelet reports as applied to a
// container (status.containerStatuses[].resources), "" before it reports any.
func appliedLimit(tl *observe.Timeline, container string, r corev1.ResourceName) func() string {
	return func() string { return applied(tl, container, r, true) }
}

func appliedRequest(tl *observe.Timeline, container string, r corev1.ResourceName) func() string {
	return func() string { return applied(tl, container, r, false) }
}

func applied(tl *observe.Timeline, container string, r corev1.ResourceName, limit bool) string {
	p := tl.Pod()
	if p == nil {
		return ""
	}
	for _, st := range p.Status.ContainerStatuses {
		if st.Name != container || st.Resources == nil {
			continue
		}
		list := st.Resources.Requests
		if limit {
			list = st.Resources.Limits
		}
		if q, ok := list[r]; ok {
			return q.String()
		}
	}
	return ""
}

func inProgressSeen(tl *observe.Timeline) bool {
	p, _ := tl.FirstPod(func(p *corev1.Pod) bool {
		ok, _ := HaveCondition(corev1.PodResizeInProgress, corev1.ConditionTrue, "").Match(p)
		return ok
	})
	return p != nil
}

// unrequestedCPU is the node, its allocatable CPU less the requests of the pods bound
// to it that have not ended, in millicores (what its kubelet has left to allocate to
// a resize, at the least), and how much of those requests is of pods being deleted
// (which the kubelet no longer counts once it has terminated them).
func unrequestedCPU(ctx SpecContext, nodeName string) (*corev1.Node, int64, int64) {
	GinkgoHelper()
	node, err := env.Client.CoreV1().Nodes().Get(ctx, nodeName, metav1.GetOptions{})
	Expect(err).NotTo(HaveOccurred())
	pods, err := env.Client.CoreV1().Pods("").List(ctx, metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("spec.nodeName", nodeName).String()})
	Expect(err).NotTo(HaveOccurred())
	free := node.Status.Allocatable.Cpu().MilliValue()
	var deleting int64
	for i := range pods.Items {
		p := &pods.Items[i]
		if p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			continue
		}
		requests := resourcehelper.PodRequests(p, resourcehelper.PodResourcesOptions{})
		free -= requests.Cpu().MilliValue()
		if p.DeletionTimestamp != nil {
			deleting += requests.Cpu().MilliValue()
		}
	}
	return node, free, deleting
}
