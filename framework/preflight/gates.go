package preflight

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
)

// gateSources are the files of a release that declare the feature gates its
// components register: Kubernetes' own and those of the staging modules every
// component links (k8s.io/kubernetes vX.Y.Z goes with the staging modules v0.Y.Z).
var gateSources = []struct{ module, file string }{
	{"k8s.io/kubernetes", "pkg/features/kube_features.go"},
	{"k8s.io/apiserver", "pkg/features/kube_features.go"},
	{"k8s.io/apiextensions-apiserver", "pkg/features/kube_features.go"},
	{"k8s.io/controller-manager", "pkg/features/kube_features.go"},
	{"k8s.io/client-go", "features/known_features.go"},
	{"k8s.io/component-base", "logs/api/v1/kube_features.go"},
	{"k8s.io/component-base", "metrics/features/kube_features.go"},
	{"k8s.io/component-base", "zpages/features/kube_features.go"},
}

// gateConst matches a gate's declaration: `Name featuregate.Feature = "Name"` (or
// the client-go form, `Name Feature = "Name"`).
var gateConst = regexp.MustCompile(`(?m)^\s*[A-Z]\w*\s+(?:featuregate\.)?Feature\s*=\s*"([A-Z]\w*)"`)

// KnownGates are the feature gates Kubernetes release (v1.37.2) knows, read from its
// sources in the Go module cache (downloaded from the Go module proxy when missing):
// seconds, where asking the release's binaries would need them built first.
func KnownGates(ctx context.Context, release string) (map[string]bool, error) {
	staging := "v0" + strings.TrimPrefix(release, "v1")
	known := map[string]bool{}
	dirs := map[string]string{}
	for _, src := range gateSources {
		version := staging
		if src.module == "k8s.io/kubernetes" {
			version = release
		}
		dir, ok := dirs[src.module]
		if !ok {
			var err error
			if dir, err = moduleDir(ctx, src.module, version); err != nil {
				return nil, err
			}
			dirs[src.module] = dir
		}
		b, err := os.ReadFile(filepath.Join(dir, src.file))
		if err != nil {
			return nil, fmt.Errorf("the feature gates of Kubernetes %s: %w", release, err)
		}
		for _, m := range gateConst.FindAllSubmatch(b, -1) {
			known[string(m[1])] = true
		}
	}
	if len(known) < 100 {
		return nil, fmt.Errorf("read only %d feature gates from the sources of Kubernetes %s: the gate declarations changed shape", len(known), release)
	}
	return known, nil
}

// moduleDir is where the module cache holds module@version.
func moduleDir(ctx context.Context, module, version string) (string, error) {
	cmd := exec.CommandContext(ctx, "go", "mod", "download", "-json", module+"@"+version)
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	out, err := cmd.Output()
	var info struct{ Dir, Error string }
	_ = json.Unmarshal(out, &info)
	if err != nil || info.Dir == "" {
		why := info.Error
		if why == "" && err != nil {
			why = err.Error()
		}
		// The proxy's own words, without the request that got them.
		if _, answer, ok := strings.Cut(why, "server response:"); ok {
			why = strings.TrimSpace(answer)
		}
		return "", fmt.Errorf("%s@%s is not served by the Go module proxy (%s): check the version", module, version, why)
	}
	return info.Dir, nil
}
