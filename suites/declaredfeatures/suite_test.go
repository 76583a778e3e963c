// Package declaredfeatures checks node declared features end to end on real kubelets:
// what each kubelet declares (DF-1), where the scheduler places a pod that needs a
// feature (DF-2), what admission does with updates (DF-3) and with pods bound straight
// to a node (DF-4). The default cluster is mixed: its restart-all-off worker runs with
// RestartAllContainersOnContainerExits off, as a node mid-upgrade would.
package declaredfeatures

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/podlifecycle/conformance/framework/suite"
)

var env = suite.Setup("declaredfeatures", "kind-configs/default.yaml")

func TestDeclaredFeatures(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Node declared features: discovery, scheduling, admission")
}
