package restart

import (
	"context"
	"fmt"
	"slices"
	"time"

	. "github.com/onsi/ginkgo/v2"
	ginkgotypes "github.com/onsi/ginkgo/v2/types"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/types"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/podlifecycle/conformance/framework/drift"
	"github.com/podlifecycle/conformance/framework/examples"
	. "github.com/podlifecycle/conformance/framework/match"
	"github.com/podlifecycle/conformance/framework/observe"
	"github.com/podlifecycle/conformance/framework/suite"
)

// jobSyncBound: the Job controller acts on a change of a Job or of its pods as its
// informers deliver it (it creates the pod, it sets Complete in the sync that sees the
// pod Succeeded); 10 s covers its work queue on a loaded machine, as the lifecycle
// suite's replicaSetSyncBound does for the ReplicaSet controller.
const jobSyncBound = 10 * time.Second

// jobPodsWindow is how long the Job's pod is watched after the Job is Complete. The Job
// controller syncs a Job at once on every change of its pods and of the Job itself
// (k8s.io/kubernetes v1.37.2 pkg/controller/job: the informers' handlers enqueue the
// Job without delay), and it sets Complete in such a sync; a controller that removed
// the pods of a finished Job would do it in that sync or in the one its own status
// update triggers, within a second. 10 s leaves a loaded machine's work queue room.
// PodGC deletes no terminated pod here: this suite's cluster (kind-configs/default.yaml)
// keeps kube-controller-manager's terminated-pod-gc-threshold at its default, 12500.
const jobPodsWindow = 10 * time.Second

const jobPodsTopic = "Job pods when the Job is done"

var _ = Describe("Restart policy under controllers", func() {
	// Server-side dry run (DryRun All) admits, defaults and validates the object as a
	// create does and stores nothing (KEP-576), so no controller and no pod runs. A
	// broken API server accepts a refused policy (the "refused" entries fail on "an
	// error was expected"), or refuses an allowed one (the "accepted" entries fail with
	// its message).
	DescribeTable("allow only the restart policies their pods may have: Always for the controllers that keep pods running, OnFailure or Never for a Job",
		Label("RS-15"), func(ctx SpecContext, kind string, policy corev1.RestartPolicy, allowed bool) {
			ns := env.Namespace(ctx)
			spec := templateOf(kind)
			spec.RestartPolicy = policy // the only change to the docs' pod
			err := createDryRun(ctx, ns, kind, spec)
			if allowed {
				Expect(err).NotTo(HaveOccurred(), "RS-15: a %s whose template has restartPolicy %s is accepted", kind, policy)
				return
			}
			Expect(err).To(HaveOccurred(), "RS-15: a %s whose template has restartPolicy %s is refused", kind, policy)
			AddReportEntry(fmt.Sprintf("API server on a %s with restartPolicy %s", kind, policy), err.Error())
			Expect(apierrors.IsInvalid(err)).To(BeTrue(), "RS-15: refused as invalid (422), not for another reason: %v", err)
			Expect(err.Error()).To(ContainSubstring("spec.template.spec.restartPolicy"), "RS-15: the refusal names the template's restartPolicy")
		},
		policyEntries("Deployment", corev1.RestartPolicyAlways),
		policyEntries("ReplicaSet", corev1.RestartPolicyAlways),
		policyEntries("ReplicationController", corev1.RestartPolicyAlways),
		policyEntries("DaemonSet", corev1.RestartPolicyAlways),
		policyEntries("Job", corev1.RestartPolicyOnFailure, corev1.RestartPolicyNever),
	)
})

