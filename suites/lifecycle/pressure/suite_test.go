// Package pressure checks what the pages say of a pod the kubelet itself evicts under
// node pressure (PC-8, TerminationByKubelet), and of kubectl drain (KR-6), which it
// runs first on the same worker. It takes the backoff-profiles cluster's
// worker labelled node-pressure (kind-configs/backoff-profiles.yaml), whose hard
// eviction threshold leaves its pods 3 % of the machine's memory, and whose taint keeps
// every other spec's pods off it: a pod of its own fills memory past that, and the
// kubelet is under real memory pressure without the machine being short of memory.
package pressure

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/podlifecycle/conformance/framework/suite"
)

var env = suite.Setup("lifecycle-pressure", "kind-configs/backoff-profiles.yaml")

func TestPressure(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Node pressure: a pod the kubelet evicts to reclaim memory")
}
