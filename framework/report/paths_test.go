package report

import "testing"

// A suite run from the repository names its files by absolute path; one built with
// -trimpath (the runner image's) by module path. Both read relative to the repository.
func TestRelativeNamesFilesByRepository(t *testing.T) {
	for _, c := range []struct{ root, file, want string }{
		{"/src/conformance", "/src/conformance/suites/lifecycle/phase_test.go", "suites/lifecycle/phase_test.go"},
		{"/opt/podlifecycle", "github.com/podlifecycle/conformance/suites/lifecycle/phase_test.go", "suites/lifecycle/phase_test.go"},
		{"/src/conformance", "/usr/lib/go/src/testing/testing.go", "/usr/lib/go/src/testing/testing.go"},
	} {
		if got := relative(c.root, c.file); got != c.want {
			t.Errorf("relative(%q, %q) = %q, want %q", c.root, c.file, got, c.want)
		}
	}
}
