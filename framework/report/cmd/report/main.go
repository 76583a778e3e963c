// Command report writes the conformance report of a run from its saved artifacts
// (framework/report/reportcmd has its flags).
//
//	go run ./framework/report/cmd/report [-artifacts _artifacts] [-out DIR] [-suites 'lifecycle restart …'] [-statements FILE]
package main

import (
	"os"

	"github.com/podlifecycle/conformance/framework/report/reportcmd"
)

func main() { os.Exit(reportcmd.Main(os.Args[1:], os.Stdout, os.Stderr)) }
