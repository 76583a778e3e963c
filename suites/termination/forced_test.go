package termination

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/podlifecycle/conformance/framework/facts"
	. "github.com/podlifecycle/conformance/framework/match"
	"github.com/podlifecycle/conformance/framework/observe"
	"github.com/podlifecycle/conformance/framework/suite"
)

var _ = Describe("Forced deletion", func() {
	It("removes the pod from the API while its containers still run, so a pod of the same name can be created at once",
		Label("TM-9"), suite.TimedWithin(runtimeSlack), suite.Timeout(runningBound, podStartBound, stopBound(30*time.Second)), func(ctx SpecContext) {
			env.Require(facts.OneClock())
			ns := env.Namespace(ctx)
			// Both pods write their markers to one directory of the node, so the old
			// pod's markers can be read after it left the API: through the new one.
			markers := corev1.Volume{Name: "node-markers", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{
				Path: "/tmp/podlifecycle-markers/" + ns, Type: ptr.To(corev1.HostPathDirectoryOrCreate)}}}
			withNodeMarkers := func(p *corev1.Pod) *corev1.Pod {
				p.Spec.Volumes = append(p.Spec.Volumes, markers)
				p.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: markers.Name, MountPath: observe.MarkerDir}}
				return p
			}
			// 30 s of grace that a forced deletion must not give: the container ignores TERM.
			old := withNodeMarkers(stoppingPod("same-name", seconds(30), onTerm("old", keepRunning)))
			tl := env.Run(ctx, ns, old)
			running(ctx, ns, tl, "old")
			oldStatus := tl.Pod() // its container's ID: the watch follows the name, so the successor next
			node := oldStatus.Spec.NodeName

			deleted := time.Now()
			Expect(env.Client.CoreV1().Pods(ns).Delete(ctx, old.Name, metav1.DeleteOptions{GracePeriodSeconds: seconds(0)})).To(Succeed())
			_, err := env.Client.CoreV1().Pods(ns).Get(ctx, old.Name, metav1.GetOptions{})
			gone := time.Now()
			Expect(apierrors.IsNotFound(err)).To(BeTrue(), "TM-9: a forced delete removes the pod from the API at once; Get said %v", err)

			successor := withNodeMarkers(stoppingPod("same-name", seconds(1), onTerm("successor", exitNow)))
			successor.Spec.NodeSelector = map[string]string{corev1.LabelHostname: node}
			_, err = env.Client.CoreV1().Pods(ns).Create(ctx, successor, metav1.CreateOptions{})
			created := time.Now()
			Expect(err).NotTo(HaveOccurred(), "TM-9: a pod of the same name can be created right after a forced delete")
			AddReportEntry("forced delete → same-name pod created (ms)", created.Sub(deleted).Milliseconds())
			Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound).Should(HavePhase(corev1.PodRunning))
			log := markersOnceStopped(ctx, ns, successor.Name, "successor", "old", stopBound(30*time.Second))

			Expect(log).To(HaveMarked(observe.SignalTo("old", "TERM")), "the old containers are still stopped with TERM first")
			lastOld, _ := log.When(observe.LastHeartbeatOf("old"))
			// "Without waiting for the kubelet": the API said NotFound while the old container
			// still ran. The runner and the markers read one clock: kind nodes are containers
			// on the runner's kernel. When the create itself returned is the API server's
			// latency, not the kubelet's (on a loaded 2-core machine it can outlast the 2 s
			// the old container has left), so it is recorded, not asserted.
			Expect(gone).To(BeTemporally("<", lastOld), "TM-9: the API removed the pod while its old container still ran:\n%s", log)
			AddReportEntry("old container's last heartbeat − NotFound read (ms)", lastOld.Sub(gone).Milliseconds())
			AddReportEntry("old container's last heartbeat − same-name pod created (ms)", lastOld.Sub(created).Milliseconds())
			// "A short grace": the kubelet gives a pod deleted with grace 0 its minimum
			// grace (pod workers raise 0 to 1 s, killContainer raises that to 2 s), not
			// the pod's 30 s.
			newStopClock(ctx, oldStatus, log).killSpan(timings("forced deletion"), "old container TERM → SIGKILL (ms): a short grace, not its 30 s", "old", minimumGrace)
		})
})
