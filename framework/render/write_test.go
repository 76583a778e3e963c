package render

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/podlifecycle/conformance/framework/backoff"
	"github.com/podlifecycle/conformance/framework/drift"
	"github.com/podlifecycle/conformance/framework/report"
)

func TestWriteMakesAWellFormedSelfContainedPage(t *testing.T) {
	doc := fixtureDocument(t)
	dir := t.TempDir()
	written, err := Write(doc, dir)
	if err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(written.HTML)
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]bool{}
	svgs := 0
	// Parsed as strict XML: every element closed, every entity known, attributes
	// quoted; a page that passes renders the same in any browser.
	d := xml.NewDecoder(bytes.NewReader(page))
	d.Strict = true
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("report.html is not well-formed: %v", err)
		}
		el, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		switch el.Name.Local {
		case "script", "link", "img", "iframe", "object":
			t.Errorf("report.html has a <%s>: it must need nothing beyond itself", el.Name.Local)
		case "svg":
			svgs++
		}
		for _, a := range el.Attr {
			// A link to a documentation page is navigation, not a fetch: <a href>
			// may name an https address; anything else must stay inside the page.
			citation := el.Name.Local == "a" && a.Name.Local == "href" && strings.HasPrefix(a.Value, "https://")
			if (a.Name.Local == "src" || a.Name.Local == "href") && !strings.HasPrefix(a.Value, "#") && !citation {
				t.Errorf("<%s %s=%q> points outside the page", el.Name.Local, a.Name.Local, a.Value)
			}
			if strings.HasPrefix(a.Name.Local, "on") {
				t.Errorf("<%s %s> is a script", el.Name.Local, a.Name.Local)
			}
			if el.Name.Local == "tr" && a.Name.Local == "id" {
				rows[a.Value] = true
			}
		}
	}
	for _, r := range doc.Rows {
		if !rows[r.Statement.ID] {
			t.Errorf("the matrix has no row for %s", r.Statement.ID)
		}
	}
	charts, err := Draw(doc)
	if err != nil {
		t.Fatal(err)
	}
	if want := len(charts.All()); svgs != want || want < 4 {
		t.Errorf("%d inline charts, want %d (two delay tables, one experiment, one timeline)", svgs, want)
	}
	for _, want := range []string{"TerminationByKubelet", "kubectl delete pod leaving", "Killing container with a grace period", "allowed 5600–6250 ms"} {
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("report.html lacks %q", want)
		}
	}

	md, err := os.ReadFile(written.Markdown)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range doc.Rows {
		if !bytes.Contains(md, []byte("| "+r.Statement.ID+" |")) {
			t.Errorf("report.md has no matrix row for %s", r.Statement.ID)
		}
	}
	for _, c := range charts.All() {
		if !bytes.Contains(md, []byte("]("+c.File+")")) {
			t.Errorf("report.md does not show %s", c.File)
		}
		if _, err := os.Stat(filepath.Join(dir, c.File)); err != nil {
			t.Errorf("chart file: %v", err)
		}
	}
}

func TestChartsAreDrawnByGonum(t *testing.T) {
	svg, err := delaysChart("restart delays", backoff.DelayTable{
		{Restart: 1, ExpectedMs: 0, MeasuredMs: 428, MinMs: 0, MaxMs: 4000},
		{Restart: 2, ExpectedMs: 10000, MeasuredMs: 19000, MinMs: 9900, MaxMs: 18000},
	})
	if err != nil {
		t.Fatal(err)
	}
	s := string(svg)
	// vgsvg's signature: it flips the y axis of the whole drawing so that its origin
	// is at the bottom left.
	if !strings.HasPrefix(s, "<svg") || !strings.Contains(s, "scale(1, -1) translate(0, -") {
		t.Errorf("not a vgsvg drawing:\n%.300s", s)
	}
	for _, label := range []string{"delay (ms)", "restart", "measured, outside the range", "documented"} {
		if !strings.Contains(s, ">"+label+"<") {
			t.Errorf("chart lacks the label %q", label)
		}
	}
	if err := xml.Unmarshal(svg, new(struct{})); err != nil {
		t.Errorf("chart is not well-formed XML: %v", err)
	}
}

