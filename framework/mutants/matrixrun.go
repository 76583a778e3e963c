// The mutants command runs the kill matrix: for each kubelet patch of images/mutants/,
// the v1.37.2 kubelet with that patch (images/mutants.sh) put into the workers of the
// kept kind clusters, and the specs of the statements the patch names run against
// it; first the stock kubelet, built and put in the same way, through every statement
// any patch names, as the baseline. A statement is caught when a spec of it fails
// with the mutant and none did with the stock kubelet (or it moved from conforms to
// drift). The matrix goes to <out>/kill-matrix.json and .md; each run's artifacts
// and report to <out>/<mutant>/.
//
//	podlifecycle mutants [-only 12,13] [-suites 'lifecycle restart …']
//
// The clusters are the suites' own (their kind configs), made or reused and kept
// (KEEP_CLUSTERS): the kubelet changes every run, the clusters do not. The control
// plane keeps its kubelet, and so does a worker whose node image carries a kubelet
// of another version (the v1.36.3 worker). The suites are compiled once, before the
// first run, so that editing a spec while the matrix runs changes nothing of it. At
// the end, and on Ctrl-C, every worker gets the stock kubelet back.

package mutants

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/podlifecycle/conformance/framework/cluster"
	"github.com/podlifecycle/conformance/framework/config"
	"github.com/podlifecycle/conformance/framework/render"
	"github.com/podlifecycle/conformance/framework/report"
	"github.com/podlifecycle/conformance/framework/statements"
)

type options struct {
	patches, out, suites, only, ginkgo string
	procs                              int
	reuseStock, reclassify             bool
}

