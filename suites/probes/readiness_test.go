package probes

import (
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/podlifecycle/conformance/framework/drift"
	. "github.com/podlifecycle/conformance/framework/match"
	"github.com/podlifecycle/conformance/framework/observe"
	"github.com/podlifecycle/conformance/framework/suite"
)

// endpointBound: the kubelet writes the Ready change, the EndpointSlice controller
// follows it, the watch delivers it: seconds on a loaded machine; 20 s bounds it.
const endpointBound = 20 * time.Second

// service makes a Service name selecting app=pod and records its endpoint for pod.
func service(ctx SpecContext, ns, name, pod string) *observe.Endpoints {
	GinkgoHelper()
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       corev1.ServiceSpec{Selector: map[string]string{"app": pod}, Ports: []corev1.ServicePort{{Port: 8080, TargetPort: intstr.FromInt32(8080)}}},
	}
	Expect(env.Create(ctx, ns, svc)).To(Succeed())
	ep, err := observe.RecordEndpoints(ctx, env.Client, ns, name, pod)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(ep.Stop)
	return ep
}

var (
	readyEndpoint    = observe.EndpointState{Listed: true, Ready: true, Serving: true}
	notReadyEndpoint = observe.EndpointState{Listed: true}
	// outOfService is an endpoint a Service no longer sends traffic to: removed, as the
	// pages say, or listed with ready=false, as the EndpointSlice controller does
	// (disagreement "endpoints of a pod that is not ready", answered below).
	outOfService = Satisfy(func(s observe.EndpointState) bool { return !s.Ready })
)

