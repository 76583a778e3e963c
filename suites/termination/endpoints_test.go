package termination

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	. "github.com/podlifecycle/conformance/framework/match"
	"github.com/podlifecycle/conformance/framework/observe"
	"github.com/podlifecycle/conformance/framework/suite"
)

var _ = Describe("Terminating endpoints", func() {
	It("stay in the EndpointSlice with ready=false, terminating=true and serving following the readiness probe",
		Label("TM-10"), suite.Timeout(runningBound, podStartBound, stopBound(20*time.Second), logEndBound), func(ctx SpecContext) {
			ns := env.Namespace(ctx)
			labels := map[string]string{"app": "draining"}
			svc := &corev1.Service{
				ObjectMeta: metav1.ObjectMeta{Name: "draining"},
				Spec:       corev1.ServiceSpec{Selector: labels, Ports: []corev1.ServicePort{{Port: 80, TargetPort: intstr.FromInt32(80)}}},
			}
			Expect(env.Create(ctx, ns, svc)).To(Succeed())
			ep, err := observe.RecordEndpoints(ctx, env.Client, ns, svc.Name, "server")
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(ep.Stop)

			// Ready while /tmp/ready exists. On TERM the server drains for 3 s (still
			// ready by its probe), then turns its probe off and exits 4 s later.
			server := onTerm("server", "sleep 3; rm -f /tmp/ready; mark unready; "+exitAfter(4*time.Second))
			server.Command[2] = "touch /tmp/ready; " + server.Command[2]
			server.ReadinessProbe = &corev1.Probe{
				ProbeHandler:  corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"test", "-f", "/tmp/ready"}}},
				PeriodSeconds: 1, FailureThreshold: 1,
			}
			pod := env.Hold(ns, stoppingPod("server", seconds(20), server))
			pod.Labels = labels
			tl := env.Run(ctx, ns, pod)
			f := running(ctx, ns, tl, "server")
			serving := observe.EndpointState{Listed: true, Ready: true, Serving: true}
			// The EndpointSlice controller follows the pod's Ready condition; its update goes
			// through the API server: seconds, well within the pod start bound.
			Eventually(ep.Current).WithContext(ctx).WithTimeout(podStartBound).Should(Equal(serving), "%s", ep)

			_, log := deleteAndWait(ctx, ns, tl, f, nil, stopBound(20*time.Second))
			Expect(log).To(MarkInOrder(observe.SignalTo("server", "TERM"), observe.MarkOf("server", "unready"), observe.ExitOf("server")))
			draining := observe.EndpointState{Listed: true, Serving: true, Terminating: true}
			drained := observe.EndpointState{Listed: true, Terminating: true}
			Expect(inOrder(ep.States(), serving, draining, drained)).To(BeTrue(),
				"TM-10: while the pod terminates its endpoint stays listed, ready=false and terminating=true, serving=true while the probe passes, then serving=false; states seen:\n%s\nmarkers:\n%s", ep, log)
		})
})

// inOrder says whether want appears in states as a subsequence.
func inOrder(states []observe.EndpointState, want ...observe.EndpointState) bool {
	i := 0
	for _, s := range states {
		if i < len(want) && s == want[i] {
			i++
		}
	}
	return i == len(want)
}
