package lifecycle

import (
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/types"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	. "github.com/podlifecycle/conformance/framework/match"
	"github.com/podlifecycle/conformance/framework/observe"
	"github.com/podlifecycle/conformance/framework/suite"
)

// absentImage cannot be pulled anywhere: .invalid is reserved (RFC 2606), so the pull
// fails on every machine, offline or not (as in the PL-5 spec).
const absentImage = "registry.invalid/podlifecycle/absent:1"

// imagePullRetryBound: the kubelet's image pull backoff starts at 10 s; 40 s allows one
// failed retry and the sync that reports it (the PL-5 spec's bound).
const imagePullRetryBound = 40 * time.Second

// pullRetryWindow is how long PL-13 watches a pod that has one container running and
// one whose image cannot be pulled. The kubelet computes the phase on every sync of
// the pod, and a sync whose pull failed or is in backoff returns an error, after which
// the pod worker syncs the pod again in 10 s plus up to 50 % jitter (backOffPeriod,
// workerBackOffPeriodJitterFactor in k8s.io/kubernetes v1.37.2 pkg/kubelet); each of
// those syncs retries the pull once its backoff (10 s, doubling) has run out. 30 s
// holds at least two syncs, so a kubelet that counted one running container enough
// for Running would have reported Running within the window.
const pullRetryWindow = 30 * time.Second

// replicaSetSyncBound: the ReplicaSet controller acts on a pod's update as its
// informer delivers it; 10 s covers its work queue on a loaded machine.
const replicaSetSyncBound = 10 * time.Second

// terminatingGrace is the grace period of the ReplicaSet's pods: 30 s longer than the
// whole wait for a replacement (replicaSetSyncBound + podStartBound), so that on a
// cluster that keeps PL-11 the deleted pod is still Terminating whenever, within that
// wait, its replacement turns Ready; a controller that waited for the old pod to be
// gone could not be ready before the wait ran out.
const terminatingGrace = replicaSetSyncBound + podStartBound + 30*time.Second

// scratchMarkerBound: a container's first lines run within a second of its start, and
// its log is readable at once; 10 s on a loaded machine.
const scratchMarkerBound = 10 * time.Second

