package lifecycle

import (
	"fmt"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/podlifecycle/conformance/framework/drift"
	"github.com/podlifecycle/conformance/framework/examples"
	"github.com/podlifecycle/conformance/framework/facts"
	. "github.com/podlifecycle/conformance/framework/match"
	"github.com/podlifecycle/conformance/framework/observe"
	"github.com/podlifecycle/conformance/framework/suite"
)

// The docs' readiness gate, from the Pod Lifecycle page's readinessGates example.
const featureGateCondition corev1.PodConditionType = "www.example.com/feature-1"

// readinessBound: probe period 1 s, failure/success threshold 1, plus the status
// update and the EndpointSlice controller's sync; 15 s on a loaded machine.
const readinessBound = 15 * time.Second

// stopSandboxBound bounds one crictl call on a node: listing the pod's sandbox, or
// stopping it (PC-4).
const stopSandboxBound = 30 * time.Second

var _ = Describe("Pod conditions", func() {
	It("carry type, status, lastTransitionTime, reason and message, and observedGeneration", Label("PC-1"), suite.Timeout(podStartBound), func(ctx SpecContext) {
		ns := env.Namespace(ctx)
		tl := env.Run(ctx, ns, examples.WebServer())
		Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound).Should(HaveCondition(corev1.PodReady, corev1.ConditionTrue, ""))
		// A pending pod's False conditions carry reasons; check them on the first status with any.
		var withReason *corev1.PodCondition
		for _, p := range tl.Pods() {
			for i, c := range p.Status.Conditions {
				if c.Status == corev1.ConditionFalse && c.Reason != "" {
					withReason = &p.Status.Conditions[i]
				}
			}
			if withReason != nil {
				break
			}
		}
		Expect(withReason).NotTo(BeNil(), "no False condition with a reason was seen:\n%s", tl)
		Expect(withReason.Message).NotTo(BeEmpty(), "condition %s has a reason but no message", withReason.Type)

		p := tl.Pod()
		Expect(p.Status.Conditions).To(HaveLen(5))
		for _, c := range p.Status.Conditions {
			Expect(c.Type).NotTo(BeEmpty())
			Expect(c.Status).To(BeElementOf(corev1.ConditionTrue, corev1.ConditionFalse, corev1.ConditionUnknown))
			Expect(c.LastTransitionTime.IsZero()).To(BeFalse(), "%s has a lastTransitionTime", c.Type)
			Expect(c.ObservedGeneration).To(Equal(p.Generation), "%s observedGeneration (v1.37 sets it to the pod's generation)", c.Type)
		}
	})

	// The two pods are waited for in turn. The pod without init containers mounts a
	// ConfigMap that is made only once the pod is Initialized: the kubelet writes the
	// pod's first status before it waits for the volumes, and makes the sandbox only
	// after they are mounted, so the order of the two conditions shows in two status
	// writes. Without the wait both often come in one write, whose order the watch
	// cannot tell (a tie failed this spec on a fast node).
	It("turn Initialized True before the sandbox is ready without init containers, and after it with them", Label("PC-3"), suite.Timeout(podStartBound, podStartBound+2*time.Second, podStartBound+2*time.Second), func(ctx SpecContext) {
		ns := env.Namespace(ctx)
		late := shellPod("no-init", corev1.RestartPolicyAlways, "sleep 3600")
		late.Spec.Volumes = []corev1.Volume{{Name: "late", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
			LocalObjectReference: corev1.LocalObjectReference{Name: "late"}}}}}
		late.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "late", MountPath: "/late"}}
		plain := env.Run(ctx, ns, late)
		// A kubelet that set Initialized only with the sandbox would never get here: the
		// sandbox waits for the ConfigMap.
		Eventually(plain.Pod).WithContext(ctx).WithTimeout(podStartBound).Should(HaveCondition(corev1.PodInitialized, corev1.ConditionTrue, ""),
			"PC-3: no init containers, the sandbox not made yet (its volume waits for a ConfigMap):\n%s", plain)
		_, err := env.Client.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "late"}}, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())
		withInit := shellPod("with-init", corev1.RestartPolicyAlways, "sleep 3600")
		withInit.Spec.InitContainers = []corev1.Container{{Name: "init", Image: "busybox:1.28", Command: []string{"sh", "-c", "sleep 2"}}}
		initTL := env.Run(ctx, ns, withInit)
		for _, tl := range []*observe.Timeline{plain, initTL} {
			Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound + 2*time.Second).Should(HaveCondition(corev1.PodReady, corev1.ConditionTrue, ""))
		}
		// The watch's millisecond times order the two; lastTransitionTime often ties.
		Expect(trueOrder(plain)).To(BeNumerically("<", 0), "no init containers: Initialized before PodReadyToStartContainers:\n%s", plain)
		Expect(trueOrder(initTL)).To(BeNumerically(">", 0), "init containers: Initialized after PodReadyToStartContainers:\n%s", initTL)
		AddReportEntry("first seen True", fmt.Sprintf("no init: %v; with init: %v", plain.ConditionsFirstTrue(), initTL.ConditionsFirstTrue()))
	})

	// PC-3's "after they all complete": checked on every status the watch saw, not
	// on lastTransitionTime. A kubelet that set Initialized when the last init
	// container started, or when the first one completed, shows a status with
	// Initialized True and an init container not yet Terminated(Completed).
	It("keep Initialized False, and the pod Pending, until the last init container has completed", Label("PC-3", "PL-1"), suite.Timeout(podStartBound+5*time.Second), func(ctx SpecContext) {
		ns := env.Namespace(ctx)
		pod := shellPod("two-inits", corev1.RestartPolicyAlways, "sleep 3600")
		pod.Spec.InitContainers = []corev1.Container{
			{Name: "first", Image: "busybox:1.28", Command: []string{"sh", "-c", "sleep 2"}},
			{Name: "last", Image: "busybox:1.28", Command: []string{"sh", "-c", "sleep 3"}},
		}
		tl := env.Run(ctx, ns, pod)
		Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound + 5*time.Second).Should(HaveCondition(corev1.PodInitialized, corev1.ConditionTrue, ""))

		sawLastRunning := false
		for _, e := range tl.Entries() {
			if e.Pod == nil {
				continue
			}
			var pending []string
			for _, st := range e.Pod.Status.InitContainerStatuses {
				if st.State.Running != nil && st.Name == "last" {
					sawLastRunning = true
				}
				if st.State.Terminated == nil || st.State.Terminated.Reason != "Completed" {
					pending = append(pending, st.Name)
				}
			}
			if len(pending) == 0 && len(e.Pod.Status.InitContainerStatuses) == len(pod.Spec.InitContainers) {
				continue
			}
			Expect(e.Pod).NotTo(HaveCondition(corev1.PodInitialized, corev1.ConditionTrue, ""),
				"PC-3: Initialized True at %s while init containers %v had not completed:\n%s", e.Seen.Format("15:04:05.000"), pending, tl)
			Expect(e.Pod).To(HavePhase(corev1.PodPending), "PL-1: the pod leaves Pending only after its init containers:\n%s", tl)
		}
		Expect(sawLastRunning).To(BeTrue(), "the watch saw the last init container Running (3 s), so the check above covered that window:\n%s", tl)
	})

	It("hold PodReadyToStartContainers False while a ConfigMap volume is missing, True once it exists", Label("PC-4"), suite.Timeout(podStartBound, 10*time.Second, 122*time.Second+podStartBound), func(ctx SpecContext) {
		ns := env.Namespace(ctx)
		pod := shellPod("needs-config", corev1.RestartPolicyAlways, "sleep 3600")
		pod.Spec.Volumes = []corev1.Volume{{Name: "settings", VolumeSource: corev1.VolumeSource{
			ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "settings"}}}}}
		pod.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "settings", MountPath: "/settings"}}
		tl := env.Run(ctx, ns, pod)
		Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound).Should(HaveCondition(corev1.PodReadyToStartContainers, corev1.ConditionFalse, ""))
		// The kubelet retries the mount with growing backoff; 10 s is several retries.
		Consistently(tl.Pod).WithContext(ctx).WithTimeout(10 * time.Second).Should(And(
			HaveCondition(corev1.PodReadyToStartContainers, corev1.ConditionFalse, ""), HavePhase(corev1.PodPending)))

		Expect(env.Create(ctx, ns, &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: "settings"}, Data: map[string]string{"mode": "test"}})).To(Succeed())
		// The kubelet's mount retry backoff is capped at 2m2s (volume manager); the wait
		// is that cap plus the pod start.
		Eventually(tl.Pod).WithContext(ctx).WithTimeout(122*time.Second + podStartBound).Should(And(
			HaveCondition(corev1.PodReadyToStartContainers, corev1.ConditionTrue, ""), HavePhase(corev1.PodRunning)))
	})

	// crictl gives each call 2 s by default, and a StopPodSandbox (kill the containers,
	// the CNI teardown, stop the pause container) takes longer than that on a loaded
	// node: CI saw this spec fail there. Each crictl call here gets stopSandboxBound,
	// which bounds the machine, not the statement.
	It("turn PodReadyToStartContainers False again when the sandbox is destroyed, and True when it is recreated", Label("PC-4", suite.Disruptive), suite.Timeout(podStartBound, 2*stopSandboxBound, podStartBound, podStartBound), func(ctx SpecContext) {
		env.Require(facts.NodeShell())
		ns := env.Namespace(ctx)
		tl := env.Run(ctx, ns, shellPod("sandbox", corev1.RestartPolicyAlways, "sleep 3600"))
		Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound).Should(HaveCondition(corev1.PodReady, corev1.ConditionTrue, ""))
		node := tl.Pod().Spec.NodeName
		crictl := fmt.Sprintf("crictl --timeout=%ds", int(stopSandboxBound.Seconds()))
		out, err := env.NodeShell(ctx, node, fmt.Sprintf(`id=$(%[1]s pods --namespace %[2]s --name '^sandbox$' --state ready -q) && [ -n "$id" ] && %[1]s stopp "$id"`, crictl, ns))
		Expect(err).NotTo(HaveOccurred(), "stopping the pod's sandbox on %s: %s", node, out)
		Eventually(func() bool {
			seenFalse := false
			for _, p := range tl.Pods() {
				if ok, _ := HaveCondition(corev1.PodReadyToStartContainers, corev1.ConditionFalse, "").Match(p); ok && p.Status.Phase == corev1.PodRunning {
					seenFalse = true
				}
			}
			return seenFalse
		}).WithContext(ctx).WithTimeout(podStartBound).Should(BeTrue(), "PodReadyToStartContainers never went False after the sandbox was stopped:\n%s", tl)
		Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound).Should(And(
			HaveCondition(corev1.PodReadyToStartContainers, corev1.ConditionTrue, ""), HaveCondition(corev1.PodReady, corev1.ConditionTrue, "")))
	})

	It("make ContainersReady and Ready follow the readiness probe, and remove an unready pod from the Service's endpoints",
		Label("PC-5", "PC-6", "PR-5"), suite.Timeout(podStartBound, 3*time.Second, 6*readinessBound), func(ctx SpecContext) {
			ns := env.Namespace(ctx)
			pod := shellPod("probed", corev1.RestartPolicyAlways, "sleep 3600")
			pod.Labels = map[string]string{"app": "probed"}
			pod.Spec.Containers[0].ReadinessProbe = readyFileProbe()
			svc := &corev1.Service{
				ObjectMeta: metav1.ObjectMeta{Name: "probed"},
				Spec:       corev1.ServiceSpec{Selector: pod.Labels, Ports: []corev1.ServicePort{{Port: 80, TargetPort: intstr.FromInt32(80)}}},
			}
			Expect(env.Create(ctx, ns, svc)).To(Succeed())
			tl := env.Run(ctx, ns, pod)
			Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound).Should(HavePhase(corev1.PodRunning))
			notReady := And(HaveCondition(corev1.ContainersReady, corev1.ConditionFalse, ""), HaveCondition(corev1.PodReady, corev1.ConditionFalse, ""))
			Consistently(tl.Pod).WithContext(ctx).WithTimeout(3 * time.Second).Should(notReady)
			Eventually(endpointReady(ns, svc.Name)).WithContext(ctx).WithTimeout(readinessBound).Should(outOfService)

			_, err := env.Exec(ctx, ns, pod.Name, "main", "touch", "/tmp/ready")
			Expect(err).NotTo(HaveOccurred())
			Eventually(tl.Pod).WithContext(ctx).WithTimeout(readinessBound).Should(And(
				HaveCondition(corev1.ContainersReady, corev1.ConditionTrue, ""), HaveCondition(corev1.PodReady, corev1.ConditionTrue, "")))
			Eventually(endpointReady(ns, svc.Name)).WithContext(ctx).WithTimeout(readinessBound).Should(Equal("ready=true"))

			_, err = env.Exec(ctx, ns, pod.Name, "main", "rm", "/tmp/ready")
			Expect(err).NotTo(HaveOccurred())
			Eventually(tl.Pod).WithContext(ctx).WithTimeout(readinessBound).Should(notReady)
			Eventually(endpointReady(ns, svc.Name)).WithContext(ctx).WithTimeout(readinessBound).Should(outOfService)
		})

	It("keep ContainersReady and Ready False, and the pod out of its Service's ready endpoints, until every container is ready, not just one of them",
		Label("PC-5", "PC-6", "PC-7", "PR-5"), suite.Timeout(podStartBound, 10*time.Second, 3*time.Second, 3*readinessBound), func(ctx SpecContext) {
			// The statements are about all of a pod's containers (PC-5, PC-7) and any of
			// their readiness probes (PR-5): with two containers, each behind its own
			// readiness probe, and a readiness gate already True, the first container
			// ready is not enough for ContainersReady, Ready, or the Service's endpoint.
			ns := env.Namespace(ctx)
			pod := shellPod("two-probed", corev1.RestartPolicyAlways, "sleep 3600")
			pod.Labels = map[string]string{"app": "two-probed"}
			pod.Spec.ReadinessGates = []corev1.PodReadinessGate{{ConditionType: featureGateCondition}}
			second := pod.Spec.Containers[0]
			second.Name = "second"
			pod.Spec.Containers = append(pod.Spec.Containers, second)
			for i := range pod.Spec.Containers {
				pod.Spec.Containers[i].ReadinessProbe = readyFileProbe()
			}
			svc := &corev1.Service{
				ObjectMeta: metav1.ObjectMeta{Name: "two-probed"},
				Spec:       corev1.ServiceSpec{Selector: pod.Labels, Ports: []corev1.ServicePort{{Port: 80, TargetPort: intstr.FromInt32(80)}}},
			}
			Expect(env.Create(ctx, ns, svc)).To(Succeed())
			tl := env.Run(ctx, ns, pod)
			Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound).Should(HavePhase(corev1.PodRunning))
			patchCondition(ctx, ns, pod.Name, featureGateCondition, corev1.ConditionTrue)
			Eventually(endpointReady(ns, svc.Name)).WithContext(ctx).WithTimeout(10 * time.Second).Should(outOfService)

			// One of two ready: main's probe turns it ready within readinessBound, and the
			// pod's conditions and its endpoint stay not ready all the while.
			_, err := env.Exec(ctx, ns, pod.Name, "main", "touch", "/tmp/ready")
			Expect(err).NotTo(HaveOccurred())
			Eventually(tl.Pod).WithContext(ctx).WithTimeout(readinessBound).Should(HaveContainerReady("main", true))
			notReady := And(HaveCondition(corev1.ContainersReady, corev1.ConditionFalse, ""), HaveCondition(corev1.PodReady, corev1.ConditionFalse, ""))
			Consistently(tl.Pod).WithContext(ctx).WithTimeout(3*time.Second).Should(notReady, "PC-5, PC-7: ready with one of its two containers ready:\n%s", tl)
			Expect(endpointReady(ns, svc.Name)(ctx)).To(outOfService, "PR-5, PC-6: the pod's endpoint is ready while its second container's readiness probe fails")

			_, err = env.Exec(ctx, ns, pod.Name, "second", "touch", "/tmp/ready")
			Expect(err).NotTo(HaveOccurred())
			Eventually(tl.Pod).WithContext(ctx).WithTimeout(readinessBound).Should(And(
				HaveCondition(corev1.ContainersReady, corev1.ConditionTrue, ""), HaveCondition(corev1.PodReady, corev1.ConditionTrue, "")))
			Eventually(endpointReady(ns, svc.Name)).WithContext(ctx).WithTimeout(readinessBound).Should(Equal("ready=true"))
		})

	It("evaluate readiness gates: a missing gate condition counts as False until PATCHed True on the status subresource",
		Label("PC-7"), suite.Timeout(podStartBound, 10*time.Second, 3*time.Second, 10*time.Second), func(ctx SpecContext) {
			ns := env.Namespace(ctx)
			pod := shellPod("gated-ready", corev1.RestartPolicyAlways, "sleep 3600")
			pod.Spec.ReadinessGates = []corev1.PodReadinessGate{{ConditionType: featureGateCondition}}
			tl := env.Run(ctx, ns, pod)
			Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound).Should(HaveCondition(corev1.ContainersReady, corev1.ConditionTrue, ""))
			Eventually(tl.Pod).WithContext(ctx).WithTimeout(10 * time.Second).Should(
				HaveCondition(corev1.PodReady, corev1.ConditionFalse, "ReadinessGatesNotReady"))

			patchCondition(ctx, ns, pod.Name, featureGateCondition, corev1.ConditionFalse)
			Consistently(tl.Pod).WithContext(ctx).WithTimeout(3 * time.Second).Should(HaveCondition(corev1.PodReady, corev1.ConditionFalse, "ReadinessGatesNotReady"))

			patchCondition(ctx, ns, pod.Name, featureGateCondition, corev1.ConditionTrue)
			// The kubelet re-evaluates Ready on the status change within its sync; 10 s.
			Eventually(tl.Pod).WithContext(ctx).WithTimeout(10 * time.Second).Should(HaveCondition(corev1.PodReady, corev1.ConditionTrue, ""))
		})

	// "All gate conditions": two gates. One True is not enough: a kubelet that reads
	// only the first gate, or any one, is Ready here.
	It("keep Ready False until every readiness gate's condition is True, not just one of two",
		Label("PC-7"), suite.Timeout(podStartBound, 10*time.Second, 2*(10*time.Second+10*time.Second+5*time.Second), 10*time.Second), func(ctx SpecContext) {
			ns := env.Namespace(ctx)
			const otherGate corev1.PodConditionType = "www.example.com/other-gate"
			pod := shellPod("two-gates", corev1.RestartPolicyAlways, "sleep 3600")
			pod.Spec.ReadinessGates = []corev1.PodReadinessGate{{ConditionType: featureGateCondition}, {ConditionType: otherGate}}
			tl := env.Run(ctx, ns, pod)
			Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound).Should(HaveCondition(corev1.ContainersReady, corev1.ConditionTrue, ""))
			Eventually(tl.Pod).WithContext(ctx).WithTimeout(10 * time.Second).Should(
				HaveCondition(corev1.PodReady, corev1.ConditionFalse, "ReadinessGatesNotReady"))

			// Each gate True on its own, the other False, in both orders of the gates. The
			// other is set False first, so that the spec never makes both True at once;
			// then the kubelet has a pod update to sync (the gate turned True) and 5 s to
			// turn Ready True, which it does within seconds when both are (below).
			for _, gates := range [][2]corev1.PodConditionType{{otherGate, featureGateCondition}, {featureGateCondition, otherGate}} {
				patchCondition(ctx, ns, pod.Name, gates[1], corev1.ConditionFalse)
				Eventually(tl.Pod).WithContext(ctx).WithTimeout(10 * time.Second).Should(And(HaveCondition(gates[1], corev1.ConditionFalse, ""),
					HaveCondition(corev1.PodReady, corev1.ConditionFalse, "ReadinessGatesNotReady")))
				patchCondition(ctx, ns, pod.Name, gates[0], corev1.ConditionTrue)
				Eventually(tl.Pod).WithContext(ctx).WithTimeout(10 * time.Second).Should(HaveCondition(gates[0], corev1.ConditionTrue, ""))
				Consistently(tl.Pod).WithContext(ctx).WithTimeout(5*time.Second).Should(HaveCondition(corev1.PodReady, corev1.ConditionFalse, "ReadinessGatesNotReady"),
					"PC-7: Ready with gate %s True and %s False:\n%s", gates[0], gates[1], tl)
			}

			patchCondition(ctx, ns, pod.Name, otherGate, corev1.ConditionTrue)
			Eventually(tl.Pod).WithContext(ctx).WithTimeout(10*time.Second).Should(HaveCondition(corev1.PodReady, corev1.ConditionTrue, ""),
				"PC-7: both gates True, the containers ready:\n%s", tl)
		})

	It("reject a readiness gate whose condition type is not a valid label key", Label("PC-7"), suite.Timeout(), func(ctx SpecContext) {
		ns := env.Namespace(ctx)
		pod := shellPod("bad-gate", corev1.RestartPolicyAlways, "sleep 3600")
		pod.Spec.ReadinessGates = []corev1.PodReadinessGate{{ConditionType: "www.example.com/feature 1!"}}
		_, err := env.Client.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{})
		Expect(apierrors.IsInvalid(err)).To(BeTrue(), "want 422 Invalid, got %v", err)
		Expect(err.Error()).To(ContainSubstring("readinessGates"))
	})

	It("add DisruptionTarget (EvictionByEvictionAPI) to a pod evicted through the Eviction API", Label("PC-8"), suite.Timeout(podStartBound, 10*time.Second, terminationBound), func(ctx SpecContext) {
		ns := env.Namespace(ctx)
		pod := env.Hold(ns, shellPod("evicted", corev1.RestartPolicyAlways, `trap "exit 0" TERM; while true; do sleep 0.2; done`))
		tl := env.Run(ctx, ns, pod)
		Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound).Should(HavePhase(corev1.PodRunning))
		Expect(env.Client.CoreV1().Pods(ns).EvictV1(ctx, &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: pod.Name, Namespace: ns}})).To(Succeed())
		Eventually(tl.Pod).WithContext(ctx).WithTimeout(10 * time.Second).Should(
			HaveCondition(corev1.DisruptionTarget, corev1.ConditionTrue, "EvictionByEvictionAPI"))
		Eventually(tl.Pod).WithContext(ctx).WithTimeout(terminationBound).Should(HavePhase(corev1.PodSucceeded))
	})

	It("add no DisruptionTarget to a pod the kubelet evicts for exceeding its own ephemeral-storage limit", Label("PC-8"), suite.Timeout(podStartBound+30*time.Second), func(ctx SpecContext) {
		ns := env.Namespace(ctx)
		// Written to the container's writable layer, whose usage the runtime reports on
		// every stats call; an emptyDir's usage is only measured once a minute or two
		// (volumeStatsAggPeriod, jittered).
		pod := shellPod("over-limit", corev1.RestartPolicyAlways, "dd if=/dev/zero of=/tmp/fill bs=1M count=8; sleep 3600")
		pod.Spec.Containers[0].Resources.Limits = corev1.ResourceList{corev1.ResourceEphemeralStorage: resource.MustParse("2Mi")}
		tl := env.Run(ctx, ns, pod)
		// The kubelet's eviction manager checks local storage every 10 s (housekeeping);
		// a pod start, two checks and the status update fit in the bound.
		Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound + 30*time.Second).Should(HavePhase(corev1.PodFailed))
		Expect(tl.Pod().Status.Reason).To(Equal("Evicted"), "%s", tl)
		for _, p := range tl.Pods() {
			Expect(p).NotTo(HaveCondition(corev1.DisruptionTarget, corev1.ConditionTrue, ""))
		}
	})

	It("report a resize that does not fit now as PodResizePending (Deferred) and a fitting one as done in place, QoS class unchanged",
		Label("PC-9"), suite.Timeout(podStartBound, resizeDecisionBound, 10*time.Second, 30*time.Second, 10*time.Second), func(ctx SpecContext) {
			ns := env.Namespace(ctx)
			pod := shellPod("resizable", corev1.RestartPolicyAlways, "sleep 3600")
			both := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("64Mi")}
			pod.Spec.Containers[0].Resources = corev1.ResourceRequirements{Requests: both, Limits: both}
			tl := env.Run(ctx, ns, pod)
			Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound).Should(HavePhase(corev1.PodRunning))
			Expect(tl.Pod().Status.QOSClass).To(Equal(corev1.PodQOSGuaranteed))
			node, err := env.Client.CoreV1().Nodes().Get(ctx, tl.Pod().Spec.NodeName, metav1.GetOptions{})
			Expect(err).NotTo(HaveOccurred())
			allocatable := node.Status.Allocatable.Cpu().String()

			By("asking for more CPU than the node has at all: refused at admission, or pending as Infeasible")
			// The pages: PodResizePending, reason Infeasible. v1.37.2's API server refuses it
			// before the kubelet sees it (PodResizeValidator, 403). Either answer is measured
			// and recorded, the pages' as conformance and the other as drift; anything else
			// (accepted and never Infeasible, another refusal) fails the spec.
			outcome, evidence := resizeBeyondNode(ctx, tl, ns, pod.Name)
			suite.Drift(drift.Observation[string]{
				Statement:  "PC-9",
				Topic:      "resize beyond allocatable",
				Docs:       "a resize the node can never fit is pending with PodResizePending reason Infeasible",
				Documented: resizeInfeasible,
				Measured:   outcome,
				Evidence:   evidence,
				Reproducer: suite.Reproducer(tl.Pod(), "any node; resize cpu requests and limits to 1000"),
			})

			By("asking for all of the node's allocatable CPU while other pods hold some of it: Deferred")
			resize(ctx, ns, pod.Name, allocatable, allocatable)
			Eventually(tl.Pod).WithContext(ctx).WithTimeout(10 * time.Second).Should(
				HaveCondition(corev1.PodResizePending, corev1.ConditionTrue, corev1.PodReasonDeferred))
			for _, c := range tl.Pod().Status.Conditions {
				if c.Type == corev1.PodResizePending {
					Expect(c.Message).NotTo(BeEmpty(), "PodResizePending carries a message")
				}
			}

			By("asking for 200m: resized in place, without a restart, Guaranteed still")
			resize(ctx, ns, pod.Name, "200m", "200m")
			// The kubelet actuates a resize on its next pod sync and reports it; 30 s.
			Eventually(func() string {
				p := tl.Pod()
				if len(p.Status.ContainerStatuses) == 0 || p.Status.ContainerStatuses[0].Resources == nil {
					return ""
				}
				return p.Status.ContainerStatuses[0].Resources.Requests.Cpu().String()
			}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Equal("200m"))
			Eventually(tl.Pod).WithContext(ctx).WithTimeout(10 * time.Second).ShouldNot(Or(
				HaveCondition(corev1.PodResizePending, corev1.ConditionTrue, ""), HaveCondition(corev1.PodResizeInProgress, corev1.ConditionTrue, "")))
			Expect(tl.Pod()).To(HaveContainerRestarts("main", 0))
			for _, p := range tl.Pods() {
				Expect(p.Status.QOSClass).To(Equal(corev1.PodQOSGuaranteed), "QoS class never changes")
			}
			AddReportEntry("resize conditions seen", resizeConditionsSeen(tl))
		})
})

