// Package run plans and runs what `make e2e` does: per Kubernetes version the
// version's images, the kind clusters of the run made ahead of the suites, the
// suites (one Ginkgo run, or side by side for the Slow set), the run's clusters
// deleted once every suite passed, the report, and the wall time of each phase. The
// plan is a value (Plan) computed from the options alone, so that which clusters,
// suites, filters and versions a run takes is unit-tested without Docker; Execute
// carries it out.
package run

import (
	"cmp"
	"errors"
	"fmt"
	"github.com/podlifecycle/conformance/framework/config"
	"io/fs"
	"path/filepath"
	"slices"
	"time"
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
	// ClustersAhead: the kind configs whose clusters are made, all at once, before
	// the first suite (a run of every spec; a partial run makes only what its suites
	// ask for, as they start).
	ClustersAhead []string
	// SideBySide: the Slow set, one Ginkgo per suite at once, reports merged.
	SideBySide bool
	// RerunFailed: the suites and focus come from the saved report in OutDir.
	RerunFailed bool
	Suites      []string
	// FocusFiles: a shard's spec files, each a Ginkgo --focus-file; empty: every
	// file of the suites.
	FocusFiles []string
	// GinkgoFlags: the flags of every Ginkgo run of the pass, reports excluded.
	GinkgoFlags []string
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
	// a rerun) on kind clusters makes its clusters ahead; the Slow set then runs side
	// by side.
	whole := !o.ExistingCluster() && !o.RerunFailed && o.Focus == "" && (labels == "!Slow" || labels == "Slow")
	suites, configs, focusFiles := o.Suites, []string(nil), []string(nil)
	if o.Shard.Whole() {
		configsOf := KindConfigs(repo)
		for _, s := range o.Suites {
			c, err := configsOf(s)
			if err != nil {
				return Plan{}, err
			}
			configs = append(configs, c...)
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
	if whole {
		ahead = configs
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
			SideBySide:    whole && labels == "Slow",
			RerunFailed:   o.RerunFailed,
			Suites:        suites,
			FocusFiles:    focusFiles,
			GinkgoFlags:   flags,
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
