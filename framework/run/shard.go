package run

import (
	"cmp"
	"github.com/podlifecycle/conformance/framework/config"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2/types"
)

// Shard is one of n parts of a run ("2/3": Index 2 of Count 3), for a run split over
// several machines (CI jobs side by side) whose reports are merged afterwards
// (report and compare take several artifact directories).
type Shard = config.Shard

// specFile is one spec file of a suite: the unit a run is split by (Ginkgo's
// --focus-file selects it).
type specFile struct {
	Suite  string   // "./suites/restart"
	File   string   // "suites/restart/backoff_test.go"
	Config []string // the kind configs its suite uses
	Cost   time.Duration
}

// ShardPart is what one shard runs: its suites, the spec files of them it takes,
// and the kind configs its clusters are made from.
type ShardPart struct {
	Suites  []string
	Files   []string
	Configs []string
	Cost    time.Duration // the spec time it is expected to take
}

// clusterCost is what making a cluster costs a shard, in the unit the parts are
// balanced by (spec time summed over the specs, which run on PROCS processes: about
// 4 × the wall time at the default 4): a cluster takes about a minute of wall time to
// make and is made by every shard that needs it, so the split keeps one
// configuration's suites together until splitting them saves more than that.
const clusterCost = 4 * time.Minute

// defaultSpecCost weighs a spec file with no saved duration (no earlier run): by its
// number of specs.
const defaultSpecCost = 20 * time.Second

// SplitSuites splits the spec files of suites into count parts, balanced by cost:
// each file's specs' run times in a saved earlier report (durations, by file path;
// files it lacks cost defaultSpecCost a spec), plus clusterCost for each kind config
// a part needs. Files are placed longest first, each on the part it makes the least
// loaded (ties to the lower part), so the split is the same on every machine given
// the same inputs.
func SplitSuites(repo fs.FS, suites []string, count int, durations map[string]time.Duration) ([]ShardPart, error) {
	files, err := specFiles(repo, suites, durations)
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(files, func(a, b specFile) int {
		if c := cmp.Compare(b.Cost, a.Cost); c != 0 {
			return c
		}
		return strings.Compare(a.File, b.File)
	})
	order := concrete(repo, suites)
	parts := make([]ShardPart, count)
	for _, f := range files {
		best, bestLoad := 0, time.Duration(-1)
		for i, p := range parts {
			load := p.Cost + f.Cost
			for _, c := range f.Config {
				if !slices.Contains(p.Configs, c) {
					load += clusterCost
				}
			}
			if bestLoad < 0 || load < bestLoad {
				best, bestLoad = i, load
			}
		}
		p := &parts[best]
		for _, c := range f.Config {
			if !slices.Contains(p.Configs, c) {
				p.Configs = append(p.Configs, c)
				p.Cost += clusterCost
			}
		}
		p.Cost += f.Cost
		p.Files = append(p.Files, f.File)
		if !slices.Contains(p.Suites, f.Suite) {
			p.Suites = append(p.Suites, f.Suite)
		}
	}
	for i := range parts {
		slices.Sort(parts[i].Files)
		slices.Sort(parts[i].Configs)
		// In the order the run lists its suites.
		slices.SortStableFunc(parts[i].Suites, func(a, b string) int {
			return cmp.Compare(slices.Index(order, a), slices.Index(order, b))
		})
	}
	return parts, nil
}

// specsIn matches the Ginkgo nodes that make specs.
var specsIn = regexp.MustCompile(`\b(It|Entry|DescribeTable|DescribeTableSubtree)\(`)

// specFiles lists the spec files of the suites (expanding "./suites/x/..." into the
// suites below x), with their cost.
func specFiles(repo fs.FS, suites []string, durations map[string]time.Duration) ([]specFile, error) {
	configsOf := KindConfigs(repo)
	var out []specFile
	for _, suite := range concrete(repo, suites) {
		configs, err := configsOf(suite)
		if err != nil {
			return nil, err
		}
		dir := strings.TrimPrefix(suite, "./")
		entries, err := fs.ReadDir(repo, dir)
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			if e.IsDir() || !strings.HasSuffix(e.Name(), "_test.go") {
				continue
			}
			file := path.Join(dir, e.Name())
			data, err := fs.ReadFile(repo, file)
			if err != nil {
				return nil, err
			}
			n := len(specsIn.FindAllIndex(data, -1))
			if n == 0 {
				continue
			}
			cost, saved := durations[file]
			if !saved {
				cost = time.Duration(n) * defaultSpecCost
			}
			out = append(out, specFile{Suite: suite, File: file, Config: configs, Cost: cost})
		}
	}
	return out, nil
}

// concrete expands "./suites/x/..." into ./suites/x and every suite below it (a
// directory with test files), in the order given.
func concrete(repo fs.FS, suites []string) []string {
	var out []string
	for _, s := range suites {
		dir, recursive := strings.CutSuffix(strings.TrimPrefix(s, "./"), "/...")
		if !recursive {
			out = append(out, "./"+dir)
			continue
		}
		_ = fs.WalkDir(repo, dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || !d.IsDir() {
				return nil
			}
			if matches, _ := fs.Glob(repo, path.Join(p, "*_test.go")); len(matches) > 0 {
				out = append(out, "./"+p)
			}
			return nil
		})
	}
	return slices.Compact(out)
}

// Durations sums a saved run's spec run times by spec file ("suites/restart/
// backoff_test.go"), the weights SplitSuites balances by.
func Durations(reports []types.Report) map[string]time.Duration {
	out := map[string]time.Duration{}
	for _, r := range reports {
		for _, s := range r.SpecReports {
			if s.LeafNodeType != types.NodeTypeIt {
				continue
			}
			file := s.LeafNodeLocation.FileName
			if i := strings.LastIndex(file, "/suites/"); i >= 0 {
				file = file[i+1:]
			}
			out[file] += s.RunTime
		}
	}
	return out
}
