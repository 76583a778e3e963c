package render

import (
	"os"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/podlifecycle/conformance/framework/report"
	"github.com/podlifecycle/conformance/framework/statements"
)

// The documents rendered here are framework/report's fixture (its testdata: a real
// run's e2e.json cut down to a few specs of four suites, with its catalogue), built
// by report.Build as the report command builds them.
const fixture = "../report/testdata"

func fixtureDocument(t *testing.T) report.Document {
	t.Helper()
	cat, runs := loadFixture(t)
	doc, err := report.Build(fixture+"/artifacts", runs, cat, nil)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// lifecycleOnlyDocument is the fixture as `make e2e-lifecycle` would leave it: the
// lifecycle suite's report alone, against the project's suites (the fixture's and
// two more, as the Makefile passes ALL_SUITES to -suites).
func lifecycleOnlyDocument(t *testing.T) report.Document {
	t.Helper()
	cat, runs := loadFixture(t)
	for i := range runs {
		runs[i].Suites = slices.DeleteFunc(runs[i].Suites, func(r types.Report) bool { return !strings.HasSuffix(path.Clean(r.SuitePath), "/suites/lifecycle") })
	}
	doc, err := report.Build(fixture+"/artifacts", runs, cat, strings.Fields("lifecycle restart termination restart/profiles probes cluster"))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func loadFixture(t *testing.T) (statements.Catalogue, []report.Run) {
	t.Helper()
	data, err := os.ReadFile(fixture + "/statements.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cat, err := statements.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	runs, err := report.LoadRuns(fixture+"/artifacts", "e2e.json")
	if err != nil {
		t.Fatal(err)
	}
	return cat, runs
}

func rowOf(t *testing.T, doc report.Document, id string) report.Row {
	t.Helper()
	for _, r := range doc.Rows {
		if r.Statement.ID == id {
			return r
		}
	}
	t.Fatalf("no row for %s", id)
	return report.Row{}
}
