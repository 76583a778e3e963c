package cluster

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/podlifecycle/conformance/framework/config"
	"github.com/podlifecycle/conformance/framework/preflight"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/kind/pkg/apis/config/v1alpha4"
	kindcluster "sigs.k8s.io/kind/pkg/cluster"
	kindlog "sigs.k8s.io/kind/pkg/log"

	"github.com/podlifecycle/conformance/framework/cluster/internal/host"
	"github.com/podlifecycle/conformance/framework/facts"
)

// KindOptions tune the kind provider.
type KindOptions struct {
	// NodeImage is used for nodes whose config names no image.
	NodeImage string
	// KeepClusters keeps even a cluster this run created (KEEP_CLUSTERS=1).
	KeepClusters bool
	// StateDir holds kubeconfigs of the clusters.
	StateDir string
	// ReadyTimeout bounds the wait for the control plane after create.
	ReadyTimeout time.Duration
	// FeatureGates (FEATURE_GATES) are set for every component of every node, on top
	// of the kind config; KubeletFeatureGates (KUBELET_FEATURE_GATES) for every
	// kubelet. See KindConfig.Override.
	FeatureGates, KubeletFeatureGates map[string]bool
	// KubeletKnows, when set, names the feature gates the kubelet of a Kubernetes
	// release ("v1.36.3") knows: the gates of FeatureGates and KubeletFeatureGates that
	// the kubelet of a worker running another release than the control plane's does not
	// know are left out of that kubelet (KindConfig.LeaveOutUnknownKubeletGates). nil
	// leaves nothing out: such a gate is refused before any node boots. The suites
	// compute the cluster's name again with their own options, so the runner and the
	// suites must set it alike (preflight.KnownGates).
	KubeletKnows func(release string) (map[string]bool, error)
	// RunID, when set (the run's ID), makes clusters belong to a run of several suites:
	// a cluster created by an earlier suite of the same run is reused as the run's own,
	// and a green suite leaves it for the next one; the run deletes them at its end
	// (DeleteRunClusters). Failed and interrupted suites behave as without a run.
	RunID string
}

// DefaultKindOptions: the stock node image, and a state directory in the user's cache.
func DefaultKindOptions() KindOptions {
	o := KindOptions{NodeImage: "podlifecycle/node:" + config.DefaultVersion, ReadyTimeout: 3 * time.Minute}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	o.StateDir = filepath.Join(cache, "podlifecycle", "clusters")
	return o
}

// KindOptionsOf are the kind provider's options of a run, from its record: its node
// image, gates, KEEP_CLUSTERS and ID, and the gates each kubelet release knows. The
// runner that makes the run's clusters and the suites that reuse them both call it, so
// that both reach the same cluster name.
func KindOptionsOf(r config.Record) KindOptions {
	o := DefaultKindOptions()
	if r.NodeImage != "" {
		o.NodeImage = r.NodeImage
	}
	o.KeepClusters, o.RunID = r.Config.KeepClusters, r.ID
	o.FeatureGates, o.KubeletFeatureGates = r.Config.FeatureGates, r.Config.KubeletFeatureGates
	o.KubeletKnows = func(release string) (map[string]bool, error) {
		return preflight.KnownGates(context.Background(), release)
	}
	return o
}

// Kind makes (or reuses) the kind cluster of one kind config.
type Kind struct {
	config   *KindConfig
	opts     KindOptions
	provider *kindcluster.Provider
	name     string // set by Acquire
	created  bool
	// adopt: Acquire makes an existing cluster that answers the run's own (its run
	// marker), as CreateRunClusters does before the suites start; a suite never does.
	adopt bool
}