var _ = Describe("The docs' Job data-processor", func() {
	// A broken cluster (a kubelet that does not restart the container under OnFailure)
	// leaves the pod Failed with restartCount 0; the Job controller then makes a second
	// pod, and "one pod, the first" fails, or the Job never completes.
	It("restarts its container in the same pod after a non-zero exit, then completes", Label("RS-3"),
		suite.Timeout(jobSyncBound, podStartBound+firstRestartBound+jobSyncBound), func(ctx SpecContext) {
			ns := env.Namespace(ctx)
			job := examples.DataProcessor()
			// The change the statement needs: exit 1 on the first run, 0 on the next. The
			// marker file is in an emptyDir, which lives as long as the pod: only a run in the
			// same pod finds it.
			spec := &job.Spec.Template.Spec
			spec.Volumes = append(spec.Volumes, corev1.Volume{Name: "work", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}})
			c := &spec.Containers[0]
			c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: "work", MountPath: "/work"})
			c.Command = []string{"sh", "-c", `echo "Processing data..."; [ -f /work/ran ] || { touch /work/ran; exit 1; }; exit 0`}
			Expect(env.Create(ctx, ns, job)).To(Succeed())
			first := theJobPod(ctx, ns, job.Name)
			tl := env.Follow(ctx, ns, first.Name)
			// The pod's start, the kubelet's restart at once after the first exit, and the
			// Job controller's sync that sees the pod Succeeded.
			Eventually(jobConditions(ns, job.Name)).WithContext(ctx).WithTimeout(podStartBound+firstRestartBound+jobSyncBound).
				Should(complete(), "the Job completes")
			pods, err := jobPods(ns, job.Name)(ctx)
			Expect(err).NotTo(HaveOccurred())
			Expect(pods).To(HaveLen(1), "RS-3: the kubelet retried in the pod; the Job made no second pod:\n%s", tl)
			Expect(pods[0].UID).To(Equal(first.UID), "RS-3: the pod that completed is the first one")
			Expect(&pods[0]).To(And(HavePhase(corev1.PodSucceeded), HaveContainerRestarts("processor", 1)), "RS-3: one restart")
			// The restart's reason is read from every status the watch saw, as the state
			// before the restart or the lastState after it (exitedWith: the kubelet does not
			// always report the lastState).
			Expect(tl.Pods()).To(ContainElement(exitedWith("processor", "Error")), "RS-3: the restart followed the exit 1:\n%s", tl)
		})

	// What the spec asserts is RS-3's (the Job completes) and the premise (no TTL); a
	// broken cluster fails there (a Job that never gets Complete). Whether the pod stays
	// is the measurement, recorded as the cluster's answer, never asserted.
	It("completes, and its pod is watched after: whether the Job removes it is where the pages disagree", Label("RS-3"),
		suite.Timeout(jobSyncBound, podStartBound+jobSyncBound, jobPodsWindow), func(ctx SpecContext) {
			ns := env.Namespace(ctx)
			// Created as the docs do (kubectl create -f), from the docs' manifest.
			created, err := env.CreateManifest(ctx, ns, examples.Manifest("data-processor"))
			Expect(err).NotTo(HaveOccurred())
			Expect(created).To(HaveLen(1))
			name := created[0].GetName()
			jobPod := theJobPod(ctx, ns, name)
			tl := env.Follow(ctx, ns, jobPod.Name)
			Eventually(jobConditions(ns, name)).WithContext(ctx).WithTimeout(podStartBound+jobSyncBound).Should(complete(), "RS-3: the Job completes")
			j, err := env.Client.BatchV1().Jobs(ns).Get(ctx, name, metav1.GetOptions{})
			Expect(err).NotTo(HaveOccurred())
			Expect(j.Spec.TTLSecondsAfterFinished).To(BeNil(), "premise: no ttlSecondsAfterFinished, so the TTL-after-finished controller deletes neither the Job nor its pods")

			// Removed: gone from the API, or being deleted. The watch sees either at once;
			// a removal ends the window early.
			removed := func() bool { p := tl.Pod(); return tl.Deleted() || p == nil || p.DeletionTimestamp != nil }
			Consistently(func() bool {
				if removed() {
					StopTrying("the Job's pod is being removed").Successfully().Now()
				}
				return true
			}).WithContext(ctx).WithTimeout(jobPodsWindow).WithPolling(200 * time.Millisecond).Should(BeTrue())
			stays := !removed()
			state := "not in the API"
			if p := tl.Pod(); p != nil {
				state = observe.SummarizePod(p)
			}
			suite.Answer(drift.Question[bool]{
				Topic:    jobPodsTopic,
				Claims:   map[string]bool{"job-deletes-its-pods": false, "pods-stay-after-completion": true},
				Measured: stays,
				Evidence: fmt.Sprintf("Job %s Complete, no ttlSecondsAfterFinished; its pod %s %s after up to %s:\n%s", name, jobPod.Name, state, jobPodsWindow, tl),
			})
		})
})

