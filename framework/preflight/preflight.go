// Package preflight checks a run's switches before anything is built: what only
// files, the Go module proxy, a Ginkgo dry run or the cluster of the user's can
// tell (config.Validate has checked the values together already). Each refusal says
// what to set instead; the whole takes seconds, where the image build it saves
// takes up to 40 minutes cold.
package preflight

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"time"

	authv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/podlifecycle/conformance/framework/config"
	"github.com/podlifecycle/conformance/framework/statements"
)

// Check checks c for a run; the run's suites come later (Selects), since the dry run
// that tells what a filter selects compiles them.
func Check(ctx context.Context, c config.Config, cat statements.Catalogue, yours Yours) error {
	if err := c.Validate(); err != nil {
		return err
	}
	var errs []error
	if c.Kubelet != "" {
		errs = append(errs, checkKubelet(ctx, c.Kubelet))
	}
	errs = append(errs, checkLabels(c.Labels, cat))
	releases := c.ServerVersions()
	if c.KubeletVersion != "" {
		releases = append(releases, c.KubeletVersion)
	}
	known := map[string]map[string]bool{}
	for _, r := range releases {
		gates, err := KnownGates(ctx, r)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		known[r] = gates
	}
	if errors.Join(errs...) == nil {
		errs = append(errs, checkGates("FEATURE_GATES", c.FeatureGates, c.ServerVersions(), known))
		kubelets := c.ServerVersions()
		if c.KubeletVersion != "" {
			kubelets = []string{c.KubeletVersion}
		}
		errs = append(errs, checkGates("KUBELET_FEATURE_GATES", c.KubeletFeatureGates, kubelets, known))
	}
	if c.Kubeconfig != "" {
		errs = append(errs, checkCluster(ctx, c.Kubeconfig, yours))
	}
	return errors.Join(errs...)
}

// Yours is what a cluster of the user's must have for the specs: the grants the
// non-Disruptive specs need (the runner Job's role, images/runner/job.yaml, which a
// test holds to the specs' client calls) and the test images on every schedulable node
// (the image build's list); either may be empty, and is then not checked.
type Yours struct {
	Rules      []rbacv1.PolicyRule
	TestImages []string
}

// checkKubelet: the file exists and answers --version as a kubelet does; that it
// runs in the node's userland is the image build's check (it needs the node image).
func checkKubelet(ctx context.Context, path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("KUBELET=%s: %w", path, err)
	}
	if st.IsDir() || st.Mode()&0o111 == 0 {
		return fmt.Errorf("KUBELET=%s is not an executable file: want a kubelet built for linux/amd64 with glibc", path)
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "--version").CombinedOutput()
	if err != nil {
		return fmt.Errorf("KUBELET=%s does not answer --version as a kubelet does (%v): want a kubelet built for linux/amd64 with glibc", path, err)
	}
	got := strings.TrimSpace(string(out))
	if !regexp.MustCompile(`^Kubernetes v[0-9]+\.[0-9]+\.[0-9]+`).MatchString(got) {
		return fmt.Errorf("KUBELET=%s answered --version with %q, not \"Kubernetes v1.x.y\": is it a kubelet?", path, firstLine(got))
	}
	return nil
}

// statementID is how a label filter names a statement (PL-1, RS-15).
var statementID = regexp.MustCompile(`\b[A-Z]{2}-[0-9]+\b`)

// checkLabels: every statement ID the filter names is the catalogue's.
func checkLabels(labels string, cat statements.Catalogue) error {
	var unknown []string
	for _, id := range statementID.FindAllString(labels, -1) {
		if _, ok := cat.Statement(id); !ok && !slices.Contains(unknown, id) {
			unknown = append(unknown, id)
		}
	}
	if len(unknown) > 0 {
		return fmt.Errorf("LABELS=%q names %s, which the catalogue (framework/statements/catalogue.yaml) does not hold", labels, strings.Join(unknown, ", "))
	}
	return nil
}

