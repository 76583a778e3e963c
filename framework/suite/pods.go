package suite

import (
	"context"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/podlifecycle/conformance/framework/entries"
	"github.com/podlifecycle/conformance/framework/observe"
)

// PodStartBound bounds the start of a pod whose images are already on the node: the
// kubelet's pod worker, sandbox creation and container start take seconds on kind;
// 60 s leaves room for a 2-core machine under load without hiding a stuck pod.
const PodStartBound = 60 * time.Second

// NamespaceLabel marks namespaces the suite made, so leftovers are easy to find:
// kubectl get ns -l podlifecycle.io/suite.
const NamespaceLabel = "podlifecycle.io/suite"

// Namespace creates a namespace for the current spec and deletes it when the spec
// ends, however it ends.
func (e *Env) Namespace(ctx context.Context) string {
	GinkgoHelper()
	ns, err := e.Client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
		GenerateName: "plc-" + e.Name + "-",
		Labels:       map[string]string{NamespaceLabel: e.Name},
	}}, metav1.CreateOptions{})
	if err != nil {
		Fail(fmt.Sprintf("creating a namespace for the spec: %v", err))
	}
	DeferCleanup(func(ctx SpecContext) {
		err := e.Client.CoreV1().Namespaces().Delete(ctx, ns.Name, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			Fail(fmt.Sprintf("deleting namespace %s: %v", ns.Name, err))
		}
	}, NodeTimeout(30*time.Second))
	// Admission refuses a pod until the controller manager has made the namespace's
	// default ServiceAccount: on a busy machine that came 2 s late for a Slow spec
	// (2026-12-06), so the spec waits for it, as Kubernetes' own e2e framework does.
	// Only "not found yet" is waited out: any other error (RBAC) fails at once.
	err = wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, serviceAccountBound, true, func(ctx context.Context) (bool, error) {
		_, err := e.Client.CoreV1().ServiceAccounts(ns.Name).Get(ctx, "default", metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return err == nil, err
	})
	if err != nil {
		Fail(fmt.Sprintf("namespace %s has no default ServiceAccount after %s: %v", ns.Name, serviceAccountBound, err))
	}
	return ns.Name
}

// serviceAccountBound bounds the wait for a new namespace's default ServiceAccount,
// which the controller manager makes within a second on an idle cluster.
const serviceAccountBound = time.Minute

// Run starts a timeline for pod, creates it in ns and returns the timeline. The
// timeline is attached to the spec's report (printed when the spec fails) and saved
// under the suite's artifacts; when the spec fails, so are the kubelet's log lines
// about the pod, if the node has a shell. The pod goes with its namespace.
//
// A host flake (observe.HostFlake: the runtime failed a container's cgroup, not the
// pod) is answered once: the pod is deleted and made again under the same name, and
// the spec's report carries the flake under entries.InfraRetryEntryPrefix.
func (e *Env) Run(ctx context.Context, ns string, pod *corev1.Pod) *observe.Timeline {
	GinkgoHelper()
	tl := e.Follow(ctx, ns, pod.Name)
	pod = pod.DeepCopy()
	pod.Namespace = ns
	tl.RetryHostFlakeOnce(func(string) {
		if err := e.remake(context.WithoutCancel(ctx), pod); err != nil {
			tl.Note("making the pod again after a host flake: " + err.Error())
		}
	})
	if _, err := e.Client.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		Fail(fmt.Sprintf("creating pod %s/%s: %v", ns, pod.Name, err))
	}
	return tl
}

// remakeBound bounds making a pod again after a host flake: its deletion with no
// grace period (a held pod's finalizer removed first) and its creation.
const remakeBound = 60 * time.Second

