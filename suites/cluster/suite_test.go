// Package cluster checks the kind cluster itself before any documented statement is
// checked on it: nodes, DNS, pod networking across nodes, logs, exec, and per-node
// kubelet gates. Its specs carry the label "infra" instead of a statement ID.
package cluster

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/podlifecycle/conformance/framework/suite"
)

var env = suite.Setup("cluster", "kind-configs/default.yaml")

func TestCluster(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "The kind cluster the suites run on")
}
