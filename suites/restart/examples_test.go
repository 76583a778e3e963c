package restart

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/types"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/podlifecycle/conformance/framework/examples"
	. "github.com/podlifecycle/conformance/framework/match"
	"github.com/podlifecycle/conformance/framework/observe"
	"github.com/podlifecycle/conformance/framework/suite"
)

var _ = Describe("The docs' restart examples", suite.LongRunning, func() {
	It("web-server (Always) restarts nginx after it exits cleanly", Label("RS-3"), suite.Timeout(podStartBound, firstRestartBound), func(ctx SpecContext) {
		ns := env.Namespace(ctx)
		tl := env.Run(ctx, ns, examples.WebServer())
		Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound).Should(HaveContainerState("nginx", "Running", ""))
		_, err := env.Exec(ctx, ns, "web-server", "nginx", "nginx", "-s", "quit") // graceful stop: exit 0
		Expect(err).NotTo(HaveOccurred())
		Eventually(tl.Pods).WithContext(ctx).WithTimeout(firstRestartBound).Should(
			restartedAfter("nginx", "Completed", And(HaveContainerRestarts("nginx", 1), HaveContainerState("nginx", "Running", ""))))
	})

	It("Job data-processor (OnFailure, exit 0) completes without a restart", Label("RS-3"), suite.Timeout(podStartBound), func(ctx SpecContext) {
		ns := env.Namespace(ctx)
		// Created as the docs do (kubectl create -f), from the docs' manifest.
		created, err := env.CreateManifest(ctx, ns, examples.Manifest("data-processor"))
		Expect(err).NotTo(HaveOccurred())
		Expect(created).To(HaveLen(1))
		job := created[0]
		Eventually(func(ctx SpecContext) []batchv1.JobCondition {
			j, err := env.Client.BatchV1().Jobs(ns).Get(ctx, job.GetName(), metav1.GetOptions{})
			Expect(err).NotTo(HaveOccurred())
			return j.Status.Conditions
		}).WithContext(ctx).WithTimeout(podStartBound).Should(ContainElement(And(
			HaveField("Type", batchv1.JobComplete), HaveField("Status", corev1.ConditionTrue))))
		pods, err := env.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "batch.kubernetes.io/job-name=" + job.GetName()})
		Expect(err).NotTo(HaveOccurred())
		Expect(pods.Items).To(HaveLen(1), "one pod: no retry was needed")
		Expect(&pods.Items[0]).To(And(HavePhase(corev1.PodSucceeded), HaveContainerRestarts("processor", 0)))
	})

	It("app-with-sidecar: the sidecar restarts on its own under pod restartPolicy OnFailure while the main container keeps running",
		Label("RS-5"), suite.Timeout(podStartBound+2*2*time.Second+10*time.Second+firstRestartBound), func(ctx SpecContext) {
			ns := env.Namespace(ctx)
			pod := examples.AppWithSidecar()
			// The change the statement needs: a sidecar that exits 0 every 2 s. Under the
			// pod's OnFailure a regular container exiting 0 would stay stopped.
			pod.Spec.InitContainers[0].Image = "busybox:1.28"
			pod.Spec.InitContainers[0].Command = []string{"sh", "-c", "sleep 2; exit 0"}
			tl := env.Run(ctx, ns, pod)
			// Two restarts: the first at once, the second after the 10 s backoff, each
			// after 2 s of running; plus the pod start.
			Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound + 2*2*time.Second + 10*time.Second + firstRestartBound).Should(
				HaveContainerRestarts("logging-sidecar", BeNumerically(">=", 2)))
			Expect(tl.Pod()).To(And(HavePhase(corev1.PodRunning), HaveContainerRestarts("main-app", 0), HaveContainerState("main-app", "Running", "")))
		})
})

var _ = Describe("Init containers", func() {
	// "Only once": two init containers, and a main container that crashes on its first
	// run and is restarted (Always: at once). A kubelet that ran the init containers
	// again for the app container's restart would mark them twice.
	It("run once when they succeed, also when the app container restarts", Label("RS-4"), suite.Timeout(podStartBound+firstRestartBound), func(ctx SpecContext) {
		ns := env.Namespace(ctx)
		crashOnce := "if [ ! -e " + observe.MarkerDir + "/crashed ]; then touch " + observe.MarkerDir + "/crashed; mark crash; exit 1; fi; mark start; sleep 3600"
		p := pod("init-ok", corev1.RestartPolicyAlways, container("main", crashOnce))
		p.Spec.InitContainers = []corev1.Container{container("init-1", "mark ran; exit 0"), container("init-2", "mark ran; exit 0")}
		p = observe.WithMarkers(p)
		tl := env.Run(ctx, ns, p)
		Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound + firstRestartBound).Should(
			And(HaveContainerRestarts("main", 1), HaveContainerState("main", "Running", "")))
		ms := markersOf(ctx, ns, p.Name, "main")
		Expect(ms.Of("main").Events()).To(Equal([]string{"crash", "start"}), "the app container crashed once and was restarted:\n%s", ms)
		for _, name := range []string{"init-1", "init-2"} {
			Expect(tl.Pod()).To(And(HaveContainerRestarts(name, 0), HaveContainerState(name, "Terminated", "Completed")), "RS-4: %s", name)
			Expect(ms.Of(name).Events()).To(Equal([]string{"ran"}), "RS-4: %s ran only once, though the app container restarted:\n%s", name, ms)
		}
	})

	DescribeTable("are restarted after a failure unless the pod's policy is Never", Label("RS-4"),
		func(ctx SpecContext, policy corev1.RestartPolicy, want types.GomegaMatcher) {
			ns := env.Namespace(ctx)
			p := pod("init-fails", policy, container("main", "sleep 3600"))
			p.Spec.InitContainers = []corev1.Container{container("init", "exit 1")}
			tl := env.Run(ctx, ns, p)
			Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound + firstRestartBound).Should(want)
			Expect(tl.Pod()).To(HaveContainerState("main", "Waiting", "PodInitializing"))
		},
		Entry("Always", suite.Timeout(podStartBound+firstRestartBound), corev1.RestartPolicyAlways, And(HaveContainerRestarts("init", BeNumerically(">=", 1)), HavePhase(corev1.PodPending))),
		Entry("OnFailure", suite.Timeout(podStartBound+firstRestartBound), corev1.RestartPolicyOnFailure, And(HaveContainerRestarts("init", BeNumerically(">=", 1)), HavePhase(corev1.PodPending))),
		Entry("Never: the pod fails", suite.Timeout(podStartBound+firstRestartBound), corev1.RestartPolicyNever, And(HavePhase(corev1.PodFailed), HaveContainerRestarts("init", 0))),
	)
})
