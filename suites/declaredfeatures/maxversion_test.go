package declaredfeatures

import (
	"fmt"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/util/version"
	ndffeatures "k8s.io/component-helpers/nodedeclaredfeatures/features"

	"github.com/podlifecycle/conformance/framework/suite"
)

var _ = Describe("Declared features past their MaxVersion", func() {
	// The MaxVersions are those of the suite's registry (k8s.io/component-helpers of the
	// module); a kubelet newer than a MaxVersion runs a registry at least as new, which
	// keeps the bound or has dropped the feature: either way it must not declare it. A
	// broken kubelet lists the feature still. No v1.37.2 feature has a MaxVersion, so the
	// spec skips, with the list, until the module moves to a release where one has.
	It("are no longer declared by a kubelet newer than that version", Label("DF-5"), suite.Timeout(), func(ctx SpecContext) {
		var all, bounded, checked []string
		for _, f := range ndffeatures.AllFeatures {
			all = append(all, f.Name())
			maxVersion := f.MaxVersion()
			if maxVersion == nil {
				continue
			}
			bounded = append(bounded, fmt.Sprintf("%s (MaxVersion %s)", f.Name(), maxVersion))
			for _, n := range env.Facts.Nodes {
				kubelet, err := version.Parse(n.KubeletVersion)
				Expect(err).NotTo(HaveOccurred(), "node %s reports kubelet version %q", n.Name, n.KubeletVersion)
				// The kubelet's own comparison (nodedeclaredfeatures.DiscoverNodeFeatures):
				// newer than the MaxVersion, in full semantic versioning.
				if !kubelet.GreaterThan(maxVersion) {
					continue
				}
				Expect(n.DeclaredFeatures).NotTo(ContainElement(f.Name()),
					"DF-5: node %s (kubelet %s) declares %s past its MaxVersion %s", n.Name, n.KubeletVersion, f.Name(), maxVersion)
				checked = append(checked, fmt.Sprintf("%s on %s (kubelet %s)", f.Name(), n.Name, n.KubeletVersion))
			}
		}
		if len(bounded) == 0 {
			Skip(fmt.Sprintf("no v1.37.2 feature has a MaxVersion: MaxVersion() is nil for every feature of the registry (%s)", strings.Join(all, ", ")))
		}
		if len(checked) == 0 {
			var kubelets []string
			for _, n := range env.Facts.Nodes {
				kubelets = append(kubelets, n.Name+" "+n.KubeletVersion)
			}
			Skip(fmt.Sprintf("no kubelet is newer than a MaxVersion: bounded %v; kubelets %v", bounded, kubelets))
		}
		AddReportEntry("features past their MaxVersion, not declared", checked)
	})
})
