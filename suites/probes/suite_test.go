// Package probes checks startup, liveness and readiness probes as the docs describe
// them. The evidence is the probe target's own record: the suite's probe server
// (images/cmd/probeserver) and the docs' liveness image write a millisecond marker for
// every probe they receive, with its path, the answer and the request's headers.
package probes

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/podlifecycle/conformance/framework/suite"
)

var env = suite.Setup("probes", "kind-configs/default.yaml")

func TestProbes(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Probes: startup, liveness, readiness, their timing and handlers")
}
