package profiles

import (
	"time"

	. "github.com/onsi/ginkgo/v2"

	"github.com/podlifecycle/conformance/framework/backoff"
	"github.com/podlifecycle/conformance/framework/facts"
)

const s = time.Second

var _ = Describe("Crash-loop backoff", func() {
	It("with ReduceDefaultCrashLoopBackOffDecay starts at 1 s and doubles", Label("RS-12", "ReduceDefaultCrashLoopBackOffDecay"), func(ctx SpecContext) {
		env.Require(facts.KubeletGate("ReduceDefaultCrashLoopBackOffDecay", true, "reduced-decay"))
		backoff.Check(ctx, env, "reduced-decay", backoff.Expected(1*s, 60*s, 6))
	})

	It("with ReduceDefaultCrashLoopBackOffDecay is capped at 60 s", Label("RS-12", "ReduceDefaultCrashLoopBackOffDecay", "Slow"), func(ctx SpecContext) {
		env.Require(facts.KubeletGate("ReduceDefaultCrashLoopBackOffDecay", true, "reduced-decay"))
		backoff.Check(ctx, env, "reduced-decay", backoff.Expected(1*s, 60*s, 9)) // …32 s, 60 s, 60 s
	})

	It("with maxContainerRestartPeriod 2s waits 2 s before every restart", Label("RS-13", "KubeletCrashLoopBackOffMax"), func(ctx SpecContext) {
		env.Require(facts.KubeletGate("KubeletCrashLoopBackOffMax", true, "max-2s"), facts.KubeletMaxRestartPeriod("max-2s", "2s"))
		backoff.Check(ctx, env, "max-2s", backoff.Expected(10*s, 2*s, 5))
	})

	It("with maxContainerRestartPeriod 100s starts at 10 s, doubles and is capped at 100 s", Label("RS-13", "KubeletCrashLoopBackOffMax", "Slow"), func(ctx SpecContext) {
		env.Require(facts.KubeletGate("KubeletCrashLoopBackOffMax", true, "max-100s"), facts.KubeletMaxRestartPeriod("max-100s", "100s"))
		backoff.Check(ctx, env, "max-100s", backoff.Expected(10*s, 100*s, 7)) // 0, 10, 20, 40, 80, 100, 100
	})

	It("with both, starts at 1 s and is capped by the node's 100 s, above the gate's 60 s", Label("RS-14", "ReduceDefaultCrashLoopBackOffDecay", "KubeletCrashLoopBackOffMax", "Slow"), func(ctx SpecContext) {
		env.Require(facts.KubeletGate("ReduceDefaultCrashLoopBackOffDecay", true, "both"), facts.KubeletMaxRestartPeriod("both", "100s"))
		backoff.Check(ctx, env, "both", backoff.Expected(1*s, 100*s, 10)) // 0, 1, 2, …, 64, 100, 100
	})

	It("with both, starts at 1 s and doubles", Label("RS-14", "ReduceDefaultCrashLoopBackOffDecay", "KubeletCrashLoopBackOffMax"), func(ctx SpecContext) {
		env.Require(facts.KubeletGate("ReduceDefaultCrashLoopBackOffDecay", true, "both"), facts.KubeletMaxRestartPeriod("both", "100s"))
		backoff.Check(ctx, env, "both", backoff.Expected(1*s, 100*s, 5))
	})
})
