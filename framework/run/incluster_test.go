package run

import (
	"strings"
	"testing"
	"time"
)

// The conformance-image contract hydrophone drives: its variables become the run's
// Ginkgo arguments; the Disruptive specs stay out; [Conformance] is the whole set.
func TestInClusterRunSpeaksTheConformanceImageContract(t *testing.T) {
	for _, tc := range []struct {
		name    string
		env     map[string]string
		want    []string
		notWant []string
	}{
		{"hydrophone --conformance", map[string]string{"E2E_FOCUS": `\[Conformance\]`, "E2E_EXTRA_GINKGO_ARGS": "--procs=4"},
			[]string{"--procs=4", "--label-filter=(!Slow) && !Disruptive", "--succinct=false", "--output-dir=/tmp/results", "--junit-report=junit_01.xml", "suites/restart/profiles/profiles.test"},
			[]string{"--focus="}},
		{"a focus, a skip, a label filter", map[string]string{"E2E_FOCUS": "web-server", "E2E_SKIP": "Slow", "E2E_EXTRA_GINKGO_ARGS": "--label-filter=PL-1||RS-6 --flake-attempts=2"},
			[]string{"--focus=web-server", "--skip=Slow", "--label-filter=(PL-1||RS-6) && !Disruptive", "--flake-attempts=2", "--procs=4"},
			nil},
		{"dry run, verbose", map[string]string{"E2E_DRYRUN": "true", "E2E_VERBOSITY": "6"}, []string{"--dry-run", "-v"}, nil},
		{"the runner Job", map[string]string{"LABELS": "RS-15", "FOCUS": "dry", "PROCS": "2", "E2E_ARTIFACTS": "/results", "ALLOW_DISRUPTIVE": "1"},
			[]string{"--label-filter=RS-15", "--focus=dry", "--procs=2", "--output-dir=/results"}, []string{"Disruptive"}},
	} {
		ic, err := InClusterRun(func(k string) string { return tc.env[k] }, []string{"lifecycle", "restart/profiles"}, time.Unix(0, 0))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		args := strings.Join(ic.Args, " ")
		for _, w := range tc.want {
			if !strings.Contains(args, w) {
				t.Errorf("%s: %s lacks %s", tc.name, args, w)
			}
		}
		for _, w := range tc.notWant {
			if strings.Contains(args, w) {
				t.Errorf("%s: %s has %s", tc.name, args, w)
			}
		}
		if !ic.Record.InCluster || ic.Record.SuitesStarted.IsZero() {
			t.Errorf("%s: record %+v", tc.name, ic.Record)
		}
	}
	if _, err := InClusterRun(func(k string) string { return map[string]string{"E2E_EXTRA_GINKGO_ARGS": "--procs=0"}[k] }, nil, time.Now()); err == nil {
		t.Error("--procs=0: want an error")
	}
}