var _ = Describe("Pod replacement", func() {
	// A broken cluster (a ReplicaSet controller that still counts a pod with a
	// deletionTimestamp) creates no replacement until the old pod has left the API,
	// terminatingGrace after the delete: the wait for a Ready replacement runs out.
	It("does not count a Terminating pod as a replica: the ReplicaSet's replacement is Ready while the old pod is still Terminating",
		Label("PL-11"), suite.Timeout(replicaSetSyncBound+podStartBound, replicaSetSyncBound+podStartBound), func(ctx SpecContext) {
			ns := env.Namespace(ctx)
			// The container marks TERM and keeps running: the deleted pod stays Terminating
			// for its whole grace period.
			template := shellPod("", corev1.RestartPolicyAlways, `trap "mark term" TERM; while true; do sleep 0.2; done`)
			template.Spec.TerminationGracePeriodSeconds = ptr(int64(terminatingGrace / time.Second))
			rs := replicaSetOf(ctx, ns, "keeps-one", template)
			ready := And(HavePhase(corev1.PodRunning), HaveCondition(corev1.PodReady, corev1.ConditionTrue, ""))
			var old corev1.Pod
			Eventually(selectedPods(ns, rs.Spec.Selector)).WithContext(ctx).WithTimeout(replicaSetSyncBound + podStartBound).
				WithPolling(200 * time.Millisecond).Should(And(HaveLen(1), ContainElement(ready, &old)))
			oldTL := env.Follow(ctx, ns, old.Name)

			deletedAt := time.Now()
			deletePod(ctx, ns, old.Name, nil) // with its own grace period, terminatingGrace
			// Not left to run out its grace period after the spec.
			DeferCleanup(func(ctx SpecContext) {
				_ = env.Client.CoreV1().Pods(ns).Delete(ctx, old.Name, metav1.DeleteOptions{GracePeriodSeconds: ptr(int64(0))})
			})
			var replacement corev1.Pod
			Eventually(selectedPods(ns, rs.Spec.Selector)).WithContext(ctx).WithTimeout(replicaSetSyncBound + podStartBound).
				WithPolling(200 * time.Millisecond).Should(ContainElement(And(Not(HaveField("ObjectMeta.UID", old.UID)), ready), &replacement))
			readyAfter := time.Since(deletedAt)

			By("the old pod is still in the API, with its deletionTimestamp, its container still running")
			now, err := env.Client.CoreV1().Pods(ns).Get(ctx, old.Name, metav1.GetOptions{})
			Expect(err).NotTo(HaveOccurred(), "PL-11: the old pod left the API before its replacement was Ready:\n%s", oldTL)
			Expect(now.UID).To(Equal(old.UID))
			Expect(now.DeletionTimestamp).NotTo(BeNil(), "PL-11: the old pod is Terminating")
			Expect(now).To(HaveContainerState("main", "Running", ""), "the old pod's container ignores TERM")
			Expect(oldTL.Deleted()).To(BeFalse(), "the watch saw the old pod leave:\n%s", oldTL)
			// deletionTimestamp is when the pod counts as dead: delete time + grace period
			// (both API server times); the replacement came before it.
			Expect(replacement.CreationTimestamp.Time).To(BeTemporally("<", now.DeletionTimestamp.Time),
				"PL-11: the replacement was created only when the old pod's grace period was over")

			AddReportEntry("delete → replacement Ready seen (ms)", readyAfter.Milliseconds())
			AddReportEntry("old pod when its replacement was Ready", observe.SummarizePod(now))
			if s, err := env.Client.AppsV1().ReplicaSets(ns).Get(ctx, rs.Name, metav1.GetOptions{}); err == nil {
				AddReportEntry("ReplicaSet status", fmt.Sprintf("replicas=%d readyReplicas=%d terminatingReplicas=%s",
					s.Status.Replicas, s.Status.ReadyReplicas, countOrUnset(s.Status.TerminatingReplicas)))
			}
		})

	// A broken cluster (a kubelet that kept a pod's volumes by name, or reused the old
	// directory) starts the second pod with the first one's file: "found <first UID>".
	It("gives an identical replacement of the same name a fresh emptyDir, without the deleted pod's content", Label("PL-12"),
		suite.Timeout(podStartBound, scratchMarkerBound, terminationBound, podStartBound, scratchMarkerBound), func(ctx SpecContext) {
			ns := env.Namespace(ctx)
			pod := scratchPod("scratch")
			// One node for both: a fresh directory on another node would prove nothing.
			suite.PinTo(pod, env.NodeFor("defaults", nil))
			tl := env.Run(ctx, ns, pod)
			Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound).Should(HavePhase(corev1.PodRunning))
			first := tl.Pod()
			Eventually(scratchMarkers(ns, pod.Name)).WithContext(ctx).WithTimeout(scratchMarkerBound).Should(ContainElement("left " + string(first.UID)))
			Expect(scratchMarkers(ns, pod.Name)(ctx)).To(ContainElement("found nothing"), "the first pod's emptyDir starts empty")
			out, err := env.Exec(ctx, ns, pod.Name, "main", "cat", "/scratch/left-by")
			Expect(err).NotTo(HaveOccurred())
			Expect(out).To(Equal(string(first.UID)+"\n"), "the emptyDir holds the first pod's file when it is deleted")

			deletePod(ctx, ns, pod.Name, nil)
			Eventually(tl.Deleted).WithContext(ctx).WithTimeout(terminationBound).
				Should(BeTrue(), "the first pod left the API:\n%s", tl)

			By("the same manifest, created again under the same name")
			pod.Namespace = ns
			_, err = env.Client.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{})
			Expect(err).NotTo(HaveOccurred())
			Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound).Should(HavePhase(corev1.PodRunning))
			second := tl.Pod()
			Expect(second.UID).NotTo(Equal(first.UID))
			Expect(second.Spec.NodeName).To(Equal(first.Spec.NodeName))
			Eventually(scratchMarkers(ns, pod.Name)).WithContext(ctx).WithTimeout(scratchMarkerBound).Should(ContainElement("left " + string(second.UID)))
			Expect(scratchMarkers(ns, pod.Name)(ctx)).To(ContainElement("found nothing"),
				"PL-12: the replacement's emptyDir is new, not the deleted pod's (which held %s)", first.UID)
		})

	// A broken cluster (a kubelet that waited for images before the sandbox, or held
	// the condition until the containers were created) shows PodReadyToStartContainers
	// False next to ErrImagePull.
	It("sets PodReadyToStartContainers True before images are pulled: a pod whose image cannot be pulled has it True, and is not Ready",
		Label("PC-11"), suite.Timeout(podStartBound, imagePullRetryBound), func(ctx SpecContext) {
			ns := env.Namespace(ctx)
			pod := shellPod("pull-fails", corev1.RestartPolicyAlways, "sleep 3600")
			pod.Spec.Containers[0].Image = absentImage
			tl := env.Run(ctx, ns, pod)
			Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound).Should(pullFailing("main"))
			Eventually(tl.Pod).WithContext(ctx).WithTimeout(imagePullRetryBound).Should(HaveContainerState("main", "Waiting", "ImagePullBackOff"))

			// On every status the watch saw after the pull had failed, not only the last.
			for _, p := range tl.Pods() {
				if ok, _ := pullFailing("main").Match(p); ok {
					Expect(p).To(And(
						HaveCondition(corev1.PodReadyToStartContainers, corev1.ConditionTrue, ""),
						HaveCondition(corev1.ContainersReady, corev1.ConditionFalse, ""),
						HaveCondition(corev1.PodReady, corev1.ConditionFalse, "")), "PC-11: a status whose image pull had failed:\n%s", tl)
				}
			}
			AddReportEntry("conditions first seen True (watch, ms)", tl.ConditionsFirstTrue())
		})

	// A broken cluster (a kubelet that made the pod Running once one container runs)
	// shows phase Running within the window.
	It("stays Pending while one container runs and another's image cannot be pulled: Running needs every container created",
		suite.LongRunning, Label("PL-13", "PL-1"), suite.Timeout(podStartBound, pullRetryWindow), func(ctx SpecContext) {
			ns := env.Namespace(ctx)
			pod := shellPod("half-started", corev1.RestartPolicyAlways, "sleep 3600")
			pod.Spec.Containers = append(pod.Spec.Containers, corev1.Container{Name: "unpulled", Image: absentImage})
			tl := env.Run(ctx, ns, pod)
			halfStarted := And(HaveContainerState("main", "Running", ""), pullFailing("unpulled"))
			Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound).Should(halfStarted)

			windowStart := time.Now()
			Consistently(tl.Pod).WithContext(ctx).WithTimeout(pullRetryWindow).Should(And(HavePhase(corev1.PodPending), halfStarted))
			Expect(tl.Phases()).To(Equal([]corev1.PodPhase{corev1.PodPending}), "PL-13: phases seen, in order:\n%s", tl)
			// The window counts only if the kubelet synced the pod in it: each sync reports
			// the pull (an event, or a new container state).
			var synced []string
			for _, e := range tl.Entries() {
				if e.Seen.After(windowStart) {
					synced = append(synced, fmt.Sprintf("+%dms %s %s", e.Seen.Sub(windowStart).Milliseconds(), e.Kind, e.Summary))
				}
			}
			Expect(synced).NotTo(BeEmpty(), "the kubelet reported nothing about the pod in the %s window:\n%s", pullRetryWindow, tl)
			AddReportEntry("kubelet reports in the Pending window", synced)
		})
})

