package facts

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
)

func TestComponentGates(t *testing.T) {
	fixture, err := os.ReadFile("testdata/kube-scheduler-metrics.txt")
	if err != nil {
		t.Fatal(err)
	}
	var ran string
	shell := func(_ context.Context, script string) (string, error) { ran = script; return string(fixture), nil }
	scheduler := ControlPlaneComponent{"kube-scheduler", 10259}

	g, err := ComponentGates(context.Background(), shell, scheduler)
	if err != nil {
		t.Fatal(err)
	}
	want := Gates{"ContainerRestartRules": true, "DynamicResourceAllocation": true, "InPlacePodVerticalScaling": true,
		"NominatedNodeNameForExpectation": true, "PodLevelResources": true, "SchedulerAsyncAPICalls": false, "SchedulerAsyncPreemption": true}
	if len(g) != len(want) {
		t.Fatalf("got %d gates %v, want %v", len(g), g, want)
	}
	for name, on := range want {
		if have, ok := g[name]; !ok || have != on {
			t.Errorf("gate %s: got %v (present %v), want %v", name, have, ok, on)
		}
	}
	if !strings.Contains(ran, "https://127.0.0.1:10259/metrics") {
		t.Errorf("the script does not fetch the scheduler's port:\n%s", ran)
	}
}

func TestComponentGatesErrorsNameTheComponent(t *testing.T) {
	cm := ControlPlaneComponent{"kube-controller-manager", 10257}
	failing := func(context.Context, string) (string, error) { return "", errors.New("curl: (22) 403") }
	if _, err := ComponentGates(context.Background(), failing, cm); err == nil || !strings.Contains(err.Error(), "kube-controller-manager /metrics on 127.0.0.1:10257") {
		t.Errorf("want an error naming the component and its port, got %v", err)
	}
	noMetric := func(context.Context, string) (string, error) { return "# TYPE up gauge\nup 1\n", nil }
	if _, err := ComponentGates(context.Background(), noMetric, cm); err == nil || !strings.Contains(err.Error(), "kube-controller-manager: no kubernetes_feature_enabled") {
		t.Errorf("want an error naming the component and the missing metric, got %v", err)
	}
}
