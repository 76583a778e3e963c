package report

import (
	"slices"
	"strings"
	"testing"
)

func TestReadCatalogue(t *testing.T) {
	cat, err := ReadCatalogue("testdata/statements.md")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, s := range cat.Statements {
		ids = append(ids, s.ID)
	}
	want := []string{"PL-1", "PL-2", "PL-5", "PL-10", "CS-1", "RS-7", "RS-11", "RS-12", "RS-13",
		"PC-2", "PC-4", "PC-6", "PC-7", "PC-8", "PC-10", "PR-9", "TM-6", "TM-12", "TM-14", "DF-9"}
	if !slices.Equal(ids, want) {
		t.Fatalf("IDs %v, want %v (the DOC-DRIFT section and what follows are no statements)", ids, want)
	}
	byID := map[string]Statement{}
	for _, s := range cat.Statements {
		byID[s.ID] = s
	}
	if s := byID["PL-10"]; !s.Slow || len(s.Gates) != 0 || s.Section != "PL — Pod phase and lifetime" {
		t.Errorf("PL-10: %+v", s)
	}
	if s := byID["RS-11"]; s.Slow || !slices.Equal(s.Gates, []string{"RestartAllContainersOnContainerExits"}) {
		t.Errorf("RS-11 markers: %+v", s)
	}
	if s := byID["RS-11"]; !strings.Contains(s.Text, "\na pod condition goes True") {
		t.Errorf("RS-11 lost its continuation line: %q", s.Text)
	}
	if !strings.HasPrefix(cat.KnownDrift, "- The in-place restart condition") || strings.Contains(cat.KnownDrift, "Gate facts") {
		t.Errorf("known drift: %q", cat.KnownDrift)
	}
}

func TestParseCatalogueRejectsAnIDListedTwice(t *testing.T) {
	_, err := ParseCatalogue(strings.NewReader("## PL — x\n- PL-1 one\n- PL-1 again\n"))
	if err == nil {
		t.Fatal("a catalogue with PL-1 twice was accepted")
	}
}

func TestStatementIDs(t *testing.T) {
	got := StatementIDs([]string{"Slow", "PL-10", "PC-2", "ContainerRestartRules", "RS-", "pl-1", "DOC-DRIFT", "KR-3", "PC-2"})
	if want := []string{"KR-3", "PC-2", "PL-10"}; !slices.Equal(got, want) {
		t.Errorf("StatementIDs = %v, want %v", got, want)
	}
}

func TestShortCutsAtAWord(t *testing.T) {
	s := Statement{Text: strings.Repeat("word ", 60) + "\nsecond line"}
	if got := s.Short(); len(got) > 145 || !strings.HasSuffix(got, " …") {
		t.Errorf("Short() = %q", got)
	}
	if got := (Statement{Text: "short\nmore"}).Short(); got != "short" {
		t.Errorf("Short() = %q, want the first line", got)
	}
}
