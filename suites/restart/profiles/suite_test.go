// Package profiles checks crash-loop backoff under the kubelet settings and gates that
// change it, one kind worker per profile (kind-configs/backoff-profiles.yaml).
package profiles

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/podlifecycle/conformance/framework/suite"
)

var env = suite.Setup("restart-profiles", "kind-configs/backoff-profiles.yaml")

func TestProfiles(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Crash-loop backoff under kubelet profiles")
}
