package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/podlifecycle/conformance/framework/config"
)

// The README's switch reference lies between these lines, written by switches -write.
const (
	switchesBegin = "<!-- switches: written by `podlifecycle switches -write README.md` from framework/config -->"
	switchesEnd   = "<!-- end of switches -->"
)

// switchesVerb prints the switch reference (one row a Makefile variable), or writes it
// into a file between the markers.
func switchesVerb(args []string) error {
	fs := flag.NewFlagSet("switches", flag.ContinueOnError)
	write := fs.String("write", "", "write the reference into this file, between its markers")
	if err := fs.Parse(args); err != nil {
		return err
	}
	table := switchTable()
	if *write == "" {
		fmt.Print(table)
		return nil
	}
	b, err := os.ReadFile(*write)
	if err != nil {
		return err
	}
	updated, err := replaceBetween(string(b), table)
	if err != nil {
		return fmt.Errorf("%s: %w", *write, err)
	}
	return os.WriteFile(*write, []byte(updated), 0o644)
}

func switchTable() string {
	var b bytes.Buffer
	d := config.Default()
	fmt.Fprintln(&b, "| make variable | flag | default | what it does |")
	fmt.Fprintln(&b, "|---|---|---|---|")
	for _, s := range config.Switches {
		def := ""
		fs := flag.NewFlagSet("", flag.ContinueOnError)
		d.Register(fs)
		if f := fs.Lookup(s.Flag); f != nil && f.DefValue != "" && f.DefValue != "false" {
			def = "`" + f.DefValue + "`"
		}
		fmt.Fprintf(&b, "| `%s` | `-%s` | %s | %s |\n", s.Var, s.Flag, def, strings.ReplaceAll(s.Usage, "|", `\|`))
	}
	return b.String()
}

func replaceBetween(doc, table string) (string, error) {
	i, j := strings.Index(doc, switchesBegin), strings.Index(doc, switchesEnd)
	if i < 0 || j < i {
		return "", fmt.Errorf("no %q … %q markers", switchesBegin, switchesEnd)
	}
	return doc[:i+len(switchesBegin)] + "\n" + table + doc[j:], nil
}
