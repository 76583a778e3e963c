package suite

import (
	"fmt"
	"os"
	"time"

	. "github.com/onsi/ginkgo/v2"

	"github.com/podlifecycle/conformance/framework/entries"
	"github.com/podlifecycle/conformance/framework/sidebyside"
)

// Specs run in parallel (`make e2e` runs Ginkgo with several processes): most of
// them wait for kubelet timers, not for the CPU. A spec whose timing assertions are
// tighter than what its neighbours' load can add runs Serial instead, alone after the
// parallel ones.
//
// LoadLatency is how much the parallel load lengthened a span that containers time
// with their own millisecond markers, measured on this project's 2-core machine: the
// suites run with four Ginkgo processes against the same suites run one spec at a
// time (CI at 1c5d868), 32–33 spans compared (probe intervals and timeouts,
// TERM→SIGKILL, preStop and sidecar spans): at most +80 ms with the clusters made one
// after another (8965a95), at most +120 ms (+102 ms at the 90th percentile) with both
// clusters up from the start (97dbb57, the backoff-profiles cluster idling beside the
// default one's suites). Crash-loop loops measure their own overhead (backoff.Loop):
// their first restart o₀ grew by up to 730 ms and stayed 2.3 s inside its bound.
const LoadLatency = 120 * time.Millisecond

// Quiet is the decorator of a spec that needs the machine to itself: Serial (alone
// after the parallel specs of its suite), and labelled QuietLabel so that make e2e,
// which runs the other specs of every suite side by side, runs these after them, one
// suite after another. Every Serial spec of the suites is Quiet (a unit test holds it).
var Quiet = []any{Serial, Label(entries.QuietLabel)}

// TimedWithin is the decorator of a spec whose tightest timing tolerance is
// tolerance: Quiet when the tolerance is below twice LoadLatency (the worst case
// measured, doubled for neighbours heavier than those of the measured run), so that
// its bounds hold as they were set, for a machine doing only that spec; no decorator
// otherwise.
func TimedWithin(tolerance time.Duration) any {
	if tolerance < 2*LoadLatency {
		return Quiet
	}
	return Labels{}
}

// refuseSerialSideBySide fails every Serial spec of a suite that runs side by side
// with others (sidebyside.EnvVar set): those suites share its clusters and its
// machine, so Serial would no longer mean alone. make e2e leaves the Quiet specs out
// of its side-by-side run and runs them after it; a Serial spec that is not Quiet
// fails here instead of running with its assumption broken.
func refuseSerialSideBySide() {
	together := os.Getenv(sidebyside.EnvVar)
	if together == "" {
		return
	}
	BeforeEach(func() {
		if CurrentSpecReport().IsSerial {
			Fail(fmt.Sprintf("this spec is Serial, but its suite runs side by side with the suites %s, which share "+
				"its clusters and machine; decorate it suite.Quiet, which make e2e runs after the others, or stop it being Serial", together))
		}
	})
}
