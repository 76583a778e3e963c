package suite

import (
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
)

func TestTimeoutIsTheBoundsInSequencePlusOverhead(t *testing.T) {
	for _, c := range []struct {
		name   string
		bounds []time.Duration
		want   time.Duration
	}{
		{"a spec without waits gets the overhead", nil, Overhead},
		{"one wait", []time.Duration{PodStartBound}, PodStartBound + Overhead},
		{"waits in sequence add up", []time.Duration{PodStartBound, 10 * time.Second, 30 * time.Second}, PodStartBound + 40*time.Second + Overhead},
		{"a zero bound adds nothing", []time.Duration{0, PodStartBound}, PodStartBound + Overhead},
	} {
		if got := Timeout(c.bounds...); got != SpecTimeout(c.want) {
			t.Errorf("%s: Timeout(%v) = %s, want %s", c.name, c.bounds, time.Duration(got), c.want)
		}
	}
}
