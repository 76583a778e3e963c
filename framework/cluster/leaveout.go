package cluster

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/kind/pkg/apis/config/v1alpha4"
	"sigs.k8s.io/yaml"

	"github.com/podlifecycle/conformance/framework/facts"
)

const (
	// leftOutPatchesPath is where a node's generated kubeadm patches directory is
	// mounted; leftOutPatchFile the patch in it that deletes the gates left out. The
	// name is one kubeadm's patches package takes: target "kubeletconfiguration",
	// suffix "99", "+merge" for a JSON merge patch (RFC 7386), extension yaml.
	leftOutPatchesPath = "/kind/podlifecycle-kubelet-patches"
	leftOutPatchFile   = "kubeletconfiguration99+merge.yaml"
)

// LeaveOutUnknownKubeletGates leaves the run's gates (Override: FEATURE_GATES and
// KUBELET_FEATURE_GATES, given to every kubelet through the one KubeletConfiguration
// kubeadm join downloads) out of the kubelet of each worker whose node image is a
// kubelet variant (podlifecycle/node:<k8s>-kubelet-<R>) of another release R than
// the control plane's (nodeImage's Kubernetes version), when R's kubelet does not
// know them (knows(R)) and the control plane's release does: the other components
// have them, that kubelet keeps its default. A gate the config sets itself
// (cluster-wide, or for that node) is the config author's and is never left out; nor
// is one the control plane's release does not know either, which the pre-boot checks
// refuse. knows nil leaves nothing out.
//
// The node's kubelet is given, through kubeadm join's patches directory (a
// JoinConfiguration patch, and an extraMount of a directory under stateDir named by
// its content), a JSON merge patch that deletes those gates from its
// KubeletConfiguration; the files of a patches directory the node already has are
// copied into it. The cluster's name follows: the directory's content is hashed with
// the other extraMounts' (treeDigest), and a line in Raw names what is left out.
// Call it after Override and RebaseKubeletImages.
func (k *KindConfig) LeaveOutUnknownKubeletGates(nodeImage string, knows func(release string) (map[string]bool, error), stateDir string) error {
	if knows == nil || len(k.runGates) == 0 {
		return nil
	}
	controlPlane := k.controlPlaneRelease(nodeImage)
	if controlPlane == "" {
		return nil // another Kubernetes than the project's node images: nothing to compare with
	}
	cache := map[string]map[string]bool{}
	knownBy := func(release string) (map[string]bool, error) {
		if known, ok := cache[release]; ok {
			return known, nil
		}
		known, err := knows(release)
		if err != nil {
			return nil, fmt.Errorf("kind config %s: the feature gates Kubernetes %s knows: %w", k.Path, release, err)
		}
		cache[release] = known
		return known, nil
	}
	leftOut := map[string][]string{}
	byNode := map[int]bool{}
	for i := range k.Config.Nodes {
		n := &k.Config.Nodes[i]
		v := kubeletVariant.FindStringSubmatch(n.Image)
		if n.Role != v1alpha4.WorkerRole || v == nil || v[2] == controlPlane {
			continue
		}
		release := v[2]
		kubelet, err := knownBy(release)
		if err != nil {
			return err
		}
		components, err := knownBy(controlPlane)
		if err != nil {
			return err
		}
		var unknown []string
		for _, g := range slices.Sorted(maps.Keys(k.runGates)) {
			if !kubelet[g] && components[g] && !k.authoredGates[g] {
				unknown = append(unknown, g)
			}
		}
		if len(unknown) == 0 {
			continue
		}
		what := fmt.Sprintf("kind config %s: node %d (kubelet %s, image %s)", k.Path, i, release, n.Image)
		patchesDir, existing, err := k.nodePatches(i)
		if err != nil {
			return fmt.Errorf("%s: leaving %v, which that kubelet does not know, out of it: %w", what, unknown, err)
		}
		own := map[string]bool{}
		for _, p := range n.KubeadmConfigPatches {
			if err := kubeletGatesOfPatch(p, own); err != nil {
				return fmt.Errorf("%s: %w", what, err)
			}
		}
		for name, b := range existing {
			if err := gatesOfPatchFile(name, b, own); err != nil {
				return fmt.Errorf("%s: patches directory %s: %w", what, patchesDir, err)
			}
		}
		unknown = slices.DeleteFunc(unknown, func(g string) bool { _, set := own[g]; return set })
		if len(unknown) == 0 {
			continue
		}
		profile := n.Labels[facts.ProfileLabel]
		if profile == "" {
			return fmt.Errorf("%s: leaving %v, which that kubelet does not know, out of it needs a %s label on the node, which names it in the facts", what, unknown, facts.ProfileLabel)
		}
		if prev, ok := leftOut[profile]; ok && !slices.Equal(prev, unknown) {
			return fmt.Errorf("%s: nodes of profile %s would leave different gates out of their kubelets (%v, %v); give them profiles of their own", what, profile, prev, unknown)
		}
		if _, ok := existing[leftOutPatchFile]; ok {
			return fmt.Errorf("%s: its patches directory %s already has a file %s, the one that would leave %v out", what, patchesDir, leftOutPatchFile, unknown)
		}
		files := maps.Clone(existing)
		if files == nil {
			files = map[string][]byte{}
		}
		files[leftOutPatchFile] = leftOutPatch(release, unknown)
		if stateDir == "" {
			return fmt.Errorf("%s: leaving %v out of its kubelet needs a state directory for the patch", what, unknown)
		}
		dir, err := writePatchesDir(filepath.Join(stateDir, "kubelet-patches"), files)
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		n.ExtraMounts = append(slices.Clone(n.ExtraMounts), v1alpha4.Mount{HostPath: dir, ContainerPath: leftOutPatchesPath, Readonly: true})
		n.KubeadmConfigPatches = append(slices.Clone(n.KubeadmConfigPatches),
			"kind: JoinConfiguration\npatches:\n  directory: "+leftOutPatchesPath+"\n")
		leftOut[profile] = unknown
		byNode[i] = true
		k.Raw = append(slices.Clone(k.Raw), fmt.Sprintf("\n# left out of the kubelet %s of node %d (profile %s), which does not know them: %v\n", release, i, profile, unknown)...)
	}
	for i, n := range k.Config.Nodes {
		if p := n.Labels[facts.ProfileLabel]; leftOut[p] != nil && !byNode[i] {
			return fmt.Errorf("kind config %s: node %d shares profile %s with a node whose kubelet leaves %v out, but not its kubelet; give them profiles of their own", k.Path, i, p, leftOut[p])
		}
	}
	if len(leftOut) > 0 {
		k.leftOut = leftOut
	}
	return nil
}

