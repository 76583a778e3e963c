package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/podlifecycle/conformance/framework/report"
)

// Markdown helpers: table cells hold one line each, and blocks of recorded text keep
// their own formatting inside a fence that cannot be closed by their content.

// cell makes s safe for a Markdown table cell.
func cell(s string) string {
	s = strings.ReplaceAll(strings.TrimSpace(s), "\n", " ")
	return strings.ReplaceAll(s, "|", `\|`)
}

// mdRow writes one table row.
func mdRow(w io.Writer, cells ...string) {
	for i, c := range cells {
		cells[i] = cell(c)
	}
	fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
}

// mdHeader writes a table's header and separator.
func mdHeader(w io.Writer, cells ...string) {
	mdRow(w, cells...)
	fmt.Fprintf(w, "|%s\n", strings.Repeat("---|", len(cells)))
}

// fence writes text as a fenced block, with a fence longer than any run of backticks
// in it.
func fence(w io.Writer, text string) {
	longest, run := 0, 0
	for _, r := range text {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	f := strings.Repeat("`", max(3, longest+1))
	fmt.Fprintf(w, "%s\n%s\n%s\n\n", f, strings.TrimRight(text, "\n"), f)
}

// code makes s inline code, safe in a table cell.
func code(s string) string {
	if s == "" {
		return ""
	}
	return "`" + strings.ReplaceAll(s, "`", "'") + "`"
}

// mdCitation is a source on one line: the page and section as a link, the page file
// it was read from, and the page's own words.
func mdCitation(c report.Citation) string {
	return fmt.Sprintf("[%s § %s](%s) (%s): „%s“", c.Page, c.Section, c.URL, code(c.Seed), cell(c.Quote))
}