// checkGates: each gate is known to at least one release it goes to. A gate that only
// some nodes' releases know is left out of the others (the skewed worker keeps its
// defaults); one that none knows is a typo or a gate of another release.
func checkGates(name string, gates config.Gates, releases []string, known map[string]map[string]bool) error {
	var errs []error
	for _, g := range slices.Sorted(maps.Keys(gates)) {
		ok := false
		for _, r := range releases {
			ok = ok || known[r][g]
		}
		if !ok {
			errs = append(errs, fmt.Errorf("%s: %s is not a feature gate of Kubernetes %s: check its spelling and the release that has it", name, g, strings.Join(releases, " or ")))
		}
	}
	return errors.Join(errs...)
}

// checkCluster: the cluster of the user's answers, its credentials may do what the
// specs do, and its nodes hold the test images (nothing is pulled from a registry:
// a missing image leaves pods in ImagePullBackOff until the specs time out).
func checkCluster(ctx context.Context, kubeconfig string, yours Yours) error {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return fmt.Errorf("KUBECONFIG=%s: %w", kubeconfig, err)
	}
	cfg.Timeout, cfg.QPS, cfg.Burst = 15*time.Second, 50, 100
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("KUBECONFIG=%s: %w", kubeconfig, err)
	}
	if _, err := client.Discovery().ServerVersion(); err != nil {
		return fmt.Errorf("KUBECONFIG=%s: the cluster does not answer: %w", kubeconfig, err)
	}
	var denied []string
	for _, r := range yours.Rules {
		for _, g := range r.APIGroups {
			for _, res := range r.Resources {
				for _, v := range r.Verbs {
					resource, sub, _ := strings.Cut(res, "/")
					review := &authv1.SelfSubjectAccessReview{Spec: authv1.SelfSubjectAccessReviewSpec{
						ResourceAttributes: &authv1.ResourceAttributes{Group: g, Resource: resource, Subresource: sub, Verb: v}}}
					got, err := client.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, review, metav1.CreateOptions{})
					if err != nil {
						return fmt.Errorf("KUBECONFIG=%s: asking what its credentials may do: %w", kubeconfig, err)
					}
					if !got.Status.Allowed {
						denied = append(denied, fmt.Sprintf("%s %s%s", v, res, map[bool]string{true: "", false: "." + g}[g == ""]))
					}
				}
			}
		}
	}
	if len(denied) > 0 {
		return fmt.Errorf("KUBECONFIG=%s: its credentials may not %s, which the specs do (images/runner/job.yaml lists what they need)", kubeconfig, strings.Join(denied, ", "))
	}
	if len(yours.TestImages) == 0 {
		return nil
	}
	nodes, err := client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("KUBECONFIG=%s: listing its nodes: %w", kubeconfig, err)
	}
	var lacking []string // the sets of missing images, each with the nodes that lack it
	byMissing := map[string][]string{}
	for _, n := range nodes.Items {
		if n.Spec.Unschedulable {
			continue
		}
		has := map[string]bool{}
		for _, img := range n.Status.Images {
			for _, name := range img.Names {
				has[name] = true
				if !strings.Contains(name, "/") || strings.HasPrefix(name, "docker.io/") {
					has[strings.TrimPrefix(strings.TrimPrefix(name, "docker.io/"), "library/")] = true
				}
			}
		}
		var missing []string
		for _, want := range yours.TestImages {
			if !has[want] && !has["docker.io/"+want] && !has["docker.io/library/"+want] && !has[withTag(want)] {
				missing = append(missing, want)
			}
		}
		if len(missing) > 0 {
			key := strings.Join(missing, ", ")
			if _, ok := byMissing[key]; !ok {
				lacking = append(lacking, key)
			}
			byMissing[key] = append(byMissing[key], n.Name)
		}
	}
	if len(lacking) > 0 {
		var says []string
		for _, key := range lacking {
			says = append(says, fmt.Sprintf("%s lack%s %s", strings.Join(byMissing[key], ", "), map[bool]string{true: "s", false: ""}[len(byMissing[key]) == 1], key))
		}
		return fmt.Errorf("KUBECONFIG=%s: the nodes lack test images, which no registry here serves: %s; build them with make test-images OUT=dir and load dir/test-images.tar on each node (ctr -n k8s.io images import test-images.tar)", kubeconfig, strings.Join(says, "; "))
	}
	return nil
}

// withTag is image with the tag a runtime records for a name given without one.
func withTag(image string) string {
	if strings.Contains(image, "@") || strings.Contains(image[strings.LastIndex(image, "/")+1:], ":") {
		return image
	}
	return image + ":latest"
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