// scratchPod says what its emptyDir held when it started (marker "found ..."), then
// writes its own UID there ("left <uid>") and runs until TERM. Every pod of this
// manifest is the same; only the UID the downward API gives differs.
func scratchPod(name string) *corev1.Pod {
	p := shellPod(name, corev1.RestartPolicyAlways, `found=$(cat /scratch/left-by 2>/dev/null || echo nothing); mark "found $found"; `+
		`echo "$POD_UID" > /scratch/left-by && mark "left $POD_UID"; `+stopsOnTerm)
	p.Spec.Volumes = []corev1.Volume{{Name: "scratch", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
	c := &p.Spec.Containers[0]
	c.VolumeMounts = []corev1.VolumeMount{{Name: "scratch", MountPath: "/scratch"}}
	c.Env = []corev1.EnvVar{{Name: "POD_UID", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.uid"}}}}
	return p
}

// scratchMarkers reads the marker events the current scratchPod named name wrote.
func scratchMarkers(ns, name string) func(SpecContext) ([]string, error) {
	return func(ctx SpecContext) ([]string, error) {
		log, err := env.Markers(ctx, ns, name, "main", false)
		return log.Events(), err
	}
}

// pullFailing matches a pod whose container name is Waiting because its image could
// not be pulled: ErrImagePull, or ImagePullBackOff between retries.
func pullFailing(name string) types.GomegaMatcher {
	return Or(HaveContainerState(name, "Waiting", "ErrImagePull"), HaveContainerState(name, "Waiting", "ImagePullBackOff"))
}

// replicaSetOf creates a one-replica ReplicaSet in ns whose pods are template's, and
// deletes it when the spec ends.
func replicaSetOf(ctx SpecContext, ns, name string, template *corev1.Pod) *appsv1.ReplicaSet {
	GinkgoHelper()
	labels := map[string]string{"app": name}
	rs, err := env.Client.AppsV1().ReplicaSets(ns).Create(ctx, &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: appsv1.ReplicaSetSpec{
			Replicas: ptr(int32(1)),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: template.Spec},
		},
	}, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred(), "creating ReplicaSet %s/%s", ns, name)
	DeferCleanup(func(ctx SpecContext) {
		err := env.Client.AppsV1().ReplicaSets(ns).Delete(ctx, name, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			Fail(fmt.Sprintf("deleting ReplicaSet %s/%s: %v", ns, name, err))
		}
	})
	return rs
}

// selectedPods lists the pods of a controller's selector, Terminating ones included.
func selectedPods(ns string, sel *metav1.LabelSelector) func(SpecContext) ([]corev1.Pod, error) {
	selector := metav1.FormatLabelSelector(sel)
	return func(ctx SpecContext) ([]corev1.Pod, error) {
		pods, err := env.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: selector})
		if err != nil {
			return nil, err
		}
		return pods.Items, nil
	}
}

func countOrUnset(n *int32) string {
	if n == nil {
		return "unset"
	}
	return fmt.Sprint(*n)
}
