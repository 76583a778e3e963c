// Package suite is the Ginkgo glue every suite shares: it acquires the suite's cluster
// once (SynchronizedBeforeSuite, so `ginkgo -p` works), gathers the cluster's facts,
// gives each spec its own namespace and pod timelines, and releases the cluster
// according to the run's outcome.
package suite

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/podlifecycle/conformance/framework/cluster"
	"github.com/podlifecycle/conformance/framework/config"
	"github.com/podlifecycle/conformance/framework/facts"
	"github.com/podlifecycle/conformance/framework/statements"
)

// Env is what specs use. Its fields are filled in before the first spec runs.
type Env struct {
	Name    string // the suite's name, used for artifact paths
	Cluster *cluster.Cluster
	Client  kubernetes.Interface
	Facts   *facts.Facts
	// Artifacts is the directory for this suite's per-spec artifacts.
	Artifacts string

	mu      sync.Mutex
	running *specPods // the running spec's pods, for the kubelet's log if it fails
}

// Setup registers the suite's cluster lifecycle. kindConfig is relative to the
// repository root (e.g. "kind-configs/default.yaml"). Call it once per suite, at
// package level: var env = suite.Setup("lifecycle", "kind-configs/default.yaml").
func Setup(name, kindConfig string) *Env {
	env := &Env{Name: name}
	// Set on Ginkgo process 1 only, which both acquires and releases the cluster.
	var provider cluster.Provider
	var acquired *cluster.Cluster

	SynchronizedBeforeSuite(func(ctx SpecContext) []byte {
		root, err := RepoRoot()
		if err != nil {
			Fail(err.Error())
		}
		run, err := Run()
		if err != nil {
			Fail(fmt.Sprintf("reading the run's record (%s): %v", config.RecordVar, err))
		}
		provider, err = cluster.Select(filepath.Join(root, kindConfig), run.Config.Kubeconfig, run.InCluster, KindOptions())
		if err != nil {
			Fail(err.Error())
		}
		acquired, err = provider.Acquire(ctx)
		if err != nil {
			Fail(err.Error())
		}
		data, err := json.Marshal(acquired)
		if err != nil {
			Fail(err.Error())
		}
		return data
	}, func(ctx SpecContext, data []byte) {
		env.Cluster = &cluster.Cluster{}
		if err := json.Unmarshal(data, env.Cluster); err != nil {
			Fail(fmt.Sprintf("decoding the cluster handed over by process 1: %v", err))
		}
		client, err := env.Cluster.Client()
		if err != nil {
			Fail(err.Error())
		}
		env.Client = client
		if env.Facts, err = facts.Gather(ctx, client); err != nil {
			Fail(fmt.Sprintf("reading the facts of cluster %s: %v", env.Cluster.Name, err))
		}
		env.Facts.LocalNodes = env.Cluster.LocalNodes(ctx, env.Facts.Nodes)
		if err := checkServerVersion(env.Facts.ServerVersion); err != nil {
			Fail(err.Error())
		}
		env.Artifacts = filepath.Join(ArtifactsDir(), name)
		// One process's record is the suite's: every process sees the same cluster.
		if GinkgoParallelProcess() == 1 {
			env.recordClusterFacts(ctx, kindConfig)
		}
	})

	newProgress(name).register()
	refuseSerialSideBySide()
	refuseDisruptive(env)

	ReportAfterSuite("statements and cluster release", func(ctx SpecContext, r Report) {
		if err := WriteStatementReport(filepath.Join(ArtifactsDir(), name+"-statements.json"), r); err != nil {
			fmt.Fprintf(os.Stderr, "writing statement report: %v\n", err)
		}
		if provider == nil || acquired == nil {
			if provider != nil {
				// Acquire failed or was interrupted half-way: a kind provider knows
				// whether it started creating and cleans up what it began.
				_ = provider.Release(ctx, &cluster.Cluster{}, outcome(r))
			}
			return
		}
		if err := provider.Release(ctx, acquired, outcome(r)); err != nil {
			fmt.Fprintln(os.Stderr, err)
		}
	})
	return env
}

func outcome(r Report) cluster.Outcome {
	for _, reason := range r.SpecialSuiteFailureReasons {
		if strings.Contains(reason, "Interrupted") {
			return cluster.Interrupted
		}
	}
	if r.SuiteSucceeded {
		return cluster.Succeeded
	}
	return cluster.Failed
}

