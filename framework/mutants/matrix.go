package mutants

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/podlifecycle/conformance/framework/render"
	"github.com/podlifecycle/conformance/framework/report"
)

// Outcome is what the suite said of one statement a mutant names, against what it
// said of it with the stock kubelet in the same run.
type Outcome string

const (
	Caught        Outcome = "caught"          // a spec of the statement failed; none did with the stock kubelet
	CaughtAsDrift Outcome = "caught as drift" // it conformed with the stock kubelet and drifts with the mutant
	Missed        Outcome = "missed"          // the verdict is no worse than the stock kubelet's
	NotMeasured   Outcome = "not measured"    // every spec of it was skipped or not run with the mutant
	StockFails    Outcome = "stock fails"     // it fails with the stock kubelet too: nothing to compare
)

// Detected reports whether the outcome counts as the suite catching the mutant.
func (o Outcome) Detected() bool { return o == Caught || o == CaughtAsDrift }

// Cell is one (mutant, statement) of the matrix.
type Cell struct {
	Statement string  `json:"statement"`
	Stock     string  `json:"stock"`  // the statement's verdict with the stock kubelet
	Mutant    string  `json:"mutant"` // and with the mutant
	Outcome   Outcome `json:"outcome"`
	// Evidence: the first line of the first failure of a spec of the statement, with
	// its location, when the mutant made one fail.
	Evidence string `json:"evidence,omitempty"`
	// Why: for a missed statement, why the suite cannot tell (from the mutant's
	// Explained file), or empty: a finding still open.
	Why string `json:"why,omitempty"`
}

// Row is one mutant's line of the matrix.
type Row struct {
	Mutant string `json:"mutant"`
	Change string `json:"change"`
	Small  bool   `json:"small"`
	// KubeletSHA256: the kubelet the workers ran for this mutant's specs.
	KubeletSHA256 string `json:"kubeletSha256"`
	Cells         []Cell `json:"cells"`
	// Unrelated: failures that are not of a spec of a statement the mutant names (a
	// suite's setup, a spec of no named statement), or the run's own error (the
	// mutant did not build, its kubelet did not come up).
	Unrelated []string      `json:"unrelated,omitempty"`
	Took      time.Duration `json:"tookNs"`
}

// Verdict is the row's outcome: caught when every statement it names is caught,
// partly when some are, missed when none, and unrelated when something else failed.
func (r Row) Verdict() string {
	if len(r.Unrelated) > 0 {
		return "unrelated failure"
	}
	n := 0
	for _, c := range r.Cells {
		if c.Outcome.Detected() {
			n++
		}
	}
	switch {
	case n == len(r.Cells) && n > 0:
		return "caught"
	case n > 0:
		return "partly caught"
	default:
		return "missed"
	}
}

// Matrix is the kill matrix of one `make mutants`.
type Matrix struct {
	Date   time.Time `json:"date"`
	Commit string    `json:"commit"`
	// Stock: the stock kubelet's run of every statement the mutants name, the
	// baseline; StockGreen says whether every one of its specs passed.
	StockSHA256 string        `json:"stockSha256"`
	StockGreen  bool          `json:"stockGreen"`
	StockFailed []string      `json:"stockFailed,omitempty"`
	Rows        []Row         `json:"rows"`
	WallTime    time.Duration `json:"wallTimeNs"`
	// Where the last run's time went besides the mutants' own runs: kubelets built
	// (or taken from images/mutants.sh's cache), suites compiled, each cluster made
	// or found, the stock run on it.
	Phases []Phase `json:"phases,omitempty"`
}

// Phase is one step of a matrix run and how long it took.
type Phase struct {
	Name string        `json:"name"`
	Took time.Duration `json:"tookNs"`
}

// Counts are the matrix's figures: mutants in all, caught (every named statement),
// partly caught, missed, and with an unrelated failure.
type Counts struct {
	Mutants, Caught, Partly, Missed, Unrelated int
}

func (m Matrix) Counts() Counts {
	c := Counts{Mutants: len(m.Rows)}
	for _, r := range m.Rows {
		switch r.Verdict() {
		case "caught":
			c.Caught++
		case "partly caught":
			c.Partly++
		case "missed":
			c.Missed++
		default:
			c.Unrelated++
		}
	}
	return c
}

func (c Counts) String() string {
	pct := 0.0
	if c.Mutants > 0 {
		pct = 100 * float64(c.Caught) / float64(c.Mutants)
	}
	return fmt.Sprintf("%d mutants: %d caught (%.0f %%), %d partly caught, %d missed, %d with an unrelated failure",
		c.Mutants, c.Caught, pct, c.Partly, c.Missed, c.Unrelated)
}

