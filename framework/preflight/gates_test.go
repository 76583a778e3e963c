package preflight

import (
	"context"
	"testing"
)

// The gate list of the target release, from the module cache (the suite's own
// dependencies hold its staging modules): the gates the suites use are in it, a
// made-up one is not.
func TestKnownGatesOfTheTargetRelease(t *testing.T) {
	if testing.Short() {
		t.Skip("reads the module cache")
	}
	known, err := KnownGates(context.Background(), "v1.37.2")
	if err != nil {
		t.Skip("the module cache lacks v1.37.2's sources (offline):", err)
	}
	for _, g := range []string{"ContainerStopSignals", "RestartAllContainersOnContainerExits", "KubeletCrashLoopBackOffMax", "ReduceDefaultCrashLoopBackOffDecay", "ContainerRestartRules", "NodeDeclaredFeatures", "ContextualLogging", "WatchListClient"} {
		if !known[g] {
			t.Errorf("%s missing from the %d gates read", g, len(known))
		}
	}
	if known["NoSuchGateInKubernetes"] {
		t.Error("a made-up gate is known")
	}
}
