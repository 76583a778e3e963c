package suite

import (
	"slices"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TaintUpdateBound bounds one change of a node's taints: an update that conflicts with
// the kubelet's or the node lifecycle controller's own is retried; 10 s covers a few
// retries. A spec's timeout counts it once for AddTaint and once for its cleanup.
const TaintUpdateBound = 10 * time.Second

// AddTaint puts t on node, in place of one of the same key and effect; DeferCleanup
// takes it off again however the spec ends, since a node left tainted would evict
// later specs' pods. Tainting a node is Disruptive: a spec without the label fails.
func (e *Env) AddTaint(ctx SpecContext, node string, t corev1.Taint) {
	GinkgoHelper()
	e.updateTaints(ctx, node, func(ts []corev1.Taint) []corev1.Taint { return append(withoutTaint(ts, t), t) })
	DeferCleanup(func(ctx SpecContext) { e.RemoveTaint(ctx, node, t) })
}

// RemoveTaint takes the taint of t's key and effect off node.
func (e *Env) RemoveTaint(ctx SpecContext, node string, t corev1.Taint) {
	GinkgoHelper()
	e.updateTaints(ctx, node, func(ts []corev1.Taint) []corev1.Taint { return withoutTaint(ts, t) })
}

func (e *Env) updateTaints(ctx SpecContext, node string, change func([]corev1.Taint) []corev1.Taint) {
	GinkgoHelper()
	if !slices.Contains(CurrentSpecReport().Labels(), Disruptive) {
		Fail("a taint on node " + node + " from a spec not labelled " + Disruptive + ": label it (suite.Disruptive)")
	}
	Eventually(func(ctx SpecContext) error {
		n, err := e.Client.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
		if err != nil {
			return err
		}
		n.Spec.Taints = change(n.Spec.Taints)
		_, err = e.Client.CoreV1().Nodes().Update(ctx, n, metav1.UpdateOptions{})
		return err
	}).WithContext(ctx).WithTimeout(TaintUpdateBound).Should(Succeed())
}

func withoutTaint(ts []corev1.Taint, t corev1.Taint) []corev1.Taint {
	return slices.DeleteFunc(slices.Clone(ts), func(old corev1.Taint) bool { return old.Key == t.Key && old.Effect == t.Effect })
}
