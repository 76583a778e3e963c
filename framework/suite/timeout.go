package suite

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
)

// Overhead is what a spec spends outside the waits its own bounds cover: creating its
// namespace and pods and starting their watches, API calls, execs, node shells, log
// and marker reads, and its cleanup (the namespace's delete, a finalizer's removal),
// which Ginkgo counts against the spec's timeout too. An API call takes tens of
// milliseconds; an exec or a node shell takes up to a few seconds on a loaded 2-core
// machine (the SPDY upgrade, runc exec, docker exec); a spec makes about ten of them
// between its waits. 30 s holds that with room to spare, and stays small beside the
// waits, so a spec that hangs is stopped at most 30 s after all its bounds ran out.
const Overhead = 30 * time.Second

// Timeout is the SpecTimeout of a spec whose waits, one after another, are bounded by
// bounds: their sum plus Overhead. Pass the constants and expressions the spec's own
// Eventually and Consistently calls use, so the number can be read off the spec. A
// spec that runs into one of its bounds then fails on that bound, with its message,
// before the timeout; one that hangs (an exec or a log stream that never returns) is
// cancelled instead of holding the suite until its --timeout.
func Timeout(bounds ...time.Duration) SpecTimeout {
	total := Overhead
	for _, b := range bounds {
		total += b
	}
	return SpecTimeout(total)
}

// LongRunning marks a spec, or its container, that waits out documented delays of
// half a minute or more (crash-loop backoffs, grace periods, a node's timers). Ginkgo
// hands such specs out first (SpecPriority), so that a parallel run does not end with
// one of them running alone while the other processes sit idle. Priority orders; it
// changes nothing a spec checks.
const LongRunning = SpecPriority(1)

// Longest marks the spec that waits longest of its suite (minutes): handed out before
// the LongRunning ones, so that the suite's other specs share the other processes
// while it waits, instead of it starting last and running alone.
const Longest = SpecPriority(2)
