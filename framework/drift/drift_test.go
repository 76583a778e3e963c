package drift

import (
	"testing"
	"time"
)

func TestAgreementIsNoDrift(t *testing.T) {
	if f, ok := Observe(Observation[string]{Statement: "RS-11", Topic: "condition", Documented: "PodRestartInPlace", Measured: "PodRestartInPlace"}); ok {
		t.Errorf("equal values gave a drift: %v", f)
	}
	within := func(doc, got time.Duration) bool { return got <= doc+time.Second }
	if f, ok := Observe(Observation[time.Duration]{Statement: "RS-6", Documented: 10 * time.Second, Measured: 10400 * time.Millisecond, Same: within}); ok {
		t.Errorf("a measurement the predicate accepts gave a drift: %v", f)
	}
}

func TestDisagreementIsDrift(t *testing.T) {
	f, ok := Observe(Observation[string]{Statement: "RS-11", Topic: "in-place restart condition", Docs: "a PodRestartInPlace condition",
		Documented: "PodRestartInPlace", Measured: "AllContainersRestarting", Evidence: "conditions seen: …"})
	if !ok || f.Statement != "RS-11" || f.Measured != "AllContainersRestarting" || f.Evidence == "" {
		t.Errorf("Observe = %+v, %t", f, ok)
	}
}

// The measurement decides which claim the cluster confirms: the one whose value it
// matches, none when it matches neither.
func TestDecide(t *testing.T) {
	q := Question[int]{Topic: "backoff reset", Claims: map[string]int{"after-ten-minutes": 10, "after-a-good-restart": 0}, Measured: 10}
	if a := Decide(q); len(a.Confirmed) != 1 || a.Confirmed[0] != "after-ten-minutes" || a.Measured != "10" || a.Claims["after-a-good-restart"] != "0" {
		t.Errorf("Decide = %+v", a)
	}
	q.Measured = 5
	if a := Decide(q); len(a.Confirmed) != 0 {
		t.Errorf("a measurement that matches no claim confirmed %v", a.Confirmed)
	}
	within := func(claimed, measured int) bool { return measured >= claimed-1 && measured <= claimed+1 }
	q.Same, q.Measured = within, 11
	if a := Decide(q); len(a.Confirmed) != 1 || a.Confirmed[0] != "after-ten-minutes" {
		t.Errorf("Same is not used: %+v", a)
	}
}
