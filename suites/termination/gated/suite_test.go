// Package gated checks the termination statements that need cluster settings of their
// own: ContainerStopSignals on (TM-7) and a low terminated-pod-gc-threshold (TM-14).
// They run on the backoff-profiles cluster, which carries both
// (kind-configs/backoff-profiles.yaml), so they cost no cluster of their own.
package gated

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/podlifecycle/conformance/framework/suite"
)

var env = suite.Setup("termination-gated", "kind-configs/backoff-profiles.yaml")

func TestGated(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Pod termination under cluster settings: stop signals, PodGC threshold")
}