// RunMatrix is the mutants command (podlifecycle mutants ARGS…): it runs the kill
// matrix as the package comment of this file says.
func RunMatrix(args []string) error {
	var o options
	flag := flag.NewFlagSet("mutants", flag.ContinueOnError)
	flag.StringVar(&o.patches, "patches", "images/mutants", "the folder of kubelet patches")
	flag.StringVar(&o.out, "out", "_artifacts/mutants", "where the matrix and each run's artifacts go")
	flag.StringVar(&o.suites, "suites", "cluster lifecycle restart probes termination declaredfeatures restart/profiles termination/gated lifecycle/pressure", "the suites, directories below suites/, whose specs may hold the statements")
	flag.StringVar(&o.only, "only", "", "comma-separated mutants (names or their numbers) to run; the others keep their rows of an earlier matrix in -out")
	flag.StringVar(&o.ginkgo, "ginkgo", "go tool ginkgo", "the ginkgo command")
	flag.IntVar(&o.procs, "procs", 4, "Ginkgo processes per run")
	flag.BoolVar(&o.reuseStock, "reuse-stock", false, "keep the stock run of an earlier matrix in -out instead of running it again")
	flag.BoolVar(&o.reclassify, "reclassify", false, "run nothing: classify again, from the saved runs in -out, every mutant of the matrix there (after a change to a patch's header, say)")
	if err := flag.Parse(args); err != nil {
		return err
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	start := time.Now()

	cat, err := statements.Load()
	if err != nil {
		return err
	}
	all, err := Load(o.patches)
	if err != nil {
		return err
	}
	if err := checkNamed(all, cat); err != nil {
		return err
	}
	selected, err := pick(all, o.only)
	if err != nil {
		return err
	}
	suites := strings.Fields(o.suites)
	if o.reclassify {
		return reclassify(o, cat, all, suites)
	}
	index, err := suiteIndex(suites)
	if err != nil {
		return err
	}
	out, err := filepath.Abs(o.out)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(out, "kubelets"), 0o755); err != nil {
		return err
	}

	// The clusters of every suite that holds a named statement.
	var needed []string
	for _, id := range Statements(all) {
		needed = append(needed, index.suites[id]...)
	}
	slices.Sort(needed)
	needed = slices.Compact(needed)
	var phases []Phase
	phase := func(name string, since time.Time) { phases = append(phases, Phase{name, time.Since(since)}) }
	configs := index.configsOf(needed)
	t := time.Now()
	clusters, err := acquire(ctx, configs)
	if err != nil {
		return err
	}
	// Each cluster's workers, by the kind config it was made from: a mutant's kubelet
	// goes only to the clusters whose suites hold its statements.
	workersOf := map[string][]string{}
	var workers []string
	for i, c := range clusters {
		ws, err := swappableWorkers(ctx, c)
		if err != nil {
			return err
		}
		workersOf[configs[i]] = ws
		workers = append(workers, ws...)
	}
	if len(workers) == 0 {
		return errors.New("no worker runs the stock v1.37.2 kubelet of its node image")
	}
	phase("clusters", t)
	fmt.Printf("== %d workers take the mutants' kubelets: %s\n", len(workers), strings.Join(workers, " "))
	t = time.Now()

	binaries, err := compileSuites(ctx, o.ginkgo, needed)
	if err != nil {
		return err
	}

	phase("suites compiled", t)
	t = time.Now()
	stockBin := filepath.Join(out, "kubelets", "stock")
	if err := buildKubelet(ctx, "--stock", stockBin); err != nil {
		return fmt.Errorf("building the stock kubelet: %w", err)
	}
	stockSum, err := fileSHA256(stockBin)
	if err != nil {
		return err
	}
	// Whatever happens from here, the workers get their node image's kubelet back.
	if err := keepImageKubelets(ctx, workers); err != nil {
		return err
	}
	defer func() {
		restoreCtx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		if err := restoreImageKubelets(restoreCtx, workers); err != nil {
			fmt.Fprintf(os.Stderr, "mutants: putting the node image's kubelet back: %v\n  (each worker keeps it as %s; `make clean` deletes the clusters)\n", err, imageKubelet)
		}
	}()

	previous, _ := ReadJSON(filepath.Join(out, "kill-matrix.json"))
	matrix := Matrix{Date: time.Now(), Commit: commit(), StockSHA256: stockSum, Phases: phases}

	// Every mutant's kubelet is built before the first run: a build beside a running
	// spec takes the CPU and the disk that the spec's timing rests on.
	builds := map[string]built{}
	for _, m := range selected {
		bin := filepath.Join(out, "kubelets", m.Name)
		builds[m.Name] = built{bin, buildKubelet(ctx, m.File, bin)}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	matrix.Phases = append(matrix.Phases, Phase{fmt.Sprintf("%d kubelets built or taken from the cache", len(selected)+1), time.Since(t)})
	t = time.Now()
	r := runner{o: o, out: out, cat: cat, suites: suites, index: index, binaries: binaries, workersOf: workersOf, builds: builds}
	stockDir := filepath.Join(out, "stock")
	var stockDoc report.Document
	if o.reuseStock && previous.StockSHA256 == stockSum {
		stockDoc, err = r.document(stockDir)
		matrix.StockGreen, matrix.StockFailed = previous.StockGreen, previous.StockFailed
	} else {
		fmt.Printf("== stock kubelet (sha256 %s): every statement the mutants name\n", stockSum[:12])
		if err := install(ctx, workers, stockBin, stockSum); err != nil {
			return err
		}
		stockDoc, err = r.specs(ctx, stockDir, Statements(all))
		if err == nil {
			for _, f := range stockDoc.Failures {
				matrix.StockFailed = append(matrix.StockFailed, fmt.Sprintf("%s (%s)", f.Spec.Text, f.Location))
			}
			matrix.StockGreen = len(matrix.StockFailed) == 0
		}
	}
	if err != nil {
		return fmt.Errorf("the stock kubelet's run: %w", err)
	}
	matrix.Phases = append(matrix.Phases, Phase{"stock run", time.Since(t)})
	fmt.Printf("   stock: %s\n", map[bool]string{true: "every spec green", false: "FAILED: " + strings.Join(matrix.StockFailed, "; ")}[matrix.StockGreen])

	for _, m := range all {
		if !slices.ContainsFunc(selected, func(s Mutant) bool { return s.Name == m.Name }) {
			if i := slices.IndexFunc(previous.Rows, func(r Row) bool { return r.Mutant == m.Name }); i >= 0 {
				matrix.Rows = append(matrix.Rows, previous.Rows[i])
			}
			continue
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		row := r.mutant(ctx, m, stockDoc)
		fmt.Printf("   %s: %s (%s)\n", m.Name, row.Verdict(), row.Took.Round(time.Second))
		for _, c := range row.Cells {
			fmt.Printf("      %s %s (%s → %s) %s\n", c.Statement, c.Outcome, c.Stock, c.Mutant, c.Evidence)
		}
		for _, u := range row.Unrelated {
			fmt.Printf("      unrelated: %s\n", u)
		}
		matrix.Rows = append(matrix.Rows, row)
		// Written after every mutant: an interrupted matrix keeps what it measured.
		if err := write(matrix, out, start); err != nil {
			return err
		}
	}
	if err := write(matrix, out, start); err != nil {
		return err
	}
	fmt.Printf("== kill matrix: %s; wall time %s\n   %s\n", matrix.Counts(), time.Since(start).Round(time.Second), filepath.Join(out, "kill-matrix.md"))
	return nil
}

// reclassify rebuilds the matrix in o.out from its saved runs, keeping what only the
// run knew (the kubelets' sums, the times).
func reclassify(o options, cat statements.Catalogue, all []Mutant, suites []string) error {
	out, err := filepath.Abs(o.out)
	if err != nil {
		return err
	}
	previous, err := ReadJSON(filepath.Join(out, "kill-matrix.json"))
	if err != nil {
		return err
	}
	r := runner{out: out, cat: cat, suites: suites}
	stock, err := r.document(filepath.Join(out, "stock"))
	if err != nil {
		return err
	}
	matrix := previous
	matrix.Rows = nil
	for _, m := range all {
		i := slices.IndexFunc(previous.Rows, func(r Row) bool { return r.Mutant == m.Name })
		if i < 0 {
			continue
		}
		row := previous.Rows[i]
		// A run interrupted (Ctrl-C) measured only part of its specs: left out, not
		// classified from what it had.
		if slices.Contains(row.Unrelated, context.Canceled.Error()) {
			fmt.Printf("   %s: its run was interrupted; left out of the matrix\n", m.Name)
			continue
		}
		if doc, err := r.document(filepath.Join(out, m.Name)); err == nil {
			kept := row
			row = Classify(m, stock, doc)
			row.KubeletSHA256, row.Took = kept.KubeletSHA256, kept.Took
		}
		matrix.Rows = append(matrix.Rows, row)
	}
	if err := matrix.WriteJSON(filepath.Join(out, "kill-matrix.json")); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(out, "kill-matrix.md"), []byte(matrix.Markdown()), 0o644); err != nil {
		return err
	}
	fmt.Printf("== kill matrix, classified again: %s\n", matrix.Counts())
	return nil
}

func write(m Matrix, out string, start time.Time) error {
	m.WallTime = time.Since(start)
	if err := m.WriteJSON(filepath.Join(out, "kill-matrix.json")); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(out, "kill-matrix.md"), []byte(m.Markdown()), 0o644)
}

