// Package mutants is the project's proof that its specs can fail: kubelets broken on
// purpose (one patch of images/mutants/ each, against the v1.37.2 source), the
// statements each must break, and the kill matrix that says, per mutant and
// statement, whether the suite caught it. It holds the patches' header format and the
// matrix; cmd/mutants builds the kubelets, puts each into a kept cluster's workers
// and runs the specs of the statements it names.
package mutants

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Mutant is one patch: its header says what it breaks.
//
//	# Mutant: 12-crashloop-initial-11s
//	# Breaks: RS-6 RS-13
//	# Change: the crash-loop backoff starts at 11 s instead of 10 s
//	# Size: small
//	# Undetectable: RS-13: its specs that are not Slow run under a 2 s cap
//	diff --git a/pkg/kubelet/kubelet.go b/pkg/kubelet/kubelet.go
//
// git apply skips the header, as it skips a commit message.
type Mutant struct {
	Name   string   // the file's name without .patch
	File   string   // its path
	Breaks []string // the statements the change contradicts
	Change string   // what the kubelet does now, against what the pages say
	Small  bool     // a documented number off by a fraction, or a rule applied to fewer things
	// Undetectable: for a statement the change contradicts but no spec can see, why
	// ("# Undetectable: RS-13: …", one line per statement); the matrix shows it beside
	// the miss.
	Undetectable map[string]string
}

// Parse reads a patch's header.
func Parse(file string, data []byte) (Mutant, error) {
	m := Mutant{File: file, Name: strings.TrimSuffix(filepath.Base(file), ".patch")}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	sawDiff := false
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "diff --git ") {
			sawDiff = true
			break
		}
		key, value, ok := strings.Cut(strings.TrimPrefix(line, "# "), ":")
		if !ok || !strings.HasPrefix(line, "# ") {
			continue
		}
		value = strings.TrimSpace(value)
		switch key {
		case "Mutant":
			if value != m.Name {
				return m, fmt.Errorf("%s: header names mutant %q, the file %q", file, value, m.Name)
			}
		case "Breaks":
			m.Breaks = strings.Fields(value)
		case "Change":
			m.Change = value
		case "Undetectable":
			id, why, ok := strings.Cut(value, ":")
			if !ok || !slices.Contains(m.Breaks, strings.TrimSpace(id)) {
				return m, fmt.Errorf("%s: Undetectable %q: want \"<statement it Breaks>: why\" after the Breaks line", file, value)
			}
			if m.Undetectable == nil {
				m.Undetectable = map[string]string{}
			}
			m.Undetectable[strings.TrimSpace(id)] = strings.TrimSpace(why)
		case "Size":
			switch value {
			case "small":
				m.Small = true
			case "gross":
			default:
				return m, fmt.Errorf("%s: Size %q: want small or gross", file, value)
			}
		}
	}
	switch {
	case !sawDiff:
		return m, fmt.Errorf("%s: no diff after the header", file)
	case len(m.Breaks) == 0:
		return m, fmt.Errorf("%s: the header names no statement it breaks (# Breaks: RS-6 …)", file)
	case m.Change == "":
		return m, fmt.Errorf("%s: the header says nothing of the change (# Change: …)", file)
	}
	return m, nil
}

// Load reads every *.patch of dir, in name order.
func Load(dir string) ([]Mutant, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.patch"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no mutants (*.patch) in %s", dir)
	}
	slices.Sort(files)
	out := make([]Mutant, 0, len(files))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		m, err := Parse(f, data)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

// LabelFilter is the Ginkgo label filter that runs the specs of the statements ids,
// Slow ones left out (a mutant names only statements with a spec that is not Slow).
func LabelFilter(ids []string) string {
	return "(" + strings.Join(ids, " || ") + ") && !Slow"
}

// Statements is every statement a set of mutants names, sorted and once each.
func Statements(ms []Mutant) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.Breaks...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}
