// Package entries is the contract between the specs and the report: the names of the
// Ginkgo report entries the suites record (or their prefixes) and the types of their
// values, which the report reads back. Both import it; the specs never import the
// report (framework/report, which reads runs into its data, nor framework/render,
// with its HTML templates and charts).
//
// Other values the report reads are defined by the packages that measure them:
// drift.Finding under drift.EntryPrefix + topic, drift.Answer, backoff.DelayTable
// under DelaysEntryPrefix + what.
package entries

// Report entry names (or prefixes) the suites record and the report reads.
const (
	// FactsEntry: a ClusterFacts, recorded once per suite in its
	// SynchronizedBeforeSuite (Ginkgo process 1).
	FactsEntry = "cluster facts"
	// TimelineEntryPrefix + pod name: a pod's timeline as text (framework/suite Run);
	// its JSON is saved under the suite's artifacts.
	TimelineEntryPrefix = "timeline "
	// KubeletLogEntryPrefix + node name: the kubelet's log lines about a failed
	// spec's pods, around the failure.
	KubeletLogEntryPrefix = "kubelet log "
	// InfraRetryEntryPrefix + pod name: the runtime's message of a host flake that
	// framework/suite answered by making the pod again (observe.HostFlake's rule).
	InfraRetryEntryPrefix = "infrastructure retry of "
	// DelaysEntryPrefix + what: a backoff.DelayTable (expected, measured, allowed).
	DelaysEntryPrefix = "restart delays (ms) on "
	// Drift findings are recorded under drift.EntryPrefix + topic, as drift.Finding.
)

// ExistingConfig is ClusterFacts.Config for a cluster the suite did not make.
const ExistingConfig = "KUBECONFIG"

// ClusterFacts is what a suite records about the cluster it ran on.
type ClusterFacts struct {
	// Config is the kind config the cluster was made from, relative to the
	// repository ("kind-configs/default.yaml"), or ExistingConfig for a given cluster.
	Config        string `json:"config"`
	Cluster       string `json:"cluster"`
	ServerVersion string `json:"serverVersion"`
	// Components: each control-plane component's and kubelet's enabled gates, from
	// its kubernetes_feature_enabled metric.
	Components []Component `json:"components"`
	Nodes      []NodeFacts `json:"nodes"`
	// Images: where each image the cluster runs was built from.
	Images []ImageProvenance `json:"images,omitempty"`
}

// Component is one component's gates as its metrics report them. Source says where
// they were read, or why they could not be ("no node shell: …").
type Component struct {
	Name   string          `json:"name"` // kube-apiserver, kube-controller-manager, kube-scheduler, kubelet
	Node   string          `json:"node,omitempty"`
	Gates  map[string]bool `json:"gates,omitempty"`
	Source string          `json:"source"`
}

// NodeFacts is what matters about one node for the statements.
type NodeFacts struct {
	Name             string            `json:"name"`
	Profile          string            `json:"profile,omitempty"` // podlifecycle.io/profile label
	KubeletVersion   string            `json:"kubeletVersion"`
	KubeletSHA256    string            `json:"kubeletSHA256,omitempty"`
	KubeletSettings  map[string]string `json:"kubeletSettings,omitempty"` // /configz fields the statements depend on
	DeclaredFeatures []string          `json:"declaredFeatures,omitempty"`
	Taints           []string          `json:"taints,omitempty"`
}

// ImageProvenance names where an image was built from: a Go module and version, a
// Debian package and version.
type ImageProvenance struct {
	Image  string `json:"image"`
	Source string `json:"source"`
}

// QuietLabel is the label of framework/suite's Quiet specs: Serial, and run by make e2e
// after the others, on a machine doing nothing else.
const QuietLabel = "Quiet"

// DisruptiveLabel is framework/suite's label of specs that can disturb what is not
// their own; make e2e leaves them out on a cluster it did not make.
const DisruptiveLabel = "Disruptive"

// NotRunDisruptive is the reason of a Disruptive spec left out on such a cluster: by
// make e2e's label filter (the report's reason for a spec not run there), or skipped
// with this message by framework/suite when Ginkgo is run by hand.
const NotRunDisruptive = "disruptive: not run on a cluster the suite did not make (ALLOW_DISRUPTIVE=1 runs it)"
