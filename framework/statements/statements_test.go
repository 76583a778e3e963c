package statements

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Every source of the catalogue stands in its page: the page file exists, the section
// is a line of it, and the quote is on a line after that heading, verbatim.
func TestEveryQuoteStandsInItsPageUnderItsSection(t *testing.T) {
	cat, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	pages := map[string][]string{}
	for _, p := range cat.Pages {
		data, err := os.ReadFile(filepath.Join("pages", p.Seed))
		if err != nil {
			t.Fatalf("page %s: %v", p.Seed, err)
		}
		pages[p.Seed] = strings.Split(string(data), "\n")
	}
	check := func(what string, s Source) {
		lines := pages[s.Seed]
		heading := -1
		for i, l := range lines {
			if strings.TrimSpace(l) == s.Section {
				heading = i
				break
			}
		}
		if heading < 0 {
			t.Errorf("%s: section %q is no line of pages/%s", what, s.Section, s.Seed)
			return
		}
		for _, l := range lines[heading:] {
			if strings.Contains(l, s.Quote) {
				return
			}
		}
		t.Errorf("%s: quote %q is not in pages/%s after its section %q (line %d)", what, s.Quote, s.Seed, s.Section, heading+1)
	}
	for _, st := range cat.Statements() {
		for _, s := range st.Sources {
			check(st.ID, s)
		}
	}
	for _, d := range cat.KnownDrift {
		for _, s := range d.Sources {
			check("known drift "+d.Topic, s)
		}
	}
	for _, d := range cat.Disagreements {
		for _, cl := range d.Claims {
			for _, s := range cl.Sources {
				check("disagreement "+d.Topic+", claim "+cl.Key, s)
			}
		}
	}
}

func TestTheCatalogueHasItsPagesAndStatements(t *testing.T) {
	cat, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range cat.Pages {
		if !strings.HasPrefix(p.URL, "https://kubernetes.io/") || p.Title == "" || p.Language == "" {
			t.Errorf("page %s: want a kubernetes.io address, a title and a language: %+v", p.Seed, p)
		}
	}
	if s, ok := cat.Statement("RS-12"); !ok || !slices.Equal(s.Gates, []string{"ReduceDefaultCrashLoopBackOffDecay"}) || s.Slow {
		t.Errorf("RS-12: %+v", s)
	}
	if s, ok := cat.Statement("PL-10"); !ok || !s.Slow || len(s.Gates) != 0 {
		t.Errorf("PL-10: %+v", s)
	}
	if got := cat.URL(Source{Seed: cat.Pages[0].Seed, Anchor: "pod-phase"}); got != cat.Pages[0].URL+"#pod-phase" {
		t.Errorf("URL with an anchor: %s", got)
	}
}

func TestParseRejects(t *testing.T) {
	page := "pages: [{seed: p.txt, title: P, language: en, url: https://kubernetes.io/p/}]\n"
	src := "sources: [{seed: p.txt, section: S, anchor: a, quote: q}]"
	for name, doc := range map[string]string{
		"an ID listed twice":             page + "areas: [{code: PL, title: T, statements: [{id: PL-1, text: a, " + src + "}, {id: PL-1, text: b, " + src + "}]}]",
		"an ID of another area":          page + "areas: [{code: PL, title: T, statements: [{id: RS-1, text: a, " + src + "}]}]",
		"a malformed ID":                 page + "areas: [{code: PL, title: T, statements: [{id: PL1, text: a, " + src + "}]}]",
		"a statement no source":          page + "areas: [{code: PL, title: T, statements: [{id: PL-1, text: a}]}]",
		"a source on no page":            page + "areas: [{code: PL, title: T, statements: [{id: PL-1, text: a, sources: [{seed: x.txt, section: S, quote: q}]}]}]",
		"an unknown field":               page + "areas: [{code: PL, title: T, statements: [{id: PL-1, txt: a, " + src + "}]}]",
		"drift on no statement":          page + "areas: [{code: PL, title: T, statements: [{id: PL-1, text: a, " + src + "}]}]\nknownDrift: [{topic: t, statements: [PL-9], text: x}]",
		"a disagreement of one claim":    page + "areas: [{code: PL, title: T, statements: [{id: PL-1, text: a, " + src + "}]}]\ndisagreements: [{topic: t, statements: [PL-1], claims: [{key: a, text: x, " + src + "}]}]",
		"a claim key in capitals":        page + "areas: [{code: PL, title: T, statements: [{id: PL-1, text: a, " + src + "}]}]\ndisagreements: [{topic: t, statements: [PL-1], claims: [{key: A, text: x, " + src + "}, {key: b, text: y, " + src + "}]}]",
		"a disagreement on no statement": page + "areas: [{code: PL, title: T, statements: [{id: PL-1, text: a, " + src + "}]}]\ndisagreements: [{topic: t, statements: [PL-9], claims: [{key: a, text: x, " + src + "}, {key: b, text: y, " + src + "}]}]",
		"an anchor with its '#'":         page + "areas: [{code: PL, title: T, statements: [{id: PL-1, text: a, sources: [{seed: p.txt, section: S, anchor: '#a', quote: q}]}]}]",
	} {
		if _, err := Parse([]byte(doc)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestShortCutsAtAWord(t *testing.T) {
	s := Statement{Text: strings.Repeat("word ", 60)}
	if got := s.Short(); len(got) > 145 || !strings.HasSuffix(got, " …") {
		t.Errorf("Short() = %q", got)
	}
	if got := (Statement{Text: "short\nand folded"}).Short(); got != "short and folded" {
		t.Errorf("Short() = %q, want the text on one line", got)
	}
}

// A spec's answer names a disagreement of the catalogue and all of its claims' keys.
func TestCheckAnswerKeys(t *testing.T) {
	cat := Catalogue{Disagreements: []Disagreement{{Topic: "backoff reset", Claims: []Claim{{Key: "after-ten-minutes"}, {Key: "after-a-good-restart"}}}}}
	if err := cat.CheckAnswerKeys("backoff reset", []string{"after-a-good-restart", "after-ten-minutes"}); err != nil {
		t.Error(err)
	}
	if err := cat.CheckAnswerKeys("backoff reset", []string{"after-ten-minutes"}); err == nil {
		t.Error("an answer that leaves out a claim was accepted")
	}
	if err := cat.CheckAnswerKeys("no such topic", nil); err == nil {
		t.Error("an answer on an unknown topic was accepted")
	}
}
