package lifecycle

import (
	"context"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	. "github.com/podlifecycle/conformance/framework/match"
	"github.com/podlifecycle/conformance/framework/observe"
	"github.com/podlifecycle/conformance/framework/suite"
)

// draPluginImage is images/cmd/draplugin: a DRA driver's kubelet plugin that prepares
// nothing, and holds every NodePrepareResources call while its hold file exists.
const draPluginImage = "podlifecycle/draplugin:1"

// draHold is the plugin's hold file; `draplugin release draHold` removes it.
const draHold = "/run/draplugin/hold"

// draHoldFor is how long the claim is kept unprepared while the pod is watched: the
// kubelet calls NodePrepareResources once per pod sync and waits 45 s for an answer,
// so 10 s is well inside one call, and long enough for the kubelet's status writes of
// the pod's start (a sandbox made without the claim would be reported in about 1 s).
const draHoldFor = 10 * time.Second

// PC-13: the kubelet sets PodReadyToStartContainers True only once a pod's dynamic
// resources are ready too. Before the kubelet makes a pod's sandbox, it has the DRA
// driver of each of the pod's ResourceClaims prepare it (NodePrepareResources); the
// spec's driver holds that call, so the claim stays allocated (by the scheduler) but
// unprepared for draHoldFor. What fails: a kubelet that makes the sandbox, or reports it
// ready, before the driver answered (PodReadyToStartContainers True, or the pod Running,
// while the call is held), or one that never sets it True once the driver has answered.
//
// Disruptive: a DeviceClass and a ResourceSlice are cluster-scoped, and the plugin is a
// socket in the node's kubelet directories (hostPath).
var _ = Describe("A pod with a ResourceClaim", func() {
	It("holds PodReadyToStartContainers False while its DRA driver has not prepared the claim, True once it has",
		Label("PC-13", suite.Disruptive), suite.Timeout(podStartBound, podStartBound, podStartBound, draHoldFor, podStartBound), func(ctx SpecContext) {
			node := env.NodeFor("defaults", map[string]bool{"DynamicResourceAllocation": true})
			ns := env.Namespace(ctx)
			// A driver name of the spec's own, so that its slice, class and sockets meet
			// nothing of another run's.
			driver := ns + ".podlifecycle.io"
			// The class first: where the API server does not serve resource.k8s.io/v1, its
			// create is refused as not found, before anything else is made.
			class := &resourcev1.DeviceClass{
				ObjectMeta: metav1.ObjectMeta{Name: driver},
				Spec: resourcev1.DeviceClassSpec{Selectors: []resourcev1.DeviceSelector{{
					CEL: &resourcev1.CELDeviceSelector{Expression: fmt.Sprintf("device.driver == %q", driver)}}}},
			}
			_, err := env.Client.ResourceV1().DeviceClasses().Create(ctx, class, metav1.CreateOptions{})
			if apierrors.IsNotFound(err) {
				Skip(fmt.Sprintf("PC-13 needs the API server to serve %s (dynamic resource allocation): %v", resourcev1.SchemeGroupVersion, err))
			}
			Expect(err).NotTo(HaveOccurred())
			deleteWhenDone(func(ctx context.Context) error {
				return env.Client.ResourceV1().DeviceClasses().Delete(ctx, class.Name, metav1.DeleteOptions{})
			})

			By("a DRA driver's kubelet plugin registers on " + node.Name)
			plugin := suite.PinTo(draPluginPod(driver), node)
			pluginTL := env.Run(ctx, ns, plugin)
			Eventually(func(g Gomega, ctx SpecContext) {
				markers, err := env.Markers(ctx, ns, plugin.Name, "draplugin", false)
				g.Expect(err).NotTo(HaveOccurred())
				g.Expect(markers.Events()).NotTo(ContainElement(HavePrefix("registration refused")), "the kubelet of %s refused the plugin", node.Name)
				g.Expect(markers.Events()).To(ContainElement("registered"), "the kubelet of %s has not registered the plugin", node.Name)
			}).WithContext(ctx).WithTimeout(podStartBound).WithPolling(time.Second).Should(Succeed(), "the plugin pod:\n%s", pluginTL)

			By("its node's one device published, and a claim on it")
			slice := &resourcev1.ResourceSlice{
				ObjectMeta: metav1.ObjectMeta{Name: driver + "-" + node.Name},
				Spec: resourcev1.ResourceSliceSpec{
					Driver:   driver,
					NodeName: ptr(node.Name),
					Pool:     resourcev1.ResourcePool{Name: node.Name, Generation: 1, ResourceSliceCount: 1},
					Devices:  []resourcev1.Device{{Name: "device-0"}},
				},
			}
			_, err = env.Client.ResourceV1().ResourceSlices().Create(ctx, slice, metav1.CreateOptions{})
			Expect(err).NotTo(HaveOccurred())
			deleteWhenDone(func(ctx context.Context) error {
				return env.Client.ResourceV1().ResourceSlices().Delete(ctx, slice.Name, metav1.DeleteOptions{})
			})
			claim := &resourcev1.ResourceClaim{
				ObjectMeta: metav1.ObjectMeta{Name: "device"},
				Spec: resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{Requests: []resourcev1.DeviceRequest{{
					Name: "device", Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: driver}}}}},
			}
			Expect(env.Create(ctx, ns, claim)).To(Succeed())

			By("the pod that uses it: its claim held unprepared for " + draHoldFor.String())
			pod := shellPod("uses-device", corev1.RestartPolicyAlways, "sleep 3600")
			pod.Spec.ResourceClaims = []corev1.PodResourceClaim{{Name: "device", ResourceClaimName: ptr(claim.Name)}}
			pod.Spec.Containers[0].Resources.Claims = []corev1.ResourceClaim{{Name: "device"}}
			tl := env.Run(ctx, ns, pod)
			prepareCalled := observe.MarkOf("draplugin", "prepare called "+ns+"/"+claim.Name)
			Eventually(func(g Gomega, ctx SpecContext) {
				markers, err := env.Markers(ctx, ns, plugin.Name, "draplugin", false)
				g.Expect(err).NotTo(HaveOccurred())
				_, called := markers.When(prepareCalled)
				g.Expect(called).To(BeTrue(), "the kubelet has not asked the driver to prepare the claim")
			}).WithContext(ctx).WithTimeout(podStartBound).WithPolling(time.Second).Should(Succeed(), "the pod:\n%s", tl)
			// The kubelet writes the pod's first status before it syncs the sandbox, so
			// the condition is there, and must be False while the call is held.
			Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound).Should(SatisfyAny(
				HaveCondition(corev1.PodReadyToStartContainers, corev1.ConditionFalse, ""), HaveCondition(corev1.PodReadyToStartContainers, corev1.ConditionTrue, "")),
				"PC-13: the kubelet reports no PodReadyToStartContainers for a pod whose claim it is preparing:\n%s", tl)
			Consistently(tl.Pod).WithContext(ctx).WithTimeout(draHoldFor).Should(And(
				HaveCondition(corev1.PodReadyToStartContainers, corev1.ConditionFalse, ""), HavePhase(corev1.PodPending)),
				"PC-13: the claim is not prepared, yet the pod's sandbox is reported ready:\n%s", tl)

			By("the driver answers; the kubelet makes the sandbox and reports it ready")
			released := time.Now()
			_, err = env.Exec(ctx, ns, plugin.Name, "draplugin", "/draplugin", "release", draHold)
			Expect(err).NotTo(HaveOccurred(), "releasing the plugin's hold")
			Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound).Should(And(
				HaveCondition(corev1.PodReadyToStartContainers, corev1.ConditionTrue, ""), HavePhase(corev1.PodRunning)),
				"PC-13: the driver has prepared the claim, and PodReadyToStartContainers is not True:\n%s", tl)

			// The whole watch, not only the polls above: no status before the release
			// had the condition True (a short-lived True between two polls included).
			readyTrue := HaveCondition(corev1.PodReadyToStartContainers, corev1.ConditionTrue, "")
			firstTrue := firstSeen(tl, readyTrue)
			Expect(firstTrue).To(BeTemporally(">=", released),
				"PC-13: PodReadyToStartContainers True at %s, before the driver was let answer at %s:\n%s", firstTrue.Format("15:04:05.000"), released.Format("15:04:05.000"), tl)
			markers, err := env.Markers(ctx, ns, plugin.Name, "draplugin", false)
			Expect(err).NotTo(HaveOccurred())
			called, _ := markers.When(prepareCalled)
			returned, ok := markers.When(observe.MarkOf("draplugin", "prepare returned "+ns+"/"+claim.Name))
			Expect(ok).To(BeTrue(), "the driver's log has no answer to the kubelet's prepare call:\n%s", markers)
			ready := suite.ConditionOf(tl.Pod(), corev1.PodReadyToStartContainers)
			AddReportEntry("dynamic resources prepared", fmt.Sprintf("%s: NodePrepareResources called %s, held, released %s, answered %s; PodReadyToStartContainers True since %s (first seen by the watch after the release: %s)",
				node.Name, called.Format("15:04:05.000"), released.Format("15:04:05.000"), returned.Format("15:04:05.000"),
				ready.LastTransitionTime.Format(time.RFC3339), firstTrue.Format("15:04:05.000")))
		})
})

