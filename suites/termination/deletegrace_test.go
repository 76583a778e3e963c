package termination

import (
	"context"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/podlifecycle/conformance/framework/drift"
	. "github.com/podlifecycle/conformance/framework/match"
	"github.com/podlifecycle/conformance/framework/observe"
	"github.com/podlifecycle/conformance/framework/suite"
)

var _ = Describe("Grace period given at delete time", func() {
	DescribeTable("overrides the pod's terminationGracePeriodSeconds: a container that ignores TERM is killed when the delete's grace period ends",
		func(ctx SpecContext, podGrace, deleteGrace int64) {
			ns := env.Namespace(ctx)
			pod := env.Hold(ns, stoppingPod("overridden", seconds(podGrace), onTerm("main", keepRunning)))
			tl := env.Run(ctx, ns, pod)
			f := running(ctx, ns, tl, "main")

			// DeleteOptions.gracePeriodSeconds, as kubectl delete --grace-period sends it. The
			// wait is bounded by the delete's grace: for the shorter entry 25 s, so a kubelet
			// that kept the pod's 30 s fails here already.
			grace := time.Duration(deleteGrace) * time.Second
			_, log := deleteAndWait(ctx, ns, tl, f, seconds(deleteGrace), stopBound(grace))
			terminating, _ := tl.FirstPod(func(p *corev1.Pod) bool { return p.DeletionTimestamp != nil })
			Expect(terminating).NotTo(BeNil(), "the watch never showed the pod with a deletionTimestamp:\n%s", tl)
			Expect(terminating.DeletionGracePeriodSeconds).To(HaveValue(Equal(deleteGrace)),
				"TM-15: the deletion's grace period is the one given at delete time, not the pod's %d s", podGrace)
			Expect(terminating.Spec.TerminationGracePeriodSeconds).To(HaveValue(Equal(podGrace)), "the pod's own field is left as it was")

			// killWindow is the suite's tolerance model (helpers_test.go): the span measured
			// from the trap's marker to the last heartbeat is the grace the runtime was given,
			// less up to one heartbeat and two marker latencies, plus at most runtimeSlack.
			// Its upper end keeps a shorter override from leaving the container running past
			// it; its lower end shows a longer one is honoured, not cut to the pod's.
			newStopClock(ctx, lastStatus(tl), log).killSpan(timings("grace period given at delete time"),
				fmt.Sprintf("TERM → SIGKILL (ms): the delete's %d s, not the pod's %d s", deleteGrace, podGrace), "main", grace)
			Expect(log).NotTo(HaveMarked(observe.ExitOf("main")), "the container ignores TERM; only SIGKILL stops it")
			Expect(exitCode(tl.Pod(), "main")).To(BeEquivalentTo(137), "TM-15: killed by SIGKILL (128+9) when the delete's grace period ran out")
		},
		Entry("shorter: 3 s for a pod of 30 s", Label("TM-15"), suite.TimedWithin(runtimeSlack),
			suite.Timeout(runningBound, stopBound(3*time.Second), logEndBound), int64(30), int64(3)),
		Entry("longer: 6 s for a pod of 2 s", Label("TM-15"), suite.TimedWithin(runtimeSlack),
			suite.Timeout(runningBound, stopBound(6*time.Second), logEndBound), int64(2), int64(6)),
	)
})

// watchBound: the watch delivers a deletion within a second of it; 5 s on a loaded
// machine.
const watchBound = 5 * time.Second