// checkNamed: a mutant names only catalogued statements that are not Slow (the
// matrix runs no Slow spec).
func checkNamed(ms []Mutant, cat statements.Catalogue) error {
	var errs []error
	for _, m := range ms {
		for _, id := range m.Breaks {
			st, ok := cat.Statement(id)
			switch {
			case !ok:
				errs = append(errs, fmt.Errorf("%s names %s, which the catalogue lacks", m.File, id))
			case st.Slow:
				errs = append(errs, fmt.Errorf("%s names %s, a Slow statement: the matrix runs no Slow spec", m.File, id))
			}
		}
	}
	return errors.Join(errs...)
}

// pick is the mutants -only names (by name or number), in the patches' order.
func pick(all []Mutant, only string) ([]Mutant, error) {
	if only == "" {
		return all, nil
	}
	want := map[string]bool{}
	for _, w := range strings.Split(only, ",") {
		w = strings.TrimSpace(w)
		if !slices.ContainsFunc(all, func(m Mutant) bool { return m.Name == w || strings.HasPrefix(m.Name, w+"-") }) {
			return nil, fmt.Errorf("-only: no mutant %q", w)
		}
		want[w] = true
	}
	var out []Mutant
	for _, m := range all {
		number, _, _ := strings.Cut(m.Name, "-")
		if want[m.Name] || want[number] {
			out = append(out, m)
		}
	}
	return out, nil
}

