package suite

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
)

// Specs run in parallel (`make e2e` runs Ginkgo with several processes): most of
// them wait for kubelet timers, not for the CPU. A spec whose timing assertions are
// tighter than what its neighbours' load can add runs Serial instead, alone after the
// parallel ones.
//
// LoadLatency is how much the parallel load lengthened a span that containers time
// with their own millisecond markers, measured on this project's 2-core machine: the
// lifecycle, restart, probes, termination and profile suites run with four Ginkgo
// processes against the same suites run one spec at a time (CI at 1c5d868), 32 spans
// compared (probe intervals and timeouts, TERM→SIGKILL, preStop and sidecar spans,
// crash-loop first restarts): at most +80 ms (+33 ms at the 90th percentile), and
// every first crash-loop restart o₀ within its usual 0.8–1.3 s. Crash-loop loops
// measure their own overhead (backoff.Loop) and are not affected beyond that.
const LoadLatency = 80 * time.Millisecond

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
