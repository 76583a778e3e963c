package lifecycle

import (
	"encoding/json"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"

	"github.com/podlifecycle/conformance/framework/examples"
	. "github.com/podlifecycle/conformance/framework/match"
	"github.com/podlifecycle/conformance/framework/observe"
	"github.com/podlifecycle/conformance/framework/suite"
)

// upperCamelCase is the form 003's field table gives a condition's reason.
const upperCamelCase = `^[A-Z][A-Za-z0-9]*$`

// scheduleAttemptBound: the scheduler's first attempt comes within a second of
// creation (the PL-1 timeline shows +10 ms); 30 s covers its retry after a failed one.
const scheduleAttemptBound = 30 * time.Second

var _ = Describe("Pod condition fields", func() {
	// PC-1's reason and message, on conditions that are not met: the kubelet's three
	// while an init container still runs, the scheduler's PodScheduled for a pod no node
	// fits. The conditions that are True carry neither, which the pages allow.
	It("give each unmet condition a reason in UpperCamelCase and a message with the details",
		Label("PC-1"), suite.Timeout(podStartBound, scheduleAttemptBound), func(ctx SpecContext) {
			ns := env.Namespace(ctx)
			initializing := shellPod("initializing", corev1.RestartPolicyAlways, "sleep 3600")
			initializing.Spec.InitContainers = []corev1.Container{{Name: "init", Image: "busybox:1.28", Command: []string{"sh", "-c", "sleep 3600"}}}
			nowhere := shellPod("nowhere", corev1.RestartPolicyAlways, "sleep 3600")
			nowhere.Spec.NodeSelector = map[string]string{"podlifecycle.io/no-such-node": "true"}
			initTL, nowhereTL := env.Run(ctx, ns, initializing), env.Run(ctx, ns, nowhere)

			unmet := []struct {
				tl     *observe.Timeline
				t      corev1.PodConditionType
				reason string
				names  string // what the message names: the container holding the condition back
			}{
				{initTL, corev1.PodInitialized, "ContainersNotInitialized", "init"},
				{initTL, corev1.ContainersReady, "ContainersNotReady", "main"},
				{initTL, corev1.PodReady, "ContainersNotReady", "main"},
				{nowhereTL, corev1.PodScheduled, corev1.PodReasonUnschedulable, ""},
			}
			Eventually(initTL.Pod).WithContext(ctx).WithTimeout(podStartBound).Should(HaveContainerState("init", "Running", ""))
			Eventually(nowhereTL.Pod).WithContext(ctx).WithTimeout(scheduleAttemptBound).Should(HaveCondition(corev1.PodScheduled, corev1.ConditionFalse, ""))
			for _, u := range unmet {
				p := u.tl.Pod()
				Expect(p).To(HaveCondition(u.t, corev1.ConditionFalse, u.reason), "PC-1: the reason of %s", u.t)
				c := suite.ConditionOf(p, u.t)
				Expect(c.Message).NotTo(BeEmpty(), "PC-1: %s False (%s) carries a message", u.t, c.Reason)
				Expect(c.Message).To(ContainSubstring(u.names), "PC-1: the message of %s gives the details", u.t)
			}

			// Every False condition of every status seen, including the transient
			// PodReadyToStartContainers before the sandbox exists: a writer that set a
			// False status without saying why fails here, on the status that showed it.
			for _, tl := range []*observe.Timeline{initTL, nowhereTL} {
				for _, e := range tl.Entries() {
					if e.Pod == nil {
						continue
					}
					for _, c := range e.Pod.Status.Conditions {
						if c.Status != corev1.ConditionFalse {
							continue
						}
						at := fmt.Sprintf("%s of %s at %s", c.Type, tl.Name, e.Seen.Format("15:04:05.000"))
						Expect(c.Reason).To(MatchRegexp(upperCamelCase), "PC-1: the reason of %s is UpperCamelCase:\n%s", at, tl)
						Expect(c.Message).NotTo(BeEmpty(), "PC-1: %s False (%s) carries a message:\n%s", at, c.Reason, tl)
					}
				}
			}
		})

	// lastProbeTime: the field tables (003, 002) list it on every condition as the time
	// the condition was last probed; the pages' kubectl output shows it null on each
	// condition of a running pod. In v1.37.2 no writer of the lifecycle conditions sets
	// it: the scheduler (PodScheduled False), the API server's binding (PodScheduled
	// True) and the kubelet (pkg/kubelet/status/generate.go) leave it zero, and the
	// kubelet sets it only on PodResizePending and PodResizeInProgress. So the spec
	// asserts what the output shows (the field is there, null) and reports the table's
	// timestamp as drift.
	It("list lastProbeTime on every condition, null on the lifecycle conditions as the pages' output shows",
		Label("PC-1"), suite.Timeout(podStartBound), func(ctx SpecContext) {
			ns := env.Namespace(ctx)
			pod := examples.WebServer()
			tl := env.Run(ctx, ns, pod)
			Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound).Should(HaveCondition(corev1.PodReady, corev1.ConditionTrue, ""))

			By("the API's JSON carries lastProbeTime on each condition, as null")
			raw, err := env.Client.CoreV1().RESTClient().Get().Namespace(ns).Resource("pods").Name(pod.Name).
				SetHeader("Accept", "application/json").DoRaw(ctx)
			Expect(err).NotTo(HaveOccurred())
			var doc struct {
				Status struct {
					Conditions []map[string]any `json:"conditions"`
				} `json:"status"`
			}
			Expect(json.Unmarshal(raw, &doc)).To(Succeed())
			Expect(doc.Status.Conditions).To(HaveLen(5), "the five lifecycle conditions of a running pod")
			for _, c := range doc.Status.Conditions {
				Expect(c).To(HaveKeyWithValue("lastProbeTime", BeNil()), "PC-1: condition %v lists lastProbeTime, null", c["type"])
			}

			By("no status seen had it set")
			var set []string
			for _, e := range tl.Entries() {
				if e.Pod == nil {
					continue
				}
				for _, c := range e.Pod.Status.Conditions {
					if !c.LastProbeTime.IsZero() {
						set = append(set, fmt.Sprintf("%s=%s lastProbeTime %s at %s", c.Type, c.Status, c.LastProbeTime.UTC().Format(time.RFC3339), e.Seen.Format("15:04:05.000")))
					}
				}
			}
			Expect(set).To(BeEmpty(), "PC-1: the lifecycle conditions' lastProbeTime, null in the pages' output:\n%s", tl)
		})
})
