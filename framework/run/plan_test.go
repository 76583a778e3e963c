package run

import (
	"reflect"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/podlifecycle/conformance/framework/report"
)

var repo = fstest.MapFS{
	"suites/lifecycle/phase_test.go":             {Data: []byte(`suite.Main(t, "kind-configs/default.yaml")`)},
	"suites/lifecycle/helpers.go":                {Data: []byte(`// kind-configs/not-a-test.yaml`)},
	"suites/lifecycle/nodeloss/nodeloss_test.go": {Data: []byte(`"kind-configs/backoff-profiles.yaml"`)},
	"suites/restart/suite_test.go":               {Data: []byte(`"kind-configs/default.yaml"`)},
	"suites/restart/profiles/suite_test.go":      {Data: []byte(`"kind-configs/backoff-profiles.yaml"`)},
}

func plan(t *testing.T, o Options) Plan {
	t.Helper()
	if o.Report == "" {
		o.Report = "e2e"
	}
	if o.Suites == nil {
		o.Suites = []string{"./suites/lifecycle", "./suites/restart/..."}
	}
	if o.Artifacts == "" {
		o.Artifacts = "_artifacts"
	}
	p, err := NewPlan(o, KindConfigs(repo))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestKindConfigsOfASuite(t *testing.T) {
	configsOf := KindConfigs(repo)
	for suite, want := range map[string][]string{
		"./suites/lifecycle":        {"kind-configs/default.yaml"},
		"./suites/lifecycle/...":    {"kind-configs/backoff-profiles.yaml", "kind-configs/default.yaml"},
		"./suites/restart/...":      {"kind-configs/backoff-profiles.yaml", "kind-configs/default.yaml"},
		"./suites/restart/profiles": {"kind-configs/backoff-profiles.yaml"},
	} {
		got, err := configsOf(suite)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %v %v, want %v (only test files; ... takes the suites below)", suite, got, err, want)
		}
	}
	if _, err := configsOf("./suites/nosuch"); err == nil {
		t.Error("a suite that does not exist: want an error")
	}
}

func TestWholeRunMakesItsClustersAhead(t *testing.T) {
	p := plan(t, Options{Labels: "!Slow", Procs: 4})
	if len(p.Versions) != 1 {
		t.Fatalf("%d passes, want the default version's", len(p.Versions))
	}
	v := p.Versions[0]
	if want := []string{"kind-configs/backoff-profiles.yaml", "kind-configs/default.yaml"}; !reflect.DeepEqual(v.ClustersAhead, want) {
		t.Errorf("clusters ahead %v, want %v", v.ClustersAhead, want)
	}
	if v.SideBySide || v.BuildImages || v.OutDir != "_artifacts" || !p.DeleteClusters || p.ReportJSON != "e2e.json" {
		t.Errorf("pass %+v, plan %+v", v, p)
	}
	want := []string{"--keep-going", "--timeout=80m", "--poll-progress-after=120s", "--procs=4", "--label-filter=!Slow", "--no-color"}
	if !reflect.DeepEqual(v.GinkgoFlags, want) {
		t.Errorf("flags %q, want %q", v.GinkgoFlags, want)
	}
}

func TestSlowSetRunsSideBySide(t *testing.T) {
	v := plan(t, Options{Labels: "Slow"}).Versions[0]
	if !v.SideBySide || len(v.ClustersAhead) != 2 {
		t.Errorf("Slow: %+v, want side by side with its clusters made ahead", v)
	}
}

func TestPartialRunsMakeNothingAhead(t *testing.T) {
	for name, o := range map[string]Options{
		"a label of its own": {Labels: "PL-1 || PC-2"},
		"a focus":            {Focus: "web-server"},
		"a rerun":            {RerunFailed: true},
		"a cluster of yours": {ExistingCluster: true},
	} {
		v := plan(t, o).Versions[0]
		if len(v.ClustersAhead) > 0 || v.SideBySide {
			t.Errorf("%s: %+v, want no clusters made ahead and one Ginkgo run", name, v)
		}
	}
}

func TestExistingClusterLeavesOutDisruptive(t *testing.T) {
	p := plan(t, Options{ExistingCluster: true, Labels: "PL-1 || PC-2", Focus: "pod", Color: true})
	flags := strings.Join(p.Versions[0].GinkgoFlags, " ")
	if !strings.Contains(flags, "--label-filter=(PL-1 || PC-2) && !Disruptive") || !strings.Contains(flags, "--focus=pod") || strings.Contains(flags, "--no-color") {
		t.Errorf("flags %s", flags)
	}
	if p.DeleteClusters {
		t.Error("a cluster of yours is never deleted")
	}
	allowed := plan(t, Options{ExistingCluster: true, AllowDisruptive: true})
	if f := strings.Join(allowed.Versions[0].GinkgoFlags, " "); !strings.Contains(f, "--label-filter=!Slow ") {
		t.Errorf("ALLOW_DISRUPTIVE: %s", f)
	}
}

func TestVersionsEachOnTheirOwn(t *testing.T) {
	p := plan(t, Options{Versions: []string{"v1.37.2", "v1.36.3"}})
	if len(p.Versions) != 2 {
		t.Fatalf("%d passes", len(p.Versions))
	}
	for i, v := range []string{"v1.37.2", "v1.36.3"} {
		pass := p.Versions[i]
		if pass.Version != v || pass.OutDir != "_artifacts/"+v || !pass.BuildImages {
			t.Errorf("pass %d: %+v, want %s under _artifacts/%s with its own images", i, pass, v, v)
		}
	}
	if _, err := NewPlan(Options{Report: "e2e", Suites: []string{"./suites/lifecycle"}, Versions: []string{"v1.36.3"}, ExistingCluster: true}, KindConfigs(repo)); err == nil || !strings.Contains(err.Error(), "unset one of the two") {
		t.Errorf("K8S_VERSIONS with KUBECONFIG: %v", err)
	}
}

func TestRerunSelection(t *testing.T) {
	suites, focus := RerunSelection([]report.Rerun{
		{Suite: "./suites/termination", Focus: []string{"suites/termination/sidecar_test.go:84", "suites/termination/grace_test.go:12"}},
		{Suite: "./suites/restart/profiles", Whole: true},
	})
	if want := []string{"./suites/termination", "./suites/restart/profiles"}; !reflect.DeepEqual(suites, want) {
		t.Errorf("suites %v", suites)
	}
	want := []string{"--focus-file=suites/termination/sidecar_test.go:84", "--focus-file=suites/termination/grace_test.go:12", "--focus-file=suites/restart/profiles/[^/]*$"}
	if !reflect.DeepEqual(focus, want) {
		t.Errorf("focus %q, want %q", focus, want)
	}
}
