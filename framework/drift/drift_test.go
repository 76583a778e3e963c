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
