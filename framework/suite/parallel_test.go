package suite

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"

	"github.com/podlifecycle/conformance/framework/entries"
)

func TestTimedWithin(t *testing.T) {
	quiet, ok := TimedWithin(150 * time.Millisecond).([]any)
	if !ok || !slices.ContainsFunc(quiet, func(d any) bool { return d == Serial }) ||
		!slices.ContainsFunc(quiet, func(d any) bool { l, ok := d.(Labels); return ok && slices.Contains(l, entries.QuietLabel) }) {
		t.Errorf("a 150 ms tolerance (probe ticks) must run Quiet, Serial and labelled %s: the parallel load measured up to 120 ms; got %#v", entries.QuietLabel, TimedWithin(150*time.Millisecond))
	}
	if _, ok := TimedWithin(250 * time.Millisecond).(Labels); !ok {
		t.Error("a 250 ms tolerance (TERM→SIGKILL) can run in parallel")
	}
}

// make e2e runs the specs labelled Quiet after the others, which run side by side: a
// spec decorated Serial without that label would run beside other suites' specs.
func TestEverySerialSpecIsQuiet(t *testing.T) {
	fset := token.NewFileSet()
	found := 0
	err := filepath.WalkDir("../../suites", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			for _, arg := range call.Args {
				switch a := arg.(type) {
				case *ast.Ident:
					if a.Name == "Serial" {
						t.Errorf("%s: a bare Serial; use suite.Quiet, which make e2e runs after the side-by-side specs", fset.Position(a.Pos()))
					}
				case *ast.SelectorExpr:
					if a.Sel.Name == "Quiet" || a.Sel.Name == "TimedWithin" {
						found++
					}
				case *ast.CallExpr:
					if s, ok := a.Fun.(*ast.SelectorExpr); ok && s.Sel.Name == "TimedWithin" {
						found++
					}
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found == 0 {
		t.Fatal("no suite.Quiet or suite.TimedWithin found under suites/: the reader is broken")
	}
}
