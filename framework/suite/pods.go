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
	return ns.Name
}

// Run starts a timeline for pod, creates it in ns and returns the timeline. The
// timeline is attached to the spec's report (printed when the spec fails) and saved
// under the suite's artifacts; when the spec fails, so are the kubelet's log lines
// about the pod, if the node has a shell. The pod goes with its namespace.
func (e *Env) Run(ctx context.Context, ns string, pod *corev1.Pod) *observe.Timeline {
	GinkgoHelper()
	tl := e.Follow(ctx, ns, pod.Name)
	pod = pod.DeepCopy()
	pod.Namespace = ns
	if _, err := e.Client.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		Fail(fmt.Sprintf("creating pod %s/%s: %v", ns, pod.Name, err))
	}
	return tl
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
	patch := []byte(`{"metadata":{"finalizers":null}}`)
	_, err := e.Client.CoreV1().Pods(ns).Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		Fail("removing the finalizer of " + ns + "/" + name + ": " + err.Error())
	}
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