// NewKind checks the config and that Docker answers; nothing is created yet.
func NewKind(configPath string, o KindOptions) (*Kind, error) {
	cfg, err := prepareKindConfig(configPath, o)
	if err != nil {
		return nil, err
	}
	if err := host.CheckDocker(); err != nil {
		return nil, err
	}
	return &Kind{config: cfg, opts: o, provider: kindcluster.NewProvider(kindcluster.ProviderWithDocker(), kindcluster.ProviderWithLogger(kindlog.NoopLogger{}))}, nil
}

// prepareKindConfig loads the kind config at path and applies the run's options: the
// gate overrides, the kubelet variants rebased on the run's node image, and the
// overrides a skewed worker's kubelet does not know left out of it. No Docker.
func prepareKindConfig(path string, o KindOptions) (*KindConfig, error) {
	cfg, err := LoadKindConfig(path)
	if err != nil {
		return nil, err
	}
	cfg.Override(o.FeatureGates, o.KubeletFeatureGates)
	cfg.RebaseKubeletImages(o.NodeImage)
	if err := cfg.LeaveOutUnknownKubeletGates(o.NodeImage, o.KubeletKnows, o.StateDir); err != nil {
		return nil, err
	}
	if _, err := cfg.Requested(); err != nil {
		return nil, err
	}
	return cfg, nil
}

// withNodeImages returns the config with every node's image set (the default node
// image where the config names none), and the images' Docker IDs.
func (k *Kind) withNodeImages() (v1alpha4.Cluster, []string, error) {
	return k.config.clusterConfig(k.opts.NodeImage, host.ImageID)
}

// clusterConfig is the config kind is given: every node's image set (nodeImage where
// the config names none), relative extraMount host paths made absolute; and the salt
// of the cluster's name: each node image's ID (imageID) and each extraMount's content.
func (k *KindConfig) clusterConfig(nodeImage string, imageID func(string) (string, error)) (v1alpha4.Cluster, []string, error) {
	cfg := k.Config // a copy: host adaptations never leak into the file's content
	cfg.Nodes = slices.Clone(cfg.Nodes)
	var salt []string
	for i := range cfg.Nodes {
		n := &cfg.Nodes[i]
		if n.Image == "" {
			n.Image = nodeImage
		}
		id, err := imageID(n.Image)
		if err != nil {
			return cfg, nil, err
		}
		salt = append(salt, id)
		// Relative host paths are relative to the config file; what they hold (kubelet
		// patches) is part of the cluster's identity like the config itself.
		n.ExtraMounts = slices.Clone(n.ExtraMounts)
		for j := range n.ExtraMounts {
			m := &n.ExtraMounts[j]
			if !filepath.IsAbs(m.HostPath) {
				m.HostPath = filepath.Join(filepath.Dir(k.Path), m.HostPath)
			}
			digest, err := treeDigest(m.HostPath)
			if err != nil {
				return cfg, nil, fmt.Errorf("kind config %s: extraMount %s: %w", k.Path, m.HostPath, err)
			}
			salt = append(salt, digest)
		}
	}
	return cfg, salt, nil
}

// treeDigest hashes the names and contents of the files under path.
func treeDigest(path string) (string, error) {
	h := sha256.New()
	err := filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(path, p)
		fmt.Fprintf(h, "%s\x00%d\x00", rel, len(b))
		h.Write(b)
		return nil
	})
	return hex.EncodeToString(h.Sum(nil)), err
}

// named is the config kind is given (withNodeImages) and the cluster's name.
func (k *Kind) named() (v1alpha4.Cluster, string, error) {
	cfg, imageIDs, err := k.withNodeImages()
	return cfg, k.config.ClusterName(imageIDs...), err
}

