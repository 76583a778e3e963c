package config

import (
	"strings"
	"testing"
)

func TestGates(t *testing.T) {
	g, err := ParseGates("A=true, B=false,")
	if err != nil || len(g) != 2 || !g["A"] || g["B"] {
		t.Fatalf("got %v, %v", g, err)
	}
	for _, bad := range []string{"A=yes", "A", "a=true", "=true"} {
		if _, err := ParseGates(bad); err == nil {
			t.Errorf("%q: want an error", bad)
		}
	}
	if g.String() != "A=true,B=false" {
		t.Errorf("String() = %q", g.String())
	}
}

// 1, true, 0 and false, nothing else: RERUN_FAILED=0 is off, RERUN_FAILED=yes an error.
func TestBooleansAreStrict(t *testing.T) {
	for in, want := range map[string]bool{"1": true, "true": true, "0": false, "false": false} {
		c, _, err := Parse("run", []string{"-rerun-failed=" + in})
		if err != nil || c.RerunFailed != want {
			t.Errorf("-rerun-failed=%s: %v, %v; want %v", in, c.RerunFailed, err, want)
		}
	}
	for _, in := range []string{"yes", "on", "2", "TRUE "} {
		if _, _, err := Parse("run", []string{"-keep-clusters=" + in}); err == nil {
			t.Errorf("-keep-clusters=%s: want an error", in)
		}
	}
}

func TestSwitchSyntax(t *testing.T) {
	for _, args := range [][]string{
		{"-shard=3/2"}, {"-shard=0/2"}, {"-shard=a"}, {"-procs=0"}, {"-procs=x"},
		{"-k8s-versions=1.36"}, {"-k8s-versions=v1.36.3 latest"}, {"-feature-gates=A=on"},
	} {
		if _, _, err := Parse("run", args); err == nil {
			t.Errorf("%v: want an error", args)
		}
	}
	c, rest, err := Parse("run", []string{"-shard=2/3", "-k8s-versions=v1.37.2 v1.36.3 v1.37.2", "-feature-gates=A=true", "-feature-gates=A=false,B=true", "./suites/lifecycle"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Shard != (Shard{2, 3}) || c.Versions.String() != "v1.37.2 v1.36.3" || c.FeatureGates.String() != "A=false,B=true" || len(rest) != 1 {
		t.Errorf("got %+v %v", c, rest)
	}
}

func TestValidateCrossChecks(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-kubeconfig=/k", "-feature-gates=A=true"}, "FEATURE_GATES is set, but KUBECONFIG"},
		{[]string{"-kubeconfig=/k", "-k8s-versions=v1.36.3 v1.37.2"}, "K8S_VERSIONS="},
		{[]string{"-allow-disruptive=1"}, "ALLOW_DISRUPTIVE=1 without KUBECONFIG"},
		{[]string{"-shard=1/2", "-rerun-failed"}, "SHARD and RERUN_FAILED"},
		{[]string{"-kubelet=/k", "-kubelet-version=v1.36.3"}, "not both"},
		{[]string{"-kubelet-version=1.36"}, "KUBELET_VERSION"},
		{[]string{"-shard-durations=e2e.json"}, "without SHARD"},
		{[]string{"-labels= "}, "LABELS is empty"},
	} {
		c, _, err := Parse("run", tc.args)
		if err == nil {
			err = c.Validate()
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want an error with %q", tc.args, err, tc.want)
		}
	}
	if err := Default().Validate(); err != nil {
		t.Errorf("the default: %v", err)
	}
}
