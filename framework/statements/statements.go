// Package statements is the project's catalogue of the documentation's testable
// statements: catalogue.yaml, embedded in every binary that imports it, so that the
// suites, the report and the label checks need no file outside the repository.
//
// Each statement has a stable ID (PL-1, RS-6, …) that specs carry as a Ginkgo label and
// the report is keyed by, its text in the project's words, the feature gates it needs,
// and its sources: the documentation page (upstream address and section anchor), the
// page file under pages/ it was read from, that file's section heading, and a verbatim
// quote in the page's language. A statement no spec can check on the clusters the
// project makes says why (NotCheckable). The pages are copies of the documentation as
// it was read (kubernetes.io, CC BY 4.0, The Kubernetes Authors); the tests check every
// quote against them.
package statements

import (
	_ "embed"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"
)

//go:embed catalogue.yaml
var catalogueYAML []byte

// Page is one documentation page the statements are read from.
type Page struct {
	// Seed is the page's file under pages/, as it was read.
	Seed     string `json:"seed"`
	Title    string `json:"title"`
	Language string `json:"language"`
	// URL is the page's upstream address; a source's anchor is appended to it.
	URL string `json:"url"`
	// Note says what is uncertain about the page, e.g. an address not recorded.
	Note string `json:"note,omitempty"`
}

// Source is one passage of a page that makes the statement's claim.
type Source struct {
	Seed    string `json:"seed"`
	Section string `json:"section"` // the heading the quote stands under, as the page file has it
	Anchor  string `json:"anchor"`  // the section's anchor on kubernetes.io, without '#'; "" for the page's top
	Quote   string `json:"quote"`   // verbatim, in the page's language
}

// Statement is one testable statement.
type Statement struct {
	ID    string   `json:"id"`
	Text  string   `json:"text"`
	Gates []string `json:"gates,omitempty"`
	// Slow: its honest check takes minutes (the specs carry the Slow label).
	Slow    bool     `json:"slow,omitempty"`
	Sources []Source `json:"sources"`
	// Note: where a claim comes from other than the pages (code, a cluster), or what
	// the pages leave open.
	Note string `json:"note,omitempty"`
	// NotCheckable: why no spec checks the statement on the project's clusters; the
	// report shows it as "not checkable here" with this reason.
	NotCheckable string `json:"notCheckable,omitempty"`
	// NothingToAssert: why the statement permits every outcome (the pages promise no
	// order, say), so that no spec checks it; the report shows "nothing to assert".
	NothingToAssert string `json:"nothingToAssert,omitempty"`
}

// Area is a group of statements with a common ID prefix (PL, RS, …).
type Area struct {
	Code       string      `json:"code"`
	Title      string      `json:"title"`
	Statements []Statement `json:"statements"`
}

// Drift is a disagreement between the pages and clusters that the catalogue knows of;
// the report repeats it next to what the run found.
type Drift struct {
	Topic      string   `json:"topic"`
	Statements []string `json:"statements,omitempty"`
	Text       string   `json:"text"`
	Sources    []Source `json:"sources,omitempty"`
}

// Disagreement is a claim on which the pages say different things: each claim with
// its sources, keyed so that the spec that measures it can say which one the cluster
// confirms (framework/drift.Question), and the statements whose specs measure it.
type Disagreement struct {
	Topic      string   `json:"topic"`
	Statements []string `json:"statements"`
	Claims     []Claim  `json:"claims"`
	// Note: what the comparison rests on, where the claims are not both the pages'
	// own words (a feature gate's stage, say).
	Note string `json:"note,omitempty"`
}

// Claim is what one page (or several) says on a disagreement's topic.
type Claim struct {
	Key     string   `json:"key"` // lower-case words with dashes: "after-ten-minutes"
	Text    string   `json:"text"`
	Sources []Source `json:"sources"`
}