// ExpectedServerVersion is the Kubernetes version the suite's statements are checked
// against: the run's (K8S_VERSIONS makes a pass per version), v1.37.2 by default.
func ExpectedServerVersion() string {
	r, _ := Run()
	return r.ServerVersion
}

func checkServerVersion(got string) error {
	want := ExpectedServerVersion()
	if got == want || strings.HasPrefix(got, want+"-") || strings.HasPrefix(got, want+"+") {
		return nil
	}
	return fmt.Errorf("the cluster runs Kubernetes %s, but these statements are checked against %s; "+
		"point KUBECONFIG at a %s cluster, or give K8S_VERSIONS=%s to run them anyway", got, want, want, got)
}

// RepoRoot finds the repository root (the directory holding go.mod) from the working
// directory, which Ginkgo sets to the suite's package directory.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above the working directory: run the suites from the repository")
		}
		dir = parent
	}
}

// Require skips the current spec unless the cluster meets every requirement, and
// fails it when the cluster's own configuration asked for what is missing.
func (e *Env) Require(reqs ...facts.Requirement) {
	v := facts.Evaluate(e.Facts, e.Cluster.Requested, reqs...)
	if v.Fail != "" {
		Fail(v.Fail)
	}
	if v.Skip != "" {
		Skip(v.Skip)
	}
}

// ArtifactsDir is where a run's artifacts go: the run's directory for this pass
// (per Kubernetes version of K8S_VERSIONS, beside Ginkgo's own reports).
func ArtifactsDir() string {
	r, _ := Run()
	return r.Dir
}

// NodeFor is the node a spec's pod is pinned to when the spec needs the kubelet of
// profile with gates set as given: a node the kind config made for that profile, or,
// on a cluster without profile labels, the first schedulable node whose kubelet fits
// (facts.Candidates). It skips the spec, or fails it when the cluster's own
// configuration asked for the gate, as Require does.
func (e *Env) NodeFor(profile string, gates map[string]bool) facts.Node {
	GinkgoHelper()
	var reqs []facts.Requirement
	for _, g := range slices.Sorted(maps.Keys(gates)) {
		reqs = append(reqs, facts.KubeletGate(g, gates[g], profile))
	}
	e.Require(reqs...)
	n, ok := e.Facts.NodeFor(profile, gates)
	if !ok {
		Skip(fmt.Sprintf("needs one node (%s) whose kubelet has all of %v; each gate is on some node, but not all on one", profile, gates))
	}
	return n
}

// OwnWorker is the worker a kind config sets aside for the specs that disturb their
// node (a kubelet stopped or restarted, a node driven into pressure): labelled with
// profile, and tainted so that no other spec's pods land there, which lets those
// specs run in parallel with the rest. Where no node has the label (a cluster of
// another config) the spec is skipped, with the reason.
func (e *Env) OwnWorker(profile string) facts.Node {
	GinkgoHelper()
	nodes := e.Facts.NodesWithLabel(facts.ProfileLabel, profile)
	if len(nodes) == 0 {
		Skip(fmt.Sprintf("needs a worker of its own labelled %s=%s (kind-configs/), tainted so that what the spec does to it disturbs no other spec's pods", facts.ProfileLabel, profile))
	}
	return nodes[0]
}

// PinToOwn pins pod to node and makes it tolerate every NoSchedule taint node has (the
// taint that sets an own worker aside, and any the node's state adds).
func PinToOwn(pod *corev1.Pod, node facts.Node) *corev1.Pod {
	for _, t := range node.Taints {
		if t.Effect == corev1.TaintEffectNoSchedule {
			pod.Spec.Tolerations = append(pod.Spec.Tolerations, corev1.Toleration{Key: t.Key, Operator: corev1.TolerationOpExists, Effect: t.Effect})
		}
	}
	return PinTo(pod, node)
}

// PinTo makes the scheduler put pod on node, by its hostname label.
func PinTo(pod *corev1.Pod, node facts.Node) *corev1.Pod {
	if pod.Spec.NodeSelector == nil {
		pod.Spec.NodeSelector = map[string]string{}
	}
	pod.Spec.NodeSelector[corev1.LabelHostname] = node.Labels[corev1.LabelHostname]
	return pod
}

// Statements are the statement IDs (like RS-6) the current spec is labelled with.
func Statements() []string {
	return statements.IDs(CurrentSpecReport().Labels())
}