var _ = Describe("Readiness probe", func() {
	// Twice out of the endpoints of both of its Services and back in: readiness probes
	// keep running after the first success, and "every Service" is two of them. The
	// probe that fails is the pod's only container's, or the second of two containers'
	// (a kubelet that looked only at the first container would keep that pod in).
	DescribeTable("takes the pod out of every matching Service's endpoints while it fails and puts it back when it recovers, for the container's whole life, without restarting it",
		Label("PR-5"), func(ctx SpecContext, second bool) {
			ns := env.Namespace(ctx)
			eps := []*observe.Endpoints{service(ctx, ns, "flaky", "flaky"), service(ctx, ns, "flaky-too", "flaky")}
			c := server("server")
			c.ReadinessProbe = httpProbe("/healthz", 1, 1)
			pod := podOf("flaky", c)
			failing := "server"
			if second {
				// A second container whose own readiness probe fails while /tmp/unhealthy
				// exists in it; the server's keeps passing.
				failing = "helper"
				pod.Spec.Containers = append(pod.Spec.Containers, corev1.Container{
					Name: failing, Image: "busybox:1.28", Command: []string{"sh", "-c", "trap 'exit 0' TERM; while true; do sleep 1; done"},
					ReadinessProbe: &corev1.Probe{
						ProbeHandler:  corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"sh", "-c", "[ ! -e /tmp/unhealthy ]"}}},
						PeriodSeconds: 1, FailureThreshold: 1,
					},
				})
			}
			pod.Labels = map[string]string{"app": "flaky"}
			tl := env.Run(ctx, ns, pod)
			for _, ep := range eps {
				Eventually(ep.Current).WithContext(ctx).WithTimeout(podStartBound).Should(Equal(readyEndpoint), "%s", ep)
			}
			var out []observe.EndpointState
			for range 2 {
				exec(ctx, ns, pod.Name, failing, "touch /tmp/unhealthy")
				for _, ep := range eps {
					Eventually(ep.Current).WithContext(ctx).WithTimeout(endpointBound).Should(outOfService, "PR-5: a failing readiness probe takes the endpoint out of every Service:\n%s", ep)
					out = append(out, ep.Current())
				}
				// The EndpointSlice controller follows the pod's Ready condition, so the API
				// already holds Ready False; the pod's own watch may deliver it a moment after
				// the EndpointSlice's (seen under load: 19 ms behind).
				Eventually(tl.Pod).WithContext(ctx).WithTimeout(endpointBound).Should(HaveCondition(corev1.PodReady, corev1.ConditionFalse, ""),
					"PR-5: the pod is not Ready while its readiness probe fails")
				exec(ctx, ns, pod.Name, failing, "rm /tmp/unhealthy")
				for _, ep := range eps {
					Eventually(ep.Current).WithContext(ctx).WithTimeout(endpointBound).Should(Equal(readyEndpoint), "PR-5: recovery puts it back in every Service:\n%s", ep)
				}
			}
			Expect(tl.Pod()).To(And(HaveContainerRestarts("server", 0), HaveContainerRestarts(failing, 0)), "PR-5: readiness failures never restart a container")
			suite.Answer(drift.Question[observe.EndpointState]{
				Topic:    "endpoints of a pod that is not ready",
				Claims:   map[string]observe.EndpointState{"removed": {}, "listed-not-ready": notReadyEndpoint},
				Measured: out[0],
				Same: func(claimed, measured observe.EndpointState) bool {
					return claimed.Listed == measured.Listed && !measured.Ready
				},
				Evidence: fmt.Sprintf("the endpoint in each Service while the probe failed (twice): %v\n%s\n%s", out, eps[0], eps[1]),
			})
		},
		Entry("the probe of the pod's only container", suite.Timeout(podStartBound, 2*3*endpointBound), false),
		Entry("the probe of the second of two containers", suite.Timeout(podStartBound, 2*3*endpointBound), true),
	)

	It("is not needed: a container without one is ready once it runs, and without a liveness probe it is healthy",
		Label("PR-7"), suite.Timeout(podStartBound, 10*time.Second), func(ctx SpecContext) {
			ns := env.Namespace(ctx)
			tl := env.Run(ctx, ns, podOf("no-probes", server("server", "-healthy-for=1s")))
			Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound).Should(HaveCondition(corev1.PodReady, corev1.ConditionTrue, ""))
			_, running := tl.FirstPod(func(p *corev1.Pod) bool {
				return len(p.Status.ContainerStatuses) > 0 && p.Status.ContainerStatuses[0].State.Running != nil
			})
			_, ready := tl.FirstPod(containerReady("server"))
			// Running and ready come in one status update, or the next one.
			Expect(ready.Sub(running)).To(BeNumerically("<=", 2*time.Second), "PR-7: ready as soon as running:\n%s", tl)
			// The server reports unhealthy after 1 s, but nothing asks it: no probe runs,
			// so nothing restarts it. Ten seconds cover three default liveness periods.
			Consistently(tl.Pod).WithContext(ctx).WithTimeout(10 * time.Second).WithPolling(time.Second).
				Should(And(HaveContainerRestarts("server", 0), HaveCondition(corev1.PodReady, corev1.ConditionTrue, "")))
			log := probeLog(ctx, ns, "no-probes", "server", false)
			Expect(withPrefix(log, "/")).To(BeZero(), "no probe reached the server:\n%s", log)
		})

	DescribeTable("a pod being deleted turns unready while its container still runs",
		Label("PR-9"), func(ctx SpecContext, withProbe bool) {
			ns := env.Namespace(ctx)
			ep := service(ctx, ns, "leaving", "leaving")
			c := server("server")
			if withProbe {
				c.ReadinessProbe = httpProbe("/healthz", 1, 1)
			}
			// The preStop hook keeps the container running for 4 s after the delete.
			c.Lifecycle = &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: []string{"sleep", "4"}}}}
			pod := env.Hold(ns, podOf("leaving", c))
			pod.Labels = map[string]string{"app": "leaving"}
			pod.Spec.TerminationGracePeriodSeconds = ptr.To[int64](10)
			tl := env.Run(ctx, ns, pod)
			Eventually(ep.Current).WithContext(ctx).WithTimeout(podStartBound).Should(Equal(readyEndpoint), "%s", ep)

			Expect(env.Client.CoreV1().Pods(ns).Delete(ctx, pod.Name, metav1.DeleteOptions{})).To(Succeed())
			// The pod's own Ready condition is read from statuses the kubelet wrote after the
			// deletion. The first watch event after the DELETE is the API server's own write:
			// it sets deletionTimestamp, bumps metadata.generation (graceful deletion,
			// k8s.io/apiserver registry/rest BeforeDelete) and still carries the status the
			// kubelet wrote before, Ready=True, which says nothing about termination. The
			// kubelet, once it sees the deletion, writes a status of its own (its status
			// manager forces the update while deletionTimestamp is set) whose
			// status.observedGeneration is the bumped generation (PodObservedGenerationTracking,
			// GA since 1.35): only such a status tells what the kubelet made of the deletion.
			// It comes when the kubelet starts terminating the pod, before the preStop hook:
			// the kubelet's watch, its sync and the status write, which endpointBound bounds.
			// A kubelet that never wrote the pod's status during termination fails here.
			writtenAfterDeletion := func(p *corev1.Pod) bool {
				return p != nil && p.DeletionTimestamp != nil && p.Status.ObservedGeneration == p.Generation
			}
			var afterDelete *corev1.Pod
			Eventually(func() *corev1.Pod { afterDelete = tl.Pod(); return afterDelete }).WithContext(ctx).WithTimeout(endpointBound).
				Should(Satisfy(writtenAfterDeletion), "PR-9: the kubelet wrote the pod's status after the deletion:\n%s", tl)
			Expect(afterDelete).To(HaveContainerState("server", "Running", ""), "PR-9: the kubelet's status after the deletion, while the container still ran its preStop")

			// "Unready" as the Service sees it: the endpoint stays listed, not ready,
			// terminating, while the container still runs its 4 s preStop.
			terminatingEndpoint := HaveField("Terminating", BeTrue())
			Eventually(ep.Current).WithContext(ctx).WithTimeout(endpointBound).Should(And(HaveField("Listed", BeTrue()), HaveField("Ready", BeFalse()), terminatingEndpoint),
				"PR-9: a pod being deleted is unready, with or without a readiness probe:\n%s", ep)
			Expect(tl.Pod()).To(HaveContainerState("server", "Running", ""), "the container still ran (its preStop) when the endpoint turned unready")

			// The pod's Ready in every status the kubelet wrote after the deletion while the
			// container ran (the watch's record, and the one polled above, which the record
			// may lack: it keeps a status only when its summary changes). The old article
			// says the pod turns unready; the v1.37 kubelet keeps probing readiness during
			// termination (pkg/kubelet/prober: only liveness and startup stop), so Ready may
			// stay True until the container stops. Recorded, as evidence for the report.
			var readyWhileTerminating *corev1.Pod
			readyAndRunning := And(HaveCondition(corev1.PodReady, corev1.ConditionTrue, ""), HaveContainerState("server", "Running", ""))
			for _, p := range append(tl.Pods(), afterDelete) {
				if ok, _ := readyAndRunning.Match(p); ok && writtenAfterDeletion(p) {
					readyWhileTerminating = p
					break
				}
			}
			evidence := fmt.Sprintf("no status the kubelet wrote after the delete showed the pod Ready while the container ran; the one polled: %s", observe.SummarizePod(afterDelete))
			if readyWhileTerminating != nil {
				evidence = fmt.Sprintf("its EndpointSlice endpoint turned ready=false, terminating=true, but the kubelet, writing the status after the delete (observedGeneration %d = generation), kept the pod Ready while it terminated (readiness probe: %t): %s\nendpoint states:\n%s",
					readyWhileTerminating.Status.ObservedGeneration, withProbe, observe.SummarizePod(readyWhileTerminating), ep)
			}
			suite.Drift(drift.Observation[bool]{
				Statement:  "PR-9",
				Topic:      "pod Ready while terminating",
				Docs:       "a pod being deleted turns unready (seed 002)",
				Documented: false,
				Measured:   readyWhileTerminating != nil,
				Evidence:   evidence,
				Reproducer: suite.Reproducer(pod, "any node"),
			})
			// The pages disagree on it: the old article's pod turns unready, the current
			// pages' endpoint only (a Ready that stays True is the second one's "actual
			// readiness"; a Ready that turns False fits both, so confirms the first).
			suite.Answer(drift.Question[bool]{
				Topic:    "Ready of a pod being deleted",
				Claims:   map[string]bool{"pod-unready": false, "endpoint-only": true},
				Measured: readyWhileTerminating != nil,
				Evidence: evidence,
			})
		},
		Entry("with a readiness probe", suite.Timeout(podStartBound, endpointBound, endpointBound), true),
		Entry("without a readiness probe", suite.Timeout(podStartBound, endpointBound, endpointBound), false),
	)
})
