package probes

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/podlifecycle/conformance/framework/drift"
	. "github.com/podlifecycle/conformance/framework/match"
	"github.com/podlifecycle/conformance/framework/observe"
	"github.com/podlifecycle/conformance/framework/suite"
)

// readyWriteBound: a probe's result reaches the kubelet's status manager at once; its
// write to the API and the watch's delivery take under a second on a loaded machine,
// doubled.
const readyWriteBound = 2 * time.Second

func containerRunning(name string) func(*corev1.Pod) bool {
	return func(p *corev1.Pod) bool {
		for _, s := range p.Status.ContainerStatuses {
			if s.Name == name {
				return s.State.Running != nil
			}
		}
		return false
	}
}

// withScheme is a pod whose one container has an httpGet readiness probe of scheme.
func withScheme(name string, scheme corev1.URIScheme) *corev1.Pod {
	c := server("server")
	c.ReadinessProbe = httpProbe("/healthz", 1, 1)
	c.ReadinessProbe.HTTPGet.Scheme = scheme
	return podOf(name, c)
}

var _ = Describe("An httpGet probe", func() {
	It("without host and scheme probes the pod's IP over HTTP", Label("PR-11"), suite.Timeout(podStartBound), func(ctx SpecContext) {
		ns := env.Namespace(ctx)
		// The server listens on the pod's IP alone (the downward API's status.podIP), not
		// on 127.0.0.1 or the node's address: a probe that reaches it went to the pod's
		// IP. Go's listener takes "[ip]:port" for IPv4 and IPv6 alike.
		c := server("server", "-http", "[$(POD_IP)]:8080")
		c.Env = []corev1.EnvVar{{Name: "POD_IP", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "status.podIP"}}}}
		c.ReadinessProbe = httpProbe("/healthz", 1, 1) // no host, no scheme
		tl := env.Run(ctx, ns, podOf("pod-ip", c))

		stored, err := env.Client.CoreV1().Pods(ns).Get(ctx, "pod-ip", metav1.GetOptions{})
		Expect(err).NotTo(HaveOccurred())
		get := stored.Spec.Containers[0].ReadinessProbe.HTTPGet
		Expect(get.Scheme).To(Equal(corev1.URISchemeHTTP), "PR-11: the API server defaults the scheme to HTTP")
		Expect(get.Host).To(BeEmpty(), "PR-11: the host stays empty; the kubelet probes the pod's IP in its place")

		// A kubelet that probed any other address (the node's, the loopback) would find
		// nothing listening: the container would never be ready.
		Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound).Should(HaveCondition(corev1.PodReady, corev1.ConditionTrue, ""),
			"PR-11: the probe reached the server on the pod's IP")
		log := probeLog(ctx, ns, "pod-ip", "server", false)
		Expect(withPrefix(log, "/healthz 200")).To(BeNumerically(">=", 1), "PR-11: the server answered the probe:\n%s", log)
		// The premise: nothing answers on the loopback, so the success says where the probe went.
		_, err = env.Exec(ctx, ns, "pod-ip", "server", "wget", "-q", "-O", "/dev/null", "http://127.0.0.1:8080/healthz")
		Expect(err).To(HaveOccurred(), "the server must listen on the pod's IP only")
	})

	It("accepts only the schemes HTTP and HTTPS", Label("PR-11"), suite.Timeout(), func(ctx SpecContext) {
		ns := env.Namespace(ctx)
		pods := env.Client.CoreV1().Pods(ns)
		// Server-side dry run: validated as a create is, nothing stored or run.
		dryRun := metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}
		_, err := pods.Create(ctx, withScheme("https", corev1.URISchemeHTTPS), dryRun)
		Expect(err).NotTo(HaveOccurred(), "PR-11: HTTPS is accepted")

		_, err = pods.Create(ctx, withScheme("ftp", corev1.URIScheme("FTP")), dryRun)
		Expect(apierrors.IsInvalid(err)).To(BeTrue(), "PR-11: FTP is refused as invalid, got %v", err)
		var status apierrors.APIStatus
		Expect(errors.As(err, &status)).To(BeTrue())
		Expect(status.Status().Code).To(BeEquivalentTo(http.StatusUnprocessableEntity))
		// k8s.io/kubernetes pkg/apis/core/validation validateHTTPGetAction: NotSupported.
		Expect(err.Error()).To(ContainSubstring(`spec.containers[0].readinessProbe.httpGet.scheme: Unsupported value: "FTP": supported values: "HTTP", "HTTPS"`))
		AddReportEntry("the API server's answer to scheme FTP", err.Error())
	})
})

var _ = Describe("A readiness probe", func() {
	// initialDelaySeconds holds the first probe back for 20 s; the probe would pass at
	// once. The pages disagree on the container's readiness in the meantime.
	const readyDelay = 20 * time.Second
	_, firstProbeBy := firstProbeWindow(readyDelay, time.Second)
	It("leaves the container unready until it first succeeds: before any probe has run the result is failure", Label("PR-12"),
		suite.Timeout(podStartBound, firstProbeBy+readyWriteBound), func(ctx SpecContext) {
			ns := env.Namespace(ctx)
			c := server("server")
			c.ReadinessProbe = httpProbe("/healthz", 1, 1)
			c.ReadinessProbe.InitialDelaySeconds = int32(readyDelay / time.Second)
			tl := env.Run(ctx, ns, podOf("delayed-ready", c))
			Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound).Should(HaveContainerState("server", "Running", ""))
			// Ready once the first probe has come (firstProbeWindow, counted from the start,
			// which came before Running was seen) and its result has been written.
			Eventually(tl.Pod).WithContext(ctx).WithTimeout(firstProbeBy + readyWriteBound).Should(HaveCondition(corev1.PodReady, corev1.ConditionTrue, ""))

			// Both times from the watch, on the runner's clock. A container ready before
			// its first probe is ready with Running or a status write after it (PR-7: within
			// 2 s); one that waits for the probe is ready about readyDelay after it. Half of
			// readyDelay tells the two apart with seconds to spare on either side.
			_, running := tl.FirstPod(containerRunning("server"))
			_, ready := tl.FirstPod(containerReady("server"))
			readyEarly := ready.Sub(running) < readyDelay/2
			log := probeLog(ctx, ns, "delayed-ready", "server", false)
			firstProbe, probed := log.Between(observe.StartOf("server"), observe.MarkOf("server", "/healthz 200"))
			suite.Answer(drift.Question[bool]{
				Topic:    "readiness before the first probe",
				Claims:   map[string]bool{"success-while-starting": true, "not-ready-until-probe-succeeds": false},
				Measured: readyEarly,
				Evidence: fmt.Sprintf("the container was seen Running, then ready %d ms later; initialDelaySeconds %s; the first probe reached the server %d ms after it started (marked: %t)\n%s",
					ready.Sub(running).Milliseconds(), readyDelay, firstProbe.Milliseconds(), probed, tl),
			})
			// A kubelet that takes "no result yet" for success shows the container ready
			// with Running, before any probe.
			Expect(readyEarly).To(BeFalse(), "PR-12: ready %d ms after Running, before the first probe could run:\n%s", ready.Sub(running).Milliseconds(), tl)
			unready, _ := tl.FirstPod(func(p *corev1.Pod) bool { return containerRunning("server")(p) && !containerReady("server")(p) })
			Expect(unready).NotTo(BeNil(), "PR-12: the container ran unready until its probe:\n%s", tl)
			Expect(probed).To(BeTrue(), "the probe that made it ready reached the server:\n%s", log)
		})
})