// policyEntries are kind's table entries, one per restart policy: those in allowed
// accepted, the others refused. Each reports the caller's line.
func policyEntries(kind string, allowed ...corev1.RestartPolicy) []TableEntry {
	loc := ginkgotypes.NewCodeLocation(1)
	var out []TableEntry
	for _, p := range []corev1.RestartPolicy{corev1.RestartPolicyAlways, corev1.RestartPolicyOnFailure, corev1.RestartPolicyNever} {
		ok := slices.Contains(allowed, p)
		verdict := "refused"
		if ok {
			verdict = "accepted"
		}
		// No wait: one API call, within suite.Timeout's overhead.
		out = append(out, Entry(fmt.Sprintf("a %s with restartPolicy %s: %s", kind, p, verdict), loc, suite.Timeout(), kind, p, ok))
	}
	return out
}

// templateOf is the docs' pod for a controller of kind: the web server of example 1
// ("typical for Deployments") for the controllers that keep pods running, the
// data-processor Job's own template for a Job.
func templateOf(kind string) corev1.PodSpec {
	if kind == "Job" {
		return examples.DataProcessor().Spec.Template.Spec
	}
	return examples.WebServer().Spec
}

// createDryRun asks the API server to create, in ns, a controller of kind whose pod
// template has spec, in dry run: validated as a create is, never stored.
func createDryRun(ctx context.Context, ns, kind string, spec corev1.PodSpec) error {
	GinkgoHelper()
	opts := metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}
	labels := map[string]string{"app": "restart-policy"}
	meta := metav1.ObjectMeta{Name: "restart-policy"}
	template := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: spec}
	selector := &metav1.LabelSelector{MatchLabels: labels}
	var err error
	switch kind {
	case "Deployment":
		_, err = env.Client.AppsV1().Deployments(ns).Create(ctx, &appsv1.Deployment{ObjectMeta: meta,
			Spec: appsv1.DeploymentSpec{Selector: selector, Template: template}}, opts)
	case "ReplicaSet":
		_, err = env.Client.AppsV1().ReplicaSets(ns).Create(ctx, &appsv1.ReplicaSet{ObjectMeta: meta,
			Spec: appsv1.ReplicaSetSpec{Selector: selector, Template: template}}, opts)
	case "ReplicationController":
		_, err = env.Client.CoreV1().ReplicationControllers(ns).Create(ctx, &corev1.ReplicationController{ObjectMeta: meta,
			Spec: corev1.ReplicationControllerSpec{Selector: labels, Template: &template}}, opts)
	case "DaemonSet":
		_, err = env.Client.AppsV1().DaemonSets(ns).Create(ctx, &appsv1.DaemonSet{ObjectMeta: meta,
			Spec: appsv1.DaemonSetSpec{Selector: selector, Template: template}}, opts)
	case "Job":
		_, err = env.Client.BatchV1().Jobs(ns).Create(ctx, &batchv1.Job{ObjectMeta: meta,
			Spec: batchv1.JobSpec{Template: template}}, opts)
	default:
		Fail("createDryRun: no controller kind " + kind)
	}
	return err
}

// complete matches a Job's conditions that include Complete True.
func complete() types.GomegaMatcher {
	return ContainElement(And(HaveField("Type", batchv1.JobComplete), HaveField("Status", corev1.ConditionTrue)))
}

// jobConditions polls the conditions of Job name in ns.
func jobConditions(ns, name string) func(ctx context.Context) ([]batchv1.JobCondition, error) {
	return func(ctx context.Context) ([]batchv1.JobCondition, error) {
		j, err := env.Client.BatchV1().Jobs(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return nil, err
		}
		return j.Status.Conditions, nil
	}
}

// jobPods polls the pods of Job name in ns, by the label the Job controller gives them.
func jobPods(ns, name string) func(ctx context.Context) ([]corev1.Pod, error) {
	return func(ctx context.Context) ([]corev1.Pod, error) {
		pods, err := env.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: batchv1.JobNameLabel + "=" + name})
		if err != nil {
			return nil, err
		}
		return pods.Items, nil
	}
}

// theJobPod waits for the Job's pod (the controller creates it at once) and returns it.
func theJobPod(ctx context.Context, ns, name string) corev1.Pod {
	GinkgoHelper()
	var pods []corev1.Pod
	Eventually(func(ctx context.Context) ([]corev1.Pod, error) {
		var err error
		pods, err = jobPods(ns, name)(ctx)
		return pods, err
	}).WithContext(ctx).WithTimeout(jobSyncBound).WithPolling(200*time.Millisecond).Should(HaveLen(1), "the Job controller creates the Job's pod")
	return pods[0]
}