// LeftOut is what LeaveOutUnknownKubeletGates left out: per profile, the run's gates
// its kubelet is not given.
func (k *KindConfig) LeftOut() map[string][]string {
	out := map[string][]string{}
	for p, gates := range k.leftOut {
		out[p] = slices.Clone(gates)
	}
	return out
}

// controlPlaneRelease is the Kubernetes release of the first control-plane node's
// image (nodeImage where it names none), when it is one of the project's node
// images; "" otherwise.
func (k *KindConfig) controlPlaneRelease(nodeImage string) string {
	image := nodeImage
	for _, n := range k.Config.Nodes {
		if n.Role == v1alpha4.ControlPlaneRole {
			if n.Image != "" {
				image = n.Image
			}
			break
		}
	}
	if m := stockNode.FindStringSubmatch(image); m != nil {
		return m[1]
	}
	return ""
}

// leftOutPatch deletes gates from a KubeletConfiguration: in a JSON merge patch
// (RFC 7386) a null value removes the key.
func leftOutPatch(release string, gates []string) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "# Generated by the conformance suite: the run's feature gates that the kubelet %s of\n"+
		"# this node does not know, deleted from the KubeletConfiguration kubeadm join\n"+
		"# downloads (a JSON merge patch: null deletes a key). The kubelet keeps its defaults.\n", release)
	b.WriteString("apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nfeatureGates:\n")
	for _, g := range gates {
		fmt.Fprintf(&b, "  %s: null\n", g)
	}
	return []byte(b.String())
}