func (k *Kind) Acquire(ctx context.Context) (*Cluster, error) {
	cfg, name, err := k.named()
	if err != nil {
		return nil, err
	}
	k.name = name
	requested, _ := k.config.Requested()
	c := &Cluster{Name: name, Kubeconfig: filepath.Join(k.opts.StateDir, name+".kubeconfig"), Provider: "kind", Requested: requested}
	if err := os.MkdirAll(k.opts.StateDir, 0o755); err != nil {
		return nil, err
	}
	existing, err := k.provider.List()
	if err != nil {
		return nil, fmt.Errorf("listing kind clusters: %w", err)
	}
	if slices.Contains(existing, name) {
		ours := k.opts.RunID != "" && readRunMarker(k.opts.StateDir, name) == k.opts.RunID
		err := exportKubeconfig(k.provider, name, c.Kubeconfig)
		if err == nil {
			err = answers(ctx, c)
		}
		if err != nil && ours {
			// Made ahead by this run, for every suite: an API server that answers
			// slowly while the suites start side by side is waited for; deleting it
			// would pull it from under the suites already on it.
			err = answersWithin(ctx, c, runClusterPatience)
			if err != nil {
				return nil, fmt.Errorf("kind cluster %s, made by this run, does not answer after %s (%w); it is kept for the run's other suites", name, runClusterPatience, err)
			}
		}
		if err == nil && !ours && k.adopt {
			// A cluster an earlier run kept (it failed, or KEEP_CLUSTERS): this run's
			// suites must treat it as made ahead for them, or one that finds its API
			// server slow while they start side by side deletes it under the others.
			if err := writeRunMarker(k.opts.StateDir, name, k.opts.RunID); err != nil {
				return nil, err
			}
			ours = true
		}
		if err == nil {
			k.created = ours
			fmt.Fprintf(os.Stderr, "reusing kind cluster %s (config %s)\n", name, k.config.Path)
			return c, nil
		}
		// A cluster of this name is one of the suite's (the name carries the config's
		// hash); one that no longer answers, say after dockerd restarted, is remade.
		fmt.Fprintf(os.Stderr, "kind cluster %s exists but does not answer (%v); deleting and creating it again\n", name, err)
		if err := deleteCluster(k.provider, k.opts.StateDir, name); err != nil {
			return nil, err
		}
	}

	cfg.Name = name
	if err := host.ValidateGates(ctx, apiServerGateSet(requested), k.opts.NodeImage); err != nil {
		return nil, fmt.Errorf("kind config %s: %w", k.config.Path, err)
	}
	checks, err := kubeletGateChecks(cfg, requested)
	if err != nil {
		return nil, fmt.Errorf("kind config %s: %w", k.config.Path, err)
	}
	for _, c := range checks {
		if err := host.ValidateKubeletGates(ctx, c.Gates, c.Image, c.Nodes); err != nil {
			return nil, fmt.Errorf("kind config %s: %w", k.config.Path, err)
		}
	}
	constraints, err := host.Probe(ctx, k.opts.NodeImage)
	if err != nil {
		return nil, err
	}
	for _, note := range host.Adapt(&cfg, constraints) {
		fmt.Fprintf(os.Stderr, "kind config adapted to this host: %s\n", note)
	}

	for _, profile := range slices.Sorted(maps.Keys(requested.LeftOutKubeletGates)) {
		fmt.Fprintf(os.Stderr, "feature gates %v of the run left out of the kubelet of the %s=%s node (%s), whose release does not know them; every other component has them\n",
			requested.LeftOutKubeletGates[profile], facts.ProfileLabel, profile, requested.ProfileImages[profile])
	}
	start := time.Now()
	fmt.Fprintf(os.Stderr, "creating kind cluster %s from %s (%d nodes)...\n", name, k.config.Path, len(cfg.Nodes))
	k.created = true // from here on a partial cluster may exist and must be cleaned up
	if err := writeRunMarker(k.opts.StateDir, name, k.opts.RunID); err != nil {
		return nil, err
	}
	err = k.provider.Create(name,
		kindcluster.CreateWithV1Alpha4Config(&cfg),
		kindcluster.CreateWithWaitForReady(k.opts.ReadyTimeout),
		kindcluster.CreateWithKubeconfigPath(c.Kubeconfig),
		kindcluster.CreateWithDisplayUsage(false),
		kindcluster.CreateWithDisplaySalutation(false))
	if err != nil {
		return nil, fmt.Errorf("creating kind cluster %s from %s: %w", name, k.config.Path, err)
	}
	if err := waitForSystem(ctx, c, len(cfg.Nodes)); err != nil {
		return nil, err
	}
	dirtyKB, took, err := host.FlushWriteback(ctx, name+"-control-plane")
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(os.Stderr, "flushed %d MiB of page cache left dirty by the cluster's creation in %s\n", dirtyKB/1024, took.Round(100*time.Millisecond))
	fmt.Fprintf(os.Stderr, "kind cluster %s ready in %s (kube-system ready, pod network routed)\n", name, time.Since(start).Round(time.Second))
	return c, nil
}

