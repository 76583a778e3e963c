package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/podlifecycle/conformance/framework/run"
	"github.com/podlifecycle/conformance/framework/statements"
)

// The suite's commit, set by the runner image's build (images/scripts/runner.sh).
var buildCommit, buildDirty string

// inclusterVerb is the runner image's run, inside the cluster under test: the
// conformance-image contract (framework/run InClusterRun) over the compiled suites
// in the image, e2e.log (Ginkgo's output, then the suite's report), junit_01.xml,
// e2e.json, report.html and report.md, exit-status and done in the results
// directory; its exit status is the run's (0, 1 a spec failed, 2 no run).
func inclusterVerb(args []string) error {
	fs := flag.NewFlagSet("incluster", flag.ContinueOnError)
	suitesFile := fs.String("suites", "suites.txt", "the file naming the image's suites, directories below suites/")
	ginkgo := fs.String("ginkgo", "ginkgo", "the ginkgo command")
	if err := fs.Parse(args); err != nil {
		return err
	}
	b, err := os.ReadFile(*suitesFile)
	if err != nil {
		return err
	}
	suites := strings.Fields(string(b))
	ic, err := run.InClusterRun(os.Getenv, suites, time.Now())
	if err != nil {
		return err
	}
	ic.Record.Commit, ic.Record.Dirty = buildCommit, buildDirty == "true"
	if err := ic.Record.Write(ic.Dir); err != nil {
		return err
	}
	logFile, err := os.Create(filepath.Join(ic.Dir, "e2e.log"))
	if err != nil {
		return err
	}
	defer logFile.Close()
	out := io.MultiWriter(os.Stdout, logFile)
	fmt.Fprintf(out, "podlifecycle incluster: %s %s\n", *ginkgo, strings.Join(ic.Args, " "))
	cmd := exec.Command(*ginkgo, ic.Args...)
	cmd.Env = append(os.Environ(), "PODLIFECYCLE_RUN="+filepath.Join(ic.Dir, "run.json"))
	cmd.Stdout, cmd.Stderr = out, out
	suitesErr := cmd.Run()

	code := 0
	if suitesErr != nil {
		code = 1
		var exit *exec.ExitError
		if !errors.As(suitesErr, &exit) {
			code = 2 // Ginkgo did not run
		}
	}
	if !ic.DryRun {
		// The report goes into e2e.log only: hydrophone downloads e2e.log and
		// junit_01.xml, and it looks for Ginkgo's closing line in the last lines of the
		// container's output, which this keeps short.
		cat, err := statements.Load()
		var summary bytes.Buffer
		if err == nil {
			err = run.WriteReport(run.ReportOptions{Artifacts: []string{ic.Dir}, JSON: "e2e.json", Suites: suites, Catalogue: cat}, &summary)
		}
		if err != nil {
			fmt.Fprintf(out, "the report could not be written: %v\n", err)
			code = max(code, 2)
		} else {
			md, _ := os.ReadFile(filepath.Join(ic.Dir, "report.md"))
			fmt.Fprintf(logFile, "\n%s\n%s", summary.String(), md)
			fmt.Printf("podlifecycle incluster: the report is at the end of %s, and in report.html and report.md beside it\n", logFile.Name())
		}
	}
	rec := ic.Record
	rec.Finished, rec.Exit = time.Now(), &code
	if err := rec.Write(ic.Dir); err != nil {
		return err
	}
	for name, content := range map[string]string{"exit-status": fmt.Sprint(code), "done": filepath.Join(ic.Dir, "e2e.log")} {
		if err := os.WriteFile(filepath.Join(ic.Dir, name), []byte(content+"\n"), 0o644); err != nil {
			return err
		}
	}
	fmt.Printf("podlifecycle incluster: done, exit status %d\n", code)
	switch code {
	case 0:
		return nil
	case 1:
		return fmt.Errorf("%w: %v", run.ErrSpecsFailed, suitesErr)
	}
	return fmt.Errorf("the run in the cluster: %v", suitesErr)
}
