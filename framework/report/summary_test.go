package report

import (
	"bytes"
	"strings"
	"testing"
)

func TestSummaryFitsOneScreen(t *testing.T) {
	doc := fixtureDocument(t)
	var out bytes.Buffer
	if err := WriteSummary(&out, doc, "/tmp/x/report.html"); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	for _, want := range []string{
		"suites/termination", "suites/restart/profiles",
		"statements: 23 — fails 1 · drift 4 · conforms 11 (1 in part) · skipped 1 · not run 3 · not checkable here 1 · nothing to assert 1 · no spec 1",
		"drift findings: 3", "suites/termination/sidecar_test.go:84", "wall time: ", "report: /tmp/x/report.html",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("summary lacks %q:\n%s", want, s)
		}
	}
	if lines := strings.Count(s, "\n"); lines > 40 {
		t.Errorf("summary has %d lines", lines)
	}
}

func TestSummaryOfARunOfOneSuite(t *testing.T) {
	var out bytes.Buffer
	if err := WriteSummary(&out, lifecycleOnlyDocument(t), "/tmp/x/report.html"); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	for _, want := range []string{
		"statements: 23 — fails 0 · drift 3 · conforms 8 · skipped 1 · not run 2 · not in this run 7 · not checkable here 1 · nothing to assert 1 · no spec 0",
		"not in this run: suites/restart suites/termination suites/restart/profiles suites/probes suites/cluster\n",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("summary lacks %q:\n%s", want, s)
		}
	}
}
