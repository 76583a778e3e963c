package profiles

import (
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"

	"github.com/podlifecycle/conformance/framework/backoff"
	"github.com/podlifecycle/conformance/framework/crashloop"
	"github.com/podlifecycle/conformance/framework/drift"
	"github.com/podlifecycle/conformance/framework/facts"
	"github.com/podlifecycle/conformance/framework/suite"
)

// checkBound is how long crashloop.Check waits for n delays on a node with settings
// s: the pod's start and the loop's budget (CheckLoop's one Eventually). A spec's
// timeout takes the settings it picks its node for (NodeFor's gates, Require's
// maxContainerRestartPeriod), because Check reads the node's own only when it runs.
func checkBound(s backoff.Settings, n int) time.Duration {
	return suite.PodStartBound + backoff.Budget(s.Expected(n))
}

// Each spec needs the kubelet settings of its statement (a worker of
// kind-configs/backoff-profiles.yaml made for it, or any node whose gates and /configz
// fit) and checks the delays the docs give for the settings in force on that node
// (backoff.Settings.Documented), which the report names with the measured delays.
var _ = Describe("Crash-loop backoff", func() {
	// Seven delays, to 32 s: the one delay long enough that a kubelet whose delays are
	// all 20 % longer (38.4 s) falls outside the model's 3.5 s late tolerance; up to
	// 16 s (19.2 s) it stays inside, and the whole-loop rule resolves only 40 % there.
	It("with ReduceDefaultCrashLoopBackOffDecay starts at 1 s and doubles", suite.LongRunning, Label("RS-12", "ReduceDefaultCrashLoopBackOffDecay"), suite.Timeout(checkBound(backoff.Settings{ReduceDefaultDecay: true}, 7)), func(ctx SpecContext) {
		node := env.NodeFor("reduced-decay", map[string]bool{"ReduceDefaultCrashLoopBackOffDecay": true})
		crashloop.Check(ctx, env, "RS-12", node, 7) // 0, 1, 2, 4, 8, 16, 32 s
	})

	// The reduced-decay worker sets no maxContainerRestartPeriod and leaves
	// KubeletCrashLoopBackOffMax at its default (on): the docs' "cluster defaults" of
	// RS-14 as well as RS-12's cap. The v1.37.2 kubelet defaults the period to 300 s
	// whenever KubeletCrashLoopBackOffMax is on (pkg/kubelet/apis/config/v1beta1/
	// defaults.go) and newCrashLoopBackOff lets it replace the reduced 60 s maximum, so
	// on v1.37.2 this fails with delays that go on doubling past 60 s.
	It("with ReduceDefaultCrashLoopBackOffDecay and no maxContainerRestartPeriod set is capped at 60 s", Label("RS-12", "RS-14", "ReduceDefaultCrashLoopBackOffDecay", "KubeletCrashLoopBackOffMax", "Slow"), suite.Timeout(suite.PodStartBound+backoff.Budget(backoff.Expected(time.Second, 300*time.Second, 9))), func(ctx SpecContext) {
		node := env.NodeFor("reduced-decay", map[string]bool{"ReduceDefaultCrashLoopBackOffDecay": true, "KubeletCrashLoopBackOffMax": true})
		expected := backoff.SettingsOf(node).Expected(9) // …32 s, 60 s, 60 s
		tl := env.Run(ctx, env.Namespace(ctx), crashloop.CrashLooper(node))
		// The budget of the doubling without a cap (…64 s, 128 s), so that the loop is
		// measured whichever cap the kubelet applies.
		uncapped := backoff.Expected(time.Second, 300*time.Second, 9)
		loop := crashloop.MeasureLoop(ctx, env, tl, 9, backoff.Budget(uncapped))
		measured := loop.Delays
		// The ninth delay tells the two apart: 60 s under the pages' cap, 128 s under
		// the 300 s default. Answered before RS-12 and RS-14 are checked.
		suite.Answer(drift.Question[time.Duration]{
			Topic:    "the reduced decay's cap where KubeletCrashLoopBackOffMax is on",
			Claims:   map[string]time.Duration{"capped-at-60s": expected[8], "release-default-300s": uncapped[8]},
			Measured: measured[8],
			Same:     func(claimed, measured time.Duration) bool { return backoff.Within(measured, claimed) },
			Evidence: fmt.Sprintf("delays on %s: %v", crashloop.NodeAndSettings(node), measured),
		})
		crashloop.CheckDelays(tl, "RS-12/RS-14", crashloop.NodeAndSettings(node), expected, loop)
	})

	// Where KubeletCrashLoopBackOffMax is off the kubelet keeps the reduced 60 s maximum
	// (newCrashLoopBackOff): RS-12 holds on its own; with the cap spec above this pins
	// the 60 s cap's absence on the reduced-decay worker to the other gate.
	It("with ReduceDefaultCrashLoopBackOffDecay and KubeletCrashLoopBackOffMax off is capped at 60 s", Label("RS-12", "ReduceDefaultCrashLoopBackOffDecay", "KubeletCrashLoopBackOffMax", "Slow"), suite.Timeout(checkBound(backoff.Settings{ReduceDefaultDecay: true}, 9)), func(ctx SpecContext) {
		node := env.NodeFor("reduced-decay-only", map[string]bool{"ReduceDefaultCrashLoopBackOffDecay": true, "KubeletCrashLoopBackOffMax": false})
		crashloop.Check(ctx, env, "RS-12", node, 9) // …32 s, 60 s, 60 s
	})

	It("with maxContainerRestartPeriod 2s waits 2 s before every restart", Label("RS-13", "KubeletCrashLoopBackOffMax"), suite.Timeout(checkBound(backoff.Settings{MaxPeriodGate: true, MaxPeriod: 2 * time.Second}, 5)), func(ctx SpecContext) {
		env.Require(facts.KubeletMaxRestartPeriod("max-2s", "2s"))
		node := env.NodeFor("max-2s", map[string]bool{"KubeletCrashLoopBackOffMax": true})
		crashloop.Check(ctx, env, "RS-13", node, 5) // 0, 2 s, 2 s, 2 s, 2 s
	})

	// "Delays still start at 10 s and double" under a cap above them, without Slow: the
	// first four delays, as RS-6's loop on default settings (a kubelet whose delays start
	// at 11 s, or grow by 2.2, is out of the loop's bound there). Quiet: beside the
	// profiles' other loops (the kill matrix's stock run of 2026-12-06, load average 44)
	// the kubelet's call for the restart at once came 6.2 s after the exit, the runtime
	// having handled the exit in 40 ms: the kubelet's own sync starved, past the 4.5 s
	// that a restart whose exit no status showed is allowed.
	It("with maxContainerRestartPeriod 100s starts at 10 s and doubles", suite.LongRunning, suite.Quiet, Label("RS-13", "KubeletCrashLoopBackOffMax"), suite.Timeout(checkBound(backoff.Settings{MaxPeriodGate: true, MaxPeriod: 100 * time.Second}, 4)), func(ctx SpecContext) {
		env.Require(facts.KubeletMaxRestartPeriod("max-100s", "100s"))
		node := env.NodeFor("max-100s", map[string]bool{"KubeletCrashLoopBackOffMax": true})
		crashloop.Check(ctx, env, "RS-13", node, 4) // 0, 10, 20, 40 s
	})

	It("with maxContainerRestartPeriod 100s starts at 10 s, doubles and is capped at 100 s", Label("RS-13", "KubeletCrashLoopBackOffMax", "Slow"), suite.Timeout(checkBound(backoff.Settings{MaxPeriodGate: true, MaxPeriod: 100 * time.Second}, 7)), func(ctx SpecContext) {
		env.Require(facts.KubeletMaxRestartPeriod("max-100s", "100s"))
		node := env.NodeFor("max-100s", map[string]bool{"KubeletCrashLoopBackOffMax": true})
		crashloop.Check(ctx, env, "RS-13", node, 7) // 0, 10, 20, 40, 80, 100, 100
	})

	It("with both, starts at 1 s and is capped by the node's 100 s, above the gate's 60 s", Label("RS-14", "ReduceDefaultCrashLoopBackOffDecay", "KubeletCrashLoopBackOffMax", "Slow"), suite.Timeout(checkBound(backoff.Settings{ReduceDefaultDecay: true, MaxPeriodGate: true, MaxPeriod: 100 * time.Second}, 10)), func(ctx SpecContext) {
		env.Require(facts.KubeletMaxRestartPeriod("both", "100s"))
		node := env.NodeFor("both", map[string]bool{"ReduceDefaultCrashLoopBackOffDecay": true, "KubeletCrashLoopBackOffMax": true})
		crashloop.Check(ctx, env, "RS-14", node, 10) // 0, 1, 2, …, 64, 100, 100
	})

	// To 32 s, as RS-12's: a 20 % longer backoff is out of the model at the seventh delay.
	It("with both, starts at 1 s and doubles", suite.LongRunning, Label("RS-14", "ReduceDefaultCrashLoopBackOffDecay", "KubeletCrashLoopBackOffMax"), suite.Timeout(checkBound(backoff.Settings{ReduceDefaultDecay: true, MaxPeriodGate: true, MaxPeriod: 100 * time.Second}, 7)), func(ctx SpecContext) {
		env.Require(facts.KubeletMaxRestartPeriod("both", "100s"))
		node := env.NodeFor("both", map[string]bool{"ReduceDefaultCrashLoopBackOffDecay": true, "KubeletCrashLoopBackOffMax": true})
		crashloop.Check(ctx, env, "RS-14", node, 7) // 0, 1, 2, 4, 8, 16, 32 s
	})
})
