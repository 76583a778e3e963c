package restart

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/podlifecycle/conformance/framework/suite"
)

var env = suite.Setup("restart", "kind-configs/default.yaml")

func TestRestart(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Restarts: restart policy, restart rules, crash-loop backoff")
}
