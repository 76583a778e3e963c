package run

import (
	"errors"
	"github.com/podlifecycle/conformance/framework/cluster"
	"github.com/podlifecycle/conformance/framework/config"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"
	"time"

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
	if o.Labels == "" {
		o.Labels = "!Slow"
	}
	p, err := NewPlan(o, repo)
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
	p := plan(t, Options{Config: config.Config{Labels: "!Slow", Procs: 4}, Suites: []string{"./suites/lifecycle", "./suites/restart", "./suites/restart/profiles"}, Streams: [][]string{{"restart/profiles", "nosuch"}, {"lifecycle"}}})
	if len(p.Versions) != 1 {
		t.Fatalf("%d passes, want the default version's", len(p.Versions))
	}
	v := p.Versions[0]
	if want := []string{"kind-configs/backoff-profiles.yaml", "kind-configs/default.yaml"}; !reflect.DeepEqual(v.ClustersAhead, want) {
		t.Errorf("clusters ahead %v, want %v", v.ClustersAhead, want)
	}
	if want := [][]string{{"./suites/restart/profiles"}, {"./suites/lifecycle"}, {"./suites/restart"}}; !reflect.DeepEqual(v.Streams, want) {
		t.Errorf("streams %q, want %q: the named ones in their order (a suite not in the run left out), then each other suite alone", v.Streams, want)
	}
	if !v.QuietAfter || !v.BuildImages || v.OutDir != "_artifacts" || !p.DeleteClusters || p.ReportJSON != "e2e.json" {
		t.Errorf("pass %+v, plan %+v", v, p)
	}
	want := []string{"--keep-going", "--timeout=80m", "--poll-progress-after=120s", "--procs=4", "--label-filter=!Slow", "--no-color"}
	if !reflect.DeepEqual(v.GinkgoFlags, want) {
		t.Errorf("flags %q, want %q", v.GinkgoFlags, want)
	}
}

func TestSlowSetRunsClusterByClusterUnlessStreamsAreNamed(t *testing.T) {
	suites := []string{"./suites/lifecycle", "./suites/restart", "./suites/restart/profiles"}
	v := plan(t, Options{Config: config.Config{Labels: "Slow"}, Suites: suites}).Versions[0]
	if len(v.Streams) > 0 || len(v.ClustersAhead) > 0 || len(cluster.Groups(v.Suites, v.SuiteConfigs)) != 2 {
		t.Errorf("Slow: %+v, want its suites cluster by cluster, no cluster made ahead", v)
	}
	o := Options{Config: config.Config{Labels: "Slow"}, Suites: suites[:2], Streams: [][]string{{"lifecycle"}, {"restart"}}}
	v = plan(t, o).Versions[0]
	if want := [][]string{{"./suites/lifecycle"}, {"./suites/restart"}}; !reflect.DeepEqual(v.Streams, want) || v.QuietAfter || len(v.ClustersAhead) != 1 {
		t.Errorf("Slow with STREAMS: %+v, want the streams side by side with their clusters made ahead, no Quiet specs after", v)
	}
}

func TestWholeRunInOneStreamMakesEachClusterAsItsSuitesStart(t *testing.T) {
	for name, streams := range map[string][][]string{
		"no streams named":       nil,
		"every suite one stream": {{"lifecycle", "restart", "restart/profiles"}},
	} {
		o := Options{Config: config.Config{Labels: "!Slow"}, Streams: streams, Suites: []string{"./suites/lifecycle", "./suites/restart", "./suites/restart/profiles"}}
		v := plan(t, o).Versions[0]
		if len(v.Streams) > 0 || v.QuietAfter || len(v.ClustersAhead) > 0 {
			t.Errorf("%s: %+v, want one Ginkgo over the suites, no cluster made ahead", name, v)
		}
	}
}

