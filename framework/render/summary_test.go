package render

import (
	"bytes"
	"strings"
	"testing"

	"github.com/podlifecycle/conformance/framework/report"
	"github.com/podlifecycle/conformance/framework/statements"
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

// The summary names the statements with a Disruptive spec left out on a cluster the
// suite did not make (report.DisruptiveLeftOut), "(in part)" where another spec ran.
func TestSummaryNamesTheDisruptiveSpecsLeftOut(t *testing.T) {
	leftOut := report.SpecRef{Verdict: report.NotRun, Reason: report.NotRunDisruptive}
	row := func(id string, specs ...report.SpecRef) report.Row {
		return report.Row{Statement: statements.Statement{ID: id}, Verdict: report.NotRun, Specs: specs}
	}
	doc := report.Document{Rows: []report.Row{row("PC-4", leftOut), row("PC-8", leftOut, report.SpecRef{Verdict: report.Conforms}), row("KR-1", leftOut)}}
	var out strings.Builder
	if err := WriteSummary(&out, doc, "report.html"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "not run, disruptive (a cluster the suite did not make; ALLOW_DISRUPTIVE=1 runs them): PC-4 PC-8 (in part) KR-1") {
		t.Errorf("the summary does not name them:\n%s", out.String())
	}
}

// An infrastructure retry shows in the summary, the Markdown and the HTML, with its error.
func TestInfraRetriesAreShown(t *testing.T) {
	doc := fixtureDocument(t)
	doc.InfraRetries = []report.InfraRetryRef{{Spec: report.SpecRef{Text: "runs the pod", Location: "suites/lifecycle/phase_test.go:24"},
		Pod: "web", Error: "main: OCI runtime create failed: runc create failed: unable to freeze"}}
	var sum, md, html bytes.Buffer
	if err := WriteSummary(&sum, doc, "/tmp/x/report.html"); err != nil {
		t.Fatal(err)
	}
	if err := WriteMarkdown(&md, doc); err != nil {
		t.Fatal(err)
	}
	if err := WriteHTML(&html, doc); err != nil {
		t.Fatal(err)
	}
	for name, s := range map[string]string{"summary": sum.String(), "markdown": md.String(), "html": html.String()} {
		for _, want := range []string{"nfrastructure retr", "unable to freeze", "web"} {
			if !strings.Contains(s, want) {
				t.Errorf("%s lacks %q", name, want)
			}
		}
	}
}
