// Package config is one run's switches as one value: every Makefile variable of
// `make e2e` (LABELS, FEATURE_GATES, SHARD, …) is a typed field of Config, parsed once
// by the flag package from the flag of the same name, and checked by one Validate.
// The runner writes the resolved value into the run's run.json (Record), which the
// suites read back (PODLIFECYCLE_RUN): no other variable carries the run's settings.
package config

import (
	"errors"
	"flag"
	"fmt"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// DefaultVersion is the Kubernetes release the statements are checked against.
const DefaultVersion = "v1.37.2"

// Config is what one run was asked to do.
type Config struct {
	Labels              string   `json:"labels"`
	Focus               string   `json:"focus,omitempty"`
	Procs               int      `json:"procs"`
	Versions            Versions `json:"k8sVersions,omitempty"`
	Kubelet             string   `json:"kubelet,omitempty"`
	KubeletVersion      string   `json:"kubeletVersion,omitempty"`
	FeatureGates        Gates    `json:"featureGates,omitempty"`
	KubeletFeatureGates Gates    `json:"kubeletFeatureGates,omitempty"`
	Kubeconfig          string   `json:"kubeconfig,omitempty"`
	AllowDisruptive     bool     `json:"allowDisruptive,omitempty"`
	RerunFailed         bool     `json:"rerunFailed,omitempty"`
	KeepClusters        bool     `json:"keepClusters,omitempty"`
	Shard               Shard    `json:"shard,omitzero"`
	ShardDurations      string   `json:"shardDurations,omitempty"`
	Artifacts           string   `json:"artifacts"`
}

// Switch is one Makefile variable and the flag it is passed as.
type Switch struct {
	Var, Flag, Usage string
	value            func(*Config) flag.Value
}

// Switches is the table the Makefile's SWITCHES mirrors (a test holds them equal) and
// the README's switch reference is written from (podlifecycle switches).
var Switches = []Switch{
	{"LABELS", "labels", "Ginkgo label filter: statement IDs (PL-1||RS-6), Slow, Disruptive, Quiet", str(func(c *Config) *string { return &c.Labels })},
	{"FOCUS", "focus", "Ginkgo focus, a regular expression on spec text", str(func(c *Config) *string { return &c.Focus })},
	{"PROCS", "procs", "Ginkgo processes (1 runs one spec at a time)", func(c *Config) flag.Value { return (*procs)(&c.Procs) }},
	{"K8S_VERSIONS", "k8s-versions", "Kubernetes releases, space-separated (v1.37.2 v1.36.3): every suite once per release, results under ARTIFACTS/<release>", func(c *Config) flag.Value { return &c.Versions }},
	{"KUBELET", "kubelet", "a kubelet binary of your own: every node whose kind config names no image runs it", str(func(c *Config) *string { return &c.Kubelet })},
	{"KUBELET_VERSION", "kubelet-version", "a release's kubelet (v1.36.3), built from the Go module proxy, in place of the stock one", str(func(c *Config) *string { return &c.KubeletVersion })},
	{"FEATURE_GATES", "feature-gates", "A=true,B=false for every component of the kind clusters that knows the gate", func(c *Config) flag.Value { return &c.FeatureGates }},
	{"KUBELET_FEATURE_GATES", "kubelet-feature-gates", "A=true,B=false for every kubelet (a profile's own kubelet flags still win on its node)", func(c *Config) flag.Value { return &c.KubeletFeatureGates }},
	{"KUBECONFIG", "kubeconfig", "a cluster of yours to test instead of kind clusters (only from make's command line, never the environment)", str(func(c *Config) *string { return &c.Kubeconfig })},
	{"ALLOW_DISRUPTIVE", "allow-disruptive", "1: on a cluster of yours, run the Disruptive specs too (they taint, restart kubelets, use node shells)", boolean(func(c *Config) *bool { return &c.AllowDisruptive })},
	{"RERUN_FAILED", "rerun-failed", "1: run again only what failed in the saved run, with its filters, merged into its report", boolean(func(c *Config) *bool { return &c.RerunFailed })},
	{"KEEP_CLUSTERS", "keep-clusters", "1: keep the kind clusters even when every suite passed", boolean(func(c *Config) *bool { return &c.KeepClusters })},
	{"SHARD", "shard", "i/n: run only the i-th of n parts of the spec files (merge the parts with make report ARTIFACTS=a,b)", func(c *Config) flag.Value { return &c.Shard }},
	{"SHARD_DURATIONS", "shard-durations", "a saved run's e2e.json whose spec times balance the shards (give every part the same one)", str(func(c *Config) *string { return &c.ShardDurations })},
	{"ARTIFACTS", "artifacts", "where the reports and the suites' artifacts go", str(func(c *Config) *string { return &c.Artifacts })},
}

// Default is the configuration of a plain `make e2e`.
func Default() Config {
	return Config{Labels: "!Slow", Procs: 4, Artifacts: "_artifacts"}
}

// Register adds a flag for every switch to fs, each writing into c.
func (c *Config) Register(fs *flag.FlagSet) {
	for _, s := range Switches {
		fs.Var(named{s.value(c), s.Var}, s.Flag, fmt.Sprintf("%s (%s)", s.Usage, s.Var))
	}
}

// named says which make variable a bad value came from.
type named struct {
	flag.Value
	name string
}

func (n named) Set(s string) error {
	if err := n.Value.Set(s); err != nil {
		return fmt.Errorf("%s=%q: %w", n.name, s, err)
	}
	return nil
}

func (n named) IsBoolFlag() bool {
	b, ok := n.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// Parse is Default with the flags of args applied; what is left are the arguments.
func Parse(name string, args []string) (Config, []string, error) {
	c := Default()
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	c.Register(fs)
	if err := fs.Parse(args); err != nil {
		return c, nil, err
	}
	return c, fs.Args(), nil
}

var (
	releaseRE = regexp.MustCompile(`^v[0-9]+\.[0-9]+\.[0-9]+$`)
	gateRE    = regexp.MustCompile(`^[A-Z][A-Za-z0-9]*$`)
)

// Validate holds every check that needs no file, network or cluster: the values
// together. Each error names the switch and says what to set instead.
func (c Config) Validate() error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	if strings.TrimSpace(c.Labels) == "" {
		bad("LABELS is empty: give a Ginkgo label filter (the default is !Slow; LABELS=Slow runs the Slow set)")
	}
	if c.Kubelet != "" && c.KubeletVersion != "" {
		bad("KUBELET=%s and KUBELET_VERSION=%s: set a binary or a release, not both", c.Kubelet, c.KubeletVersion)
	}
	if c.KubeletVersion != "" && !releaseRE.MatchString(c.KubeletVersion) {
		bad("KUBELET_VERSION=%q: want a Kubernetes release such as v1.36.3", c.KubeletVersion)
	}
	if c.Kubeconfig != "" {
		for _, s := range []struct {
			name string
			set  bool
		}{{"FEATURE_GATES", len(c.FeatureGates) > 0}, {"KUBELET_FEATURE_GATES", len(c.KubeletFeatureGates) > 0},
			{"KUBELET", c.Kubelet != ""}, {"KUBELET_VERSION", c.KubeletVersion != ""}, {"KEEP_CLUSTERS", c.KeepClusters}} {
			if s.set {
				bad("%s is set, but KUBECONFIG names a cluster of yours, which the suite never changes: %s applies only to the kind clusters the suite makes; unset one of the two", s.name, s.name)
			}
		}
		if len(c.Versions) > 1 {
			bad("K8S_VERSIONS=%q is set, but KUBECONFIG names a cluster of yours, which has one version: give the one it runs (its statements are checked against it), or unset one of the two", c.Versions.String())
		}
	} else if c.AllowDisruptive {
		bad("ALLOW_DISRUPTIVE=1 without KUBECONFIG: the Disruptive specs always run on the kind clusters the suite makes; it applies only to a cluster of yours")
	}
	if !c.Shard.Whole() && c.RerunFailed {
		bad("SHARD and RERUN_FAILED together: rerun what failed in each shard's own artifacts, without SHARD")
	}
	if c.ShardDurations != "" && c.Shard.Whole() {
		bad("SHARD_DURATIONS=%s without SHARD: it balances the parts of a sharded run", c.ShardDurations)
	}
	if c.Artifacts == "" {
		bad("ARTIFACTS is empty: name a directory")
	}
	return errors.Join(errs...)
}

// ServerVersions are the Kubernetes releases the run's passes are checked against.
func (c Config) ServerVersions() []string {
	if len(c.Versions) == 0 {
		return []string{DefaultVersion}
	}
	return slices.Clone(c.Versions)
}

// Abs makes the run's paths absolute, so that the suites (run from their package
// directories) and a rerun find the same files.
func (c *Config) Abs() error {
	for _, p := range []*string{&c.Kubelet, &c.Kubeconfig, &c.ShardDurations, &c.Artifacts} {
		if *p == "" || filepath.IsAbs(*p) {
			continue
		}
		abs, err := filepath.Abs(*p)
		if err != nil {
			return err
		}
		*p = abs
	}
	return nil
}

// Gates is a --feature-gates value, "A=true,B=false", parsed into a map.
type Gates map[string]bool

func (g Gates) String() string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(g)) {
		parts = append(parts, fmt.Sprintf("%s=%t", k, g[k]))
	}
	return strings.Join(parts, ",")
}