func (k *Kind) Release(_ context.Context, c *Cluster, o Outcome) error {
	name := k.name
	switch {
	case !k.created:
		return nil
	case o == Succeeded && k.opts.RunID != "":
		return nil // the run deletes its clusters once every suite has passed
	case o == Failed || k.opts.KeepClusters:
		why := "the run failed"
		if o != Failed {
			why = "KEEP_CLUSTERS is set"
		}
		fmt.Fprintf(os.Stderr, "\nkeeping kind cluster %s because %s. Inspect it with\n"+
			"  export KUBECONFIG=%s; kubectl get pods -A\n"+
			"  docker exec -it %s-control-plane journalctl -u kubelet\n"+
			"and delete it with\n  go tool kind delete cluster --name %s   (or: make clean)\n",
			name, why, filepath.Join(k.opts.StateDir, name+".kubeconfig"), name, name)
		return nil
	}
	return deleteCluster(k.provider, k.opts.StateDir, name)
}

// exportKubeconfig writes cluster name's kubeconfig to path whole, through a file of
// this process's own: kind merges into the file it is given under a lock file, which a
// second suite exporting the same cluster at the same moment (suites side by side)
// fails to take, and a failed export would be taken for a cluster that does not answer.
func exportKubeconfig(p *kindcluster.Provider, name, path string) error {
	tmp := fmt.Sprintf("%s.%d.tmp", path, os.Getpid())
	defer os.Remove(tmp)
	if err := p.ExportKubeConfig(name, tmp, false); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

func deleteCluster(p *kindcluster.Provider, stateDir, name string) error {
	fmt.Fprintf(os.Stderr, "deleting kind cluster %s\n", name)
	// Suites side by side that share a cluster delete it at the same moment when they
	// are interrupted: the one whose `docker rm` meets a node container the other has
	// just removed fails. Deleting again removes what is left (nothing: no error); a
	// cluster that is gone is deleted, whoever deleted it.
	var err error
	retry := wait.Backoff{Duration: 500 * time.Millisecond, Factor: 2, Steps: 4}
	_ = wait.ExponentialBackoff(retry, func() (bool, error) {
		if err = p.Delete(name, ""); err == nil {
			return true, nil
		}
		names, listErr := p.List()
		if listErr == nil && !slices.Contains(names, name) {
			err = nil
			return true, nil
		}
		return false, nil
	})
	if err != nil {
		return fmt.Errorf("deleting kind cluster %s: %w", name, err)
	}
	_ = os.Remove(filepath.Join(stateDir, name+".kubeconfig"))
	_ = os.Remove(filepath.Join(stateDir, name+".run"))
	// What suites kept beside the kubeconfig for the cluster's run (the facts entry).
	leftovers, _ := filepath.Glob(filepath.Join(stateDir, name+".kubeconfig.*"))
	for _, f := range leftovers {
		_ = os.Remove(f)
	}
	return nil
}

// The run marker records which run created a cluster.
func writeRunMarker(stateDir, name, runID string) error {
	if runID == "" {
		return nil
	}
	return os.WriteFile(filepath.Join(stateDir, name+".run"), []byte(runID), 0o644)
}

func readRunMarker(stateDir, name string) string {
	b, _ := os.ReadFile(filepath.Join(stateDir, name+".run"))
	return strings.TrimSpace(string(b))
}

// DeleteRunClusters deletes every kind cluster that run runID created; make e2e calls
// it once all suites have passed.
func DeleteRunClusters(o KindOptions, runID string) error {
	p := kindcluster.NewProvider(kindcluster.ProviderWithDocker(), kindcluster.ProviderWithLogger(kindlog.NoopLogger{}))
	names, err := p.List()
	if err != nil {
		return fmt.Errorf("listing kind clusters: %w", err)
	}
	for _, n := range names {
		if runID != "" && readRunMarker(o.StateDir, n) == runID {
			if o.KeepClusters {
				fmt.Fprintf(os.Stderr, "keeping kind cluster %s (KEEP_CLUSTERS is set); kubeconfig: %s\n", n, filepath.Join(o.StateDir, n+".kubeconfig"))
				continue
			}
			if err := deleteCluster(p, o.StateDir, n); err != nil {
				return err
			}
		}
	}
	return nil
}

// DeleteRunClusterOf deletes the kind cluster that run o.RunID made from the kind
// config at configPath, once the last suite on it has passed, so that its idle nodes
// do not load the machine while the run's next cluster is made and measured. A
// cluster the run did not make (no run marker of o.RunID), or none at all, is left
// alone (deleted false); KEEP_CLUSTERS keeps it for DeleteRunClusters to name.
func DeleteRunClusterOf(configPath string, o KindOptions) (deleted bool, err error) {
	if o.RunID == "" || o.KeepClusters {
		return false, nil
	}
	k, err := NewKind(configPath, o)
	if err != nil {
		return false, err
	}
	_, name, err := k.named()
	if err != nil {
		return false, err
	}
	if readRunMarker(o.StateDir, name) != o.RunID {
		return false, nil
	}
	return true, deleteCluster(k.provider, o.StateDir, name)
}

// CreateRunClusters makes the kind clusters of one run (o.RunID) before its suites
// start, so that a later suite's cluster is not made in the middle of the run while
// nothing else happens: the suites then reuse them (the run marker
// makes them the run's own), and DeleteRunClusters deletes them once every suite has
// passed. A cluster an earlier run kept is adopted the same way: the run marker
// becomes this run's. Interrupted, it deletes what it had begun to make; a creation that fails
// keeps its cluster, with a note on how to inspect and delete it, as a suite would.
// One after another, not at once: creation keeps a 2-core machine's cores busy, so
// three at once took as long as one after another, and one of them failed kubeadm
// init's wait for its control plane (2026-12-06, docs/measurements.md).
func CreateRunClusters(ctx context.Context, configs []string, o KindOptions) error {
	if o.RunID == "" {
		return errors.New("the run's clusters need the run's ID")
	}
	kinds := make([]*Kind, len(configs))
	for i, path := range configs {
		k, err := NewKind(path, o)
		if err != nil {
			return err
		}
		k.adopt = true
		kinds[i] = k
	}
	var failed error
	for i, k := range kinds {
		if ctx.Err() != nil {
			break
		}
		if _, err := k.Acquire(ctx); err != nil {
			failed = fmt.Errorf("%s: %w", configs[i], err)
			break
		}
	}
	outcome := Succeeded
	switch {
	case ctx.Err() != nil:
		outcome = Interrupted
	case failed != nil:
		outcome = Failed
	}
	if outcome != Succeeded {
		for _, k := range kinds {
			if err := k.Release(context.WithoutCancel(ctx), &Cluster{}, outcome); err != nil {
				failed = errors.Join(failed, err)
			}
		}
		if failed == nil {
			failed = ctx.Err()
		}
	}
	return failed
}
