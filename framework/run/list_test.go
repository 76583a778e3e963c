package run

import (
	"strings"
	"testing"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/podlifecycle/conformance/framework/statements"
)

func TestListPerStatement(t *testing.T) {
	reports := []types.Report{{SuitePath: "/repo/suites/lifecycle", SpecReports: types.SpecReports{
		{LeafNodeType: types.NodeTypeIt, State: types.SpecStatePassed, LeafNodeText: "orders conditions",
			LeafNodeLocation: types.CodeLocation{FileName: "/repo/suites/lifecycle/phase_test.go", LineNumber: 24}, LeafNodeLabels: []string{"PL-1", "PC-2"}},
		{LeafNodeType: types.NodeTypeIt, State: types.SpecStateSkipped, LeafNodeText: "filtered out",
			LeafNodeLocation: types.CodeLocation{FileName: "/repo/suites/lifecycle/x_test.go", LineNumber: 1}, LeafNodeLabels: []string{"PL-3"}},
		{LeafNodeType: types.NodeTypeSynchronizedBeforeSuite, State: types.SpecStatePassed},
	}}}
	selected := Selected(reports)
	if len(selected) != 1 || selected[0].Location != "suites/lifecycle/phase_test.go:24" || selected[0].Suite != "suites/lifecycle" {
		t.Fatalf("selected %+v, want the one spec the dry run passed", selected)
	}
	cat, err := statements.Load()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := WriteList(&b, cat, selected); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"PL-1  ", "PC-2  ", "    suites/lifecycle/phase_test.go:24  orders conditions  [PL-1, PC-2]", "1 specs selected, checking 2 of", "none selected for PL-2 PL-3"} {
		if !strings.Contains(out, want) {
			t.Errorf("list lacks %q:\n%s", want, out)
		}
	}
}