// Set parses s; Gates set twice take the later value of a gate (as a component does).
func (g *Gates) Set(s string) error {
	parsed, err := ParseGates(s)
	if err != nil {
		return err
	}
	if *g == nil {
		*g = Gates{}
	}
	maps.Copy(*g, parsed)
	return nil
}

// ParseGates parses the --feature-gates syntax "A=true,B=false" (spaces and an empty
// item allowed, as the components allow them).
func ParseGates(s string) (Gates, error) {
	g := Gates{}
	for item := range strings.SplitSeq(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		name, value, ok := strings.Cut(item, "=")
		name = strings.TrimSpace(name)
		if !ok || !gateRE.MatchString(name) {
			return nil, fmt.Errorf("%q: want Name=true or Name=false, as in A=true,B=false", item)
		}
		b, err := strconv.ParseBool(strings.TrimSpace(value))
		if err != nil {
			return nil, fmt.Errorf("%q: want true or false for %s", item, name)
		}
		g[name] = b
	}
	return g, nil
}

// boolValue is a switch that takes 1, true, 0 or false and nothing else:
// RERUN_FAILED=0 is off, and RERUN_FAILED=yes an error, not a silent "on".
type boolValue struct{ p *bool }

func (b boolValue) String() string {
	if b.p == nil {
		return "false"
	}
	return strconv.FormatBool(*b.p)
}