// index: which suites hold specs labelled with a statement, and which kind configs
// each suite's specs name, read from the suites' files (as the Makefile reads the kind
// configs): a suite that only mentions a statement costs one suite start, nothing more.
type index struct {
	suites  map[string][]string // statement → suite directories ("restart/profiles")
	configs map[string][]string // suite → kind-configs/*.yaml
}

var (
	labelRe  = regexp.MustCompile(`"([A-Z]{2,3}-[0-9]+)"`)
	configRe = regexp.MustCompile(`kind-configs/[a-z0-9-]+\.yaml`)
)

func suiteIndex(suites []string) (index, error) {
	ix := index{suites: map[string][]string{}, configs: map[string][]string{}}
	for _, s := range suites {
		files, err := filepath.Glob(filepath.Join("suites", s, "*_test.go"))
		if err != nil {
			return ix, err
		}
		if len(files) == 0 {
			return ix, fmt.Errorf("suites/%s has no test files (run from the repository's top)", s)
		}
		seen := map[string]bool{}
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				return ix, err
			}
			for _, m := range labelRe.FindAllSubmatch(data, -1) {
				if id := string(m[1]); !seen[id] {
					seen[id] = true
					ix.suites[id] = append(ix.suites[id], s)
				}
			}
			for _, c := range configRe.FindAll(data, -1) {
				if !slices.Contains(ix.configs[s], string(c)) {
					ix.configs[s] = append(ix.configs[s], string(c))
				}
			}
		}
	}
	return ix, nil
}

