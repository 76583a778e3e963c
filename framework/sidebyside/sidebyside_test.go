package sidebyside

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/onsi/ginkgo/v2/types"
)

// fakeGinkgo stands in for Ginkgo: it writes the report files it is asked for (one
// entry per suite it was given, named after the suite; the stream is named after its
// last suite below), prints two lines (the second without a newline), and for the
// suites a and b waits until the other one has started, which only happens if they
// run at once. A suite whose path ends in "fails" exits 1; one ending in "hangs"
// waits for SIGINT and then writes its reports as Ginkgo does.
const fakeGinkgo = `#!/bin/sh
suites=
for a in "$@"; do
  case $a in
    --output-dir=*) dir=${a#--output-dir=} ;;
    --json-report=*) json=${a#--json-report=} ;;
    --junit-report=*) junit=${a#--junit-report=} ;;
    -*) ;;
    *) suites="$suites $a"; suite=$a ;;
  esac
done
name=$(basename "$suite")
report() {
  sep=; js=; xs=
  for s in $suites; do
    n=$(basename "$s")
    js="$js$sep{\"SuitePath\":\"$s\",\"SuiteDescription\":\"$n\",\"SuiteSucceeded\":$1,\"SpecReports\":[]}"; sep=,
    xs="$xs<testsuite name=\"$n\" tests=\"0\"></testsuite>"
  done
  printf '[%s]' "$js" >"$dir/$json"
  [ -z "$junit" ] || printf '<testsuites tests="0" failures="0">%s</testsuites>' "$xs" >"$dir/$junit"
}
for s in $suites; do touch "$dir/started-$(basename "$s")"; done
case $name in
  a) other=b ;; b) other=a ;; *) other= ;;
esac
if [ -n "$other" ]; then
  i=0; while [ ! -e "$dir/started-$other" ]; do i=$((i+1)); [ $i -gt 100 ] && { echo "$other never started"; exit 3; }; sleep 0.05; done
fi
[ "$name" = hangs ] && trap 'report false; echo interrupted; exit 130' INT
echo "side by side: $E2E_SIDE_BY_SIDE"
[ "$name" = hangs ] && while :; do sleep 0.05; done
printf 'last line without newline'
case $name in
  fails) report false; exit 1 ;;
esac
report true
`

func writeFake(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "ginkgo")
	if err := os.WriteFile(p, []byte(fakeGinkgo), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
	// onLine, if set, is called with each line written (Do writes whole lines).
	onLine func(string)
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.onLine != nil {
		s.onLine(string(p))
	}
	return s.b.Write(p)
}

func readJSON(t *testing.T, path string) []types.Report {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var reports []types.Report
	if err := json.Unmarshal(b, &reports); err != nil {
		t.Fatal(err)
	}
	return reports
}

