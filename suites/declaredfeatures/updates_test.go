package declaredfeatures

import (
	"fmt"
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ndf "k8s.io/component-helpers/nodedeclaredfeatures"
	ndffeatures "k8s.io/component-helpers/nodedeclaredfeatures/features"

	"github.com/podlifecycle/conformance/framework/facts"
	. "github.com/podlifecycle/conformance/framework/match"
	"github.com/podlifecycle/conformance/framework/suite"
)

// gatedUpdate is an update of a running pod, other than an init container's resize
// (DF-3's first spec), that needs a declared feature. In v1.37.2 (k8s.io/component-helpers
// v0.37.2 nodedeclaredfeatures) two more features infer a need from an update; the
// other six never do (their InferForUpdate is false).
type gatedUpdate struct {
	feature string
	runs    []string // further gates the API server and the kubelet need for the pod to exist
	pod     func() *corev1.Pod
	update  func(*corev1.Pod)
}

var podLevelUpdate = gatedUpdate{
	feature: "InPlacePodLevelResourcesVerticalScaling",
	runs:    []string{"PodLevelResources"},
	pod: func() *corev1.Pod {
		p := sleeper("pod-level")
		p.Spec.Resources = &corev1.ResourceRequirements{Requests: cpuMemory("100m"), Limits: cpuMemory("100m")}
		return p
	},
	update: func(p *corev1.Pod) {
		p.Spec.Resources.Requests[corev1.ResourceCPU] = resource.MustParse("200m")
		p.Spec.Resources.Limits[corev1.ResourceCPU] = resource.MustParse("200m")
	},
}

var memoryVolumeUpdate = gatedUpdate{
	feature: "InPlacePodVerticalScalingMemoryBackedVolumes",
	pod: func() *corev1.Pod {
		p := sleeper("memory-volume")
		limit := resource.MustParse("16Mi")
		p.Spec.Volumes = []corev1.Volume{{Name: "scratch", VolumeSource: corev1.VolumeSource{
			EmptyDir: &corev1.EmptyDirVolumeSource{Medium: corev1.StorageMediumMemory, SizeLimit: &limit}}}}
		return p
	},
	update: func(p *corev1.Pod) {
		limit := resource.MustParse("32Mi")
		p.Spec.Volumes[0].EmptyDir.SizeLimit = &limit
	},
}

var _ = Describe("Declared features on pod updates", func() {
	// Where the API server has the feature's gate off, it settles the update itself
	// before any admission plugin runs (the resize subresource drops a volume change;
	// its validation refuses a pod-level resize, 422); where every worker declares the
	// feature there is no node to be refused on. The default cluster is each of these
	// (the pod-level gate on everywhere, its v1.37.2 default; the memory-backed volumes
	// gate, Alpha, off everywhere), so both entries are skipped there, with the reason.
	DescribeTable("make admission reject, on a node that does not declare the feature it needs,", Label("DF-3"),
		func(ctx SpecContext, u gatedUpdate) {
			old := u.pod()
			updated := old.DeepCopy()
			u.update(updated)
			Expect(featuresFor(old, updated)).To(Equal([]string{u.feature}), "the table's update needs %s, and only it, in v1.37.2's registry", u.feature)
			for _, g := range append([]string{u.feature}, u.runs...) {
				env.Require(facts.APIServerGate(g, true))
			}
			lacking, declaring := runnable(u)
			if len(lacking) == 0 {
				Skip(fmt.Sprintf("every worker that can run the pod declares %s (%v): no node to be refused on; turn its gate off in a worker's kubelet to check it", u.feature, declaring))
			}
			ns := env.Namespace(ctx)
			targets := []struct {
				node     string
				accepted bool
			}{{lacking[0], false}}
			if len(declaring) > 0 {
				targets = append(targets, struct {
					node     string
					accepted bool
				}{declaring[0], true})
			}
			for _, target := range targets {
				p := u.pod()
				p.Name += "-on-" + target.node
				p.Spec.NodeName = target.node
				p.Spec.Tolerations = []corev1.Toleration{{Operator: corev1.TolerationOpExists}}
				tl := env.Run(ctx, ns, p)
				Eventually(tl.Pod).WithContext(ctx).WithTimeout(suite.PodStartBound).Should(HavePhase(corev1.PodRunning))
				resized := tl.Pod().DeepCopy()
				u.update(resized)
				_, err := env.Client.CoreV1().Pods(ns).UpdateResize(ctx, p.Name, resized, metav1.UpdateOptions{})
				if target.accepted {
					Expect(err).NotTo(HaveOccurred(), "DF-3: %s, which declares %s, takes the update", target.node, u.feature)
					continue
				}
				// A broken validator lets the update through (err nil) on a node that cannot act on it.
				Expect(apierrors.IsForbidden(err)).To(BeTrue(), "DF-3: want 403 from NodeDeclaredFeatureValidator on %s, got %v", target.node, err)
				Expect(err).To(MatchError(ContainSubstring(u.feature)), "DF-3: the rejection names the feature")
				AddReportEntry("admission rejection", err.Error())
			}
		},
		Entry("resizing pod-level resources (InPlacePodLevelResourcesVerticalScaling)", suite.Timeout(2*suite.PodStartBound), podLevelUpdate),
		Entry("resizing a memory-backed emptyDir's sizeLimit (InPlacePodVerticalScalingMemoryBackedVolumes)", suite.Timeout(2*suite.PodStartBound), memoryVolumeUpdate),
	)
})

// featuresFor lists the features the registry says the update from old to updated
// needs.
func featuresFor(old, updated *corev1.Pod) []string {
	var out []string
	for _, f := range ndffeatures.AllFeatures {
		if f.InferForUpdate(&ndf.PodInfo{Spec: &old.Spec, Status: &old.Status}, &ndf.PodInfo{Spec: &updated.Spec, Status: &updated.Status}) {
			out = append(out, f.Name())
		}
	}
	return out
}

// runnable splits the workers whose kubelets can run u's pod into those lacking and
// those declaring u's feature, in nodesBy's order. The pods are bound with
// spec.nodeName, so taints do not keep them off a worker.
func runnable(u gatedUpdate) (lacking, declaring []string) {
	runs := func(name string) bool {
		for _, n := range env.Facts.Nodes {
			if n.Name != name {
				continue
			}
			for _, g := range u.runs {
				if !n.KubeletGates[g] {
					return false
				}
			}
			return true
		}
		return false
	}
	lackingAll, declaringAll := nodesBy(u.feature, worker)
	return slices.DeleteFunc(lackingAll, func(n string) bool { return !runs(n) }),
		slices.DeleteFunc(declaringAll, func(n string) bool { return !runs(n) })
}

func sleeper(name string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{
			Name: "main", Image: "busybox:1.28", Command: []string{"sh", "-c", `trap "exit 0" TERM; while true; do sleep 0.2; done`}}}},
	}
}

func cpuMemory(cpu string) corev1.ResourceList {
	return corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse("64Mi")}
}
