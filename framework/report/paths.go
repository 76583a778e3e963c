package report

import (
	"path"
	"strconv"
	"strings"

	"github.com/onsi/ginkgo/v2/types"
)

// Ginkgo records absolute paths (SuitePath, code locations) on the machine that ran
// the suites; the report names them relative to the repository, which is the part
// before suites/, so that they mean the same on any checkout.

// repoRoot is the repository a suite ran from.
func repoRoot(suitePath string) string {
	p := path.Clean(suitePath)
	if i := strings.LastIndex(p, "/suites/"); i >= 0 {
		return p[:i]
	}
	return path.Dir(p)
}

// modulePath prefixes the file names of a build with -trimpath (the runner image's
// suites, which ran from another directory than the one they were built in).
const modulePath = "github.com/podlifecycle/conformance/"

// relative names file relative to root (or to the module, for a -trimpath build), or
// returns it unchanged when it lies outside.
func relative(root, file string) string {
	if rest, ok := strings.CutPrefix(path.Clean(file), root+"/"); ok {
		return rest
	}
	if rest, ok := strings.CutPrefix(file, modulePath); ok {
		return rest
	}
	return file
}

// suiteDir is the suite's directory relative to the repository ("suites/restart/profiles").
func suiteDir(r types.Report) string {
	return relative(repoRoot(r.SuitePath), r.SuitePath)
}

// location is "file:line" relative to the repository.
func location(root string, l types.CodeLocation) string {
	if l.FileName == "" {
		return ""
	}
	return relative(root, l.FileName) + ":" + strconv.Itoa(l.LineNumber)
}

// Kind configs of the suites, for runs whose suites recorded no cluster facts: the
// Makefile runs restart/profiles, termination/gated and lifecycle/pressure on the
// backoff-profiles cluster, lifecycle/nodeloss on the node-loss cluster, every other
// suite on the default one.
const (
	DefaultConfig         = "kind-configs/default.yaml"
	BackoffProfilesConfig = "kind-configs/backoff-profiles.yaml"
	NodeLossConfig        = "kind-configs/node-loss.yaml"
)

// derivedConfig is the kind config a suite in dir (or below it) runs on.
func derivedConfig(dir string) string {
	for d, config := range map[string]string{
		"suites/restart/profiles":   BackoffProfilesConfig,
		"suites/termination/gated":  BackoffProfilesConfig,
		"suites/lifecycle/pressure": BackoffProfilesConfig,
		"suites/lifecycle/nodeloss": NodeLossConfig,
	} {
		if dir == d || strings.HasPrefix(dir, d+"/") {
			return config
		}
	}
	return DefaultConfig
}

// artifactsName is the directory framework/suite gives a suite's artifacts: its name
// as passed to suite.Setup, by convention the suite's path below suites/ with dashes
// ("restart-profiles").
func artifactsName(dir string) string {
	return strings.ReplaceAll(strings.TrimPrefix(dir, "suites/"), "/", "-")
}
