// Package termination checks graceful termination as the docs describe it: grace
// periods, preStop, stop signals, the terminal phase, forced deletion, terminating
// endpoints and the order in which sidecars stop. The evidence for order and timing is
// what the containers record themselves: a trap per signal and a heartbeat, written as
// millisecond markers (observe.MarkShell) and read back from the containers' logs.
//
// TM-13 (regular containers get TERM in no guaranteed order) is honoured throughout:
// no spec here compares the moments two regular containers got a signal; the sidecar
// specs order sidecars only against the last regular container's exit.
package termination

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/podlifecycle/conformance/framework/suite"
)

var env = suite.Setup("termination", "kind-configs/default.yaml")

func TestTermination(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Pod termination: grace periods, preStop, stop signals, sidecar order")
}
