// Command compare tells what changed between two runs of the suites, from their saved
// artifacts (framework/compare/comparecmd has its flags and exit statuses).
//
//	go run ./framework/compare/cmd/compare [-out DIR] [-json e2e.json] BASE HEAD
package main

import (
	"os"

	"github.com/podlifecycle/conformance/framework/compare/comparecmd"
)

func main() { os.Exit(comparecmd.Main(os.Args[1:], os.Stdout, os.Stderr)) }
