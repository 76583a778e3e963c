package report

import (
	"fmt"
	"path"
	"strings"
)

// Label names a column for a reader: the version, and the kind config by its file
// name ("v1.37.2 · default").
func (c Column) Label() string {
	config := strings.TrimSuffix(path.Base(c.Config), ".yaml")
	if c.Version == "" {
		return config
	}
	return c.Version + " · " + config
}

// CellText is a cell as one line: its verdict, or "–" where the statement has no spec
// in that configuration (it is checked in another one).
func (c Cell) CellText() string {
	if c.Specs == 0 {
		return "–"
	}
	return c.Verdict.String()
}

// InPart reports whether the statement's verdict rests on some of its parts only: it
// conforms (or drifts, or fails) in what was measured, and some of its specs
// measured nothing.
func (r Row) InPart() bool { return r.Verdict >= Conforms && len(r.Unmeasured) > 0 }

// PartNote says which parts of the statement were not measured, and why: "1 of 5
// parts skipped: <spec> (<reason>)"; "" when every part was measured.
func (r Row) PartNote() string {
	if len(r.Unmeasured) == 0 {
		return ""
	}
	var which []string
	for _, p := range r.Unmeasured {
		item := p.Text
		if p.Reason != "" {
			item += " (" + p.Verdict.String() + ": " + p.Reason + ")"
		}
		which = append(which, item)
	}
	return r.partCount() + ": " + strings.Join(which, "; ")
}

// partCount is "2 of 7 parts not run": how many parts measured nothing, and how
// (skipped, not run, or "not measured" where they differ).
func (r Row) partCount() string {
	how := r.Unmeasured[0].Verdict.String()
	for _, p := range r.Unmeasured[1:] {
		if p.Verdict != r.Unmeasured[0].Verdict {
			how = "not measured"
			break
		}
	}
	return fmt.Sprintf("%d of %d parts %s", len(r.Unmeasured), r.Parts, how)
}

// VerdictText is the statement's verdict, with its unmeasured parts counted:
// "conforms, 2 of 7 parts not run".
func (r Row) VerdictText() string {
	if !r.InPart() {
		return r.Verdict.String()
	}
	return r.Verdict.String() + ", " + r.partCount()
}

// Count is a verdict, how many statements have it, and how many of those have it in
// part only.
type Count struct {
	Verdict Verdict
	N       int
	InPart  int
}

// Text is the count as the report shows it: "67" or "67 (5 in part)".
func (c Count) Text() string {
	if c.InPart == 0 {
		return fmt.Sprint(c.N)
	}
	return fmt.Sprintf("%d (%d in part)", c.N, c.InPart)
}

// CountList is counts heaviest first, as the report shows them; inPart may be nil.
func CountList(counts, inPart map[Verdict]int) []Count {
	out := make([]Count, 0, len(Verdicts()))
	for _, v := range Verdicts() {
		out = append(out, Count{v, counts[v], inPart[v]})
	}
	return out
}

// CountLine is counts on one line: "fails 1 · drift 6 · conforms 67 (5 in part) · …". "not in this run" and
// "not checkable here" are left out when none is: only a run of some of the suites
// has the first, only a catalogue that marks statements the second, and a
// configuration's counts never have either (they count statements with specs there).
func CountLine(counts, inPart map[Verdict]int) string {
	var parts []string
	for _, c := range CountList(counts, inPart) {
		if (c.Verdict == NotInRun || c.Verdict == NotCheckable || c.Verdict == NothingToAssert) && c.N == 0 {
			continue
		}
		parts = append(parts, fmt.Sprintf("%s %s", c.Verdict, c.Text()))
	}
	return strings.Join(parts, " · ")
}

// CountText is how many statements have verdict v, with those that have it in part.
func (d Document) CountText(v Verdict) string {
	return Count{v, d.Counts[v], d.InPart[v]}.Text()
}
