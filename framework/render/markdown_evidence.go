package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/podlifecycle/conformance/framework/report"
)

func mdDrift(w io.Writer, doc report.Document) {
	fmt.Fprintf(w, "## Drift found\n\n")
	if len(doc.Findings) == 0 {
		fmt.Fprintf(w, "No spec found the cluster contradicting the docs.\n\n")
	}
	for _, f := range doc.Findings {
		statement := f.Statement
		if statement == "" {
			statement = "every statement of the spec"
		}
		fmt.Fprintf(w, "### %s — %s\n\n", cell(statement), cell(f.Topic))
		fmt.Fprintf(w, "- Spec: %s (%s, %s)\n", cell(f.Spec.Text), f.Spec.Suite, f.Spec.Column.Label())
		fmt.Fprintf(w, "- The docs say: %s\n", cell(f.Docs))
		fmt.Fprintf(w, "- Measured: %s\n\n", cell(f.Measured))
		if f.Evidence != "" {
			fmt.Fprintf(w, "Evidence:\n\n")
			fence(w, f.Evidence)
		}
		if f.Reproducer != "" {
			fmt.Fprintf(w, "Reproducer:\n\n")
			fence(w, f.Reproducer)
		}
	}
	if len(doc.DriftNotes) > 0 {
		fmt.Fprintf(w, "### Drift notes without a finding\n\n")
		fmt.Fprintf(w, "Entries named \"drift: …\" whose value is text, not a drift.Finding: shown, not counted in any verdict.\n\n")
		mdHeader(w, "topic", "note", "spec")
		for _, n := range doc.DriftNotes {
			mdRow(w, n.Topic, shorten(n.Text, 300), n.Spec.Text)
		}
		fmt.Fprintln(w)
	}
	if len(doc.KnownDrift) > 0 {
		fmt.Fprintf(w, "### Known drift (from the statement catalogue)\n\n")
		for _, d := range doc.KnownDrift {
			fmt.Fprintf(w, "- **%s** (%s): %s\n", d.Topic, strings.Join(d.Statements, ", "), d.Text)
			for _, c := range d.Citations {
				fmt.Fprintf(w, "  - %s\n", mdCitation(c))
			}
		}
		fmt.Fprintln(w)
	}
}

func mdDisagreements(w io.Writer, doc report.Document) {
	if len(doc.Disagreements) == 0 {
		return
	}
	fmt.Fprintf(w, "## Where the pages disagree\n\n")
	fmt.Fprintf(w, "Which claim the cluster confirmed is decided by a spec's measurement (the claim whose value it matched). A spec answers before it asserts the catalogue's statement, so its answer stands when it then fails; its verdict is shown beside it.\n\n")
	for _, d := range doc.Disagreements {
		fmt.Fprintf(w, "### %s (%s): %s\n\n", d.Topic, strings.Join(d.Statements, ", "), d.Outcome())
		if d.Note != "" {
			fmt.Fprintf(w, "%s\n\n", d.Note)
		}
		for _, c := range d.Claims {
			mark := ""
			if c.Confirmed {
				mark = " **(confirmed)**"
			}
			fmt.Fprintf(w, "- %s: %s%s\n", code(c.Key), c.Text, mark)
			for _, ct := range c.Citations {
				fmt.Fprintf(w, "  - %s\n", mdCitation(ct))
			}
		}
		for _, a := range d.Answers {
			confirmed := "none"
			if len(a.Answer.Confirmed) > 0 {
				confirmed = strings.Join(a.Answer.Confirmed, ", ")
			}
			fmt.Fprintf(w, "- measured (%s, %s, %s): %s → %s\n", a.Spec.Text, a.Spec.Column.Label(), a.Spec.Verdict, shorten(a.Answer.Measured, 200), confirmed)
		}
		fmt.Fprintln(w)
	}
}

func mdFacts(w io.Writer, doc report.Document) {
	fmt.Fprintf(w, "## Cluster facts\n\n")
	for _, v := range doc.Facts {
		fmt.Fprintf(w, "### %s (%s)\n\n", v.Column.Label(), code(v.Column.Config))
		fmt.Fprintf(w, "Suites: %s\n\n", strings.Join(v.Suites, ", "))
		if len(v.Derived) > 0 {
			fmt.Fprintf(w, "No cluster facts recorded by %s: their configuration is derived from the suite's path.\n\n", strings.Join(v.Derived, ", "))
		}
		for _, c := range v.Clusters {
			fmt.Fprintf(w, "#### Cluster %s\n\n", code(c.Cluster))
			fmt.Fprintf(w, "- Server version: %s\n- Kind config: %s\n\n", code(c.ServerVersion), code(c.Config))
			if len(c.Components) > 0 {
				mdHeader(w, "component", "node", "gates", "source")
				for _, comp := range c.Components {
					mdRow(w, comp.Name, comp.Node, gatesText(comp.Gates), comp.Source)
				}
				fmt.Fprintln(w)
			}
			if len(c.Nodes) > 0 {
				mdHeader(w, "node", "profile", "kubelet", "kubelet settings", "declared features", "taints")
				for _, n := range c.Nodes {
					kubelet := n.KubeletVersion
					if n.KubeletSHA256 != "" {
						kubelet += " (sha256 " + n.KubeletSHA256 + ")"
					}
					mdRow(w, n.Name, n.Profile, kubelet, settingsText(n.KubeletSettings), strings.Join(n.DeclaredFeatures, " "), strings.Join(n.Taints, " "))
				}
				fmt.Fprintln(w)
			}
			if len(c.Images) > 0 {
				mdHeader(w, "image", "built from")
				for _, img := range c.Images {
					mdRow(w, code(img.Image), img.Source)
				}
				fmt.Fprintln(w)
			}
		}
	}
}