func (ix index) configsOf(suites []string) []string {
	var out []string
	for _, s := range suites {
		out = append(out, ix.configs[s]...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func (ix index) suitesOf(ids []string) []string {
	var out []string
	for _, id := range ids {
		out = append(out, ix.suites[id]...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// acquire makes (or finds) the cluster of each config, side by side as a run makes
// its clusters, and keeps them.
func acquire(ctx context.Context, configs []string) ([]*cluster.Cluster, error) {
	o := cluster.DefaultKindOptions()
	o.KeepClusters = true
	out := make([]*cluster.Cluster, len(configs))
	errs := make([]error, len(configs))
	var wg sync.WaitGroup
	for i, cfg := range configs {
		k, err := cluster.NewKind(cfg, o)
		if err != nil {
			return nil, err
		}
		wg.Go(func() {
			out[i], errs[i] = k.Acquire(ctx)
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

// swappableWorkers are the node containers of cluster c that run the stock kubelet of
// their node image: workers (not the control plane) whose image's kubelet is
// v1.37.2's.
func swappableWorkers(ctx context.Context, c *cluster.Cluster) ([]string, error) {
	names, err := docker(ctx, "ps", "--filter", "label=io.x-k8s.kind.cluster="+c.Name, "--format", "{{.Names}}")
	if err != nil {
		return nil, err
	}
	var out []string
	for _, n := range strings.Fields(names) {
		labels, err := docker(ctx, "inspect", "-f", `{{index .Config.Labels "io.x-k8s.kind.role"}} {{index .Config.Labels "`+cluster.KubeletVersionLabel+`"}}`, n)
		if err != nil {
			return nil, err
		}
		role, version, _ := strings.Cut(strings.TrimSpace(labels), " ")
		if role == "worker" && version == "v1.37.2" {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out, nil
}

// imageKubelet is where a worker keeps its node image's kubelet while the matrix runs.
const imageKubelet = "/usr/bin/kubelet.node-image"

// keepImageKubelets copies each worker's kubelet aside, once (a second matrix on the
// same clusters finds the copy, and the kubelet may be a mutant's by then).
func keepImageKubelets(ctx context.Context, workers []string) error {
	for _, w := range workers {
		if _, err := docker(ctx, "exec", w, "sh", "-c", "[ -e "+imageKubelet+" ] || cp -p /usr/bin/kubelet "+imageKubelet); err != nil {
			return err
		}
	}
	return nil
}

// restoreImageKubelets puts each worker's node image kubelet back and restarts it.
func restoreImageKubelets(ctx context.Context, workers []string) error {
	var errs []error
	for _, w := range workers {
		if _, err := docker(ctx, "exec", w, "sh", "-c", "cp -p "+imageKubelet+" /usr/bin/kubelet.next && mv -f /usr/bin/kubelet.next /usr/bin/kubelet && systemctl restart kubelet"); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	return waitHealthy(ctx, workers)
}

// install puts kubelet bin (sha256 sum) on every worker that does not run it yet and
// restarts the kubelet there, and waits until each answers on its health port.
func install(ctx context.Context, workers []string, bin, sum string) error {
	for _, w := range workers {
		have, err := docker(ctx, "exec", w, "sha256sum", "/usr/bin/kubelet")
		if err == nil && strings.HasPrefix(have, sum) {
			continue
		}
		if _, err := docker(ctx, "cp", bin, w+":/usr/bin/kubelet.next"); err != nil {
			return err
		}
		if _, err := docker(ctx, "exec", w, "sh", "-c", "chmod 0755 /usr/bin/kubelet.next && mv -f /usr/bin/kubelet.next /usr/bin/kubelet && systemctl restart kubelet"); err != nil {
			return fmt.Errorf("restarting the kubelet on %s: %w", w, err)
		}
	}
	return waitHealthy(ctx, workers)
}

// waitHealthy waits until each worker's kubelet answers on its health port.
func waitHealthy(ctx context.Context, workers []string) error {
	for _, w := range workers {
		deadline := time.Now().Add(90 * time.Second)
		for {
			if _, err := docker(ctx, "exec", w, "curl", "-sf", "http://127.0.0.1:10248/healthz"); err == nil {
				break
			}
			if time.Now().After(deadline) {
				logs, _ := docker(ctx, "exec", w, "journalctl", "-u", "kubelet", "-n", "20", "--no-pager")
				return fmt.Errorf("the kubelet on %s did not answer on :10248/healthz within 90 s; its last log lines:\n%s", w, logs)
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(500 * time.Millisecond):
			}
		}
	}
	return nil
}

// compileSuites builds each suite's test binary once (ginkgo build), so that every
// run of the matrix runs the same specs.
func compileSuites(ctx context.Context, ginkgo string, suites []string) (map[string]string, error) {
	args := strings.Fields(ginkgo)
	args = append(args, "build")
	for _, s := range suites {
		args = append(args, "./suites/"+s)
	}
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	fmt.Printf("== compiling %d suites\n", len(suites))
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("ginkgo build: %w", err)
	}
	out := map[string]string{}
	for _, s := range suites {
		bins, _ := filepath.Glob(filepath.Join("suites", s, "*.test"))
		if len(bins) != 1 {
			return nil, fmt.Errorf("ginkgo build left %d test binaries in suites/%s", len(bins), s)
		}
		out[s] = bins[0]
	}
	return out, nil
}

// buildKubelet builds the kubelet of patch (or --stock) into out.
func buildKubelet(ctx context.Context, patch, out string) error {
	cmd := exec.CommandContext(ctx, "bash", "images/mutants.sh", patch, out)
	var buf strings.Builder
	cmd.Stdout, cmd.Stderr = &buf, &buf
	t := time.Now()
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%w\n%s", err, buf.String())
	}
	fmt.Printf("   kubelet %s built in %s\n", filepath.Base(out), time.Since(t).Round(time.Second))
	return nil
}

// built is one mutant's kubelet, or why it did not build.
type built struct {
	bin string
	err error
}

type runner struct {
	builds   map[string]built
	o        options
	out      string
	cat      statements.Catalogue
	suites   []string
	index    index
	binaries map[string]string
	// workersOf: the swappable workers of each kind config's cluster.
	workersOf map[string][]string
}

// mutant builds m's kubelet, installs it and runs the specs of its statements.
func (r runner) mutant(ctx context.Context, m Mutant, stock report.Document) Row {
	t := time.Now()
	fail := func(err error) Row {
		row := Classify(m, stock, report.Document{})
		row.Unrelated = append(row.Unrelated, err.Error())
		row.Took = time.Since(t)
		return row
	}
	b, ok := r.builds[m.Name]
	if !ok {
		return fail(fmt.Errorf("no kubelet built for %s", m.Name))
	}
	if b.err != nil {
		return fail(fmt.Errorf("the mutant did not build: %w", b.err))
	}
	bin := b.bin
	sum, err := fileSHA256(bin)
	if err != nil {
		return fail(err)
	}
	// The other clusters keep whatever kubelet they have: no spec of m runs there.
	var workers []string
	for _, cfg := range r.index.configsOf(r.index.suitesOf(m.Breaks)) {
		workers = append(workers, r.workersOf[cfg]...)
	}
	if err := install(ctx, workers, bin, sum); err != nil {
		return fail(err)
	}
	doc, err := r.specs(ctx, filepath.Join(r.out, m.Name), m.Breaks)
	if err != nil {
		return fail(err)
	}
	row := Classify(m, stock, doc)
	row.KubeletSHA256 = sum
	row.Took = time.Since(t)
	return row
}

// specs runs the specs of statements ids (not Slow) into dir and returns the run's
// report document, also written there.
func (r runner) specs(ctx context.Context, dir string, ids []string) (report.Document, error) {
	if err := os.RemoveAll(dir); err != nil {
		return report.Document{}, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return report.Document{}, err
	}
	args := strings.Fields(r.o.ginkgo)
	args = append(args, "--keep-going", "--timeout=40m", "--poll-progress-after=120s", fmt.Sprintf("--procs=%d", r.o.procs),
		"--label-filter="+LabelFilter(ids), "--output-dir="+dir, "--json-report=e2e.json", "--junit-report=e2e-junit.xml")
	if !isTerminal() {
		args = append(args, "--no-color")
	}
	for _, s := range r.index.suitesOf(ids) {
		args = append(args, r.binaries[s])
	}
	log, err := os.Create(filepath.Join(dir, "ginkgo.log"))
	if err != nil {
		return report.Document{}, err
	}
	defer log.Close()
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Stdout, cmd.Stderr = log, log
	// The suites read the run from its record: artifacts in dir, the kept clusters; no
	// run ID, so that no facts are cached across kubelets.
	rec := config.Record{Started: time.Now(), Commit: commit(), Dir: dir, ServerVersion: config.DefaultVersion,
		Config: config.Config{Labels: LabelFilter(ids), Procs: r.o.procs, KeepClusters: true, Artifacts: dir}}
	if err := rec.Write(dir); err != nil {
		return report.Document{}, err
	}
	cmd.Env = append(os.Environ(), config.RecordVar+"="+filepath.Join(dir, config.RecordFile))
	runErr := cmd.Run()
	if ctx.Err() != nil {
		return report.Document{}, ctx.Err()
	}
	if _, err := os.Stat(filepath.Join(dir, "e2e.json")); err != nil {
		return report.Document{}, fmt.Errorf("ginkgo wrote no report (%v); see %s", runErr, log.Name())
	}
	return r.document(dir)
}

func (r runner) document(dir string) (report.Document, error) {
	runs, err := report.LoadRuns(dir, "e2e.json")
	if err != nil {
		return report.Document{}, err
	}
	doc, err := report.Build(dir, runs, r.cat, r.suites)
	if err != nil {
		return report.Document{}, err
	}
	if _, err := render.Write(doc, dir); err != nil {
		return report.Document{}, err
	}
	return doc, nil
}

func docker(ctx context.Context, args ...string) (string, error) {
	out, err := exec.CommandContext(ctx, "docker", args...).CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("docker %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return string(out), nil
}

func fileSHA256(file string) (string, error) {
	f, err := os.Open(file)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func commit() string {
	out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	c := strings.TrimSpace(string(out))
	if st, _ := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output(); len(st) > 0 {
		c += " (with uncommitted changes)"
	}
	return c
}

func isTerminal() bool {
	fi, err := os.Stdout.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