func resizeConditionsSeen(tl *observe.Timeline) []string {
	var out []string
	for _, p := range tl.Pods() {
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodResizePending || c.Type == corev1.PodResizeInProgress {
				s := fmt.Sprintf("%s=%s(%s)", c.Type, c.Status, c.Reason)
				if len(out) == 0 || out[len(out)-1] != s {
					out = append(out, s)
				}
			}
		}
	}
	return out
}

// trueOrder compares when Initialized and PodReadyToStartContainers were first seen
// True: negative when Initialized came first.
func trueOrder(tl *observe.Timeline) time.Duration {
	initialized := firstSeen(tl, HaveCondition(corev1.PodInitialized, corev1.ConditionTrue, ""))
	sandbox := firstSeen(tl, HaveCondition(corev1.PodReadyToStartContainers, corev1.ConditionTrue, ""))
	Expect(initialized.IsZero() || sandbox.IsZero()).To(BeFalse())
	if initialized.Equal(sandbox) {
		return 0
	}
	return initialized.Sub(sandbox)
}

func patchCondition(ctx SpecContext, ns, name string, t corev1.PodConditionType, s corev1.ConditionStatus) {
	GinkgoHelper()
	patch := fmt.Sprintf(`{"status":{"conditions":[{"type":%q,"status":%q,"lastTransitionTime":%q}]}}`, t, s, time.Now().UTC().Format(time.RFC3339))
	_, err := env.Client.CoreV1().Pods(ns).Patch(ctx, name, types.StrategicMergePatchType, []byte(patch), metav1.PatchOptions{}, "status")
	Expect(err).NotTo(HaveOccurred())
}

