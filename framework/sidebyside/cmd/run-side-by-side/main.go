// Command run-side-by-side runs Ginkgo suites at once, one Ginkgo per suite, and
// merges their JSON and JUnit reports into one of each (package sidebyside). make e2e
// runs the Slow set this way.
//
//	run-side-by-side -output-dir _artifacts -json-report e2e.json -junit-report e2e-junit.xml -- \
//	  --procs=4 --label-filter=Slow ./suites/lifecycle ./suites/restart ./suites/restart/profiles
//
// After this command's own flags and "--", arguments that start with "-" are Ginkgo's, each in
// the --name=value form; the others are suites.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/podlifecycle/conformance/framework/sidebyside"
)

func main() {
	outputDir := flag.String("output-dir", ".", "directory of the merged reports")
	jsonReport := flag.String("json-report", "", "file name of the merged JSON report")
	junitReport := flag.String("junit-report", "", "file name of the merged JUnit report")
	ginkgo := flag.String("ginkgo", "go tool ginkgo", "the command that runs Ginkgo")
	flag.Parse()

	run := sidebyside.Run{
		Ginkgo:      strings.Fields(*ginkgo),
		OutputDir:   *outputDir,
		JSONReport:  *jsonReport,
		JUnitReport: *junitReport,
		Out:         os.Stdout,
		Interrupt:   sidebyside.InterruptGroup,
	}
	for _, a := range flag.Args() {
		if strings.HasPrefix(a, "-") {
			run.Flags = append(run.Flags, a)
		} else {
			run.Suites = append(run.Suites, a)
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	start := time.Now()
	fmt.Printf("running %d suites side by side: %s\n", len(run.Suites), strings.Join(run.Suites, " "))
	results, err := run.Do(ctx)
	for _, r := range results {
		state := "passed"
		if r.Err != nil {
			state = "FAILED (" + r.Err.Error() + ")"
		}
		fmt.Printf("  %-24s %s in %s\n", sidebyside.Name(r.Suite), state, r.Elapsed.Round(100*time.Millisecond))
	}
	fmt.Printf("Ran %d suites side by side in %s\n", len(results), time.Since(start).Round(100*time.Millisecond))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
