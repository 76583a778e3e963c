package termination

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/podlifecycle/conformance/framework/facts"
	. "github.com/podlifecycle/conformance/framework/match"
	"github.com/podlifecycle/conformance/framework/observe"
	"github.com/podlifecycle/conformance/framework/suite"
)

// StopSignalUSR1Image is busybox:1.28 with `STOPSIGNAL SIGUSR1` (images/build.sh).
const StopSignalUSR1Image = "podlifecycle/busybox-stopsignal-usr1:1"

var _ = Describe("Stop signal", func() {
	It("is the image's STOPSIGNAL instead of TERM", Label("TM-6"), suite.Timeout(runningBound, stopBound(10*time.Second), logEndBound), func(ctx SpecContext) {
		ns := env.Namespace(ctx)
		main := stopper("main", map[string]string{"USR1": exitNow})
		main.Image = StopSignalUSR1Image
		pod := env.Hold(ns, stoppingPod("image-stopsignal", seconds(10), main))
		tl := env.Run(ctx, ns, pod)
		f := running(ctx, ns, tl, "main")

		_, log := deleteAndWait(ctx, ns, tl, f, nil, stopBound(10*time.Second))
		Expect(log).To(HaveMarked(observe.SignalTo("main", "USR1")), "TM-6: the runtime sends the image's STOPSIGNAL")
		Expect(log).NotTo(HaveMarked(observe.SignalTo("main", "TERM")), "TM-6: … instead of TERM")
		Expect(exitCode(tl.Pod(), "main")).To(BeEquivalentTo(0), "the container exited on its stop signal, not by SIGKILL")
	})

	It("set in lifecycle.stopSignal is dropped by an API server without ContainerStopSignals", Label("TM-7"), suite.Timeout(runningBound, stopBound(10*time.Second), logEndBound), func(ctx SpecContext) {
		env.Require(facts.APIServerGate("ContainerStopSignals", false))
		ns := env.Namespace(ctx)
		// The docs' stopSignal example, on busybox.
		main := stopper("my-container", map[string]string{"TERM": exitNow, "USR1": exitNow})
		main.Lifecycle = &corev1.Lifecycle{StopSignal: ptr.To(corev1.SIGUSR1)}
		pod := env.Hold(ns, stoppingPod("stop-signal-gate-off", seconds(10), main))
		pod.Spec.OS = &corev1.PodOS{Name: corev1.Linux}
		tl := env.Run(ctx, ns, pod)
		f := running(ctx, ns, tl, "my-container")
		Expect(tl.Pod().Spec.Containers[0].Lifecycle).To(Or(BeNil(), HaveField("StopSignal", BeNil())),
			"TM-7: with the gate off the API server drops lifecycle.stopSignal")

		_, log := deleteAndWait(ctx, ns, tl, f, nil, stopBound(10*time.Second))
		Expect(log).To(HaveMarked(observe.SignalTo("my-container", "TERM")), "without the field, the runtime's default TERM")
		Expect(log).NotTo(HaveMarked(observe.SignalTo("my-container", "USR1")))
	})
})
