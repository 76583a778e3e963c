package suite

import (
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
)

func TestTimedWithin(t *testing.T) {
	if TimedWithin(150*time.Millisecond) != Serial {
		t.Error("a 150 ms tolerance (probe ticks) must run Serial: the parallel load measured up to 120 ms")
	}
	if _, ok := TimedWithin(250 * time.Millisecond).(Labels); !ok {
		t.Error("a 250 ms tolerance (TERM→SIGKILL) can run in parallel")
	}
}