var _ = Describe("kubectl delete --grace-period=0", func() {
	It("performs a forced deletion only together with --force: without it the pod stays in the API, with it the pod leaves the API at once",
		Label("TM-16"), suite.Timeout(runningBound, runningBound, 3*suite.KubectlBound, watchBound), func(ctx SpecContext) {
			bin := suite.KubectlBinary()
			if bin == "" {
				Skip("needs kubectl: set KUBECTL, put kubectl on PATH, or build the project's images (its kubectl is then in ~/.cache/podlifecycle/bin/kubernetes-" + suite.ExpectedServerVersion() + ")")
			}
			if env.Cluster.Kubeconfig == "" {
				Skip("needs a kubeconfig for kubectl; the suites run in a pod of the cluster, which reaches it through its service account")
			}
			AddReportEntry("kubectl", bin+"\n"+env.Kubectl(ctx, bin, "version", "--client").Stdout)
			ns := env.Namespace(ctx)
			// Both ignore TERM and have 30 s of grace: a pod the kubelet stops gracefully stays
			// in the API for at least its minimum grace of 2 s after the delete.
			graceful := env.Run(ctx, ns, stoppingPod("without-force", seconds(30), onTerm("main", keepRunning)))
			forced := env.Run(ctx, ns, stoppingPod("with-force", seconds(30), onTerm("main", keepRunning)))
			running(ctx, ns, graceful, "main")
			running(ctx, ns, forced, "main")

			By("--grace-period=0 without --force: no forced deletion")
			// kubectl v1.37.2 neither refuses nor forces: it turns 0 into 1 "to preserve
			// backwards compatibility" (delete.go, Complete), exits 0 and prints
			// `pod "without-force" deleted from <ns> namespace`. The page says only that a
			// forced deletion needs --force, so either answer passes; the report shows which.
			r := env.Kubectl(ctx, bin, "--namespace", ns, "delete", "pod", "without-force", "--grace-period=0", "--wait=false")
			p, err := env.Client.CoreV1().Pods(ns).Get(ctx, "without-force", metav1.GetOptions{})
			Expect(err).NotTo(HaveOccurred(), "TM-16: without --force the pod left the API at once; %s", r)
			AddReportEntry("kubectl delete --grace-period=0, without --force", fmt.Sprintf("%s\ndeletionGracePeriodSeconds afterwards: %v", r, ptr.Deref(p.DeletionGracePeriodSeconds, -1)))
			if r.Code != 0 {
				Expect(p.DeletionTimestamp).To(BeNil(), "TM-16: kubectl refused, yet the pod is being deleted; %s", r)
			} else {
				Expect(p.DeletionGracePeriodSeconds).To(HaveValue(BeNumerically(">", 0)), "TM-16: without --force, not a deletion with grace period 0; %s", r)
			}

			By("--grace-period=0 --force: the pod leaves the API at once")
			r = env.Kubectl(ctx, bin, "--namespace", ns, "delete", "pod", "with-force", "--grace-period=0", "--force", "--wait=false")
			AddReportEntry("kubectl delete --grace-period=0 --force", r.String())
			Expect(r.Code).To(BeZero(), "%s", r)
			// The container ignores TERM and the kubelet gives it at least 2 s: a pod that
			// waited for its kubelet would still be found. A broken cluster shows it here.
			_, err = env.Client.CoreV1().Pods(ns).Get(ctx, "with-force", metav1.GetOptions{})
			Expect(apierrors.IsNotFound(err)).To(BeTrue(), "TM-16: with --force the pod is removed from the API without waiting for the kubelet; Get said %v", err)
			Eventually(forced.Deleted).WithContext(ctx).WithTimeout(watchBound).Should(BeTrue(), "the watch saw the pod leave the API:\n%s", forced)
		})
})

