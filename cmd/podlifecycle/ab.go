package main

import (
	"errors"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/podlifecycle/conformance/framework/config"
	"github.com/podlifecycle/conformance/framework/run"
)

// abVerb is make e2e-ab: the run as its switches say (A, or the saved run -base), the
// same run with the B switches in place of their namesakes (B), then compare A → B.
// Both runs' switches pass the preflight before A starts; a run that could not be
// made (exit status 2) stops it there, a run with failed specs is compared as it is.
func abVerb(args []string) error {
	// The B switches are parsed off first; the rest is a run's command line.
	var b struct{ kubelet, kubeletVersion, gates, kubeletGates, versions, base string }
	fs := flag.NewFlagSet("ab", flag.ContinueOnError)
	fs.StringVar(&b.kubelet, "b-kubelet", "", "B's KUBELET (KUBELET_B)")
	fs.StringVar(&b.kubeletVersion, "b-kubelet-version", "", "B's KUBELET_VERSION (KUBELET_VERSION_B)")
	fs.StringVar(&b.gates, "b-feature-gates", "", "B's FEATURE_GATES (FEATURE_GATES_B)")
	fs.StringVar(&b.kubeletGates, "b-kubelet-feature-gates", "", "B's KUBELET_FEATURE_GATES (KUBELET_FEATURE_GATES_B)")
	fs.StringVar(&b.versions, "b-k8s-versions", "", "B's K8S_VERSIONS (K8S_VERSION_B)")
	fs.StringVar(&b.base, "base", "", "an earlier run's artifacts directory to take as A instead of running it again (BASE)")
	var rest []string
	for i := 0; i < len(args); i++ {
		name, _, _ := strings.Cut(strings.TrimLeft(args[i], "-"), "=")
		if strings.HasPrefix(args[i], "-") && (strings.HasPrefix(name, "b-") || name == "base") {
			if err := fs.Parse(args[i : i+1]); err != nil {
				return err
			}
			continue
		}
		rest = append(rest, args[i])
	}
	if b.kubelet == "" && b.kubeletVersion == "" && b.gates == "" && b.kubeletGates == "" && b.versions == "" {
		return errors.New("usage: make e2e-ab KUBELET_B=… | KUBELET_VERSION_B=… | FEATURE_GATES_B=… | KUBELET_FEATURE_GATES_B=… | K8S_VERSION_B=… [BASE=dir]")
	}
	a, ginkgo, err := parseRun("ab", rest)
	if err != nil {
		return err
	}
	top := a.Artifacts
	a.Artifacts = filepath.Join(top, "ab", "a")
	bo := a
	bo.Artifacts = filepath.Join(top, "ab", "b")
	bo.FeatureGates, bo.KubeletFeatureGates = cloneGates(a.FeatureGates), cloneGates(a.KubeletFeatureGates)
	if b.kubelet != "" {
		abs, err := filepath.Abs(b.kubelet)
		if err != nil {
			return err
		}
		bo.Kubelet, bo.KubeletVersion = abs, ""
	}
	if b.kubeletVersion != "" {
		bo.Kubelet, bo.KubeletVersion = "", b.kubeletVersion
	}
	for _, s := range []struct {
		given string
		into  *config.Gates
		name  string
	}{{b.gates, &bo.FeatureGates, "FEATURE_GATES_B"}, {b.kubeletGates, &bo.KubeletFeatureGates, "KUBELET_FEATURE_GATES_B"}} {
		if s.given == "" {
			continue
		}
		g, err := config.ParseGates(s.given)
		if err != nil {
			return fmt.Errorf("%s=%q: %w", s.name, s.given, err)
		}
		*s.into = g
	}
	if b.versions != "" {
		if err := bo.Versions.Set(b.versions); err != nil {
			return fmt.Errorf("K8S_VERSION_B=%q: %w", b.versions, err)
		}
	}

	start := time.Now()
	fmt.Fprintln(os.Stderr, underTest(a.Config))
	var plans [2]run.Plan
	for i, o := range []run.Options{a, bo} {
		if i == 0 && b.base != "" {
			continue
		}
		plan, err := run.NewPlan(o, os.DirFS("."))
		if err == nil {
			err = check(o, plan, ginkgo)
		}
		if err != nil {
			return fmt.Errorf("preflight refused %s after %s, before anything was built:\n%w", []string{"A", "B"}[i], time.Since(start).Round(100*time.Millisecond), err)
		}
		plans[i] = plan
	}
	baseDir := b.base
	if baseDir == "" {
		baseDir = a.Artifacts
		fmt.Println("== A: make e2e as it is")
		if err := executeAB(a, plans[0], ginkgo); run.ExitCode(err) == 2 {
			return fmt.Errorf("A could not be made, so there is nothing to compare: %w", err)
		}
	} else {
		fmt.Printf("== A: the run in %s, not run again\n", b.base)
	}
	fmt.Println("== B: with the B switches")
	if err := executeAB(bo, plans[1], ginkgo); run.ExitCode(err) == 2 {
		return fmt.Errorf("B could not be made, so there is nothing to compare: %w", err)
	}
	return compareVerb([]string{"-json", a.Report + ".json", "-out", filepath.Join(top, "ab"), "-base-name", "A",
		"-head-name", "B (" + describeB(a.Config, bo.Config) + ")", baseDir, bo.Artifacts}, os.Stdout)
}

// executeAB runs one plan of the A/B, its previous artifacts moved aside first.
func executeAB(o run.Options, plan run.Plan, ginkgo []string) error {
	if err := run.MoveAside(o.Artifacts); err != nil {
		return err
	}
	return execute(o, plan, ginkgo, newRecord())
}

func cloneGates(g config.Gates) config.Gates { return maps.Clone(g) }

// describeB names the switches in which B differs from A.
func describeB(a, b config.Config) string {
	var parts []string
	add := func(name, av, bv string) {
		if av != bv {
			parts = append(parts, fmt.Sprintf("%s=%s", name, bv))
		}
	}
	add("KUBELET", a.Kubelet, b.Kubelet)
	add("KUBELET_VERSION", a.KubeletVersion, b.KubeletVersion)
	add("FEATURE_GATES", a.FeatureGates.String(), b.FeatureGates.String())
	add("KUBELET_FEATURE_GATES", a.KubeletFeatureGates.String(), b.KubeletFeatureGates.String())
	add("K8S_VERSIONS", a.Versions.String(), b.Versions.String())
	return strings.Join(parts, " ")
}
