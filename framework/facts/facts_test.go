package facts

import (
	"strings"
	"testing"
)

const kubeletMetrics = `# HELP kubernetes_feature_enabled [BETA] This metric records the data about the stage and enablement of a k8s feature.
# TYPE kubernetes_feature_enabled gauge
kubernetes_feature_enabled{name="ContainerRestartRules",stage="BETA"} 1
kubernetes_feature_enabled{name="ReduceDefaultCrashLoopBackOffDecay",stage="ALPHA"} 0
kubernetes_feature_enabled{name="NodeDeclaredFeatures",stage=""} 1
# HELP kubelet_running_pods [ALPHA] Number of pods that have a running pod sandbox
# TYPE kubelet_running_pods gauge
kubelet_running_pods 3
`

func TestParseFeatureMetrics(t *testing.T) {
	g, err := ParseFeatureMetrics(strings.NewReader(kubeletMetrics))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"ContainerRestartRules": true, "ReduceDefaultCrashLoopBackOffDecay": false, "NodeDeclaredFeatures": true}
	if len(g) != len(want) {
		t.Fatalf("got %d gates %v, want %d", len(g), g, len(want))
	}
	for name, on := range want {
		if have, ok := g[name]; !ok || have != on {
			t.Errorf("gate %s: got %v (present %v), want %v", name, have, ok, on)
		}
	}
}

func TestParseFeatureMetricsWithoutTheMetric(t *testing.T) {
	_, err := ParseFeatureMetrics(strings.NewReader("# TYPE up gauge\nup 1\n"))
	if err == nil || !strings.Contains(err.Error(), "no kubernetes_feature_enabled") {
		t.Fatalf("want an error naming the missing metric, got %v", err)
	}
}

func TestParseConfigz(t *testing.T) {
	kc, err := ParseConfigz([]byte(`{"kubeletconfig":{"crashLoopBackOff":{"maxContainerRestartPeriod":"2s"},"featureGates":{"KubeletCrashLoopBackOffMax":true},"failCgroupV1":false}}`))
	if err != nil {
		t.Fatal(err)
	}
	if kc.CrashLoopBackOff.MaxContainerRestartPeriod != "2s" || !kc.FeatureGates["KubeletCrashLoopBackOffMax"] {
		t.Fatalf("decoded %+v", kc)
	}
	if !strings.Contains(string(kc.Raw), "failCgroupV1") {
		t.Fatalf("Raw lost the other fields: %s", kc.Raw)
	}
	if _, err := ParseConfigz([]byte(`{"other":{}}`)); err == nil {
		t.Fatal("want an error for an answer without kubeletconfig")
	}
}

func TestEvaluate(t *testing.T) {
	f := &Facts{
		APIServerGates: Gates{"ContainerStopSignals": false},
		Nodes: []Node{
			{Name: "cp", Labels: map[string]string{"node-role.kubernetes.io/control-plane": ""}, KubeletGates: Gates{"X": false}},
			{Name: "w1", Labels: map[string]string{ProfileLabel: "x-on"}, KubeletGates: Gates{"X": true}},
			{Name: "w2", Labels: map[string]string{ProfileLabel: "x-off"}, KubeletGates: Gates{"X": false}},
		},
	}
	none := Requested{}
	askedOn := Requested{KubeletGates: map[string]map[string]bool{"x-off": {"X": true}}}
	cases := []struct {
		name      string
		asked     Requested
		req       Requirement
		skip, bad bool
	}{
		{"gate on where the profile has it", none, KubeletGate("X", true, "x-on"), false, false},
		{"gate off on its profile", none, KubeletGate("X", false, "x-off"), false, false},
		{"gate missing on a profile: skip", none, KubeletGate("X", true, "x-off"), true, false},
		{"gate asked for but missing: fail", askedOn, KubeletGate("X", true, "x-off"), false, true},
		{"apiserver gate off: skip", none, APIServerGate("ContainerStopSignals", true), true, false},
		{"unknown apiserver gate: skip", none, APIServerGate("Nope", true), true, false},
		{"kubelet gate asked of every kubelet but missing: fail", Requested{AllKubeletGates: map[string]bool{"X": true}}, KubeletGate("X", true, "x-off"), false, true},
		{"apiserver gate asked in extraArgs but missing: fail", Requested{APIServerGates: map[string]bool{"ContainerStopSignals": true}}, APIServerGate("ContainerStopSignals", true), false, true},
		{"two schedulable workers", none, SchedulableNodes(2), false, false},
		{"three schedulable: skip", none, SchedulableNodes(3), true, false},
	}
	for _, c := range cases {
		v := Evaluate(f, c.asked, c.req)
		if (v.Skip != "") != c.skip || (v.Fail != "") != c.bad {
			t.Errorf("%s: got %+v", c.name, v)
		}
	}
	f.Nodes[1].KubeletConfig.CrashLoopBackOff.MaxContainerRestartPeriod = "1m40s"
	if v := Evaluate(f, none, KubeletMaxRestartPeriod("x-on", "100s")); v != (Verdict{}) {
		t.Errorf("1m40s is 100s: %+v", v)
	}
	if v := Evaluate(f, none, KubeletMaxRestartPeriod("x-on", "2s")); v.Fail == "" {
		t.Errorf("a profile node with another max is misconfigured: %+v", v)
	}
	if v := Evaluate(f, none, KubeletMaxRestartPeriod("absent", "2s")); v.Skip == "" {
		t.Errorf("no node of the profile: skip, got %+v", v)
	}
	v := Evaluate(f, none, KubeletGate("X", true, "x-off"))
	if !strings.Contains(v.Skip, "w2: disabled") {
		t.Errorf("skip reason should say what each node reports, got %q", v.Skip)
	}
}
