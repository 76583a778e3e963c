package lifecycle

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"path"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/yaml"

	"github.com/podlifecycle/conformance/framework/facts"
	. "github.com/podlifecycle/conformance/framework/match"
	"github.com/podlifecycle/conformance/framework/observe"
	"github.com/podlifecycle/conformance/framework/suite"
)

// PL-7's two exceptions. The rule itself (a deleted pod held by a finalizer is moved
// to the terminal phase its containers' exits decide, after a normal deletion) is
// checked by the "a deleted pod held by a finalizer…" table in phase_test.go; the
// specs here check the two kinds of pod the pages exempt from it.

// deletionSeenBound: a deletion the API server has already done reaches the watch
// within a second; 10 s on a loaded machine.
const deletionSeenBound = 10 * time.Second

// staticPickupBound: the kubelet sees a manifest appear in, or leave, its
// staticPodPath at once through inotify (pkg/kubelet/config/file_linux.go), and re-reads
// the directory every fileCheckFrequency (20 s, the KubeletConfiguration default, which
// kind keeps) in case it missed the event.
const staticPickupBound = 20 * time.Second

// mirrorStatusBound: the kubelet creates the mirror pod in the static pod's first sync
// (tryReconcileMirrorPods) and its status manager writes the static pod's status to it
// by its next full sync (every 10 s, pkg/kubelet/status); 10 s more on a loaded machine.
const mirrorStatusBound = 20 * time.Second

// staticGrace is the static pod's grace period; its container exits on TERM at once.
const staticGrace = 5 * time.Second

// staticRemovalBound: the manifest's removal is seen, the container stopped within its
// grace, and the kubelet's housekeeping (every 2 s, housekeepingPeriod in
// pkg/kubelet/kubelet.go) deletes the orphaned mirror pod once the static pod's worker
// has finished; 10 s more on a loaded machine.
const staticRemovalBound = staticPickupBound + staticGrace + 2*time.Second + 10*time.Second

var _ = Describe("A deleted pod's terminal phase", func() {
	It("is skipped for a pod force-deleted without a finalizer, which leaves the API at once; force-deleted with one, the pod is still moved to it",
		Label("PL-7"), suite.Timeout(podStartBound, deletionSeenBound, terminationBound), func(ctx SpecContext) {
			ns := env.Namespace(ctx)
			free := env.Run(ctx, ns, shellPod("forced", corev1.RestartPolicyAlways, stopsOnTerm))
			held := env.Run(ctx, ns, env.Hold(ns, shellPod("forced-held", corev1.RestartPolicyAlways, stopsOnTerm)))
			for _, tl := range []*observe.Timeline{free, held} {
				Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound).Should(HavePhase(corev1.PodRunning))
			}
			deletePod(ctx, ns, free.Name, ptr(int64(0)))
			deletePod(ctx, ns, held.Name, ptr(int64(0)))

			By("without a finalizer: gone from the API before the kubelet could write a phase")
			// An API server that kept the pod until the kubelet reported it terminal
			// would answer this Get, and the watch would see Succeeded (exit 0 on TERM).
			_, err := env.Client.CoreV1().Pods(ns).Get(ctx, free.Name, metav1.GetOptions{})
			Expect(apierrors.IsNotFound(err)).To(BeTrue(), "PL-7: a pod force-deleted without a finalizer leaves the API at once; Get said %v", err)
			Eventually(free.Deleted).WithContext(ctx).WithTimeout(deletionSeenBound).Should(BeTrue())

			By("with a finalizer: kept in the API, and moved to Succeeded by the kubelet")
			Eventually(held.Pod).WithContext(ctx).WithTimeout(terminationBound).Should(HavePhase(corev1.PodSucceeded),
				"PL-7: the exception is for pods without a finalizer:\n%s", held)
			Expect(held.Pod().DeletionGracePeriodSeconds).To(HaveValue(BeEquivalentTo(0)), "the held pod was force-deleted too")

			// Checked once the kubelet has stopped the held pod, which it was told to at
			// the same moment: by then it has done what it would with the free one.
			Expect(terminalStatuses(free, "")).To(BeEmpty(), "PL-7: the force-deleted pod was never seen in a terminal phase:\n%s", free)
		})

	It("is skipped for a static pod: when its manifest is removed, the kubelet deletes the mirror pod in the phase it had",
		Label("PL-7", suite.Disruptive), suite.Timeout(staticPickupBound+podStartBound+mirrorStatusBound, staticRemovalBound), func(ctx SpecContext) {
			env.Require(facts.NodeShell())
			ns := env.Namespace(ctx)
			node, dir := staticPodNode()
			pod := staticPod(ns)
			tl := env.Follow(ctx, ns, mirrorPodName(pod, node))
			manifest := writeStaticPod(ctx, node.Name, dir, pod)
			Eventually(tl.Pod).WithContext(ctx).WithTimeout(staticPickupBound+podStartBound+mirrorStatusBound).Should(
				And(HavePhase(corev1.PodRunning), HaveContainerState("main", "Running", "")), "the kubelet of %s runs the static pod and mirrors it", node.Name)
			mirror := tl.Pod()
			Expect(mirror.Annotations).To(HaveKey(corev1.MirrorPodAnnotationKey), "the pod followed is the kubelet's mirror pod")
			Expect(mirror.Spec.NodeName).To(Equal(node.Name))

			_, err := env.NodeShell(ctx, node.Name, "rm "+manifest)
			Expect(err).NotTo(HaveOccurred())
			Eventually(tl.Deleted).WithContext(ctx).WithTimeout(staticRemovalBound).
				Should(BeTrue(), "the mirror pod leaves the API once its manifest is gone:\n%s", tl)

			// v1.37.2 exempts static pods in the status manager and in getPhase
			// (TODO #116484): the container exits 0 on TERM, so a kubelet that applied the
			// rule to static pods would write Succeeded before deleting the mirror pod.
			statuses := statusesOf(tl, mirror.UID)
			AddReportEntry("mirror pod's last status before it left the API", observe.SummarizePod(statuses[len(statuses)-1]))
			Expect(terminalStatuses(tl, mirror.UID)).To(BeEmpty(), "PL-7: the static pod's mirror pod was moved to a terminal phase:\n%s", tl)
		})
})