// Catalogue is the whole file.
type Catalogue struct {
	Pages         []Page         `json:"pages"`
	Areas         []Area         `json:"areas"`
	KnownDrift    []Drift        `json:"knownDrift,omitempty"`
	Disagreements []Disagreement `json:"disagreements,omitempty"`
}

// CheckAnswerKeys says whether topic is a disagreement of the catalogue and keys its
// claims' keys, every one of them: what a spec's answer must name.
func (c Catalogue) CheckAnswerKeys(topic string, keys []string) error {
	for _, d := range c.Disagreements {
		if d.Topic != topic {
			continue
		}
		var want []string
		for _, cl := range d.Claims {
			want = append(want, cl.Key)
		}
		got := slices.Clone(keys)
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			return fmt.Errorf("an answer on %q names the claims %v; the catalogue's are %v", topic, got, want)
		}
		return nil
	}
	return fmt.Errorf("an answer on %q, which is not a disagreement of framework/statements/catalogue.yaml", topic)
}

// Disagreement is the catalogue's disagreement on topic.
func (c Catalogue) Disagreement(topic string) (Disagreement, bool) {
	for _, d := range c.Disagreements {
		if d.Topic == topic {
			return d, true
		}
	}
	return Disagreement{}, false
}

// Load is the project's catalogue, the one embedded from catalogue.yaml.
func Load() (Catalogue, error) {
	c, err := Parse(catalogueYAML)
	if err != nil {
		return Catalogue{}, fmt.Errorf("framework/statements/catalogue.yaml: %w", err)
	}
	return c, nil
}

// Parse reads a catalogue and checks its shape: every field known, IDs well formed,
// each listed once under the area of its prefix, every statement with text and at least
// one source on a listed page.
func Parse(data []byte) (Catalogue, error) {
	var c Catalogue
	if err := yaml.UnmarshalStrict(data, &c); err != nil {
		return Catalogue{}, err
	}
	pages := map[string]bool{}
	for _, p := range c.Pages {
		if p.Seed == "" || p.URL == "" {
			return Catalogue{}, fmt.Errorf("page %+v: seed and url are required", p)
		}
		pages[p.Seed] = true
	}
	seen := map[string]bool{}
	checkSources := func(what string, sources []Source) error {
		for _, s := range sources {
			switch {
			case !pages[s.Seed]:
				return fmt.Errorf("%s: source on page %q, which the catalogue does not list", what, s.Seed)
			case s.Section == "" || strings.TrimSpace(s.Quote) == "":
				return fmt.Errorf("%s: a source on %s without section or quote", what, s.Seed)
			case strings.HasPrefix(s.Anchor, "#"):
				return fmt.Errorf("%s: anchor %q: without the '#'", what, s.Anchor)
			}
		}
		return nil
	}
	for ai := range c.Areas {
		a := &c.Areas[ai]
		for si := range a.Statements {
			s := a.Statements[si]
			switch {
			case !idPattern.MatchString(s.ID):
				return Catalogue{}, fmt.Errorf("statement ID %q: want two to four capitals, a dash and a number", s.ID)
			case !strings.HasPrefix(s.ID, a.Code+"-"):
				return Catalogue{}, fmt.Errorf("statement %s is listed under area %s", s.ID, a.Code)
			case seen[s.ID]:
				return Catalogue{}, fmt.Errorf("statement %s listed twice", s.ID)
			case strings.TrimSpace(s.Text) == "":
				return Catalogue{}, fmt.Errorf("statement %s has no text", s.ID)
			case len(s.Sources) == 0:
				return Catalogue{}, fmt.Errorf("statement %s has no source: name the page passage it was read from", s.ID)
			}
			seen[s.ID] = true
			if err := checkSources(s.ID, s.Sources); err != nil {
				return Catalogue{}, err
			}
		}
	}
	for _, d := range c.KnownDrift {
		for _, id := range d.Statements {
			if !seen[id] {
				return Catalogue{}, fmt.Errorf("known drift %q names statement %s, which the catalogue does not list", d.Topic, id)
			}
		}
		if err := checkSources("known drift "+d.Topic, d.Sources); err != nil {
			return Catalogue{}, err
		}
	}
	topics := map[string]bool{}
	for _, d := range c.Disagreements {
		what := "disagreement " + d.Topic
		switch {
		case d.Topic == "" || topics[d.Topic]:
			return Catalogue{}, fmt.Errorf("%s: a topic is required, once", what)
		case len(d.Claims) < 2:
			return Catalogue{}, fmt.Errorf("%s: a disagreement has two claims or more", what)
		case len(d.Statements) == 0:
			return Catalogue{}, fmt.Errorf("%s: name the statements whose specs measure it", what)
		}
		topics[d.Topic] = true
		for _, id := range d.Statements {
			if !seen[id] {
				return Catalogue{}, fmt.Errorf("%s names statement %s, which the catalogue does not list", what, id)
			}
		}
		keys := map[string]bool{}
		for _, cl := range d.Claims {
			switch {
			case !keyPattern.MatchString(cl.Key) || keys[cl.Key]:
				return Catalogue{}, fmt.Errorf("%s: claim key %q: lower-case words with dashes, each once", what, cl.Key)
			case strings.TrimSpace(cl.Text) == "":
				return Catalogue{}, fmt.Errorf("%s: claim %s has no text", what, cl.Key)
			}
			keys[cl.Key] = true
			if err := checkSources(what+", claim "+cl.Key, cl.Sources); err != nil {
				return Catalogue{}, err
			}
		}
	}
	return c, nil
}

