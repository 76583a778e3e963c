package restart

import (
	"time"

	. "github.com/onsi/ginkgo/v2"

	"github.com/podlifecycle/conformance/framework/backoff"
	"github.com/podlifecycle/conformance/framework/facts"
)

var _ = Describe("Crash-loop backoff", func() {
	It("restarts at once after the first crash, then after 10 s, 20 s, 40 s", Label("RS-6", "RS-8"), func(ctx SpecContext) {
		env.Require(facts.KubeletGate("ReduceDefaultCrashLoopBackOffDecay", false, "defaults"))
		backoff.Check(ctx, env, "defaults", backoff.Expected(10*time.Second, 300*time.Second, 4))
	})
})
