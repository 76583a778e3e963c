// Package run plans and runs what `make e2e` does: per Kubernetes version the
// version's images, the kind clusters of the run made ahead of the suites, the
// suites (one Ginkgo per cluster, each cluster deleted once its suites passed; or, for
// a run of every spec in STREAMS, side by side and then the Quiet specs), the run's
// clusters deleted once every suite passed, the report, and the wall time of each phase. The
// plan is a value (Plan) computed from the options alone, so that which clusters,
// suites, filters and versions a run takes is unit-tested without Docker; Execute
// carries it out.
package run

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"time"

	"github.com/podlifecycle/conformance/framework/config"
	"github.com/podlifecycle/conformance/framework/sidebyside"
)

// Options are a run: its configuration (the switches) and what the command line
// adds to it.
type Options struct {
	config.Config
	// Report names the run's Ginkgo reports: <Report>.json and <Report>-junit.xml
	// ("e2e" for make e2e, "lifecycle" for make e2e-lifecycle).
	Report string
	// Suites: package paths, "./suites/lifecycle", or "./suites/restart/..." for a
	// suite and the suites below it.
	Suites []string
	// ProjectSuites: every suite of the project ("lifecycle restart/profiles …"), for
	// the report to tell "not in this run" from "no spec".
	ProjectSuites []string
	// Color: the output is a terminal; a CI log gets Ginkgo without colour codes.
	Color bool
	// Durations: a saved earlier run's spec time per spec file, balancing the shards
	// (nil: by number of specs).
	Durations map[string]time.Duration
	// Streams: how a run of the whole default set groups its suites side by side,
	// by suite name ({"restart"}, {"lifecycle", "probes"}); a suite of the run no
	// stream names runs in a stream of its own. Empty: one Ginkgo over every suite.
	Streams [][]string
}

// ExistingCluster: KUBECONFIG names a cluster of the user's: nothing is built, made
// or deleted, and the Disruptive specs are left out unless AllowDisruptive.
func (o Options) ExistingCluster() bool { return o.Kubeconfig != "" }

// Plan is what a run does, in order.
type Plan struct {
	// Versions: one pass per Kubernetes version ("" the default one).
	Versions []VersionPass
	// DeleteClusters: once every pass has passed, delete the kind clusters the run
	// made (never a cluster of the user's).
	DeleteClusters bool
	// ReportJSON, ProjectSuites: the report command's -json and -suites.
	ReportJSON    string
	ProjectSuites []string
	Artifacts     string
	// Config and Suites are what the run was asked for, for its record (run.json).
	Config config.Config
	Suites []string
}

// VersionPass is the run of every suite on one Kubernetes version.
type VersionPass struct {
	Version string // "" for the default version
	// ServerVersion is the release the pass's statements are checked against.
	ServerVersion string
	OutDir        string // where its reports and the suites' artifacts go
	// BuildImages: build what is missing of this version's images first (kind clusters).
	BuildImages bool
	// ClustersAhead: the kind configs whose clusters are made, one after another, before
	// the first suite (a run of every spec; a partial run makes only what its suites
	// ask for, as they start).
	ClustersAhead []string
	// Streams: the suites run side by side, one Ginkgo per stream, each stream's
	// suites one after another, reports merged (a run of every spec: most of them
	// wait for kubelet timers, not for the CPU). Empty: one Ginkgo over Suites.
	Streams [][]string
	// QuietAfter: the specs labelled Quiet (framework/suite.Quiet, which need the
	// machine to themselves) are left out of the streams and run after them, in one
	// Ginkgo over the suites, their results merged into its report.
	QuietAfter bool
	// RerunFailed: the suites and focus come from the saved report in OutDir.
	RerunFailed bool
	Suites      []string
	// FocusFiles: a shard's spec files, each a Ginkgo --focus-file; empty: every
	// file of the suites.
	FocusFiles []string
	// GinkgoFlags: the flags of every Ginkgo run of the pass, reports excluded.
	GinkgoFlags []string
	// SuiteConfigs: the kind configs each suite's specs use (KindConfigs), for a run
	// on kind clusters in one stream: its suites run cluster by cluster
	// (cluster.Groups), each cluster deleted once the last suite on it has passed.
	SuiteConfigs map[string][]string
}

