package restart

import (
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	ginkgotypes "github.com/onsi/ginkgo/v2/types"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/types"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	. "github.com/podlifecycle/conformance/framework/match"
	"github.com/podlifecycle/conformance/framework/observe"
	"github.com/podlifecycle/conformance/framework/suite"
)

// Scenarios of RS-2: a pod named "policy" under the given restart policy.
type scenario func(policy corev1.RestartPolicy) *corev1.Pod

func exits(code string) scenario {
	return func(policy corev1.RestartPolicy) *corev1.Pod {
		return pod("policy", policy, container("main", "mark start; exit "+code))
	}
}

// oneOfTwoFails: "other" outlives several restarts of "main", then exits 0.
func oneOfTwoFails(policy corev1.RestartPolicy) *corev1.Pod {
	return pod("policy", policy, container("main", "mark start; exit 1"), container("other", "mark start; sleep 8; exit 0"))
}

// oomKilled: "main" starts a child that grows until it reaches main's own 16Mi limit;
// once the kernel has killed it, main waits oomReportWindow and exits with the
// child's status (137), as the Kubernetes node e2e OOM test's `sh -c "... && dd ..."`
// does.
//
// Why main outlives its child: containerd 2.4's shim learns of an OOM kill from the
// cgroup's eventfd, and drops the event when, by the time its goroutine reads it,
// the container's cgroup is gone (pkg/oom/v1: `cg.State() == Deleted`); with the
// systemd cgroup driver the container's scope is removed as soon as its last process
// exits, and the CRI's fallback on exit (the cgroup's oom_kill counter) then finds no
// cgroup either ("failed to get metrics ... no metrics received"). An OOM kill is
// then reported as Error, exit 137: CI saw it on a loaded machine, and holding the
// pod's shim stopped across the kill reproduces it every time with a main that
// exits at once, never with one that waits. The docs' outcome is about a container
// the OOM killer hit; the wait only lets the runtime see that it did.
//
// The init container sizes the pod's memory cgroup. With "main" alone, the kubelet
// gives the pod cgroup the same 16Mi limit as the container, and the pause
// container's pages are charged there too, so the kernel OOM-kills at the pod's
// cgroup first (oom_memcg = the pod slice in the kernel log, on this project's
// cgroup v1 host). The pod's limit is max(init limits, sum of app limits), so a 64Mi
// init limit makes the kill happen in main's own cgroup, which is what the docs
// describe.
func oomKilled(policy corev1.RestartPolicy) *corev1.Pod {
	// tail buffers an endless line: its memory grows until it is killed.
	c := container("main", fmt.Sprintf("mark start; tail /dev/zero; status=$?; sleep %d; exit $status", int(oomReportWindow.Seconds())))
	c.Resources.Limits = corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("16Mi")}
	p := pod("policy", policy, c)
	sizer := corev1.Container{Name: "size-pod-cgroup", Image: "busybox:1.28", Command: []string{"true"},
		Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("64Mi")}}}
	p.Spec.InitContainers = []corev1.Container{sizer}
	return p
}

// oomKilledAtOnce is oomKilled without the wait: main's own process is the one that
// grows, so the container exits at the kill.
func oomKilledAtOnce(name string) *corev1.Pod {
	p := oomKilled(corev1.RestartPolicyNever)
	p.Name = name
	p.Spec.Containers[0].Command = []string{"sh", "-c", observe.MarkShell("main") + "mark start; exec tail /dev/zero"}
	return p
}

// oomRacePods is how many pods the race is measured on; oomRaceBound how long each
// may take to be killed and reported once started (a 16Mi limit is reached in well
// under a second; the status comes within the next relist).
const (
	oomRacePods  = 6
	oomRaceBound = 20 * time.Second
)

// oomReportWindow is how long main stays after its child's OOM kill, so that the
// runtime's shim reads the OOM event while the cgroup still exists (see oomKilled).
// The shim's reader is runnable from the kill on; in CI's failure the exit was
// handled 0.1 s after the kill with the event still unread, and 5 s is fifty times
// that.
const oomReportWindow = 5 * time.Second

var (
	restarted = func(reason string) types.GomegaMatcher {
		return restartedAfter("main", reason, HavePhase(corev1.PodRunning))
	}
	notRestarted = func(phase corev1.PodPhase, reason string) types.GomegaMatcher {
		return latestIs(And(HavePhase(phase), HaveContainerRestarts("main", 0), HaveContainerState("main", "Terminated", reason)))
	}
)

