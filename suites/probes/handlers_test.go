package probes

import (
	"fmt"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	. "github.com/podlifecycle/conformance/framework/match"
	"github.com/podlifecycle/conformance/framework/suite"
)

// handlerCase is one probe handler and the result the docs give for it.
type handlerCase struct {
	container string
	handler   corev1.ProbeHandler
	succeeds  bool
	// served is the marker the probe server writes for this probe ("" for exec and a
	// closed port: nothing reaches the server).
	served string
}

func httpGet(path string) corev1.ProbeHandler {
	return corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: path, Port: intstr.FromInt32(8080)}}
}

func grpcProbe(service string) corev1.ProbeHandler {
	h := corev1.ProbeHandler{GRPC: &corev1.GRPCAction{Port: 8082}}
	if service != "" {
		h.GRPC.Service = &service
	}
	return h
}

var handlerCases = []handlerCase{
	{"exec-exit-0", corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"true"}}}, true, ""},
	{"exec-exit-1", corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"false"}}}, false, ""},
	{"http-200", httpGet("/status/200"), true, "/status/200 200"},
	{"http-399", httpGet("/status/399"), true, "/status/399 399"},
	{"http-400", httpGet("/status/400"), false, "/status/400 400"},
	{"http-500", httpGet("/status/500"), false, "/status/500 500"},
	{"http-redirect", httpGet("/redirect"), true, "/redirect 302"},
	{"tcp-open", corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(8081)}}, true, "tcp accept"},
	{"tcp-closed", corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(8089)}}, false, ""},
	{"grpc-serving", grpcProbe(""), true, `grpc service="" SERVING`},
	{"grpc-named-serving", grpcProbe("serving"), true, `grpc service="serving" SERVING`},
	{"grpc-not-serving", grpcProbe("not-serving"), false, `grpc service="not-serving" NOT_SERVING`},
}

var _ = Describe("Probe handlers", func() {
	It("succeed as the docs say: exec on exit 0, httpGet on 200–399, tcpSocket when the port accepts, grpc when SERVING", Label("PR-6"), suite.Timeout(podStartBound, 20*time.Second, 10*time.Second, 3*time.Second), func(ctx SpecContext) {
		ns := env.Namespace(ctx)
		// One probe server, and one idle container per handler whose readiness probe
		// targets it: containers share the pod's network, so each container's Ready
		// is the result of its one handler.
		pod := podOf("handlers", server("server"))
		for _, hc := range handlerCases {
			pod.Spec.Containers = append(pod.Spec.Containers, corev1.Container{
				Name: hc.container, Image: "busybox:1.28", Command: []string{"sleep", "3600"},
				ReadinessProbe: &corev1.Probe{ProbeHandler: hc.handler, PeriodSeconds: 1, FailureThreshold: 1},
			})
		}
		tl := env.Run(ctx, ns, pod)
		Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound).Should(HavePhase(corev1.PodRunning))

		// Every probe that reaches the server did so at least three times: enough
		// periods for any probe to have settled.
		Eventually(func() []string {
			log := probeLog(ctx, ns, pod.Name, "server", false)
			var short []string
			for _, hc := range handlerCases {
				if hc.served != "" && withPrefix(log, hc.served) < 3 {
					short = append(short, hc.container)
				}
			}
			return short
		}).WithContext(ctx).WithTimeout(20*time.Second).Should(BeEmpty(), "probes that have not reached the server three times yet")

		// Then every container's Ready is its handler's result. The exec handlers do not
		// reach the server: each is a runc exec, which on a loaded 2-core machine takes
		// seconds (in the kill matrix's stock run of 2026-12-06, load average 44,
		// exec-exit-0 was not ready yet when every served probe had come three times):
		// ten more periods for them to settle.
		wrong := func() []string {
			p := tl.Pod()
			var out []string
			for _, hc := range handlerCases {
				if containerReady(hc.container)(p) != hc.succeeds {
					out = append(out, fmt.Sprintf("%s: ready=%t, want %t", hc.container, !hc.succeeds, hc.succeeds))
				}
			}
			return out
		}
		Eventually(wrong).WithContext(ctx).WithTimeout(10*time.Second).Should(BeEmpty(), func() string {
			return fmt.Sprintf("PR-6: handler results:\n%s\nserver log:\n%s", strings.Join(wrong(), "\n"), probeLog(ctx, ns, pod.Name, "server", false))
		})
		// The failing ones stay failing: three more periods.
		Consistently(func() []string {
			var ready []string
			for _, hc := range handlerCases {
				if !hc.succeeds && containerReady(hc.container)(tl.Pod()) {
					ready = append(ready, hc.container)
				}
			}
			return ready
		}).WithContext(ctx).WithTimeout(3 * time.Second).WithPolling(500 * time.Millisecond).Should(BeEmpty())
		log := probeLog(ctx, ns, pod.Name, "server", false)
		Expect(withPrefix(log, "/healthz 200")).To(BeNumerically(">=", 1), "the redirect was followed to /healthz:\n%s", log)
	})
})
