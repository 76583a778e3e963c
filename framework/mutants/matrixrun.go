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
// Every kubelet is built first; then the matrix runs one cluster at a time, as make
// e2e does: the cluster of a kind config (made, or found kept), the stock kubelet and
// then each mutant on the suites of that config, and the cluster deleted before the
// next is made (kept with KEEP_CLUSTERS, or where the stock kubelet failed). A mutant
// with statements on two clusters runs on both and is classified once both have run.
// The control plane keeps its kubelet, and so does a worker whose node image carries
// a kubelet of another version (the v1.36.3 worker). The suites are compiled once,
// before the first run, so that editing a spec while the matrix runs changes nothing
// of it. At the end of each cluster's share, and on Ctrl-C, every worker gets the
// stock kubelet back.

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
	"syscall"
	"time"

	"github.com/podlifecycle/conformance/framework/cluster"
	"github.com/podlifecycle/conformance/framework/config"
	"github.com/podlifecycle/conformance/framework/render"
	"github.com/podlifecycle/conformance/framework/report"
	"github.com/podlifecycle/conformance/framework/statements"
)

type options struct {
	patches, out, suites, only, ginkgo   string
	procs                                int
	reuseStock, reclassify, keepClusters bool
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
	flag.BoolVar(&o.keepClusters, "keep-clusters", false, "keep the clusters the matrix makes (KEEP_CLUSTERS); without it each is deleted once its mutants have run, unless the stock kubelet failed there")
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
	// The suites that hold a statement of a selected mutant (or, for the stock run,
	// of any mutant), by cluster, in the order of -suites.
	wanted := Statements(all)
	if o.reuseStock {
		wanted = Statements(selected)
	}
	groups, err := index.groups(suites, index.suitesOf(wanted))
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
	var phases []Phase
	phase := func(name string, since time.Time) { phases = append(phases, Phase{name, time.Since(since)}) }

	// Every kubelet is built before the first cluster is made: a build beside a running
	// spec takes the CPU and the disk that the spec's timing rests on, and a cluster
	// made first would idle through the builds.
	t := time.Now()
	stockBin := filepath.Join(out, "kubelets", "stock")
	if err := buildKubelet(ctx, "--stock", stockBin); err != nil {
		return fmt.Errorf("building the stock kubelet: %w", err)
	}
	stockSum, err := fileSHA256(stockBin)
	if err != nil {
		return err
	}
	previous, _ := ReadJSON(filepath.Join(out, "kill-matrix.json"))
	if o.reuseStock && previous.StockSHA256 != stockSum {
		return fmt.Errorf("-reuse-stock: the stock kubelet built now (sha256 %.12s) is not the one of the matrix in %s (%.12s): run the whole matrix", stockSum, out, previous.StockSHA256)
	}
	builds := map[string]built{}
	for _, m := range selected {
		bin := filepath.Join(out, "kubelets", m.Name)
		b := built{bin: bin, err: buildKubelet(ctx, m.File, bin)}
		if b.err == nil {
			b.sum, b.err = fileSHA256(bin)
		}
		builds[m.Name] = b
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	phase(fmt.Sprintf("%d kubelets built or taken from the cache", len(selected)+1), t)

	t = time.Now()
	var needed []string
	for _, g := range groups {
		needed = append(needed, g.Suites...)
	}
	binaries, err := compileSuites(ctx, o.ginkgo, needed)
	if err != nil {
		return err
	}
	phase("suites compiled", t)

	// Each run's artifacts are this matrix's alone: no part of an earlier one is read
	// with them.
	stale := []string{}
	if !o.reuseStock {
		stale = append(stale, "stock")
	}
	for _, m := range selected {
		stale = append(stale, m.Name)
	}
	for _, d := range stale {
		if err := os.RemoveAll(filepath.Join(out, d)); err != nil {
			return err
		}
	}
	r := runner{o: o, out: out, cat: cat, suites: suites, index: index, binaries: binaries, builds: builds}
	mx := &matrixRun{runner: r, all: all, selected: selected, groups: groups, start: start,
		matrix:   Matrix{Date: time.Now(), Commit: commit(), StockSHA256: stockSum, Phases: phases},
		previous: previous, stockBin: stockBin, stockSum: stockSum, reuseStock: o.reuseStock,
		progress: map[string]*progress{}}
	if o.reuseStock {
		mx.matrix.StockGreen, mx.matrix.StockFailed = previous.StockGreen, previous.StockFailed
	}
	for _, m := range selected {
		mx.progress[m.Name] = &progress{groupsLeft: len(groupsOf(groups, index.suitesOf(m.Breaks)))}
	}
	// One cluster at a time, as make e2e runs: the stock kubelet and then every
	// mutant on the suites of that cluster, which is deleted before the next is made.
	for _, g := range groups {
		if err := mx.runGroup(ctx, g); err != nil {
			return err
		}
	}
	for _, m := range selected {
		if p := mx.progress[m.Name]; p.row == nil {
			p.unrelated = append(p.unrelated, fmt.Sprintf("no suite of -suites holds a spec of %s", strings.Join(m.Breaks, " ")))
			row := mx.classify(m, report.Document{}, p)
			p.row = &row
		}
	}
	if err := mx.write(); err != nil {
		return err
	}
	fmt.Printf("== kill matrix: %s; wall time %s\n   %s\n", mx.matrix.Counts(), time.Since(start).Round(time.Second), filepath.Join(out, "kill-matrix.md"))
	return nil
}

// groupName is a cluster's folder in each run's artifacts: its kind config's name.
func groupName(g cluster.SuiteGroup) string {
	return strings.TrimSuffix(filepath.Base(g.Configs[0]), ".yaml")
}

// groupsOf are the groups that hold at least one of suites.
func groupsOf(groups []cluster.SuiteGroup, suites []string) []cluster.SuiteGroup {
	var out []cluster.SuiteGroup
	for _, g := range groups {
		if g.Holds(suites) {
			out = append(out, g)
		}
	}
	return out
}

// progress is one selected mutant's runs so far: a mutant whose statements are on
// two clusters runs twice, and is classified once both have run.
type progress struct {
	ran        bool // a run of it wrote its report
	groupsLeft int
	unrelated  []string
	took       time.Duration
	sum        string
	row        *Row
}

// matrixRun is one make mutants in progress.
type matrixRun struct {
	runner
	all, selected      []Mutant
	groups             []cluster.SuiteGroup
	start              time.Time
	matrix, previous   Matrix
	stockBin, stockSum string
	reuseStock         bool
	progress           map[string]*progress
}

// runGroup makes (or finds) group g's cluster, runs the stock kubelet and each
// selected mutant with statements there on its suites, and releases the cluster: one
// the matrix made is deleted, unless KEEP_CLUSTERS or the stock kubelet failed there
// (kept to be inspected, as after a failed make e2e).
func (mx *matrixRun) runGroup(ctx context.Context, g cluster.SuiteGroup) (err error) {
	t := time.Now()
	o := cluster.DefaultKindOptions()
	o.KeepClusters = mx.o.keepClusters
	k, err := cluster.NewKind(g.Configs[0], o)
	if err != nil {
		return err
	}
	outcome := cluster.Succeeded
	defer func() {
		switch {
		case ctx.Err() != nil:
			outcome = cluster.Interrupted
		case err != nil:
			outcome = cluster.Failed
		}
		if rerr := k.Release(context.Background(), nil, outcome); rerr != nil && err == nil {
			err = rerr
		}
	}()
	c, err := k.Acquire(ctx)
	if err != nil {
		return err
	}
	workers, err := swappableWorkers(ctx, c)
	if err != nil {
		return err
	}
	if len(workers) == 0 {
		return fmt.Errorf("no worker of cluster %s runs the stock v1.37.2 kubelet of its node image", c.Name)
	}
	if err := keepImageKubelets(ctx, workers); err != nil {
		return err
	}
	// Whatever happens from here, the workers get their node image's kubelet back
	// (this runs before the cluster's release above).
	defer func() {
		restoreCtx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		if err := restoreImageKubelets(restoreCtx, workers); err != nil {
			fmt.Fprintf(os.Stderr, "mutants: putting the node image's kubelet back: %v\n  (each worker keeps it as %s; `make clean` deletes the clusters)\n", err, imageKubelet)
		}
	}()
	mx.matrix.Phases = append(mx.matrix.Phases, Phase{"cluster " + groupName(g), time.Since(t)})
	fmt.Printf("== cluster %s: %d workers take the mutants' kubelets: %s\n", groupName(g), len(workers), strings.Join(workers, " "))

	t = time.Now()
	stockTop := filepath.Join(mx.out, "stock")
	if !mx.reuseStock {
		fmt.Printf("== stock kubelet (sha256 %s) on %s: every statement the mutants name\n", mx.stockSum[:12], groupName(g))
		if err := install(ctx, workers, mx.stockBin, mx.stockSum); err != nil {
			return err
		}
		doc, err := mx.specs(ctx, filepath.Join(stockTop, groupName(g)), Statements(mx.all), g.Suites)
		if err != nil {
			return fmt.Errorf("the stock kubelet's run on %s: %w", groupName(g), err)
		}
		for _, f := range doc.Failures {
			mx.matrix.StockFailed = append(mx.matrix.StockFailed, fmt.Sprintf("%s (%s)", f.Spec.Text, f.Location))
		}
		mx.matrix.StockGreen = len(mx.matrix.StockFailed) == 0
		mx.matrix.Phases = append(mx.matrix.Phases, Phase{"stock run on " + groupName(g), time.Since(t)})
		fmt.Printf("   stock on %s: %s\n", groupName(g), map[bool]string{true: "every spec green", false: "FAILED: " + strings.Join(mx.matrix.StockFailed, "; ")}[len(doc.Failures) == 0])
		if len(doc.Failures) > 0 {
			outcome = cluster.Failed // kept, to be looked at; the mutants still run
		}
	}
	// The stock run's parts so far: a mutant classified now has all its statements on
	// this cluster or one before it.
	stock, err := mx.document(stockTop)
	if err != nil {
		return err
	}

	for _, m := range mx.selected {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		p := mx.progress[m.Name]
		if p.row != nil || !g.Holds(mx.index.suitesOf(m.Breaks)) {
			continue
		}
		t := time.Now()
		sum, err := mx.runMutant(ctx, m, workers, filepath.Join(mx.out, m.Name, groupName(g)), g.Suites)
		p.took += time.Since(t)
		p.groupsLeft--
		p.sum = sum
		if err != nil {
			p.unrelated = append(p.unrelated, err.Error())
		} else {
			p.ran = true
		}
		if p.groupsLeft > 0 && err == nil {
			fmt.Printf("   %s on %s: run (%s); its other cluster to come\n", m.Name, groupName(g), time.Since(t).Round(time.Second))
			continue
		}
		row := mx.classify(m, stock, p)
		p.row = &row
		fmt.Printf("   %s: %s (%s)\n", m.Name, row.Verdict(), row.Took.Round(time.Second))
		for _, c := range row.Cells {
			fmt.Printf("      %s %s (%s → %s) %s\n", c.Statement, c.Outcome, c.Stock, c.Mutant, c.Evidence)
		}
		for _, u := range row.Unrelated {
			fmt.Printf("      unrelated: %s\n", u)
		}
		// Written after every mutant: an interrupted matrix keeps what it measured.
		if err := mx.write(); err != nil {
			return err
		}
	}
	return nil
}

// classify is mutant m's row from its runs so far against the stock document.
func (mx *matrixRun) classify(m Mutant, stock report.Document, p *progress) Row {
	var doc report.Document
	if p.ran {
		d, err := mx.document(filepath.Join(mx.out, m.Name))
		if err != nil {
			p.unrelated = append(p.unrelated, err.Error())
		}
		doc = d
	}
	row := Classify(m, stock, doc)
	row.Unrelated = append(row.Unrelated, p.unrelated...)
	row.KubeletSHA256, row.Took = p.sum, p.took
	return row
}

// write writes the matrix: the rows of the mutants classified so far, and for those
// not selected, their rows of the matrix the run started from, in the patches' order.
func (mx *matrixRun) write() error {
	mx.matrix.Rows = nil
	for _, mu := range mx.all {
		if p, ok := mx.progress[mu.Name]; ok {
			if p.row != nil {
				mx.matrix.Rows = append(mx.matrix.Rows, *p.row)
			}
		} else if i := slices.IndexFunc(mx.previous.Rows, func(r Row) bool { return r.Mutant == mu.Name }); i >= 0 {
			mx.matrix.Rows = append(mx.matrix.Rows, mx.previous.Rows[i])
		}
	}
	return write(mx.matrix, mx.out, mx.start)
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

func (ix index) suitesOf(ids []string) []string {
	var out []string
	for _, id := range ids {
		out = append(out, ix.suites[id]...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// groups are the suites of -suites that are in needed, grouped by the kind config
// their specs name (cluster.Groups, as make e2e groups them), in the order of -suites.
// A suite whose specs name two configs would need both clusters at once, and a config
// whose suites are apart in -suites its cluster twice: the matrix, one cluster at a
// time and each made once, refuses both.
func (ix index) groups(suites, needed []string) ([]cluster.SuiteGroup, error) {
	var in []string
	for _, s := range suites {
		if slices.Contains(needed, s) {
			in = append(in, s)
		}
	}
	groups := cluster.Groups(in, ix.configs)
	for _, g := range groups {
		if len(g.Configs) != 1 {
			return nil, fmt.Errorf("suites %s name %d kind configs (%v): the kill matrix runs each suite on the one cluster of its config", strings.Join(g.Suites, " "), len(g.Configs), g.Configs)
		}
		if !slices.Contains(g.Done, g.Configs[0]) {
			return nil, fmt.Errorf("-suites: the suites of %s are not next to each other (%s): the kill matrix makes each cluster once", g.Configs[0], strings.Join(in, " "))
		}
	}
	return groups, nil
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

// built is one mutant's kubelet and its sha256, or why it did not build.
type built struct {
	bin, sum string
	err      error
}

type runner struct {
	builds   map[string]built
	o        options
	out      string
	cat      statements.Catalogue
	suites   []string
	index    index
	binaries map[string]string
}

// runMutant installs m's kubelet (built before the matrix started) on workers and runs
// the specs of its statements in suites into dir; it returns the kubelet's sha256.
func (r runner) runMutant(ctx context.Context, m Mutant, workers []string, dir string, suites []string) (string, error) {
	b, ok := r.builds[m.Name]
	if !ok {
		return "", fmt.Errorf("no kubelet built for %s", m.Name)
	}
	if b.err != nil {
		return "", fmt.Errorf("the mutant did not build: %w", b.err)
	}
	if err := install(ctx, workers, b.bin, b.sum); err != nil {
		return b.sum, err
	}
	_, err := r.specs(ctx, dir, m.Breaks, suites)
	return b.sum, err
}

// specs runs the specs of statements ids (not Slow) that are in suites into dir and
// returns the run's report document, also written there.
func (r runner) specs(ctx context.Context, dir string, ids, suites []string) (report.Document, error) {
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
		if slices.Contains(suites, s) {
			args = append(args, r.binaries[s])
		}
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

// document is the report of the runs in top: its own, or, where the matrix ran on
// several clusters, those of its folders, one per cluster, read as one run. The
// report is written to top.
func (r runner) document(top string) (report.Document, error) {
	runs, err := report.LoadRunsIn(partsIn(top), "e2e.json")
	if err != nil {
		return report.Document{}, err
	}
	doc, err := report.Build(top, runs, r.cat, r.suites)
	if err != nil {
		return report.Document{}, err
	}
	if _, err := render.Write(doc, top); err != nil {
		return report.Document{}, err
	}
	return doc, nil
}

// partsIn are the folders of top that hold a run's report (one per cluster), or top
// itself when it holds one (a matrix run before the matrix went cluster by cluster).
func partsIn(top string) []string {
	if _, err := os.Stat(filepath.Join(top, "e2e.json")); err == nil {
		return []string{top}
	}
	var out []string
	entries, _ := os.ReadDir(top)
	for _, e := range entries {
		if _, err := os.Stat(filepath.Join(top, e.Name(), "e2e.json")); e.IsDir() && err == nil {
			out = append(out, filepath.Join(top, e.Name()))
		}
	}
	if len(out) == 0 {
		return []string{top} // LoadRunsIn says what is missing
	}
	return out
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
