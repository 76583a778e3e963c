package restart

import (
	"fmt"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/podlifecycle/conformance/framework/facts"
	"github.com/podlifecycle/conformance/framework/suite"
)

// RS-13's bounds, "1s" to "300s", checked from both sides by the kubelet's own
// validation: the node's kubelet binary is run on a configuration file that sets the
// value and also a negative eventRecordQPS, so that the validation (which reports every
// error at once, before the kubelet does anything) always refuses the file and no second
// kubelet starts; whether the refusal names maxContainerRestartPeriod is the answer.
var _ = Describe("crashLoopBackOff.maxContainerRestartPeriod", Label("KubeletCrashLoopBackOffMax", suite.Disruptive), func() {
	DescribeTable("is accepted by the kubelet from 1s to 300s only", Label("RS-13"),
		func(ctx SpecContext, value string, accepted bool) {
			env.Require(facts.NodeShell())
			node := env.NodeFor("defaults", map[string]bool{"KubeletCrashLoopBackOffMax": true})
			out := validateKubeletConfig(ctx, node.Name, "crashLoopBackOff:\n  maxContainerRestartPeriod: "+value+"\n")
			AddReportEntry("kubelet validation of maxContainerRestartPeriod "+value, out)
			Expect(out).To(ContainSubstring("eventRecordQPS"), "the kubelet of %s did not validate the file:\n%s", node.Name, out)
			refused := strings.Contains(out, "MaxContainerRestartPeriod")
			Expect(refused).To(Equal(!accepted), "RS-13: maxContainerRestartPeriod %s on the kubelet of %s (v1.37.2 validation):\n%s", value, node.Name, out)
		},
		Entry("999ms, below the range", suite.Timeout(), "999ms", false),
		Entry("1s, its lower end", suite.Timeout(), "1s", true),
		Entry("300s, its upper end", suite.Timeout(), "300s", true),
		Entry("301s, above the range", suite.Timeout(), "301s", false),
	)
})

// validateKubeletConfig runs the node's kubelet on a KubeletConfiguration made of
// fields plus an eventRecordQPS the validation refuses, and returns what it printed.
func validateKubeletConfig(ctx SpecContext, node, fields string) string {
	GinkgoHelper()
	config := "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\neventRecordQPS: -1\n" + fields
	script := fmt.Sprintf("f=$(mktemp); printf '%%s' '%s' > $f; timeout 20 kubelet --config=$f 2>&1 | grep -i 'validate' | head -5; rm -f $f", config)
	out, err := env.NodeShell(ctx, node, script)
	Expect(err).NotTo(HaveOccurred(), "kubelet on %s: %s", node, out)
	return out
}