func mdTimings(w io.Writer, doc report.Document, charts Charts) {
	fmt.Fprintf(w, "## Timing\n\n")
	if len(doc.Spans) > 0 {
		fmt.Fprintf(w, "### Where the run's time went\n\n")
		mdChart(w, charts.Run, "where the run's time went")
		mdHeader(w, "lane", "what", "from (since the run started)", "for")
		for _, r := range report.SpanRows(doc.Spans) {
			mdRow(w, r.Lane, r.Kind, r.From.String(), r.For.String())
		}
		fmt.Fprintln(w)
	}
	if len(doc.Delays) > 0 {
		fmt.Fprintf(w, "### Crash-loop restart delays\n\n")
	}
	for i, d := range doc.Delays {
		fmt.Fprintf(w, "#### On %s\n\nSpec: %s (%s)\n\n", cell(d.What), cell(d.Spec.Text), d.Spec.Column.Label())
		mdHeader(w, "restart", "expected (ms)", "measured (ms)", "allowed (ms)", "within")
		for _, r := range d.Table {
			mdRow(w, fmt.Sprint(r.Restart), fmt.Sprint(r.ExpectedMs), fmt.Sprint(r.MeasuredMs),
				fmt.Sprintf("%d–%d", r.MinMs, r.MaxMs), withinText(true, r.MeasuredMs >= r.MinMs && r.MeasuredMs <= r.MaxMs))
		}
		fmt.Fprintln(w)
		mdChart(w, charts.Delays[i], "restart delays on "+d.What)
	}
	if len(doc.Experiments) > 0 {
		fmt.Fprintf(w, "### Measured spans\n\n")
	}
	for i, e := range doc.Experiments {
		fmt.Fprintf(w, "#### %s\n\nSpec: %s (%s)\n\n", cell(e.Name), cell(e.Spec.Text), e.Spec.Column.Label())
		mdHeader(w, "measurement", "measured", "allowed", "within")
		for _, r := range e.Rows {
			mdRow(w, r.Name, formatValues(r.Measured, r.Unit), r.Allowed, withinText(r.HasRange, r.Within()))
		}
		fmt.Fprintln(w)
		mdChart(w, charts.Experiments[i], e.Name)
	}
}

// mdInfraRetries lists the pods made again after a host flake, with the runtime's error.
func mdInfraRetries(w io.Writer, doc report.Document) {
	fmt.Fprintf(w, "## Infrastructure retries\n\n")
	if len(doc.InfraRetries) == 0 {
		fmt.Fprintf(w, "None.\n\n")
		return
	}
	fmt.Fprintf(w, "A container create the runtime failed for a reason of the host (its cgroups), answered once by making the pod again; the spec's verdict is that of the pod made again.\n\n")
	mdHeader(w, "spec", "pod", "the runtime's error")
	for _, r := range doc.InfraRetries {
		mdRow(w, r.Spec.Text+" ("+r.Spec.Column.Label()+", "+r.Spec.Location+")", r.Pod, r.Error)
	}
	fmt.Fprintln(w)
}

func mdFailures(w io.Writer, doc report.Document, charts Charts) {
	fmt.Fprintf(w, "## Failed specs\n\n")
	if len(doc.Failures) == 0 {
		fmt.Fprintf(w, "None.\n\n")
	}
	for i, f := range doc.Failures {
		fmt.Fprintf(w, "### %s\n\n", cell(f.Spec.Text))
		fmt.Fprintf(w, "- Suite: %s (%s)\n- Spec: %s\n- Failed at: %s\n\n", f.Spec.Suite, f.Spec.Column.Label(), code(f.Spec.Location), code(f.Location))
		fence(w, f.Message)
		for j, tl := range f.Timelines {
			fmt.Fprintf(w, "#### Timeline of pod %s\n\n", code(tl.Pod))
			if len(tl.Rows) == 0 {
				fmt.Fprintf(w, "(no saved timeline found; the spec's report has it as text)\n\n")
				fence(w, tl.Text)
				continue
			}
			fmt.Fprintf(w, "Saved as %s.\n\n", code(tl.File))
			mdChart(w, charts.Timelines[i][j], "timeline of "+tl.Pod)
			mdHeader(w, "seen", "+s", "kind", "observed")
			for _, r := range tl.Rows {
				mdRow(w, r.Seen.UTC().Format("15:04:05.000"), fmt.Sprintf("%.3f", r.Offset.Seconds()), r.Kind, r.Summary)
			}
			fmt.Fprintln(w)
		}
		for _, l := range f.KubeletLogs {
			fmt.Fprintf(w, "#### Kubelet log on %s\n\n", code(l.Node))
			fence(w, l.Lines)
		}
	}
}

func mdChart(w io.Writer, c *Chart, alt string) {
	if c != nil {
		fmt.Fprintf(w, "![%s](%s)\n\n", strings.NewReplacer("[", "(", "]", ")").Replace(alt), c.File)
	}
}
