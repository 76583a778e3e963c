package report

import (
	"path"
	"strings"
)

// A run of some suites (make e2e-lifecycle) holds no spec of the statements checked in
// the others; calling those "no spec" would claim the project lacks specs it has. The
// report therefore compares the suites a run covered with the project's suites.

// leftOut is the project's suites (directories below suites/, as the Makefile's
// ALL_SUITES lists them) that no suite report of the runs came from, named as the
// report names suites ("suites/probes").
func leftOut(project []string, runs []Run) []string {
	var out []string
	for _, dir := range project {
		dir = path.Clean(dir)
		if !covered(dir, runs) {
			out = append(out, "suites/"+dir)
		}
	}
	return out
}

// covered says whether some suite of the runs is suites/dir. Ginkgo's SuitePath is
// absolute, so the suffix is matched from a path separator: suites/restart is covered
// by …/suites/restart, not by …/suites/restart/profiles.
func covered(dir string, runs []Run) bool {
	want := "suites/" + dir
	for _, run := range runs {
		for _, suite := range run.Suites {
			p := path.Clean(suite.SuitePath)
			if p == want || strings.HasSuffix(p, "/"+want) {
				return true
			}
		}
	}
	return false
}

// notInRunReason says why a statement with no spec in the run is "not in this run".
func notInRunReason(left []string) string {
	return "no spec in this run, which left out " + strings.Join(left, ", ")
}

// DisruptiveLeftOut names the statements with a Disruptive spec the run left out on a
// cluster it did not make, "(in part)" where another spec of the statement ran: what
// a run without ALLOW_DISRUPTIVE=1 leaves unchecked.
func DisruptiveLeftOut(doc Document) []string {
	var out []string
	for _, r := range doc.Rows {
		left, ran := false, false
		for _, s := range r.Specs {
			switch {
			case s.Reason == NotRunDisruptive:
				left = true
			case s.Verdict >= Conforms:
				ran = true
			}
		}
		switch {
		case left && ran:
			out = append(out, r.Statement.ID+" (in part)")
		case left:
			out = append(out, r.Statement.ID)
		}
	}
	return out
}
