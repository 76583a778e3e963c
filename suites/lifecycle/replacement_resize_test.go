package lifecycle

import (
	"fmt"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	gomegatypes "github.com/onsi/gomega/types"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	. "github.com/podlifecycle/conformance/framework/match"
	"github.com/podlifecycle/conformance/framework/suite"
)

// rolloutBound: a Deployment of two replicas replaces its pods one or two at a time,
// each a pod start (podStartBound) after the controllers' queues (replicaSetSyncBound);
// the old pods stop on TERM at once.
const rolloutBound = 2 * (replicaSetSyncBound + podStartBound)

// The resources before and after the template's change: CPU and memory both, request
// equal to limit, so that each new pod's container reports exactly them.
var (
	resourcesBefore = guaranteed("50m", "32Mi")
	resourcesAfter  = guaranteed("100m", "48Mi")
)

// A Deployment's two update strategies, the classes of "according to its update
// strategy" (k8s.io/api v0.37.2 DeploymentStrategyType): Recreate ends every old pod
// before it creates a new one; RollingUpdate with maxUnavailable 0 never goes below the
// replicas that are ready, so each new pod is ready before an old one ends.
var strategies = []appsv1.DeploymentStrategy{
	{Type: appsv1.RecreateDeploymentStrategyType},
	{Type: appsv1.RollingUpdateDeploymentStrategyType, RollingUpdate: &appsv1.RollingUpdateDeployment{
		MaxUnavailable: ptr(intstr.FromInt32(0)), MaxSurge: ptr(intstr.FromInt32(1))}},
}

var _ = Describe("Resize by replacement pods", func() {
	It("through a Deployment's pod template: its controller creates new pods that run with the new CPU and memory, and ends the old ones by its update strategy",
		Label("PC-17"), suite.Timeout(replicaSetSyncBound+podStartBound, rolloutBound), func(ctx SpecContext) {
			ns := env.Namespace(ctx)
			var deployments []*appsv1.Deployment
			for _, s := range strategies {
				deployments = append(deployments, deploymentOf(ctx, ns, strings.ToLower(string(s.Type)), 2, s))
			}
			old := map[string]map[types.UID]bool{}
			for _, d := range deployments {
				var pods []corev1.Pod
				Eventually(readyPods(ns, d)).WithContext(ctx).WithTimeout(replicaSetSyncBound+podStartBound).
					WithPolling(250*time.Millisecond).Should(HaveLen(2), "the pods of Deployment %s are ready", d.Name)
				pods, _ = readyPods(ns, d)(ctx)
				old[d.Name] = map[types.UID]bool{}
				for _, p := range pods {
					old[d.Name][p.UID] = true
				}
			}

			patch := fmt.Appendf(nil, `{"spec":{"template":{"spec":{"containers":[{"name":"main","resources":{"requests":{"cpu":"%s","memory":"%s"},"limits":{"cpu":"%s","memory":"%s"}}}]}}}}`,
				cpuOf(resourcesAfter), memoryOf(resourcesAfter), cpuOf(resourcesAfter), memoryOf(resourcesAfter))
			for _, d := range deployments {
				_, err := env.Client.AppsV1().Deployments(ns).Patch(ctx, d.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{})
				Expect(err).NotTo(HaveOccurred(), "PC-17: the template's resources of %s changed", d.Name)
			}

			// Every 250 ms, until each Deployment runs two new pods and no old one: what
			// the rollout's strategy forbids, seen in any one listing, fails it.
			rollout := map[string]*rolloutSeen{}
			for _, d := range deployments {
				rollout[d.Name] = &rolloutSeen{}
			}
			Eventually(func(g Gomega, ctx SpecContext) {
				for _, d := range deployments {
					pods, err := selectedPods(ns, d.Spec.Selector)(ctx)
					g.Expect(err).NotTo(HaveOccurred())
					seen := rollout[d.Name]
					seen.add(pods, old[d.Name])
					g.Expect(seen.broken(d.Spec.Strategy.Type)).To(BeEmpty())
					g.Expect(seen.done).To(BeTrue(), "%s: two new pods ready and no old pod left; last listing:\n%s", d.Name, seen.last)
				}
			}).WithContext(ctx).WithTimeout(rolloutBound).WithPolling(250 * time.Millisecond).Should(Succeed())
			for _, d := range deployments {
				Expect(rollout[d.Name].broken(d.Spec.Strategy.Type)).To(BeEmpty(), "PC-17: %s ends its old pods by its strategy", d.Name)
				AddReportEntry("rollout of "+d.Name, rollout[d.Name].String())
			}

			// The kubelet's part: each new pod's container runs with the new resources, as
			// its status reports them (containerStatuses[].resources: what it applied).
			for _, d := range deployments {
				pods, err := readyPods(ns, d)(ctx)
				Expect(err).NotTo(HaveOccurred())
				Expect(pods).To(HaveLen(2))
				for _, p := range pods {
					Expect(old[d.Name]).NotTo(HaveKey(p.UID), "PC-17: %s's pods are new ones", d.Name)
					Expect(p.Spec.Containers[0].Resources).To(sameResources(resourcesAfter), "PC-17: new pod %s has the template's new resources", p.Name)
					Expect(p.Status.ContainerStatuses).To(ConsistOf(HaveField("Resources", HaveValue(sameResources(resourcesAfter)))),
						"PC-17: the kubelet runs new pod %s's container with the new CPU and memory", p.Name)
				}
			}
		})
})