var _ = Describe("preStop with a grace period of 0", func() {
	// A pod deleted with grace period 0 leaves the API at once, and its logs with it: its
	// markers go to a directory of its node, which a reader pod on that node reads after
	// the containers stopped (as TM-9 does). Only times written on that node are
	// compared, so one clock with the runner (facts.OneClock) is not needed.
	DescribeTable("is not run by the kubelet",
		func(ctx SpecContext, podGrace int64, deleteGrace *int64, how string) {
			ns := env.Namespace(ctx)
			dir := nodeMarkers(ns)
			main := onTerm("main", keepRunning)
			main.Lifecycle = &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: []string{"sh", "-c",
				observe.MarkShell("main") + "mark prestop"}}}}
			hooked := withNodeMarkerDir(stoppingPod("hooked", seconds(podGrace), main), dir)
			tl := env.Run(ctx, ns, hooked)
			running(ctx, ns, tl, "main")
			node := tl.Pod().Spec.NodeName

			Expect(env.Client.CoreV1().Pods(ns).Delete(ctx, hooked.Name, metav1.DeleteOptions{GracePeriodSeconds: deleteGrace})).To(Succeed())
			// The kubelet gives any such deletion 1 s (pod workers raise 0 to 1 s), then at
			// least its 2 s minimum, which stopBound adds.
			log := markersAfterStop(ctx, ns, node, dir, "main", stopBound(time.Second))
			Expect(log).To(HaveMarked(observe.SignalTo("main", "TERM")), "the kubelet stopped the container, TERM first: the node's markers tell the whole stop")
			hook := log.Of("main").WithEvent("prestop")
			if grace := ptr.Deref(deleteGrace, podGrace); grace != 0 {
				Expect(hook).NotTo(BeEmpty(), "TM-3: with a grace period of %d s the hook runs, and its marker reaches the node:\n%s", grace, log)
				return
			}
			// kubelet v1.37.2 runs the hook all the same: killContainer runs it whenever the
			// grace period it got is above 0, and pod workers never hand it less than 1 s
			// (calculateEffectiveGracePeriod, pkg/kubelet/pod_workers.go). The measurement decides: a hook marker
			// is drift, reported with the markers, not a failure of the spec.
			suite.Drift(drift.Observation[bool]{
				Statement:  "TM-17",
				Topic:      "preStop with a grace period of 0",
				Docs:       "the kubelet runs a container's preStop hook only when the grace period is not 0",
				Documented: false,
				Measured:   len(hook) > 0,
				Evidence:   fmt.Sprintf("pod %s deleted as `%s` deletes it; the hook's markers on the node: %v", hooked.Name, how, hook),
				Reproducer: suite.Reproducer(hooked, "any node; "+how+"; the hook appends to "+observe.MarkerDir+"/markers, a hostPath"),
			})
		},
		Entry("force-deleted with gracePeriodSeconds 0 while its terminationGracePeriodSeconds is 30", Label("TM-17"),
			suite.Timeout(runningBound, podStartBound, stopBound(time.Second)), int64(30), seconds(0), "kubectl delete pod hooked --grace-period=0 --force"),
		Entry("terminationGracePeriodSeconds 0, deleted with its own grace period", Label("TM-17"),
			suite.Timeout(runningBound, podStartBound, stopBound(time.Second)), int64(0), (*int64)(nil), "kubectl delete pod hooked"),
		Entry("control: deleted with gracePeriodSeconds 1, the hook runs and marks the node", Label("TM-3"),
			suite.Timeout(runningBound, podStartBound, stopBound(time.Second)), int64(30), seconds(1), "kubectl delete pod hooked --grace-period=1"),
	)
})

// nodeMarkers is a directory of the node for the spec's namespace, as a hostPath
// volume: markers written there outlive a pod that has left the API.
func nodeMarkers(ns string) corev1.Volume {
	return corev1.Volume{Name: "node-markers", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{
		Path: "/tmp/podlifecycle-markers/" + ns, Type: ptr.To(corev1.HostPathDirectoryOrCreate)}}}
}

// withNodeMarkerDir mounts v at observe.MarkerDir in p's first container and returns p.
func withNodeMarkerDir(p *corev1.Pod, v corev1.Volume) *corev1.Pod {
	p.Spec.Volumes = append(p.Spec.Volumes, v)
	p.Spec.Containers[0].VolumeMounts = append(p.Spec.Containers[0].VolumeMounts, corev1.VolumeMount{Name: v.Name, MountPath: observe.MarkerDir})
	return p
}

// markersAfterStop starts a reader pod on node with the directory v and returns the
// markers there once container has stopped: it has not marked a heartbeat for a second
// while the reader went on marking (five heartbeats). Its waits take podStartBound,
// then bound.
func markersAfterStop(ctx context.Context, ns, node string, v corev1.Volume, container string, bound time.Duration) observe.Log {
	GinkgoHelper()
	reader := withNodeMarkerDir(stoppingPod("reader", seconds(1), onTerm("reader", exitNow)), v)
	reader.Spec.NodeSelector = map[string]string{corev1.LabelHostname: node}
	rtl := env.Run(ctx, ns, reader)
	Eventually(rtl.Pod).WithContext(ctx).WithTimeout(podStartBound).Should(HavePhase(corev1.PodRunning))
	return markersOnceStopped(ctx, ns, reader.Name, "reader", container, bound)
}

