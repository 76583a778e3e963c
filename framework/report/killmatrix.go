package report

// KillMatrix is the kill matrix of `make mutants` (framework/mutants) as the report
// shows it: which kubelets broken on purpose the suite caught, statement by
// statement. The report command fills it from <artifacts>/mutants/kill-matrix.json.
type KillMatrix struct {
	Summary string // "34 mutants: 31 caught (91 %), …"
	Date    string
	Commit  string
	Stock   string // what the stock kubelet did through the same machinery
	Rows    []KillRow
}

// KillRow is one mutant.
type KillRow struct {
	Mutant, Change, Size, Verdict string
	Unrelated                     []string
	Cells                         []KillCell
}

// KillCell is one statement the mutant names.
type KillCell struct {
	Statement, Outcome, Stock, Mutant, Evidence, Why string
	Detected                                         bool
}
