package profiles

import (
	"fmt"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"

	"github.com/podlifecycle/conformance/framework/backoff"
	"github.com/podlifecycle/conformance/framework/cluster"
	"github.com/podlifecycle/conformance/framework/facts"
)

const s = time.Second

var _ = Describe("Crash-loop backoff", func() {
	It("with ReduceDefaultCrashLoopBackOffDecay starts at 1 s and doubles", Label("RS-12", "ReduceDefaultCrashLoopBackOffDecay"), func(ctx SpecContext) {
		env.Require(facts.KubeletGate("ReduceDefaultCrashLoopBackOffDecay", true, "reduced-decay"))
		recordSettings("reduced-decay")
		backoff.Check(ctx, env, "reduced-decay", backoff.Expected(1*s, 60*s, 6))
	})

	// The reduced-decay worker sets no maxContainerRestartPeriod and leaves
	// KubeletCrashLoopBackOffMax at its default (on): the docs' "cluster defaults" of
	// RS-14 as well as RS-12's cap. The v1.37.2 kubelet defaults the period to 300 s
	// whenever KubeletCrashLoopBackOffMax is on (pkg/kubelet/apis/config/v1beta1/
	// defaults.go) and newCrashLoopBackOff lets it replace the reduced 60 s maximum, so
	// on v1.37.2 this fails with delays that go on doubling past 60 s.
	It("with ReduceDefaultCrashLoopBackOffDecay and no maxContainerRestartPeriod set is capped at 60 s", Label("RS-12", "RS-14", "ReduceDefaultCrashLoopBackOffDecay", "KubeletCrashLoopBackOffMax", "Slow"), func(ctx SpecContext) {
		env.Require(facts.KubeletGate("ReduceDefaultCrashLoopBackOffDecay", true, "reduced-decay"), facts.KubeletGate("KubeletCrashLoopBackOffMax", true, "reduced-decay"))
		recordSettings("reduced-decay")
		backoff.Check(ctx, env, "reduced-decay", backoff.Expected(1*s, 60*s, 9)) // …32 s, 60 s, 60 s
	})

	// Where KubeletCrashLoopBackOffMax is off the kubelet keeps the reduced 60 s maximum
	// (newCrashLoopBackOff): RS-12 holds on its own; with the cap spec above this pins
	// the 60 s cap's absence on the reduced-decay worker to the other gate.
	It("with ReduceDefaultCrashLoopBackOffDecay and KubeletCrashLoopBackOffMax off is capped at 60 s", Label("RS-12", "ReduceDefaultCrashLoopBackOffDecay", "KubeletCrashLoopBackOffMax", "Slow"), func(ctx SpecContext) {
		env.Require(facts.KubeletGate("ReduceDefaultCrashLoopBackOffDecay", true, "reduced-decay-only"), facts.KubeletGate("KubeletCrashLoopBackOffMax", false, "reduced-decay-only"))
		recordSettings("reduced-decay-only")
		backoff.Check(ctx, env, "reduced-decay-only", backoff.Expected(1*s, 60*s, 9)) // …32 s, 60 s, 60 s
	})

	It("with maxContainerRestartPeriod 2s waits 2 s before every restart", Label("RS-13", "KubeletCrashLoopBackOffMax"), func(ctx SpecContext) {
		env.Require(facts.KubeletGate("KubeletCrashLoopBackOffMax", true, "max-2s"), facts.KubeletMaxRestartPeriod("max-2s", "2s"))
		recordSettings("max-2s")
		backoff.Check(ctx, env, "max-2s", backoff.Expected(10*s, 2*s, 5))
	})

	It("with maxContainerRestartPeriod 100s starts at 10 s, doubles and is capped at 100 s", Label("RS-13", "KubeletCrashLoopBackOffMax", "Slow"), func(ctx SpecContext) {
		env.Require(facts.KubeletGate("KubeletCrashLoopBackOffMax", true, "max-100s"), facts.KubeletMaxRestartPeriod("max-100s", "100s"))
		recordSettings("max-100s")
		backoff.Check(ctx, env, "max-100s", backoff.Expected(10*s, 100*s, 7)) // 0, 10, 20, 40, 80, 100, 100
	})

	It("with both, starts at 1 s and is capped by the node's 100 s, above the gate's 60 s", Label("RS-14", "ReduceDefaultCrashLoopBackOffDecay", "KubeletCrashLoopBackOffMax", "Slow"), func(ctx SpecContext) {
		env.Require(facts.KubeletGate("ReduceDefaultCrashLoopBackOffDecay", true, "both"), facts.KubeletMaxRestartPeriod("both", "100s"))
		recordSettings("both")
		backoff.Check(ctx, env, "both", backoff.Expected(1*s, 100*s, 10)) // 0, 1, 2, …, 64, 100, 100
	})

	It("with both, starts at 1 s and doubles", Label("RS-14", "ReduceDefaultCrashLoopBackOffDecay", "KubeletCrashLoopBackOffMax"), func(ctx SpecContext) {
		env.Require(facts.KubeletGate("ReduceDefaultCrashLoopBackOffDecay", true, "both"), facts.KubeletMaxRestartPeriod("both", "100s"))
		recordSettings("both")
		backoff.Check(ctx, env, "both", backoff.Expected(1*s, 100*s, 5))
	})
})

// recordSettings puts the kubelet's backoff settings on the profile's worker into the
// report, as the kubelet itself reports them (kubernetes_feature_enabled, /configz):
// the delays depend on both gates and on maxContainerRestartPeriod, which the kubelet
// defaults to 300 s whenever KubeletCrashLoopBackOffMax is on.
func recordSettings(profile string) {
	var lines []string
	for _, n := range env.Facts.NodesWithLabel(cluster.ProfileLabel, profile) {
		lines = append(lines, fmt.Sprintf("%s: ReduceDefaultCrashLoopBackOffDecay=%t KubeletCrashLoopBackOffMax=%t crashLoopBackOff.maxContainerRestartPeriod=%q",
			n.Name, n.KubeletGates["ReduceDefaultCrashLoopBackOffDecay"], n.KubeletGates["KubeletCrashLoopBackOffMax"],
			n.KubeletConfig.CrashLoopBackOff.MaxContainerRestartPeriod))
	}
	AddReportEntry("kubelet backoff settings on "+profile, strings.Join(lines, "\n"))
}
