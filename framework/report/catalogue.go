package report

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
)

// Statement is one testable statement of the documentation, as the catalogue words it.
type Statement struct {
	ID      string
	Section string // the section's heading, e.g. "PL — Pod phase and lifetime"
	Text    string // continuation lines joined with a newline
	Slow    bool   // marked "(Slow)": its honest check takes minutes
	Gates   []string
}

// Catalogue is the statements in the order the catalogue lists them, and the known
// drift the catalogue itself records, which the report repeats next to what it found.
type Catalogue struct {
	Statements []Statement
	KnownDrift string
}

// Short is the statement's first line, cut at a word boundary so that a matrix row
// stays one line; the full text is in the catalogue.
func (s Statement) Short() string {
	const limit = 140
	first, _, _ := strings.Cut(s.Text, "\n")
	if len(first) <= limit {
		return first
	}
	cut := strings.LastIndexByte(first[:limit], ' ')
	if cut < limit/2 {
		cut = limit
	}
	return first[:cut] + " …"
}

var (
	statementLine = regexp.MustCompile(`^- ([A-Z]{2,4}-[0-9]+)\s+(.*)$`)
	// leadingMarker: the markers a statement's text starts with, "(Slow)" and
	// "[GateName]"; later brackets are prose.
	leadingMarker = regexp.MustCompile(`^\s*(\(Slow\)|\[[A-Za-z][A-Za-z0-9]*\])`)
)

// knownDriftHeading starts the section that lists disagreements between the docs and
// clusters: not statements, but text the report shows as known drift.
const knownDriftHeading = "## DOC-DRIFT"

// ReadCatalogue reads the statement catalogue (docs/STATEMENTS.md).
func ReadCatalogue(path string) (Catalogue, error) {
	f, err := os.Open(path)
	if err != nil {
		return Catalogue{}, err
	}
	defer f.Close()
	c, err := ParseCatalogue(f)
	if err != nil {
		return Catalogue{}, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// ParseCatalogue reads statements ("- PL-1 text", continued on indented lines) under
// "## " sections until the DOC-DRIFT section, whose text it keeps as known drift.
func ParseCatalogue(r io.Reader) (Catalogue, error) {
	var c Catalogue
	var section string
	var current *Statement
	var drift []string
	inDrift, done := false, false
	seen := map[string]bool{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	flush := func() {
		if current != nil {
			c.Statements = append(c.Statements, finish(*current))
			current = nil
		}
	}
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case done:
		case strings.HasPrefix(line, knownDriftHeading):
			flush()
			inDrift = true
		case strings.HasPrefix(line, "## "):
			flush()
			if inDrift {
				inDrift, done = false, true
				continue
			}
			section = strings.TrimPrefix(line, "## ")
		case inDrift:
			drift = append(drift, line)
		case statementLine.MatchString(line):
			flush()
			m := statementLine.FindStringSubmatch(line)
			if seen[m[1]] {
				return Catalogue{}, fmt.Errorf("line %d: statement %s listed twice", n, m[1])
			}
			seen[m[1]] = true
			current = &Statement{ID: m[1], Section: section, Text: m[2]}
		case current != nil && strings.TrimSpace(line) != "" && (line[0] == ' ' || line[0] == '\t'):
			current.Text += "\n" + strings.TrimSpace(line)
		default:
			flush()
		}
	}
	flush()
	if err := sc.Err(); err != nil {
		return Catalogue{}, err
	}
	c.KnownDrift = strings.TrimSpace(strings.Join(drift, "\n"))
	return c, nil
}

func finish(s Statement) Statement {
	for rest := s.Text; ; {
		m := leadingMarker.FindStringSubmatch(rest)
		if m == nil {
			return s
		}
		rest = rest[len(m[0]):]
		if m[1] == "(Slow)" {
			s.Slow = true
		} else {
			s.Gates = append(s.Gates, strings.Trim(m[1], "[]"))
		}
	}
}