// NewPlan plans a run of the suites in repo (the repository's files: the kind
// configs a suite uses and its spec files are read from them).
func NewPlan(o Options, repo fs.FS) (Plan, error) {
	if o.Report == "" || len(o.Suites) == 0 {
		return Plan{}, errors.New("a run needs a report name and at least one suite")
	}
	if err := o.Validate(); err != nil {
		return Plan{}, err
	}
	if o.Procs < 1 {
		o.Procs = 1
	}
	labels := o.Labels
	if labels == "" {
		labels = "!Slow"
	}
	flags := GinkgoFlags(o, labels)
	// A run of every spec (the whole default set or the whole Slow set, no focus, not
	// a rerun) on kind clusters with STREAMS named makes its clusters ahead and runs
	// the streams side by side, the Quiet specs of the default set after them.
	whole := !o.ExistingCluster() && !o.RerunFailed && o.Focus == "" && (labels == "!Slow" || labels == "Slow")
	suites, configs, focusFiles := o.Suites, []string(nil), []string(nil)
	suiteConfigs := map[string][]string{}
	configsOf := KindConfigs(repo)
	for _, s := range o.Suites {
		c, err := configsOf(s)
		if err != nil {
			return Plan{}, err
		}
		suiteConfigs[s] = c
	}
	if o.Shard.Whole() {
		for _, s := range o.Suites {
			configs = append(configs, suiteConfigs[s]...)
		}
		slices.Sort(configs)
		configs = slices.Compact(configs)
	} else {
		parts, err := SplitSuites(repo, o.Suites, o.Shard.Count, o.Durations)
		if err != nil {
			return Plan{}, err
		}
		part := parts[o.Shard.Index-1]
		suites, configs = part.Suites, part.Configs
		for _, f := range part.Files {
			focusFiles = append(focusFiles, "--focus-file="+f)
		}
	}
	var ahead []string
	var streams [][]string
	if whole {
		streams = streamsOf(suites, o.Streams)
		// Side by side, every cluster is needed at once; in one stream, each suite
		// makes its cluster as it starts, so that a cluster's idle nodes do not load
		// the machine while the other cluster's suites measure.
		if len(streams) > 0 {
			ahead = configs
		}
	}
	p := Plan{
		DeleteClusters: !o.ExistingCluster(),
		ReportJSON:     o.Report + ".json",
		ProjectSuites:  o.ProjectSuites,
		Artifacts:      o.Artifacts,
		Config:         o.Config,
		Suites:         o.Suites,
	}
	versions := o.Versions
	serverVersion := ""
	if len(versions) == 0 || o.ExistingCluster() {
		// A cluster of yours has one version: K8S_VERSIONS names what it is checked against.
		if len(versions) == 1 {
			serverVersion = versions[0]
		}
		versions = []string{""}
	}
	for _, v := range versions {
		pass := VersionPass{
			Version:       v,
			ServerVersion: cmp.Or(v, serverVersion, config.DefaultVersion),
			OutDir:        o.Artifacts,
			BuildImages:   !o.ExistingCluster(),
			ClustersAhead: ahead,
			Streams:       streams,
			QuietAfter:    len(streams) > 0 && labels == "!Slow",
			RerunFailed:   o.RerunFailed,
			Suites:        suites,
			FocusFiles:    focusFiles,
			GinkgoFlags:   flags,
		}
		if !o.ExistingCluster() && len(streams) == 0 {
			pass.SuiteConfigs = suiteConfigs
		}
		if v != "" {
			pass.OutDir = filepath.Join(o.Artifacts, v)
		}
		p.Versions = append(p.Versions, pass)
	}
	return p, nil
}

// GinkgoFlags are the flags of every Ginkgo run: keep going past a failure, an
// overall timeout, Ginkgo's progress report for a spec still running after 120 s,
// the processes, the label filter (on a cluster of the user's, the Disruptive specs
// left out unless allowed), the focus, and no colour codes off a terminal.
func GinkgoFlags(o Options, labels string) []string {
	if o.ExistingCluster() && !o.AllowDisruptive {
		labels = "(" + labels + ") && !Disruptive"
	}
	flags := []string{"--keep-going", "--timeout=80m", "--poll-progress-after=120s",
		fmt.Sprintf("--procs=%d", max(o.Procs, 1)), "--label-filter=" + labels}
	if o.Focus != "" {
		flags = append(flags, "--focus="+o.Focus)
	}
	if !o.Color {
		flags = append(flags, "--no-color")
	}
	return flags
}

// streamsOf groups the run's suites (package paths) into the streams named (suite
// names, as sidebyside.Name gives them), in the streams' order, each suite no stream
// names in one of its own after them. Nil when none is named or there would be only
// one stream. The Slow set too runs cluster by cluster by default: its suites side by
// side kept both cores busy (1.8-2.0) and made RS-7's crash loops late (2026-12-06).
func streamsOf(suites []string, named [][]string) [][]string {
	byName := map[string]string{}
	for _, s := range suites {
		byName[sidebyside.Name(s)] = s
	}
	var out [][]string
	for _, names := range named {
		var stream []string
		for _, n := range names {
			if s, ok := byName[n]; ok {
				stream = append(stream, s)
				delete(byName, n)
			}
		}
		if len(stream) > 0 {
			out = append(out, stream)
		}
	}
	if len(named) == 0 {
		return nil
	}
	for _, s := range suites {
		if _, left := byName[sidebyside.Name(s)]; left {
			out = append(out, []string{s})
		}
	}
	if len(out) < 2 {
		return nil
	}
	return out
}
