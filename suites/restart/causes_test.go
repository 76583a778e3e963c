package restart

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"

	. "github.com/podlifecycle/conformance/framework/match"
	"github.com/podlifecycle/conformance/framework/suite"
)

// RS-19: the pages list what can put a container into CrashLoopBackOff. Each class
// they name that ends a container is tried here: an application error, the two
// configuration errors they give (a wrong environment variable, a configuration file
// that is not there) and a resource limit below the container's need (memory: the
// kernel's OOM kill). The probe classes are PR-10's specs, which carry RS-19 too; a
// CPU limit throttles and never kills, so a CPU shortage loops only through a probe
// or the application's own deadline, both already among the classes.
var _ = Describe("Crash-loop causes", func() {
	// Two crashes: the first is restarted at once, the second waits out a delay, in
	// which the container is Waiting(CrashLoopBackOff). Each takes a pod start and,
	// for the OOM kill, oomReportWindow before main exits.
	crashesBound := 2 * (suite.PodStartBound + oomReportWindow)
	DescribeTable("each of the causes the pages list puts the container into CrashLoopBackOff",
		Label("RS-19"), func(ctx SpecContext, p *corev1.Pod, reason string, exitCode int32) {
			ns := env.Namespace(ctx)
			tl := env.Run(ctx, ns, p)
			Eventually(tl.Pod).WithContext(ctx).WithTimeout(crashesBound).Should(And(
				HaveContainerRestarts("main", BeNumerically(">=", 1)),
				HaveContainerState("main", "Waiting", "CrashLoopBackOff")),
				"RS-19: the container crashes again and again:\n%s", tl)
			last := ContainerStatus(tl.Pod(), "main").LastTerminationState.Terminated
			Expect(last).NotTo(BeNil(), "RS-19: the crash before the backoff:\n%s", tl)
			Expect(last.Reason).To(Equal(reason), "RS-19: the cause, as the status reports it:\n%s", tl)
			Expect(last.ExitCode).To(Equal(exitCode), "RS-19: the exit code:\n%s", tl)
		},
		Entry("an application error: the process exits 1", suite.Timeout(crashesBound),
			pod("app-error", corev1.RestartPolicyAlways, container("main", "mark start; echo 'panic: nil map' >&2; exit 1")),
			"Error", int32(1)),
		Entry("a configuration error: a wrong environment variable", suite.Timeout(crashesBound),
			wrongEnvironment(), "Error", int32(2)),
		Entry("a configuration error: a configuration file that is not there", suite.Timeout(crashesBound),
			missingConfigFile(), "Error", int32(3)),
		Entry("a resource limit: memory below the container's need", suite.Timeout(crashesBound),
			memoryLimited(), "OOMKilled", int32(137)),
	)
})

// wrongEnvironment: MODE must be production or staging; the pod sets a misspelt one.
func wrongEnvironment() *corev1.Pod {
	c := container("main", `mark start; case "$MODE" in production|staging) exec sleep 3600;; esac; echo "unknown MODE '$MODE'" >&2; exit 2`)
	c.Env = []corev1.EnvVar{{Name: "MODE", Value: "prodution"}}
	return pod("wrong-env", corev1.RestartPolicyAlways, c)
}

// missingConfigFile: the configuration comes from a ConfigMap that is optional and was
// never made, so the volume mounts empty and the file the application reads is missing.
func missingConfigFile() *corev1.Pod {
	c := container("main", "mark start; cat /etc/app/config.yaml || exit 3; exec sleep 3600")
	c.VolumeMounts = []corev1.VolumeMount{{Name: "config", MountPath: "/etc/app"}}
	p := pod("missing-config", corev1.RestartPolicyAlways, c)
	p.Spec.Volumes = []corev1.Volume{{Name: "config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
		LocalObjectReference: corev1.LocalObjectReference{Name: "app-config"}, Optional: ptr(true)}}}}
	return p
}

// memoryLimited is RS-2's oomKilled pod (a child grows past main's 16Mi limit, main
// exits with its status) under restartPolicy Always.
func memoryLimited() *corev1.Pod {
	p := oomKilled(corev1.RestartPolicyAlways)
	p.Name = "memory-limit"
	return p
}