// staticPod is the static pod the specs write into the kubelet's staticPodPath, in the
// spec's namespace ns (written into the manifest: its mirror pod goes there).
func staticPod(ns string) *corev1.Pod {
	pod := shellPod("static", corev1.RestartPolicyAlways, stopsOnTerm)
	pod.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}
	pod.Namespace = ns
	pod.Spec.TerminationGracePeriodSeconds = ptr(int64(staticGrace.Seconds()))
	return pod
}

// staticPodNode is a worker with v1.37.2's defaults and the static pod directory its
// kubelet reads (staticPodPath in its /configz; kind: /etc/kubernetes/manifests).
func staticPodNode() (facts.Node, string) {
	GinkgoHelper()
	env.Require(facts.SchedulableNodes(1))
	node := env.NodeFor("defaults", nil)
	var kc struct {
		StaticPodPath string `json:"staticPodPath"`
	}
	if err := json.Unmarshal(node.KubeletConfig.Raw, &kc); err != nil || kc.StaticPodPath == "" {
		Skip(fmt.Sprintf("the kubelet of %s reads no static pod directory (staticPodPath in its /configz)", node.Name))
	}
	return node, kc.StaticPodPath
}

// mirrorPodName is the name the kubelet gives the mirror pod of pod on node.
func mirrorPodName(pod *corev1.Pod, node facts.Node) string {
	return pod.Name + "-" + strings.ToLower(node.Name)
}

// writeStaticPod puts pod's manifest into dir on node and returns its path; the file is
// removed when the spec ends. It is written under a hidden name, which the kubelet
// skips, and renamed, so the kubelet never reads half a file.
func writeStaticPod(ctx context.Context, node, dir string, pod *corev1.Pod) string {
	GinkgoHelper()
	manifest, err := yaml.Marshal(pod)
	Expect(err).NotTo(HaveOccurred())
	name := pod.Namespace + "-" + pod.Name + ".yaml"
	file, tmp := path.Join(dir, name), path.Join(dir, "."+name)
	DeferCleanup(func(ctx SpecContext) {
		if out, err := env.NodeShell(ctx, node, "rm -f "+file); err != nil {
			Fail(fmt.Sprintf("removing the static pod manifest %s from %s: %v: %s", file, node, err, out))
		}
	}, NodeTimeout(30*time.Second))
	out, err := env.NodeShell(ctx, node, fmt.Sprintf("mkdir -p %s && echo %s | base64 -d > %s && mv %s %s",
		dir, base64.StdEncoding.EncodeToString(manifest), tmp, tmp, file))
	Expect(err).NotTo(HaveOccurred(), "writing the static pod manifest %s on %s: %s", file, node, out)
	return file
}

// statusesOf is every status of the pod of uid the watch delivered, oldest first.
func statusesOf(tl *observe.Timeline, uid types.UID) []*corev1.Pod {
	var out []*corev1.Pod
	for _, p := range tl.Pods() {
		if p.UID == uid {
			out = append(out, p)
		}
	}
	return out
}

// terminalStatuses lists the statuses seen with phase Succeeded or Failed, of the pod
// of uid, or of any pod of the timeline when uid is "".
func terminalStatuses(tl *observe.Timeline, uid types.UID) []string {
	var out []string
	for _, p := range tl.Pods() {
		if (uid == "" || p.UID == uid) && (p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed) {
			out = append(out, observe.SummarizePod(p))
		}
	}
	return out
}
