package main

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/podlifecycle/conformance/framework/config"
)

// The Makefile passes each switch as its flag: its SWITCHES table is config's, less
// ARTIFACTS and KUBECONFIG, which it passes on their own terms.
func TestMakefileSwitchesAreTheConfigs(t *testing.T) {
	b, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?s)\nSWITCHES := (.*?)\n\S`).FindSubmatch(b)
	if m == nil {
		t.Fatal("no SWITCHES := table in the Makefile")
	}
	got := strings.Fields(strings.ReplaceAll(string(m[1]), "\\", " "))
	var want []string
	for _, s := range config.Switches {
		if s.Var != "ARTIFACTS" && s.Var != "KUBECONFIG" {
			want = append(want, s.Var+":"+s.Flag)
		}
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("Makefile SWITCHES:\n  %s\nframework/config.Switches:\n  %s", strings.Join(got, " "), strings.Join(want, " "))
	}
}

// The README's switch reference is the one podlifecycle switches writes.
func TestReadmeSwitchReferenceIsCurrent(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	want, err := replaceBetween(string(b), switchTable())
	if err != nil {
		t.Fatal("README.md: ", err)
	}
	if want != string(b) {
		t.Error("README.md's switch reference differs from framework/config: run go run ./cmd/podlifecycle switches -write README.md")
	}
}
