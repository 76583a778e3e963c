package probes

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/types"
	corev1 "k8s.io/api/core/v1"

	. "github.com/podlifecycle/conformance/framework/match"
	"github.com/podlifecycle/conformance/framework/observe"
	"github.com/podlifecycle/conformance/framework/suite"
)

var _ = Describe("Startup probe", func() {
	It("holds liveness and readiness probes back until it succeeds", Label("PR-1"), suite.Timeout(podStartBound, 10*time.Second, 10*time.Second, 5*time.Second, 3*time.Second), func(ctx SpecContext) {
		ns := env.Namespace(ctx)
		c := server("server")
		// The startup probe fails until the spec creates /tmp/started.
		c.StartupProbe = httpProbe("/when-exists/started", 1, 120)
		c.LivenessProbe = httpProbe("/live", 1, 3)
		c.ReadinessProbe = httpProbe("/ready", 1, 1)
		tl := env.Run(ctx, ns, podOf("slow-start", c))
		Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound).Should(HavePhase(corev1.PodRunning))
		// Three failed startup probes: the other probes had three periods to run.
		Eventually(func() int {
			return len(times(probeLog(ctx, ns, "slow-start", "server", false), "server", "/when-exists/started 500"))
		}).
			WithContext(ctx).WithTimeout(10 * time.Second).Should(BeNumerically(">=", 3))
		exec(ctx, ns, "slow-start", "server", "touch /tmp/started")
		Eventually(tl.Pod).WithContext(ctx).WithTimeout(10 * time.Second).Should(HaveCondition(corev1.PodReady, corev1.ConditionTrue, ""))
		Eventually(func() observe.Log { return probeLog(ctx, ns, "slow-start", "server", false) }).WithContext(ctx).
			WithTimeout(5 * time.Second).Should(HaveMarked(observe.MarkOf("server", "/live 200")))

		log := probeLog(ctx, ns, "slow-start", "server", false)
		success := observe.MarkOf("server", "/when-exists/started 200")
		Expect(log).To(And(
			MarkBefore(success, observe.MarkOf("server", "/live 200")),
			MarkBefore(success, observe.MarkOf("server", "/ready 200")),
		), "PR-1: no liveness or readiness probe before the startup probe succeeded")
		// "Only during start-up": three more periods of the startup probe (1 s) after its
		// success, while liveness and readiness go on, and still one success marked.
		Consistently(func() int { return probeLog(ctx, ns, "slow-start", "server", false).Count(success) }).WithContext(ctx).
			WithTimeout(3*time.Second).WithPolling(500*time.Millisecond).Should(Equal(1), "PR-1: the startup probe ran again after it succeeded:\n%s", log)
	})

	DescribeTable("that never succeeds kills the container, and the restart policy applies", Label("PR-1"),
		func(ctx SpecContext, policy corev1.RestartPolicy, then types.GomegaMatcher) {
			ns := env.Namespace(ctx)
			c := server("server")
			c.StartupProbe = httpProbe("/status/500", 1, 3)
			c.LivenessProbe = httpProbe("/live", 1, 1)
			pod := podOf("never-starts", c)
			pod.Spec.RestartPolicy = policy
			tl := env.Run(ctx, ns, pod)
			// Three failures a second apart, the kill (2 s grace), a restart.
			Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound + 3*time.Second + 20*time.Second).Should(then)
			Expect(eventsWith(tl, "Startup probe failed")).NotTo(BeEmpty(), "%s", tl)
			previous := policy == corev1.RestartPolicyAlways
			log := probeLog(ctx, ns, pod.Name, "server", previous)
			// Counted by the kubelet: the first probe may come before the server listens
			// (connection refused), which fails it as much as a 500 and leaves no marker.
			Expect(failedProbes(tl, "Startup probe failed", "failed startup probe, will be restarted")).To(Equal(3), "killed after failureThreshold (3) failed startup probes:\n%s\n%s", log, tl)
			Expect(log.Count(observe.MarkOf("server", "/status/500 500"))).To(BeNumerically("<=", 3), "no startup probe after the third failure:\n%s", log)
			Expect(withPrefix(log, "/live")).To(BeZero(), "PR-1: no liveness probe ran:\n%s", log)
		},
		Entry("Never: the pod fails", suite.Timeout(podStartBound+3*time.Second+20*time.Second), corev1.RestartPolicyNever, HavePhase(corev1.PodFailed)),
		Entry("Always: the container is restarted", suite.Timeout(podStartBound+3*time.Second+20*time.Second), corev1.RestartPolicyAlways, HaveContainerRestarts("server", BeNumerically(">=", 1))),
	)
})