// remake deletes pod, as the spec created it, at once, waits until it has left the
// API, and creates it again.
func (e *Env) remake(ctx context.Context, pod *corev1.Pod) error {
	ctx, cancel := context.WithTimeout(ctx, remakeBound)
	defer cancel()
	pods := e.Client.CoreV1().Pods(pod.Namespace)
	if len(pod.Finalizers) > 0 {
		if err := e.removeFinalizers(ctx, pod.Namespace, pod.Name); err != nil {
			return err
		}
	}
	if err := pods.Delete(ctx, pod.Name, *metav1.NewDeleteOptions(0)); err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	if err := wait.PollUntilContextCancel(ctx, 250*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		_, err := pods.Get(ctx, pod.Name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		return false, err
	}); err != nil {
		return fmt.Errorf("waiting for the flaked pod to leave the API: %w", err)
	}
	_, err := pods.Create(ctx, pod, metav1.CreateOptions{})
	return err
}

// Follow starts a timeline for the pod named name in ns, which someone else creates (a
// controller's pod, a static pod's mirror pod), with what Run gives its own: attached
// to the spec's report, saved under the suite's artifacts, and the kubelet's log lines
// about the pod when the spec fails.
func (e *Env) Follow(ctx context.Context, ns, name string) *observe.Timeline {
	GinkgoHelper()
	tl, err := observe.Record(context.WithoutCancel(ctx), e.Client, ns, name)
	if err != nil {
		Fail(fmt.Sprintf("watching pod %s/%s: %v", ns, name, err))
	}
	e.watchForKubeletLog(tl)
	DeferCleanup(func() {
		tl.Stop()
		for _, flake := range tl.HostFlakes() {
			AddReportEntry(entries.InfraRetryEntryPrefix+name, flake)
		}
		AddReportEntry(entries.TimelineEntryPrefix+name, tl.String(), ReportEntryVisibilityFailureOrVerbose)
		if err := tl.Save(e.Artifacts, CurrentSpecReport().FullText()); err != nil {
			GinkgoWriter.Printf("saving timeline of %s: %v\n", name, err)
		}
	})
	return tl
}

// HoldFinalizer keeps a deleted pod in the API so its final status and its containers'
// logs can still be read.
const HoldFinalizer = "podlifecycle.io/hold"

// Hold adds HoldFinalizer to p, which is to be created in ns, and registers its
// removal when the spec ends, so the pod can be deleted and still be read until then.
func (e *Env) Hold(ns string, p *corev1.Pod) *corev1.Pod {
	p.Finalizers = append(p.Finalizers, HoldFinalizer)
	DeferCleanup(func(ctx SpecContext) { e.Release(ctx, ns, p.Name) })
	return p
}

// Release removes the finalizers of a held pod.
func (e *Env) Release(ctx context.Context, ns, name string) {
	if err := e.removeFinalizers(ctx, ns, name); err != nil {
		Fail("removing the finalizer of " + ns + "/" + name + ": " + err.Error())
	}
}

// removeFinalizers removes every finalizer of the pod; a pod already gone is no error.
func (e *Env) removeFinalizers(ctx context.Context, ns, name string) error {
	patch := []byte(`{"metadata":{"finalizers":null}}`)
	_, err := e.Client.CoreV1().Pods(ns).Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// ConditionOf is p's condition of type t; it fails the spec when p has none.
func ConditionOf(p *corev1.Pod, t corev1.PodConditionType) corev1.PodCondition {
	GinkgoHelper()
	if p == nil {
		Fail(fmt.Sprintf("no pod to read the %s condition of", t))
	}
	for _, c := range p.Status.Conditions {
		if c.Type == t {
			return c
		}
	}
	Fail(fmt.Sprintf("pod %s has no %s condition: %s", p.Name, t, observe.SummarizePod(p)))
	return corev1.PodCondition{}
}

// ReplicasOf lists the pods of ns that sel selects and that a controller still counts
// as its replicas: neither terminating nor Failed.
func (e *Env) ReplicasOf(ctx context.Context, ns string, sel *metav1.LabelSelector) ([]corev1.Pod, error) {
	list, err := e.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: metav1.FormatLabelSelector(sel)})
	if err != nil {
		return nil, err
	}
	var pods []corev1.Pod
	for _, p := range list.Items {
		if p.DeletionTimestamp == nil && p.Status.Phase != corev1.PodFailed {
			pods = append(pods, p)
		}
	}
	return pods, nil
}