// jobPodGrace is the grace period of the Job's pod, outside the spec so that its
// timeout can use it; the pod exits on TERM at once, well within it.
const jobPodGrace = 5 * time.Second

// jobSyncBound: the Job controller acts on a pod update after its batch period of 1 s
// and creates a replacement in one API call; 10 s on a loaded machine.
const jobSyncBound = 10 * time.Second

var _ = Describe("A Job's pod failure policy", func() {
	It("can match DisruptionTarget: a pod evicted through the Eviction API fails, is ignored and replaced, and the Job does not fail",
		Label("PC-12"), suite.Timeout(podStartBound, stopBound(jobPodGrace)+jobSyncBound), func(ctx SpecContext) {
			ns := env.Namespace(ctx)
			job := disruptionTolerantJob()
			Expect(env.Create(ctx, ns, job)).To(Succeed())
			var evicted corev1.Pod
			Eventually(jobPods).WithContext(ctx).WithArguments(ns, job.Name).WithTimeout(podStartBound).
				Should(ContainElement(HavePhase(corev1.PodRunning), &evicted))
			tl := env.Follow(ctx, ns, evicted.Name)

			Expect(env.Client.CoreV1().Pods(ns).EvictV1(ctx, &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: evicted.Name, Namespace: ns}})).To(Succeed())
			// A Job controller that counted the failure against backoffLimit 0 would fail the
			// Job (FailureTarget, BackoffLimitExceeded) and make no new pod.
			Eventually(jobPods).WithContext(ctx).WithArguments(ns, job.Name).WithTimeout(stopBound(jobPodGrace)+jobSyncBound).
				Should(ContainElement(HaveField("ObjectMeta.UID", Not(Equal(evicted.UID)))), "PC-12: the Job replaces the evicted pod")
			Expect(tl.Pods()).To(ContainElement(And(HavePhase(corev1.PodFailed), HaveCondition(corev1.DisruptionTarget, corev1.ConditionTrue, "EvictionByEvictionAPI"))),
				"the evicted pod failed (exit 1 on TERM) carrying DisruptionTarget: the failure the rule matched:\n%s", tl)
			j, err := env.Client.BatchV1().Jobs(ns).Get(ctx, job.Name, metav1.GetOptions{})
			Expect(err).NotTo(HaveOccurred())
			Expect(j.Status.Conditions).NotTo(ContainElement(HaveField("Type", BeElementOf(batchv1.JobFailureTarget, batchv1.JobFailed))),
				"PC-12: the ignored failure does not count towards backoffLimit 0")
		})
})

// disruptionTolerantJob tolerates no pod failure (backoffLimit 0) except one its pod
// failure policy ignores: a pod with the DisruptionTarget condition. Its pod runs until
// TERM and then exits 1, a failure for the policy to judge.
func disruptionTolerantJob() *batchv1.Job {
	return &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: "disruption-tolerant"},
		Spec: batchv1.JobSpec{
			BackoffLimit: ptr.To[int32](0),
			PodFailurePolicy: &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{{
				Action:          batchv1.PodFailurePolicyActionIgnore,
				OnPodConditions: []batchv1.PodFailurePolicyOnPodConditionsPattern{{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue}},
			}}},
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				RestartPolicy:                 corev1.RestartPolicyNever, // what a pod failure policy requires
				TerminationGracePeriodSeconds: seconds(int64(jobPodGrace / time.Second)),
				Containers:                    []corev1.Container{onTerm("worker", "exit 1")},
			}},
		},
	}
}

// jobPods lists the pods of Job name in ns.
func jobPods(ctx context.Context, ns, name string) ([]corev1.Pod, error) {
	pods, err := env.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: batchv1.JobNameLabel + "=" + name})
	if err != nil {
		return nil, err
	}
	return pods.Items, nil
}