// rolloutSeen is what the listings of one Deployment's pods showed during a rollout.
type rolloutSeen struct {
	// newWhileOldRunning: a new pod listed beside an old one that had not stopped
	// (not Succeeded or Failed); Recreate forbids it.
	newWhileOldRunning []string
	// belowReady: a listing with fewer than two ready pods; RollingUpdate with
	// maxUnavailable 0 forbids it.
	belowReady []string
	listings   int
	done       bool
	last       string
}

func (s *rolloutSeen) add(pods []corev1.Pod, old map[types.UID]bool) {
	s.listings++
	var b strings.Builder
	var oldRunning, newPods, ready, newReady int
	for _, p := range pods {
		isOld := old[p.UID]
		isReady := p.DeletionTimestamp == nil && isPodReady(&p)
		fmt.Fprintf(&b, "  %s old=%t phase=%s ready=%t terminating=%t\n", p.Name, isOld, p.Status.Phase, isReady, p.DeletionTimestamp != nil)
		switch {
		case isOld && p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed:
			oldRunning++
		case !isOld:
			newPods++
			if isReady {
				newReady++
			}
		}
		if isReady {
			ready++
		}
	}
	s.last = b.String()
	at := time.Now().Format("15:04:05.000")
	if newPods > 0 && oldRunning > 0 {
		s.newWhileOldRunning = append(s.newWhileOldRunning, at+"\n"+s.last)
	}
	if ready < 2 {
		s.belowReady = append(s.belowReady, at+"\n"+s.last)
	}
	s.done = newReady == 2 && newPods == 2 && len(pods) == 2
}

// broken is what the strategy forbids that a listing showed.
func (s *rolloutSeen) broken(strategy appsv1.DeploymentStrategyType) []string {
	if strategy == appsv1.RecreateDeploymentStrategyType {
		return s.newWhileOldRunning
	}
	return s.belowReady
}

func (s *rolloutSeen) String() string {
	return fmt.Sprintf("%d listings; a new pod beside a running old one in %d; fewer than two ready pods in %d",
		s.listings, len(s.newWhileOldRunning), len(s.belowReady))
}

func isPodReady(p *corev1.Pod) bool {
	ok, err := HaveCondition(corev1.PodReady, corev1.ConditionTrue, "").Match(p)
	return ok && err == nil
}

// sameResources matches requirements equal to want, quantity by quantity (a parsed
// quantity and one read from the API differ in their cached string).
func sameResources(want corev1.ResourceRequirements) gomegatypes.GomegaMatcher {
	return WithTransform(func(r corev1.ResourceRequirements) bool { return equality.Semantic.DeepEqual(r, want) }, BeTrue())
}

func cpuOf(r corev1.ResourceRequirements) string    { return r.Limits.Cpu().String() }
func memoryOf(r corev1.ResourceRequirements) string { return r.Limits.Memory().String() }

// deploymentOf creates a Deployment of replicas pods that stop on TERM at once, with
// resourcesBefore and strategy, deleted when the spec ends.
func deploymentOf(ctx SpecContext, ns, name string, replicas int32, strategy appsv1.DeploymentStrategy) *appsv1.Deployment {
	GinkgoHelper()
	labels := map[string]string{"app": name}
	template := shellPod("", corev1.RestartPolicyAlways, stopsOnTerm)
	template.Spec.Containers[0].Resources = resourcesBefore
	template.Spec.TerminationGracePeriodSeconds = ptr(int64(5))
	d, err := env.Client.AppsV1().Deployments(ns).Create(ctx, &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Strategy: strategy,
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: template.Spec},
		},
	}, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred(), "creating Deployment %s/%s", ns, name)
	DeferCleanup(func(ctx SpecContext) {
		err := env.Client.AppsV1().Deployments(ns).Delete(ctx, name, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			Fail(fmt.Sprintf("deleting Deployment %s/%s: %v", ns, name, err))
		}
	})
	return d
}

// readyPods lists d's pods that are Ready and not terminating.
func readyPods(ns string, d *appsv1.Deployment) func(SpecContext) ([]corev1.Pod, error) {
	all := selectedPods(ns, d.Spec.Selector)
	return func(ctx SpecContext) ([]corev1.Pod, error) {
		pods, err := all(ctx)
		var ready []corev1.Pod
		for _, p := range pods {
			if p.DeletionTimestamp == nil && isPodReady(&p) {
				ready = append(ready, p)
			}
		}
		return ready, err
	}
}