// Classify is the row of mutant m from the stock run's document and the mutant's.
func Classify(m Mutant, stock, mutant report.Document) Row {
	row := Row{Mutant: m.Name, Change: m.Change, Small: m.Small}
	for _, id := range m.Breaks {
		s, mu := verdictOf(stock, id), verdictOf(mutant, id)
		c := Cell{Statement: id, Stock: s.String(), Mutant: mu.String()}
		switch {
		case s == report.Fails:
			c.Outcome = StockFails
		case mu == report.Fails:
			c.Outcome = Caught
			c.Evidence = firstFailure(mutant, id)
		case mu == report.Drift && s == report.Conforms:
			c.Outcome = CaughtAsDrift
		case mu == report.Skipped || mu == report.NotRun || mu < report.NotRun:
			c.Outcome = NotMeasured
		default:
			c.Outcome = Missed
			c.Why = m.Undetectable[id]
		}
		row.Cells = append(row.Cells, c)
	}
	row.Unrelated = unrelatedFailures(m, mutant)
	return row
}

func verdictOf(d report.Document, id string) report.Verdict {
	for _, r := range d.Rows {
		if r.Statement.ID == id {
			return r.Verdict
		}
	}
	return report.NoSpec
}

// specsOf is the set of specs (suite, location, text) that check statement id.
func specsOf(d report.Document, id string) map[string]bool {
	out := map[string]bool{}
	for _, r := range d.Rows {
		if r.Statement.ID == id {
			for _, s := range r.Specs {
				out[specKey(s)] = true
			}
		}
	}
	return out
}

func specKey(s report.SpecRef) string { return s.Suite + "\x00" + s.Location + "\x00" + s.Text }

// firstFailure is the first telling line of the first failure of a spec of
// statement id.
func firstFailure(d report.Document, id string) string {
	specs := specsOf(d, id)
	for _, f := range d.Failures {
		if specs[specKey(f.Spec)] {
			return report.TellingLine(f.Message) + " (" + f.Location + ")"
		}
	}
	return ""
}

// unrelatedFailures are the failures of the mutant's run that are not of a spec of a
// statement it names: a suite's setup, or a spec the label filter let in for another
// reason.
func unrelatedFailures(m Mutant, d report.Document) []string {
	named := map[string]bool{}
	for _, id := range m.Breaks {
		for k := range specsOf(d, id) {
			named[k] = true
		}
	}
	var out []string
	for _, f := range d.Failures {
		if named[specKey(f.Spec)] {
			continue
		}
		out = append(out, fmt.Sprintf("%s %s: %s (%s)", f.NodeType, f.Spec.Text, report.TellingLine(f.Message), f.Location))
	}
	return out
}

// WriteJSON writes the matrix as indented JSON.
func (m Matrix) WriteJSON(file string) error {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(file, append(data, '\n'), 0o644)
}

// ReadJSON reads a matrix WriteJSON wrote.
func ReadJSON(file string) (Matrix, error) {
	var m Matrix
	data, err := os.ReadFile(file)
	if err != nil {
		return m, err
	}
	return m, json.Unmarshal(data, &m)
}

// View is the matrix as the report shows it.
func (m Matrix) View() report.KillMatrix {
	k := report.KillMatrix{Summary: m.Counts().String(), Date: m.Date.UTC().Format("2006-01-02"), Commit: m.Commit}
	if m.StockGreen {
		k.Stock = "The stock kubelet through the same machinery: every spec green."
	} else {
		k.Stock = "The stock kubelet through the same machinery failed: " + strings.Join(m.StockFailed, "; ")
	}
	for _, r := range m.Rows {
		size := "gross"
		if r.Small {
			size = "small"
		}
		row := report.KillRow{Mutant: r.Mutant, Change: r.Change, Size: size, Verdict: r.Verdict(), Unrelated: r.Unrelated}
		for _, c := range r.Cells {
			row.Cells = append(row.Cells, report.KillCell{Statement: c.Statement, Outcome: string(c.Outcome), Stock: c.Stock, Mutant: c.Mutant,
				Evidence: c.Evidence, Why: c.Why, Detected: c.Outcome.Detected()})
		}
		k.Rows = append(k.Rows, row)
	}
	return k
}

// Markdown is the matrix as Markdown (kill-matrix.md), with its wall time. A matrix
// rerun for some mutants (-only) keeps the other rows of an earlier run, so the wall
// time is said to be the last run's, beside the sum of every row's own run.
func (m Matrix) Markdown() string {
	var b strings.Builder
	var rows time.Duration
	for _, r := range m.Rows {
		rows += r.Took
	}
	fmt.Fprintf(&b, "# Kill matrix\n\nWall time of the last run that wrote it: %s. The %d mutants' own runs (their kubelet in place, their specs), whichever run measured them: %s in all.\n\n",
		m.WallTime.Round(time.Second), len(m.Rows), rows.Round(time.Second))
	if len(m.Phases) > 0 {
		var ps []string
		for _, p := range m.Phases {
			ps = append(ps, fmt.Sprintf("%s %s", p.Name, p.Took.Round(time.Second)))
		}
		fmt.Fprintf(&b, "Besides the mutants' runs: %s.\n\n", strings.Join(ps, "; "))
	}
	render.WriteKillMatrixMarkdown(&b, m.View())
	return b.String()
}
