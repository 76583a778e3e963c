// Package nodeloss checks what the pages say of a node that is lost: one whose kubelet
// stops answering, and one whose Node object goes away. Each spec takes a worker of
// its own on the node-loss cluster (kind-configs/node-loss.yaml: the workers labelled
// lost-kubelet and deleted-node, tainted so that no other pods land there), stops its
// kubelet, and starts it again when it ends, however it ends.
// The control plane needs its documented grace before it reacts (the node lifecycle
// controller's 50 s node-monitor-grace-period), so every spec is Slow.
package nodeloss

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/podlifecycle/conformance/framework/suite"
)

var env = suite.Setup("lifecycle-nodeloss", "kind-configs/node-loss.yaml")

func TestNodeLoss(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Lost nodes: a kubelet that stops answering, a Node that goes away")
}
