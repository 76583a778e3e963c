package restart

import (
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"

	"github.com/podlifecycle/conformance/framework/backoff"
	"github.com/podlifecycle/conformance/framework/crashloop"
	"github.com/podlifecycle/conformance/framework/drift"
	"github.com/podlifecycle/conformance/framework/observe"
	"github.com/podlifecycle/conformance/framework/suite"
)

var _ = Describe("Crash-loop backoff across a good run", suite.LongRunning, func() {
	// The old Chinese article resets the backoff after a successful restart; the
	// current pages only after some 10 minutes of trouble-free running (RS-7). The
	// crasher's third run lasts 15 s and every other exits at once: the delay after it
	// is the first one's (at once) if a good restart resets the backoff, and the third
	// doubling's (20 s by default) if only 10 minutes do. The kubelet forgets a
	// backoff only when its last restart is more than twice the maximum delay (600 s)
	// old (kubelet.go, crashLoopBackOff.HasExpiredFunc).
	const goodRun = 15 * time.Second
	It("goes on doubling after a restart that ran well for 15 s: the reset waits for 10 minutes", Label("RS-6"),
		suite.Timeout(crashLoopBound(defaultDelays(3), goodRun)), func(ctx SpecContext) {
			node := defaultBackoffNode()
			expected := defaultDelays(3)
			ns := env.Namespace(ctx)
			pod := crashloop.CrashLooperRunning(node,
				"n=$(cat "+observe.MarkerDir+"/runs 2>/dev/null || echo 0); n=$((n+1)); echo $n > "+observe.MarkerDir+"/runs; "+
					"mark start; if [ $n -eq 3 ]; then sleep "+fmt.Sprint(int(goodRun.Seconds()))+"; fi; mark exit; exit 1")
			tl := env.Run(ctx, ns, pod)
			loop := crashloop.MeasureLoop(ctx, env, tl, len(expected), backoff.Budget(expected)+goodRun)
			measured := loop.Delays

			// Answered before anything is asserted: either page may be the one confirmed.
			suite.Answer(drift.Question[time.Duration]{
				Topic: "backoff reset",
				Claims: map[string]time.Duration{
					"after-a-successful-restart": expected[0],
					"after-ten-minutes":          expected[2],
				},
				Measured: measured[2],
				Same:     func(claimed, measured time.Duration) bool { return backoff.Within(measured, claimed) },
				Evidence: fmt.Sprintf("delays after each exit %v (the third after a %s run); the documented ones %v\n%s", measured, goodRun, expected, tl),
			})
			// RS-6: repeated crashes get the doubled delays; a 15 s run between them is not
			// the trouble-free period that resets the backoff.
			crashloop.CheckDelays(tl, "RS-6", crashloop.NodeAndSettings(node)+", around a 15 s run", expected, loop)
		})
})
