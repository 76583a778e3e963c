package probes

import (
	"fmt"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"

	. "github.com/podlifecycle/conformance/framework/match"
	"github.com/podlifecycle/conformance/framework/observe"
	"github.com/podlifecycle/conformance/framework/suite"
)

var _ = Describe("Probe timing", func() {
	// The first spec's probe, declared outside it so that its timeout can use them.
	// An initial delay of several periods, so that a first probe at any fraction of
	// it (a kubelet that halved it, say) falls outside the window: [initialDelay −
	// the start's truncation, initialDelay + a period].
	const (
		initialDelay = 8 * time.Second
		period       = 1 * time.Second
		threshold    = 3
		healthyFor   = 12 * time.Second
	)
	It("honours initialDelaySeconds, periodSeconds and failureThreshold", Label("PR-4"), suite.TimedWithin(tickJitter), suite.Timeout(podStartBound+healthyFor+threshold*period+20*time.Second), func(ctx SpecContext) {
		ns := env.Namespace(ctx)
		c := server("server", fmt.Sprintf("-healthy-for=%s", healthyFor))
		c.LivenessProbe = httpProbe("/live", int32(period/time.Second), threshold)
		c.LivenessProbe.InitialDelaySeconds = int32(initialDelay / time.Second)
		tl := env.Run(ctx, ns, podOf("timed", c))
		Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound + healthyFor + threshold*period + 20*time.Second).
			Should(HaveContainerRestarts("server", BeNumerically(">=", 1)))

		log := probeLog(ctx, ns, "timed", "server", true)
		var probes []time.Time
		for _, m := range log.Of("server") {
			if strings.HasPrefix(m.Event, "/live ") {
				probes = append(probes, m.At)
			}
		}
		Expect(len(probes)).To(BeNumerically(">=", 4), "%s", log)
		exp := timings("liveness probe timing")
		previous := ContainerStatus(tl.Pod(), "server").LastTerminationState.Terminated
		Expect(previous).NotTo(BeNil(), "the server's first instance, restarted")
		started := probeClockStart(log, "server", previous.StartedAt)
		// The first tick at least initialDelaySeconds after the (truncated) start: up to
		// one period later (the worker's ticker started when the kubelet saw the pod).
		min, max := firstProbeWindow(initialDelay, period)
		within(exp, "start → first probe (ms): initialDelaySeconds", probes[0].Sub(started), min, max, log)
		earlyFirstProbe(probes[0].Sub(started), initialDelay)
		for i := 1; i < len(probes); i++ {
			within(exp, "interval between probes (ms): periodSeconds", probes[i].Sub(probes[i-1]), period-tickJitter, period+tickJitter, log)
		}
		failures := times(log, "server", "/live 500")
		Expect(failures).To(HaveLen(threshold), "failureThreshold failed probes, then the kill:\n%s", log)
		within(exp, "first failure → last failure before the kill (ms): (failureThreshold-1)·periodSeconds",
			failures[threshold-1].Sub(failures[0]), (threshold-1)*period-tickJitter, (threshold-1)*period+tickJitter, log)
	})

	// PR-4's drift, decided over many pods (firstProbeEarlyPods): each pod's first
	// readiness probe, from the probe server's own record, against its container's own
	// start marker. The window above still bounds each. Serial, and in waves of
	// firstProbeWave pods: 24 pods started at once beside the suite's other timing
	// specs loaded the machine enough to fail them (and this spec's own window), so the
	// spec has the cluster to itself and starts a few pods at a time.
	It("holds back every pod's first probe for initialDelaySeconds, over many pods", suite.Quiet, Label("PR-4"),
		suite.Timeout(firstProbeEarlyPods/firstProbeWave*(2*podStartBound+20*time.Second)), func(ctx SpecContext) {
			const delay = 2 * time.Second
			ns := env.Namespace(ctx)
			min, max := firstProbeWindow(delay, time.Second)
			exp := timings("first probe over many pods")
			var measured []time.Duration
			var first *corev1.Pod
			for wave := range firstProbeEarlyPods / firstProbeWave {
				var pods []*corev1.Pod
				var tls []*observe.Timeline
				for i := range firstProbeWave {
					c := server("server")
					c.ReadinessProbe = httpProbe("/ready-probe", 1, 1)
					c.ReadinessProbe.InitialDelaySeconds = int32(delay / time.Second)
					p := podOf(fmt.Sprintf("first-probe-%d-%d", wave, i), c)
					pods = append(pods, p)
					tls = append(tls, env.Run(ctx, ns, p))
				}
				if first == nil {
					first = pods[0]
				}
				for i, tl := range tls {
					// The container's log is readable once it runs.
					Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound).Should(HavePhase(corev1.PodRunning))
					var log observe.Log
					Eventually(func() int {
						log = probeLog(ctx, ns, pods[i].Name, "server", false)
						return withPrefix(log, "/ready-probe ")
					}).WithContext(ctx).WithTimeout(podStartBound+20*time.Second).Should(BeNumerically(">=", 1), "pod %s's first probe:\n%s", pods[i].Name, tl)
					running := ContainerStatus(tl.Pod(), "server").State.Running
					Expect(running).NotTo(BeNil(), "pod %s's server runs", pods[i].Name)
					started := probeClockStart(log, "server", running.StartedAt)
					probes := times(log, "server", "/ready-probe 200")
					Expect(probes).NotTo(BeEmpty(), "%s", log)
					d := probes[0].Sub(started)
					within(exp, "start → first probe (ms): initialDelaySeconds", d, min, max, log)
					measured = append(measured, d)
				}
			}
			recordEarlyFirstProbes(first, measured, delay)
		})
})