var keyPattern = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

var idPattern = regexp.MustCompile(`^[A-Z]{2,4}-[0-9]+$`)

// Statements lists every statement in catalogue order.
func (c Catalogue) Statements() []Statement {
	var out []Statement
	for _, a := range c.Areas {
		out = append(out, a.Statements...)
	}
	return out
}

// Statement is the statement with this ID.
func (c Catalogue) Statement(id string) (Statement, bool) {
	for _, a := range c.Areas {
		if i := slices.IndexFunc(a.Statements, func(s Statement) bool { return s.ID == id }); i >= 0 {
			return a.Statements[i], true
		}
	}
	return Statement{}, false
}

// Page is the page of that seed file.
func (c Catalogue) Page(seed string) (Page, bool) {
	i := slices.IndexFunc(c.Pages, func(p Page) bool { return p.Seed == seed })
	if i < 0 {
		return Page{}, false
	}
	return c.Pages[i], true
}

// URL is the source's upstream address: the page's, with the section's anchor.
func (c Catalogue) URL(s Source) string {
	p, _ := c.Page(s.Seed)
	if s.Anchor == "" {
		return p.URL
	}
	return p.URL + "#" + s.Anchor
}

// Short is the statement's text cut at a word boundary, so that a matrix row stays one
// line; the full text is in the catalogue.
func (s Statement) Short() string {
	const limit = 140
	text := strings.Join(strings.Fields(s.Text), " ")
	if len(text) <= limit {
		return text
	}
	cut := strings.LastIndexByte(text[:limit], ' ')
	if cut < limit/2 {
		cut = limit
	}
	return text[:cut] + " …"
}

// mentionPattern finds statement IDs inside a text (a failure message, say).
var mentionPattern = regexp.MustCompile(`\b[A-Z]{2,4}-[0-9]+\b`)

// Mentioned lists the statement IDs a text names, sorted, each once.
func Mentioned(text string) []string {
	out := mentionPattern.FindAllString(text, -1)
	slices.Sort(out)
	return slices.Compact(out)
}

// IDs picks the statement IDs (like PL-1) out of a spec's labels: two to four
// upper-case letters, a dash, a number; sorted, each once. Other labels (Slow, gate
// names, infra) are not statements.
func IDs(labels []string) []string {
	var out []string
	for _, l := range labels {
		if idPattern.MatchString(l) {
			out = append(out, l)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