// IsBoolFlag lets -rerun-failed stand alone for -rerun-failed=true.
func (b boolValue) IsBoolFlag() bool { return true }

func (b boolValue) Set(s string) error {
	switch strings.TrimSpace(s) {
	case "1", "true":
		*b.p = true
	case "0", "false", "":
		*b.p = false
	default:
		return errors.New("want 1, true, 0 or false")
	}
	return nil
}

func boolean(field func(*Config) *bool) func(*Config) flag.Value {
	return func(c *Config) flag.Value { return boolValue{field(c)} }
}

// Versions is K8S_VERSIONS: Kubernetes releases, space-separated.
type Versions []string

func (v Versions) String() string { return strings.Join(v, " ") }

func (v *Versions) Set(s string) error {
	*v = nil
	for _, f := range strings.Fields(s) {
		if !releaseRE.MatchString(f) {
			return fmt.Errorf("%q: want Kubernetes releases such as v1.36.3, space-separated", f)
		}
		if !slices.Contains(*v, f) {
			*v = append(*v, f)
		}
	}
	return nil
}

// Shard is SHARD=i/n: the i-th of n parts of the run's spec files; the zero value is
// the whole run.
type Shard struct {
	Index int `json:"index"`
	Count int `json:"count"`
}

func (s Shard) Whole() bool { return s.Count <= 1 }

func (s Shard) String() string {
	if s.Count == 0 {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.Index, s.Count)
}

func (s *Shard) Set(v string) error {
	*s = Shard{}
	if strings.TrimSpace(v) == "" {
		return nil
	}
	i, n, ok := strings.Cut(v, "/")
	index, err1 := strconv.Atoi(i)
	count, err2 := strconv.Atoi(n)
	if !ok || err1 != nil || err2 != nil || index < 1 || index > count {
		return errors.New("want i/n with 1 ≤ i ≤ n, e.g. SHARD=1/2")
	}
	*s = Shard{Index: index, Count: count}
	return nil
}

type procs int

func (p procs) String() string { return strconv.Itoa(int(p)) }

func (p *procs) Set(s string) error {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 1 {
		return errors.New("want a whole number of Ginkgo processes, at least 1")
	}
	*p = procs(n)
	return nil
}

type stringValue struct{ p *string }

func (s stringValue) String() string {
	if s.p == nil {
		return ""
	}
	return *s.p
}
func (s stringValue) Set(v string) error { *s.p = strings.TrimSpace(v); return nil }

func str(field func(*Config) *string) func(*Config) flag.Value {
	return func(c *Config) flag.Value { return stringValue{field(c)} }
}
