package entries

import (
	"go/build"
	"path/filepath"
	"strings"
	"testing"
)

const module = "github.com/podlifecycle/conformance/"

// The specs never depend on the report: no package the suites import, directly or
// through the project's own packages, is framework/report or framework/render.
func TestSpecsDoNotImportTheRenderer(t *testing.T) {
	suites, err := filepath.Glob("../../suites/*")
	if err != nil {
		t.Fatal(err)
	}
	more, _ := filepath.Glob("../../suites/*/*")
	seen := map[string]bool{}
	var visit func(path, from string)
	visit = func(path, from string) {
		if seen[path] {
			return
		}
		seen[path] = true
		if path == module+"framework/report" || path == module+"framework/render" {
			t.Errorf("%s imports the report (%s); record through framework/entries", from, strings.TrimPrefix(path, module))
			return
		}
		pkg, err := build.Import(path, "../..", 0)
		if err != nil {
			return
		}
		for _, imp := range append(pkg.Imports, pkg.TestImports...) {
			if strings.HasPrefix(imp, module) {
				visit(imp, path)
			}
		}
	}
	for _, dir := range append(suites, more...) {
		pkg, err := build.ImportDir(dir, 0)
		if err != nil {
			continue
		}
		for _, imp := range append(pkg.Imports, pkg.TestImports...) {
			if strings.HasPrefix(imp, module) {
				visit(imp, dir)
			}
		}
	}
	if len(seen) == 0 {
		t.Fatal("found no package of the suites")
	}
}