var _ = Describe("Restart policy", func() {
	It("defaults to Always", Label("RS-1"), suite.Timeout(podStartBound+firstRestartBound), func(ctx SpecContext) {
		ns := env.Namespace(ctx)
		p := pod("no-policy", "", container("main", "mark start; exit 0"))
		tl := env.Run(ctx, ns, p)
		created, err := env.Client.CoreV1().Pods(ns).Get(ctx, p.Name, metav1.GetOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(created.Spec.RestartPolicy).To(Equal(corev1.RestartPolicyAlways))
		Eventually(tl.Pods).WithContext(ctx).WithTimeout(podStartBound+firstRestartBound).Should(restarted("Completed"),
			"an exit 0 is restarted, as Always does")
	})

	// "possible values Always, OnFailure and Never": each of them accepted, and the set's
	// edges refused (a value of no class, and a member's spelling in another case, since
	// the API's enum is case-sensitive). A server-side dry run validates and defaults
	// the pod as a create does, and nothing runs.
	DescribeTable("takes only the values Always, OnFailure and Never",
		Label("RS-1"), func(ctx SpecContext, policy corev1.RestartPolicy, accepted bool) {
			ns := env.Namespace(ctx)
			p := pod("policy-value", policy, container("main", "exit 0"))
			created, err := env.Client.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
			if !accepted {
				Expect(apierrors.IsInvalid(err)).To(BeTrue(), "RS-1: restartPolicy %q is none of Always, OnFailure, Never: want 422 Invalid, got %v", policy, err)
				Expect(err.Error()).To(ContainSubstring("spec.restartPolicy"), "the refusal names the field")
				return
			}
			Expect(err).NotTo(HaveOccurred(), "RS-1: restartPolicy %q is one of the documented values", policy)
			want := policy
			if want == "" {
				want = corev1.RestartPolicyAlways
			}
			Expect(created.Spec.RestartPolicy).To(Equal(want))
		},
		Entry("Always", suite.Timeout(10*time.Second), corev1.RestartPolicyAlways, true),
		Entry("OnFailure", suite.Timeout(10*time.Second), corev1.RestartPolicyOnFailure, true),
		Entry("Never", suite.Timeout(10*time.Second), corev1.RestartPolicyNever, true),
		Entry("unset: Always", suite.Timeout(10*time.Second), corev1.RestartPolicy(""), true),
		Entry("Sometimes: refused", suite.Timeout(10*time.Second), corev1.RestartPolicy("Sometimes"), false),
		Entry("always, in lower case: refused", suite.Timeout(10*time.Second), corev1.RestartPolicy("always"), false),
	)

	// The table's body waits once, for every entry: the pod's start and its first
	// restart, plus, for an OOM kill, the container's oomReportWindow after it (a 16Mi
	// limit is reached in well under a second). entry gives that wait to the body and,
	// as its SpecTimeout, to Ginkgo.
	exitBound, oomBound := podStartBound+firstRestartBound, podStartBound+oomReportWindow+firstRestartBound
	entry := func(description string, bound time.Duration, policy corev1.RestartPolicy, build scenario, want types.GomegaMatcher) TableEntry {
		// The caller's location, so that each entry reports its own line, not this one.
		return Entry(description, ginkgotypes.NewCodeLocation(1), suite.Timeout(bound), policy, build, bound, want)
	}
	DescribeTable("decides by exit code whether a container restarts, and the pod phase follows",
		Label("RS-2"), func(ctx SpecContext, policy corev1.RestartPolicy, build scenario, bound time.Duration, want types.GomegaMatcher) {
			ns := env.Namespace(ctx)
			tl := env.Run(ctx, ns, build(policy))
			// Restarts come at once after the first exit; terminal phases follow the exits.
			Eventually(tl.Pods).WithContext(ctx).WithTimeout(bound).Should(want)
		},
		entry("exit 0, Always: restarted, Running", exitBound, corev1.RestartPolicyAlways, exits("0"), restarted("Completed")),
		entry("exit 0, OnFailure: Succeeded", exitBound, corev1.RestartPolicyOnFailure, exits("0"), notRestarted(corev1.PodSucceeded, "Completed")),
		entry("exit 0, Never: Succeeded", exitBound, corev1.RestartPolicyNever, exits("0"), notRestarted(corev1.PodSucceeded, "Completed")),
		entry("exit 1, Always: restarted, Running", exitBound, corev1.RestartPolicyAlways, exits("1"), restarted("Error")),
		entry("exit 1, OnFailure: restarted, Running", exitBound, corev1.RestartPolicyOnFailure, exits("1"), restarted("Error")),
		entry("exit 1, Never: Failed", exitBound, corev1.RestartPolicyNever, exits("1"), notRestarted(corev1.PodFailed, "Error")),
		entry("one of two exits 1, Always: it restarts, Running", exitBound, corev1.RestartPolicyAlways, scenario(oneOfTwoFails), And(restarted("Error"), latestIs(HaveContainerRestarts("other", 0)))),
		entry("one of two exits 1, OnFailure: it restarts, Running", exitBound, corev1.RestartPolicyOnFailure, scenario(oneOfTwoFails), And(restarted("Error"), latestIs(HaveContainerRestarts("other", 0)))),
		entry("OOM-killed, Always: restarted, Running", oomBound, corev1.RestartPolicyAlways, scenario(oomKilled), restarted("OOMKilled")),
		entry("OOM-killed, OnFailure: restarted, Running", oomBound, corev1.RestartPolicyOnFailure, scenario(oomKilled), restarted("OOMKilled")),
		entry("OOM-killed, Never: Failed", oomBound, corev1.RestartPolicyNever, scenario(oomKilled), notRestarted(corev1.PodFailed, "OOMKilled")),
	)

	// The race oomKilled avoids, measured: a container whose process 1 is the one the
	// OOM killer hits exits at the kill, and the runtime reports OOMKilled only when its
	// shim reads the OOM event before the container's cgroup is removed. How often
	// that happens unforced depends on the run's load (3 of 5 pods in one loaded run,
	// 0 of 6 in the next), so it is recorded here as a frequency and decides no
	// verdict: the spec of oomrace_test.go forces the race and decides RS-2's drift
	// on it the same way every run. Policy Never: each pod's one kill is its last.
	It("reports an OOM kill as OOMKilled also when the killed process is the container's own (the runtime's race, its frequency measured)",
		Label("RS-2"), suite.Timeout(oomRacePods*(podStartBound+oomRaceBound)), func(ctx SpecContext) {
			ns := env.Namespace(ctx)
			reasons := map[string]int{}
			// One pod after another: six memory cgroups made at once on a cgroup v1 host
			// made runc fail to freeze one of them at create ("unable to freeze"), a
			// start error that is not the race.
			for i := range oomRacePods {
				tl := env.Run(ctx, ns, oomKilledAtOnce(fmt.Sprintf("oom-race-%d", i)))
				// Failed with its one container terminated by the kill (137 = 128 + SIGKILL),
				// not restarted, as Never says, whatever the reason reads.
				Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound+oomRaceBound).Should(And(
					HavePhase(corev1.PodFailed), HaveContainerRestarts("main", 0)), "RS-2:\n%s", tl)
				st := tl.Pod().Status.ContainerStatuses[0].State.Terminated
				Expect(st).NotTo(BeNil())
				Expect(st.ExitCode).To(BeEquivalentTo(137), "RS-2: the OOM killer's SIGKILL ends the container:\n%s", tl)
				reasons[st.Reason]++
			}
			AddReportEntry("OOM kills of a container's own process, unforced: reasons reported (a frequency under this run's load; the forced race decides the drift)",
				fmt.Sprintf("%d of %d reported OOMKilled: %v", reasons["OOMKilled"], oomRacePods, reasons))
		})

	It("under Never, keeps the pod Running while the other container runs, and Failed once all have exited", Label("RS-2"), suite.Timeout(podStartBound, 8*time.Second+10*time.Second), func(ctx SpecContext) {
		ns := env.Namespace(ctx)
		p := oneOfTwoFails(corev1.RestartPolicyNever)
		p.Name = "one-fails-never"
		tl := env.Run(ctx, ns, p)
		Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound).Should(And(
			HaveContainerState("main", "Terminated", "Error"), HaveContainerState("other", "Running", "")))
		Expect(tl.Pod()).To(HavePhase(corev1.PodRunning))
		// "other" sleeps 8 s after it starts.
		Eventually(tl.Pod).WithContext(ctx).WithTimeout(8*time.Second + 10*time.Second).Should(HavePhase(corev1.PodFailed))
		Expect(tl.Pod()).To(And(HaveContainerRestarts("main", 0), HaveContainerState("other", "Terminated", "Completed")))
		Expect(tl.Phases()).To(Equal([]corev1.PodPhase{corev1.PodPending, corev1.PodRunning, corev1.PodFailed}))
	})
})
