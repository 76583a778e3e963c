package suite

import (
	"fmt"
	"os"
	"time"

	. "github.com/onsi/ginkgo/v2"

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

// TimedWithin is the decorator of a spec whose tightest timing tolerance is
// tolerance: Serial when the tolerance is below twice LoadLatency (the worst case
// measured, doubled for neighbours heavier than those of the measured run), so that
// its bounds hold as they were set, for a machine doing only that spec; no decorator
// otherwise.
func TimedWithin(tolerance time.Duration) any {
	if tolerance < 2*LoadLatency {
		return Serial
	}
	return Labels{}
}

// refuseSerialSideBySide fails every Serial spec of a suite that runs side by side
// with others (sidebyside.EnvVar set): those suites share its clusters and its
// machine, so Serial would no longer mean alone. make e2e runs only the Slow set side
// by side, whose specs wait for documented delays of minutes and disturb no node; a
// Serial spec added to it fails here instead of running with its assumption broken.
func refuseSerialSideBySide() {
	together := os.Getenv(sidebyside.EnvVar)
	if together == "" {
		return
	}
	BeforeEach(func() {
		if CurrentSpecReport().IsSerial {
			Fail(fmt.Sprintf("this spec is Serial, but its suite runs side by side with the suites %s, which share "+
				"its clusters and machine; run it without side by side (make e2e runs only LABELS=Slow side by side: "+
				"a Serial spec there must stop being Serial or Slow)", together))
		}
	})
}
