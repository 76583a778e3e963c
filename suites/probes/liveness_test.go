package probes

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"

	"github.com/podlifecycle/conformance/framework/examples"
	. "github.com/podlifecycle/conformance/framework/match"
	"github.com/podlifecycle/conformance/framework/observe"
	"github.com/podlifecycle/conformance/framework/suite"
)

var _ = Describe("Liveness probe", func() {
	It("restarts the container after failureThreshold failures, without waiting for readiness", Label("PR-2", "PR-3"), suite.Timeout(podStartBound+4*time.Second+3*time.Second+20*time.Second), func(ctx SpecContext) {
		ns := env.Namespace(ctx)
		// Healthy for 4 s, then failing; never ready.
		c := server("server", "-healthy-for=4s")
		c.LivenessProbe = httpProbe("/live", 1, 3)
		c.ReadinessProbe = httpProbe("/status/500", 1, 1)
		tl := env.Run(ctx, ns, podOf("dies", c))
		// 4 s healthy, three failures a second apart, the kill, the restart.
		Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound + 4*time.Second + 3*time.Second + 20*time.Second).
			Should(HaveContainerRestarts("server", BeNumerically(">=", 1)))

		log := probeLog(ctx, ns, "dies", "server", true)
		Expect(log.Count(observe.MarkOf("server", "/live 500"))).To(Equal(3),
			"PR-2: restarted after exactly failureThreshold (3) failed liveness probes:\n%s", log)
		Expect(log.Count(observe.MarkOf("server", "/live 200"))).To(BeNumerically(">=", 1), "healthy at first:\n%s", log)
		Expect(tl.Pods()).NotTo(ContainElement(HaveCondition(corev1.PodReady, corev1.ConditionTrue, "")),
			"PR-3: the container was never ready, and the liveness probe ran anyway")
		Expect(eventsWith(tl, "Unhealthy")).NotTo(BeEmpty(), "PR-2: an Unhealthy event:\n%s", tl)
		Expect(eventsWith(tl, "Killing")).NotTo(BeEmpty(), "PR-2: a Killing event:\n%s", tl)
	})

	It("of the liveness-http example restarts the server once /healthz fails, sending the custom header", Label("PR-8"), suite.LongRunning, suite.Timeout(podStartBound+45*time.Second+20*time.Second), func(ctx SpecContext) {
		ns := env.Namespace(ctx)
		pod := examples.LivenessHTTP()
		// The docs' image has no tag, so the kubelet would pull it (policy Always for
		// :latest); no registry is reachable, and the image is preloaded on every node.
		pod.Spec.Containers[0].ImagePullPolicy = corev1.PullIfNotPresent
		tl := env.Run(ctx, ns, pod)
		// initialDelaySeconds 15, then the default period (10 s) and failureThreshold
		// (3): the third failure comes at most 15+10+2·10 s after the start; the kill
		// (its 30 s grace is not used: the server exits on TERM) and the restart follow.
		Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound + 45*time.Second + 20*time.Second).
			Should(HaveContainerRestarts("liveness", BeNumerically(">=", 1)))

		log := probeLog(ctx, ns, pod.Name, "liveness", true)
		Expect(log.Count(observe.MarkOf("liveness", "/healthz 500"))).To(Equal(3), "PR-8: restarted after three failed probes:\n%s", log)
		first, _ := log.Between(observe.StartOf("liveness"), observe.MarkOf("liveness", "/healthz 500"))
		min, _ := firstProbeWindow(15*time.Second, 10*time.Second)
		Expect(first).To(BeNumerically(">=", min), "PR-8: no probe before initialDelaySeconds (15 s, counted from the truncated StartedAt):\n%s", log)
		earlyFirstProbe(first, 15*time.Second)
		headers := probeHeaders(ctx, ns, pod.Name, "liveness", "/healthz", true)
		Expect(headers).To(HaveLen(3))
		Expect(headers).To(HaveEach(ContainSubstring("X-Custom-Header=Awesome")), "PR-8: every probe carries the custom header")
		AddReportEntry("liveness-http probe headers", headers[0])
	})
})