func TestSuitesRunAtOnceAndReportsMerge(t *testing.T) {
	dir := t.TempDir()
	var out syncBuffer
	results, err := Run{
		Ginkgo: []string{writeFake(t)}, Flags: []string{"--procs=4"},
		Streams:   [][]string{{"./suites/a"}, {"./suites/b"}, {"./suites/c"}},
		OutputDir: dir, JSONReport: "e2e.json", JUnitReport: "e2e-junit.xml", Out: &out,
	}.Do(context.Background())
	if err != nil {
		t.Fatalf("Do: %v\noutput:\n%s", err, out.b.String())
	}
	for _, r := range results {
		if r.Err != nil {
			t.Errorf("%s: %v", StreamName(r.Suites), r.Err)
		}
	}
	reports := readJSON(t, filepath.Join(dir, "e2e.json"))
	var paths []string
	for _, r := range reports {
		paths = append(paths, r.SuitePath)
	}
	if got, want := strings.Join(paths, " "), "./suites/a ./suites/b ./suites/c"; got != want {
		t.Errorf("merged JSON report has suites %q, want %q in the order given", got, want)
	}
	junit, err := os.ReadFile(filepath.Join(dir, "e2e-junit.xml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{`name="a"`, `name="b"`, `name="c"`} {
		if !strings.Contains(string(junit), n) {
			t.Errorf("merged JUnit report lacks testsuite %s:\n%s", n, junit)
		}
	}
	if parts, _ := filepath.Glob(filepath.Join(dir, "*.part.*")); len(parts) > 0 {
		t.Errorf("per-suite reports left behind: %v", parts)
	}
	text := out.b.String()
	for _, line := range []string{"[a] side by side: a,b,c\n", "[b] last line without newline\n", "[c] side by side: a,b,c\n"} {
		if !strings.Contains(text, line) {
			t.Errorf("output lacks the line %q:\n%s", line, text)
		}
	}
}

func TestAFailingSuiteFailsTheRunAndKeepsTheOthersReports(t *testing.T) {
	dir := t.TempDir()
	var out syncBuffer
	results, err := Run{
		Ginkgo: []string{writeFake(t)}, Streams: [][]string{{"./suites/fails"}, {"./suites/c"}},
		OutputDir: dir, JSONReport: "e2e.json", Out: &out,
	}.Do(context.Background())
	if err == nil || !strings.Contains(err.Error(), "./suites/fails") {
		t.Fatalf("Do returned %v, want an error naming ./suites/fails", err)
	}
	if results[0].Err == nil || results[1].Err != nil {
		t.Errorf("results %+v: want only the first suite failed", results)
	}
	if got := len(readJSON(t, filepath.Join(dir, "e2e.json"))); got != 2 {
		t.Errorf("merged report has %d suites, want 2", got)
	}
}

func TestCancelInterruptsEverySuite(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Cancel once the suite says it runs (its INT trap is set by then).
	out := syncBuffer{onLine: func(line string) {
		if strings.HasPrefix(line, "[hangs] side by side:") {
			cancel()
		}
	}}
	_, err := Run{
		Ginkgo: []string{writeFake(t)}, Streams: [][]string{{"./suites/hangs"}},
		OutputDir: dir, JSONReport: "e2e.json", Out: &out, Interrupt: InterruptGroup,
	}.Do(ctx)
	if err == nil {
		t.Fatal("an interrupted suite must fail the run")
	}
	if !strings.Contains(out.b.String(), "[hangs] interrupted") {
		t.Errorf("the suite did not get the interrupt:\n%s", out.b.String())
	}
	if got := readJSON(t, filepath.Join(dir, "e2e.json")); len(got) != 1 || got[0].SuiteSucceeded {
		t.Errorf("the interrupted suite's report: %+v", got)
	}
}

// A stream is one Ginkgo over its suites, in order; the merged report keeps the order
// of the streams and of the suites in each.
func TestAStreamRunsItsSuitesInOneGinkgo(t *testing.T) {
	dir := t.TempDir()
	var out syncBuffer
	results, err := Run{
		Ginkgo:    []string{writeFake(t)},
		Streams:   [][]string{{"./suites/a", "./suites/x/y"}, {"./suites/b"}},
		OutputDir: dir, JSONReport: "e2e.json", JUnitReport: "e2e-junit.xml", Out: &out,
	}.Do(context.Background())
	if err != nil {
		t.Fatalf("Do: %v\noutput:\n%s", err, out.b.String())
	}
	if len(results) != 2 || StreamName(results[0].Suites) != "a+x/y" {
		t.Errorf("results %+v: want two streams, the first named a+x/y", results)
	}
	var paths []string
	for _, r := range readJSON(t, filepath.Join(dir, "e2e.json")) {
		paths = append(paths, r.SuitePath)
	}
	if got, want := strings.Join(paths, " "), "./suites/a ./suites/x/y ./suites/b"; got != want {
		t.Errorf("merged report has suites %q, want %q", got, want)
	}
	if !strings.Contains(out.b.String(), "[a+x/y] side by side: a,x/y,b\n") {
		t.Errorf("output lacks the stream's prefixed line:\n%s", out.b.String())
	}
}

func TestName(t *testing.T) {
	for in, want := range map[string]string{"./suites/restart/profiles": "restart/profiles", "suites/cluster": "cluster", "./other": "other", "./suites/restart/profiles/profiles.test": "restart/profiles"} {
		if got := Name(in); got != want {
			t.Errorf("Name(%q) = %q, want %q", in, got, want)
		}
	}
}