func resize(ctx SpecContext, ns, name, cpuRequest, cpuLimit string) {
	GinkgoHelper()
	Expect(resizeErr(ctx, ns, name, cpuRequest, cpuLimit)).To(Succeed())
}

func resizeErr(ctx SpecContext, ns, name, cpuRequest, cpuLimit string) error {
	patch := fmt.Sprintf(`{"spec":{"containers":[{"name":"main","resources":{"requests":{"cpu":%q},"limits":{"cpu":%q}}}]}}`, cpuRequest, cpuLimit)
	_, err := env.Client.CoreV1().Pods(ns).Patch(ctx, name, types.StrategicMergePatchType, []byte(patch), metav1.PatchOptions{}, "resize")
	return err
}

// endpointReady reports the ready condition of the single endpoint in the Service's
// EndpointSlices, as "ready=<bool>" (or what else was found).
// readyFileProbe is a readiness probe that succeeds while /tmp/ready exists in the
// container, checked every second: the spec decides the container's readiness.
func readyFileProbe() *corev1.Probe {
	return &corev1.Probe{
		ProbeHandler:  corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"cat", "/tmp/ready"}}},
		PeriodSeconds: 1, FailureThreshold: 1,
	}
}

// outOfService is the pod's endpoint as a Service that sends it no traffic lists it:
// removed (the pages: "removed from Service endpoints") or listed with ready=false (the
// EndpointSlice controller; disagreement "endpoints of a pod that is not ready", which
// PR-5's spec answers).
var outOfService = BeElementOf("", "ready=false")

func endpointReady(ns, service string) func(SpecContext) (string, error) {
	return func(ctx SpecContext) (string, error) {
		slices, err := env.Client.DiscoveryV1().EndpointSlices(ns).List(ctx, metav1.ListOptions{LabelSelector: discoveryv1.LabelServiceName + "=" + service})
		if err != nil {
			return "", err
		}
		var found []string
		for _, s := range slices.Items {
			for _, e := range s.Endpoints {
				found = append(found, fmt.Sprintf("ready=%t", e.Conditions.Ready != nil && *e.Conditions.Ready))
			}
		}
		return strings.Join(found, ","), nil
	}
}