func TestOneStreamRunsClusterByCluster(t *testing.T) {
	suites := []string{"./suites/lifecycle", "./suites/restart", "./suites/restart/profiles", "./suites/lifecycle/nodeloss"}
	v := plan(t, Options{Config: config.Config{Labels: "!Slow"}, Suites: suites}).Versions[0]
	got := cluster.Groups(v.Suites, v.SuiteConfigs)
	want := []cluster.SuiteGroup{
		{Suites: suites[:2], Configs: []string{"kind-configs/default.yaml"}, Done: []string{"kind-configs/default.yaml"}},
		{Suites: suites[2:], Configs: []string{"kind-configs/backoff-profiles.yaml"}, Done: []string{"kind-configs/backoff-profiles.yaml"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("groups %+v, want %+v", got, want)
	}
	// On a cluster of yours nothing is grouped (nothing is made or deleted).
	mine := plan(t, Options{Config: config.Config{Labels: "!Slow", Kubeconfig: "/kubeconfig"}, Suites: suites}).Versions[0]
	if g := cluster.Groups(mine.Suites, mine.SuiteConfigs); len(g) != 1 {
		t.Errorf("a cluster of yours: %d groups, want one Ginkgo over every suite", len(g))
	}
}

func TestPartialRunsMakeNothingAhead(t *testing.T) {
	for name, o := range map[string]Options{
		"a label of its own": {Config: config.Config{Labels: "PL-1 || PC-2"}},
		"a focus":            {Config: config.Config{Focus: "web-server"}},
		"a rerun":            {Config: config.Config{RerunFailed: true}},
		"a cluster of yours": {Config: config.Config{Kubeconfig: "/kubeconfig"}},
	} {
		o.Streams = [][]string{{"lifecycle"}, {"restart"}}
		v := plan(t, o).Versions[0]
		if len(v.ClustersAhead) > 0 || len(v.Streams) > 0 || v.QuietAfter {
			t.Errorf("%s: %+v, want no clusters made ahead and one Ginkgo run", name, v)
		}
	}
}

func TestExistingClusterLeavesOutDisruptive(t *testing.T) {
	p := plan(t, Options{Config: config.Config{Kubeconfig: "/kubeconfig", Labels: "PL-1 || PC-2", Focus: "pod"}, Color: true})
	flags := strings.Join(p.Versions[0].GinkgoFlags, " ")
	if !strings.Contains(flags, "--label-filter=(PL-1 || PC-2) && !Disruptive") || !strings.Contains(flags, "--focus=pod") || strings.Contains(flags, "--no-color") {
		t.Errorf("flags %s", flags)
	}
	if p.DeleteClusters {
		t.Error("a cluster of yours is never deleted")
	}
	allowed := plan(t, Options{Config: config.Config{Kubeconfig: "/kubeconfig", AllowDisruptive: true}})
	if f := strings.Join(allowed.Versions[0].GinkgoFlags, " "); !strings.Contains(f, "--label-filter=!Slow ") {
		t.Errorf("ALLOW_DISRUPTIVE: %s", f)
	}
}

func TestVersionsEachOnTheirOwn(t *testing.T) {
	p := plan(t, Options{Config: config.Config{Versions: []string{"v1.37.2", "v1.36.3"}}})
	if len(p.Versions) != 2 {
		t.Fatalf("%d passes", len(p.Versions))
	}
	for i, v := range []string{"v1.37.2", "v1.36.3"} {
		pass := p.Versions[i]
		if pass.Version != v || pass.OutDir != "_artifacts/"+v || !pass.BuildImages {
			t.Errorf("pass %d: %+v, want %s under _artifacts/%s with its own images", i, pass, v, v)
		}
	}
	if _, err := NewPlan(Options{Config: config.Config{Labels: "!Slow", Versions: []string{"v1.36.3", "v1.37.2"}, Kubeconfig: "/kubeconfig"}, Report: "e2e", Suites: []string{"./suites/lifecycle"}}, repo); err == nil || !strings.Contains(err.Error(), "unset one of the two") {
		t.Errorf("two K8S_VERSIONS with KUBECONFIG: %v", err)
	}
	// One version with a cluster of yours: the one it runs, checked against, no build.
	one, err := NewPlan(Options{Config: config.Config{Labels: "!Slow", Versions: []string{"v1.36.3"}, Kubeconfig: "/kubeconfig", Artifacts: "_artifacts"}, Report: "e2e", Suites: []string{"./suites/lifecycle"}}, repo)
	if err != nil || len(one.Versions) != 1 || one.Versions[0].ServerVersion != "v1.36.3" || one.Versions[0].BuildImages || one.Versions[0].OutDir != "_artifacts" {
		t.Errorf("K8S_VERSIONS=v1.36.3 with KUBECONFIG: %+v, %v", one.Versions, err)
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

// shardRepo: the default cluster's suites hold most of the spec time, the
// profiles cluster's little.
var shardRepo = fstest.MapFS{
	"suites/lifecycle/suite_test.go":        {Data: []byte(`"kind-configs/default.yaml"`)},
	"suites/lifecycle/phase_test.go":        {Data: []byte(`It("a") It("b")`)},
	"suites/lifecycle/conditions_test.go":   {Data: []byte(`It("c")`)},
	"suites/lifecycle/helpers_test.go":      {Data: []byte(`func helper() {}`)},
	"suites/restart/suite_test.go":          {Data: []byte(`"kind-configs/default.yaml"`)},
	"suites/restart/backoff_test.go":        {Data: []byte(`DescribeTable("d", Entry("e"))`)},
	"suites/restart/policy_test.go":         {Data: []byte(`It("f")`)},
	"suites/restart/profiles/suite_test.go": {Data: []byte(`"kind-configs/backoff-profiles.yaml"`)},
	"suites/restart/profiles/caps_test.go":  {Data: []byte(`It("g")`)},
}

func TestShardsSplitByConfigurationFirst(t *testing.T) {
	durations := map[string]time.Duration{
		"suites/lifecycle/phase_test.go":       6 * time.Minute,
		"suites/lifecycle/conditions_test.go":  5 * time.Minute,
		"suites/restart/backoff_test.go":       9 * time.Minute,
		"suites/restart/policy_test.go":        2 * time.Minute,
		"suites/restart/profiles/caps_test.go": 3 * time.Minute,
	}
	suites := []string{"./suites/lifecycle", "./suites/restart/..."}
	parts, err := SplitSuites(shardRepo, suites, 2, durations)
	if err != nil {
		t.Fatal(err)
	}
	// Longest first, in minutes, a cluster 4: backoff (9) to part 1 (13), phase (6)
	// to part 2 (10 + its own default cluster: 10 < 19), conditions (5) to part 2
	// (15 < 18), caps (3 and the profiles cluster) to part 1 (20 < 22), policy (2)
	// to part 2 (17 < 22).
	want := []ShardPart{
		{Suites: []string{"./suites/restart", "./suites/restart/profiles"},
			Files:   []string{"suites/restart/backoff_test.go", "suites/restart/profiles/caps_test.go"},
			Configs: []string{"kind-configs/backoff-profiles.yaml", "kind-configs/default.yaml"}, Cost: 20 * time.Minute},
		{Suites: []string{"./suites/lifecycle", "./suites/restart"},
			Files:   []string{"suites/lifecycle/conditions_test.go", "suites/lifecycle/phase_test.go", "suites/restart/policy_test.go"},
			Configs: []string{"kind-configs/default.yaml"}, Cost: 17 * time.Minute},
	}
	if !reflect.DeepEqual(parts, want) {
		t.Errorf("parts\n%+v\nwant\n%+v", parts, want)
	}
	// Every spec file in exactly one part, whatever the count.
	for n := 1; n <= 4; n++ {
		parts, err := SplitSuites(shardRepo, suites, n, nil)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]int{}
		for _, p := range parts {
			for _, f := range p.Files {
				seen[f]++
			}
		}
		if len(seen) != 5 {
			t.Errorf("%d parts: files %v, want the 5 spec files (helpers_test.go and suite_test.go hold no spec)", n, seen)
		}
		for f, k := range seen {
			if k != 1 {
				t.Errorf("%d parts: %s in %d parts", n, f, k)
			}
		}
	}
}

func TestShardPlan(t *testing.T) {
	o := Options{Config: config.Config{Labels: "!Slow", Artifacts: "_artifacts", Shard: Shard{Index: 2, Count: 2}}, Report: "e2e", Suites: []string{"./suites/lifecycle", "./suites/restart/..."}, Durations: map[string]time.Duration{"suites/restart/backoff_test.go": time.Hour}}
	p, err := NewPlan(o, shardRepo)
	if err != nil {
		t.Fatal(err)
	}
	v := p.Versions[0]
	// The hour-long backoff file fills part 1; part 2 takes every other file, the
	// profiles suite's with its cluster.
	if reflect.DeepEqual(v.Suites, o.Suites) || len(v.FocusFiles) == 0 {
		t.Errorf("shard 2/2: %+v, want a part of the suites by --focus-file", v)
	}
	for _, f := range v.FocusFiles {
		if f == "--focus-file=suites/restart/backoff_test.go" {
			t.Errorf("shard 2/2 took the file of shard 1: %v", v.FocusFiles)
		}
	}
	if len(v.ClustersAhead) > 0 {
		t.Errorf("clusters ahead %v, want each made as its suites start (one Ginkgo)", v.ClustersAhead)
	}
	if _, err := NewPlan(Options{Config: config.Config{Shard: Shard{Index: 1, Count: 2}, RerunFailed: true}, Report: "e2e", Suites: o.Suites}, shardRepo); err == nil {
		t.Error("SHARD with RERUN_FAILED: want an error")
	}
}

func TestAndLabels(t *testing.T) {
	got := andLabels([]string{"--procs=4", "--label-filter=!Slow", "--no-color"}, "!Quiet")
	if want := []string{"--procs=4", "--label-filter=(!Slow) && !Quiet", "--no-color"}; !reflect.DeepEqual(got, want) {
		t.Errorf("%q, want %q", got, want)
	}
}

// A run deletes its clusters when it passed and when it was interrupted, even after a
// green suite left one for the next; failed by itself, it keeps them; a cluster of
// the user's (no DeleteClusters) is never deleted.
func TestARunDeletesItsClustersOnSuccessAndOnInterrupt(t *testing.T) {
	ours, theirs := Plan{DeleteClusters: true}, Plan{}
	failed := []error{errors.New("suites/restart: exit status 1")}
	for _, c := range []struct {
		name        string
		p           Plan
		failed      []error
		interrupted bool
		want        bool
	}{
		{"green", ours, nil, false, true},
		{"failed", ours, failed, false, false},
		{"interrupted after a green suite", ours, []error{errors.New("interrupted before ./suites/restart/profiles")}, true, true},
		{"interrupted before any suite", ours, nil, true, true},
		{"the user's cluster, green", theirs, nil, false, false},
		{"the user's cluster, interrupted", theirs, nil, true, false},
	} {
		if got := deletesItsClusters(c.p, c.failed, c.interrupted); got != c.want {
			t.Errorf("%s: deletes its clusters %v, want %v", c.name, got, c.want)
		}
	}
}