func TestTimelineLanes(t *testing.T) {
	rows := []report.TimelineRow{
		{Offset: 0, Kind: "pod", Summary: "phase=Pending"},
		{Offset: 100e6, Kind: "event", Summary: "Normal Scheduled"},
		{Offset: 200e6, Kind: "pod", Summary: "phase=Pending node=n PodScheduled=True | init: Running(since 10:00:00) restarts=0 ready=false | app: Waiting(PodInitializing) restarts=0 ready=false"},
		{Offset: 900e6, Kind: "pod", Summary: "phase=Running node=n | init: Terminated(Completed, exit 0, 10:00:00..10:00:01) restarts=0 ready=false | app: Running(since 10:00:01) restarts=0 ready=true"},
		{Offset: 2000e6, Kind: "deleted", Summary: "pod deleted from the API"},
	}
	lanes, events := lanesOf(rows)
	var got []string
	for _, l := range lanes {
		var states []string
		for _, s := range l.Spans {
			states = append(states, s.State+"@"+s.From.String()+"-"+s.To.String())
		}
		got = append(got, l.Name+": "+strings.Join(states, " "))
	}
	want := []string{
		"pod phase: Pending@0s-900ms Running@900ms-2s",
		"init: Running@200ms-900ms Terminated@900ms-2s",
		"app: Waiting@200ms-900ms Running@900ms-2s",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("lanes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(events) != 1 || events[0] != 100e6 {
		t.Errorf("events %v", events)
	}
}

// The report shows why a statement is "not in this run": its own class in the matrix,
// the suites the run left out beside it and in the legend.
func TestNotInThisRunIsShownWithTheSuitesLeftOut(t *testing.T) {
	doc := lifecycleOnlyDocument(t)
	var page, md bytes.Buffer
	if err := WriteHTML(&page, doc); err != nil {
		t.Fatal(err)
	}
	if err := WriteMarkdown(&md, doc); err != nil {
		t.Fatal(err)
	}
	if err := xml.NewDecoder(bytes.NewReader(page.Bytes())).Decode(new(struct{})); err != nil {
		t.Errorf("report.html is not well-formed: %v", err)
	}
	reason := rowOf(t, doc, "TM-12").Reason
	for _, want := range []string{`<td class="v notinrun">TM-12</td>`, "none — " + reason, "This run left out suites/restart, suites/termination"} {
		if !strings.Contains(page.String(), want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	for _, want := range []string{"| not in this run | 7 |", "| TM-12 | ", "0 (" + reason + ")", "This run left out suites/restart, suites/termination"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
}

// The Markdown says, per disagreement, what the cluster confirmed, and "not measured
// in this run" for a topic no spec answered.
func TestMarkdownShowsWhereThePagesDisagree(t *testing.T) {
	doc := report.Document{Disagreements: []report.DisagreementView{
		{Topic: "backoff reset", Statements: []string{"RS-7"}, Claims: []report.ClaimView{{Key: "after-ten-minutes"}, {Key: "after-a-good-restart"}},
			Answers: []report.AnswerRef{{Answer: drift.Answer{Topic: "backoff reset", Measured: "5"}, Spec: report.SpecRef{Text: "measures neither", Column: report.Column{Config: report.DefaultConfig}, Verdict: report.Conforms}}}},
		{Topic: "pod GC", Statements: []string{"RS-7"}, Claims: []report.ClaimView{{Key: "a-count"}, {Key: "a-time"}}},
	}}
	var md strings.Builder
	if err := WriteMarkdown(&md, doc); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## Where the pages disagree", "### backoff reset (RS-7): the cluster confirms none of the claims",
		"- measured (measures neither, default, conforms): 5 → none", "### pod GC (RS-7): not measured in this run"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
}

// A chart one would paste into a bug report: the whole title, the legend in its own
// column right of the data, the page's font, node names without the run's cluster hash.
func TestChartsCanBePastedIntoABugReport(t *testing.T) {
	title := "restart delays on " + withoutClusterHash("plc-default-ddb4f355-worker2 (ReduceDefaultCrashLoopBackOffDecay=false "+
		"KubeletCrashLoopBackOffMax=true maxContainerRestartPeriod=5m0s: documented initial 10s, cap 5m0s)")
	if strings.Contains(title, "ddb4f355") || !strings.Contains(title, "default/worker2 (") {
		t.Errorf("cluster hash left in %q", title)
	}
	svg, err := delaysChart(title, backoff.DelayTable{
		{Restart: 1, ExpectedMs: 0, MeasuredMs: 428, MinMs: 0, MaxMs: 4000},
		{Restart: 2, ExpectedMs: 10000, MeasuredMs: 10400, MinMs: 9900, MaxMs: 13500},
	})
	if err != nil {
		t.Fatal(err)
	}
	s := string(svg)
	var drawn []string
	for _, m := range regexp.MustCompile(`>([^<>]+)</text>`).FindAllStringSubmatch(s, -1) {
		drawn = append(drawn, m[1])
	}
	if got := strings.Join(strings.Fields(strings.Join(drawn, " ")), " "); !strings.Contains(got, strings.Join(strings.Fields(title), " ")) {
		t.Errorf("title cut or lost; the chart's text is %q", got)
	}
	families := regexp.MustCompile(`font-family:([^;]+);`).FindAllStringSubmatch(s, -1)
	if len(families) == 0 {
		t.Fatal("no font named")
	}
	for _, f := range families {
		if f[1] != strings.ReplaceAll(PageFont, `"`, `'`) {
			t.Errorf("font %q, want the page's %q", f[1], PageFont)
		}
	}
	// The plot is 6 inches (432 pt) wide; the legend's text starts right of it.
	m := regexp.MustCompile(`<text x="([0-9.]+)"[^>]*>measured</text>`).FindStringSubmatch(s)
	if m == nil {
		t.Fatalf("no legend entry \"measured\" in\n%.400s", s)
	}
	if x, _ := strconv.ParseFloat(m[1], 64); x < 432 {
		t.Errorf("legend at x=%.0f pt, over the plot (0–432 pt)", x)
	}
}