// draPluginPod runs the plugin of driver with the kubelet's plugin directories mounted.
func draPluginPod(driver string) *corev1.Pod {
	hostDir := func(name, path string) (corev1.Volume, corev1.VolumeMount) {
		return corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{
				Path: path, Type: ptr(corev1.HostPathDirectoryOrCreate)}}},
			corev1.VolumeMount{Name: name, MountPath: path}
	}
	registry, registryMount := hostDir("plugins-registry", "/var/lib/kubelet/plugins_registry")
	plugins, pluginsMount := hostDir("plugins", "/var/lib/kubelet/plugins")
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "draplugin"},
		Spec: corev1.PodSpec{
			Volumes: []corev1.Volume{registry, plugins},
			Containers: []corev1.Container{{
				Name: "draplugin", Image: draPluginImage,
				Args:         []string{"-driver", driver, "-hold-file", draHold},
				VolumeMounts: []corev1.VolumeMount{registryMount, pluginsMount},
			}},
		},
	}
}

// deleteWhenDone deletes a cluster-scoped object of the spec when the spec ends (its
// namespace takes the rest).
func deleteWhenDone(del func(ctx context.Context) error) {
	DeferCleanup(func(ctx SpecContext) {
		if err := del(ctx); err != nil && !apierrors.IsNotFound(err) {
			Fail(err.Error())
		}
	}, NodeTimeout(30*time.Second))
}
