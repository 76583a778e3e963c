package statements

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// suitesDir is the repository's suites, from this package's directory.
const suitesDir = "../../suites"

// claim is one statement label in a spec file: where it is, for the failure message.
type claim struct {
	ID       string
	Location string
	// Node is the Ginkgo node whose argument the label is ("It", "Describe", …), or ""
	// for a label outside a node's arguments.
	Node string
}

// specClaims are the statement IDs the suites' specs carry: the string arguments of
// every Label(…) call in suites/**/_test.go, read from the source so that no suite has
// to be compiled or run. Labels are string literals by the project's habit; a
// non-literal argument (facts.ProfileLabel) is a label of another kind and is skipped.
func specClaims(t *testing.T) []claim {
	t.Helper()
	var out []claim
	fset := token.NewFileSet()
	err := filepath.WalkDir(suitesDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		nodeOf := map[*ast.CallExpr]string{} // a Label call → the node it is an argument of
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			if !isLabelCall(call) {
				if name, ok := call.Fun.(*ast.Ident); ok {
					for _, arg := range call.Args {
						if l, ok := arg.(*ast.CallExpr); ok && isLabelCall(l) {
							nodeOf[l] = name.Name
						}
					}
				}
				return true
			}
			for _, arg := range call.Args {
				lit, ok := arg.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					continue
				}
				label, err := strconv.Unquote(lit.Value)
				if err != nil {
					continue
				}
				for _, id := range IDs([]string{label}) {
					p := fset.Position(lit.Pos())
					rel, _ := filepath.Rel("../..", p.Filename)
					out = append(out, claim{ID: id, Location: fmt.Sprintf("%s:%d", rel, p.Line), Node: nodeOf[call]})
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatalf("reading the suites' labels: %v", err)
	}
	if len(out) == 0 {
		t.Fatalf("no statement label found under %s: the reader is broken", suitesDir)
	}
	return out
}

// isLabelCall: Label(…) or ginkgo.Label(…).
func isLabelCall(call *ast.CallExpr) bool {
	switch fun := call.Fun.(type) {
	case *ast.Ident:
		return fun.Name == "Label"
	case *ast.SelectorExpr:
		return fun.Sel.Name == "Label"
	}
	return false
}

// Every statement label a spec carries is a statement of the catalogue, and every
// statement of the catalogue is claimed by a spec or says why no spec can check it.
func TestEverySpecLabelIsCataloguedAndEveryStatementIsClaimed(t *testing.T) {
	cat, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	claimed := map[string][]string{}
	for _, c := range specClaims(t) {
		claimed[c.ID] = append(claimed[c.ID], c.Location)
	}
	var unknown []string
	for id, where := range claimed {
		if _, ok := cat.Statement(id); !ok {
			unknown = append(unknown, fmt.Sprintf("%s (%s)", id, strings.Join(where, ", ")))
		}
	}
	slices.Sort(unknown)
	for _, u := range unknown {
		t.Errorf("a spec carries the statement label %s, which framework/statements/catalogue.yaml does not list", u)
	}
	for _, s := range cat.Statements() {
		if len(claimed[s.ID]) == 0 && s.NotCheckable == "" && s.NothingToAssert == "" {
			t.Errorf("%s: no spec carries its label, and the catalogue gives no notCheckable or nothingToAssert reason", s.ID)
		}
		if s.NothingToAssert != "" && len(claimed[s.ID]) > 0 {
			t.Errorf("%s: the catalogue says there is nothing to assert, yet %s carry its label: a spec that cannot fail would read as a check", s.ID, strings.Join(claimed[s.ID], ", "))
		}
	}
}

// A statement's label sits on the specs that check it (It, a table, an Entry), never
// on a container: a Describe's label reaches every spec in it, and one spec there that
// checks nothing of the statement would lift its verdict from "not run" to "conforms
// (in part)".
func TestStatementLabelsSitOnSpecsNotOnContainers(t *testing.T) {
	for _, c := range specClaims(t) {
		switch c.Node {
		case "It", "DescribeTable", "Entry":
		case "Describe", "Context", "When":
			t.Errorf("%s: %s on a %s: put it on the specs inside that check it", c.Location, c.ID, c.Node)
		default:
			t.Errorf("%s: %s outside a spec's arguments (%q): the reader cannot tell which specs carry it", c.Location, c.ID, c.Node)
		}
	}
}

// The reader finds labels where the suites put them, and only statement IDs.
func TestSpecClaimsReadsTheSuites(t *testing.T) {
	claims := specClaims(t)
	byID := map[string]bool{}
	for _, c := range claims {
		byID[c.ID] = true
		if !strings.HasPrefix(c.Location, "suites/") {
			t.Errorf("claim %s at %q: want a path under suites/", c.ID, c.Location)
		}
	}
	for _, id := range []string{"PL-1", "RS-6", "TM-11", "DF-2"} {
		if !byID[id] {
			t.Errorf("no spec claims %s: the reader missed a Label call", id)
		}
	}
	for _, notStatement := range []string{"Slow", "infra", "ContainerRestartRules"} {
		if byID[notStatement] {
			t.Errorf("%s read as a statement", notStatement)
		}
	}
}

func TestIDs(t *testing.T) {
	got := IDs([]string{"Slow", "PL-10", "PC-2", "ContainerRestartRules", "RS-", "pl-1", "DOC-DRIFT", "KR-3", "PC-2"})
	if want := []string{"KR-3", "PC-2", "PL-10"}; !slices.Equal(got, want) {
		t.Errorf("IDs = %v, want %v", got, want)
	}
}

func TestMentioned(t *testing.T) {
	got := Mentioned("PC-2/PC-4: True in write 3; RS-60 is not RS-6, abc-1 and XPC-22x are not IDs; PC-2 again")
	if want := []string{"PC-2", "PC-4", "RS-6", "RS-60"}; !slices.Equal(got, want) {
		t.Errorf("Mentioned: %q, want %q", got, want)
	}
}
