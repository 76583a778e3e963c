package restart

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/podlifecycle/conformance/framework/drift"
	. "github.com/podlifecycle/conformance/framework/match"
	"github.com/podlifecycle/conformance/framework/observe"
	"github.com/podlifecycle/conformance/framework/suite"
)

// endEventBound is how long after a container's Terminated status an event of its end
// may take to be listed: the kubelet records events through a broadcaster that sends
// them within a second; 10 s for a loaded 2-core machine.
const endEventBound = 10 * time.Second

// startPath are the reasons of the events every started container gets (the
// scheduler's and the kubelet's before the container runs): none of them is about
// its end.
var startPath = []string{"Scheduled", "Pulling", "Pulled", "Created", "Started"}

// CS-5: the Chinese article logs an event for each way a container ends (its example
// states: completion, failure, OOM). One pod per class under Never, so that no
// restart adds events of its own; each end is drift where no event about it comes.
var _ = Describe("Container end events", func() {
	It("records an event when a container completes, fails, or is OOM-killed", Label("CS-5"),
		suite.Timeout(podStartBound+oomReportWindow+firstRestartBound, endEventBound), func(ctx SpecContext) {
			ns := env.Namespace(ctx)
			named := func(p *corev1.Pod, name string) *corev1.Pod { p.Name = name; return p }
			cases := []struct {
				what, reason string
				pod          *corev1.Pod
			}{
				{"completes", "Completed", named(exits("0")(corev1.RestartPolicyNever), "completes")},
				{"fails", "Error", named(exits("1")(corev1.RestartPolicyNever), "fails")},
				{"is OOM-killed", "OOMKilled", named(oomKilled(corev1.RestartPolicyNever), "oom-killed")},
			}
			tls := make([]*observe.Timeline, len(cases))
			for i, c := range cases {
				tls[i] = env.Run(ctx, ns, c.pod)
			}
			for i, c := range cases {
				Eventually(tls[i].Pod).WithContext(ctx).WithTimeout(podStartBound+oomReportWindow+firstRestartBound).Should(
					HaveContainerState("main", "Terminated", c.reason), "the container %s (%s):\n%s", c.what, c.reason, tls[i])
			}

			// One bounded wait for all three: it ends once each has an event of its end.
			found := make([][]string, len(cases))
			// The lists use the spec's context, not the wait's: one ending with the wait
			// would fail on its own deadline instead of ending it.
			err := wait.PollUntilContextTimeout(ctx, 500*time.Millisecond, endEventBound, true, func(context.Context) (bool, error) {
				done := true
				for i, c := range cases {
					found[i] = endEvents(ctx, tls[i].Pod(), c.reason == "OOMKilled")
					done = done && len(found[i]) > 0
				}
				return done, nil
			})
			// The wait running out is the measurement (no event came); the spec's own end is not.
			if err != nil && ctx.Err() != nil {
				Fail(fmt.Sprintf("waiting for the end events: %v", err))
			}
			for i, c := range cases {
				p := tls[i].Pod()
				AddReportEntry(fmt.Sprintf("CS-5: events after the container %s", c.what), fmt.Sprintf("%v (every event of the pod:\n%s)", found[i], tls[i]))
				suite.Drift(drift.Observation[bool]{
					Statement:  "CS-5",
					Topic:      "event when a container " + c.what,
					Docs:       "an event is logged when a container " + c.what,
					Documented: true,
					Measured:   len(found[i]) > 0,
					Evidence: fmt.Sprintf("container main Terminated (%s); within %s of that no event about the pod other than %v%s:\n%s",
						c.reason, endEventBound, startPath, map[bool]string{true: ", nor an OOM event on its node " + p.Spec.NodeName}[c.reason == "OOMKilled"], tls[i]),
					Reproducer: suite.Reproducer(p, "any node; kubectl get events --field-selector involvedObject.name="+p.Name),
				})
			}
		})
})

// endEvents lists the events about pod p other than its start path's, and, with
// oomOnNode, the OOM events of its node since the pod was made (the kubelet's OOM
// watcher records those on the Node).
func endEvents(ctx context.Context, p *corev1.Pod, oomOnNode bool) []string {
	GinkgoHelper()
	var out []string
	evs, err := env.Client.CoreV1().Events(p.Namespace).List(ctx, metav1.ListOptions{
		FieldSelector: fields.OneTermEqualSelector("involvedObject.uid", string(p.UID)).String()})
	Expect(err).NotTo(HaveOccurred())
	for _, e := range evs.Items {
		if !slices.Contains(startPath, e.Reason) {
			out = append(out, e.Reason+": "+e.Message)
		}
	}
	if !oomOnNode || p.Spec.NodeName == "" {
		return out
	}
	nodeEvs, err := env.Client.CoreV1().Events(metav1.NamespaceDefault).List(ctx, metav1.ListOptions{
		FieldSelector: fields.AndSelectors(fields.OneTermEqualSelector("involvedObject.kind", "Node"),
			fields.OneTermEqualSelector("involvedObject.name", p.Spec.NodeName)).String()})
	Expect(err).NotTo(HaveOccurred())
	for _, e := range nodeEvs.Items {
		last := e.LastTimestamp.Time
		if e.EventTime.After(last) {
			last = e.EventTime.Time
		}
		if strings.Contains(strings.ToUpper(e.Reason), "OOM") && !last.Before(p.CreationTimestamp.Time) {
			out = append(out, "node "+e.Reason+": "+e.Message)
		}
	}
	return out
}