// nodePatches finds the kubeadm patches directory node i's join uses (the last
// JoinConfiguration patch that names one: cluster-level patches first, then the
// node's, as kind applies them) and reads its files from the host through the
// node's extraMounts, by path relative to the directory. No directory: "", nil.
func (k *KindConfig) nodePatches(i int) (string, map[string][]byte, error) {
	n := k.Config.Nodes[i]
	dir := ""
	for _, p := range append(slices.Clone(k.Config.KubeadmConfigPatches), n.KubeadmConfigPatches...) {
		var doc struct {
			Kind    string `json:"kind"`
			Patches struct {
				Directory string `json:"directory"`
			} `json:"patches"`
		}
		if err := yaml.Unmarshal([]byte(p), &doc); err != nil {
			return "", nil, fmt.Errorf("decoding kubeadm config patch: %w", err)
		}
		if doc.Kind == "JoinConfiguration" && doc.Patches.Directory != "" {
			dir = doc.Patches.Directory
		}
	}
	for _, p := range append(slices.Clone(k.Config.KubeadmConfigPatchesJSON6902), n.KubeadmConfigPatchesJSON6902...) {
		if p.Kind == "JoinConfiguration" && strings.Contains(p.Patch, "/patches") {
			return "", nil, errors.New("a JSON 6902 patch of its JoinConfiguration may set its kubeadm patches directory, which cannot be merged with the generated one: set the directory with a kubeadmConfigPatches entry")
		}
	}
	if dir == "" {
		return "", nil, nil
	}
	dir = filepath.Clean(dir)
	var mount *v1alpha4.Mount
	for j := range n.ExtraMounts {
		m := &n.ExtraMounts[j]
		c := filepath.Clean(m.ContainerPath)
		if (dir == c || strings.HasPrefix(dir, c+"/")) && (mount == nil || len(c) > len(filepath.Clean(mount.ContainerPath))) {
			mount = m
		}
	}
	if mount == nil {
		return dir, nil, fmt.Errorf("its kubeadm patches directory %s is not mounted from the host (extraMounts), so the generated patches directory cannot include its files; mount it from the host, or leave the gate out of the run's gates", dir)
	}
	rel, _ := filepath.Rel(filepath.Clean(mount.ContainerPath), dir)
	host := mount.HostPath
	if !filepath.IsAbs(host) {
		host = filepath.Join(filepath.Dir(k.Path), host)
	}
	host = filepath.Join(host, rel)
	files := map[string][]byte{}
	err := filepath.WalkDir(host, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		r, _ := filepath.Rel(host, p)
		files[filepath.ToSlash(r)] = b
		return nil
	})
	if err != nil {
		return dir, nil, fmt.Errorf("reading its kubeadm patches directory %s from the host (%s): %w", dir, host, err)
	}
	return dir, files, nil
}

// gatesOfPatchFile adds the feature gates a kubeadm patch file of target
// kubeletconfiguration sets (or deletes) to into; other targets set none.
func gatesOfPatchFile(name string, b []byte, into map[string]bool) error {
	base := filepath.Base(name)
	if !strings.HasPrefix(base, "kubeletconfiguration") {
		return nil
	}
	_, after, _ := strings.Cut(strings.TrimSuffix(strings.TrimSuffix(base, ".yaml"), ".json"), "+")
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(b)))
	for {
		doc, err := reader.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if len(bytes.TrimSpace(doc)) == 0 {
			continue
		}
		js, err := yaml.YAMLToJSON(doc)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if string(bytes.TrimSpace(js)) == "null" {
			continue // only comments
		}
		if after == "json" {
			var ops []struct {
				Path  string          `json:"path"`
				Value json.RawMessage `json:"value"`
			}
			if err := json.Unmarshal(js, &ops); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			for _, op := range ops {
				if g, ok := strings.CutPrefix(op.Path, "/featureGates/"); ok {
					into[g] = true
				} else if op.Path == "/featureGates" {
					var gates map[string]any
					_ = json.Unmarshal(op.Value, &gates)
					for g := range gates {
						into[g] = true
					}
				}
			}
			continue
		}
		var d struct {
			FeatureGates map[string]any `json:"featureGates"`
		}
		if err := json.Unmarshal(js, &d); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		for g := range d.FeatureGates {
			into[g] = true
		}
	}
}

// writePatchesDir writes files (by slash-separated path) into a directory under
// parent named by their content (treeDigest), and returns it: the same files give the
// same directory in every process, and one already there is reused.
func writePatchesDir(parent string, files map[string][]byte) (string, error) {
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(parent, ".tmp-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	for name, b := range files {
		p := filepath.Join(tmp, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			return "", err
		}
	}
	digest, err := treeDigest(tmp)
	if err != nil {
		return "", err
	}
	dir := filepath.Join(parent, digest[:16])
	if got, err := treeDigest(dir); err == nil && got == digest {
		return dir, nil
	}
	_ = os.RemoveAll(dir) // a partial or altered copy
	if err := os.Chmod(tmp, 0o755); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, dir); err != nil {
		// Another process wrote the same directory meanwhile.
		if got, err2 := treeDigest(dir); err2 == nil && got == digest {
			return dir, nil
		}
		return "", fmt.Errorf("writing kubelet patches directory %s: %w", dir, err)
	}
	return dir, nil
}
