package termination

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podlifecycle/conformance/framework/facts"
	. "github.com/podlifecycle/conformance/framework/match"
	"github.com/podlifecycle/conformance/framework/suite"
)

// Only the API server's audit log says who deleted a pod and with what grace period:
// the watch shows the pod leave, but not whose request removed it.
// kind-configs/default.yaml has the API server log every DELETE of a pod, and the
// kubelets' status writes of pods named auditedPod, at level Request, so that the body
// shows (kind-configs/audit/policy.yaml). It logs nothing else. Both kinds of event
// carry the API server's own times, to the microsecond, so putting them in order
// needs no second clock.

// auditedPod is the pod name whose status writes the policy logs (its resourceNames).
// The kubelet's write of the terminal phase is what TM-8's "then" follows.
const auditedPod = "audited"

// auditedGraceSeconds is the pod's grace period, long next to finalDeleteBound. A pod
// that leaves the API within that bound was deleted because its container stopped,
// not because its grace period ran out.
const auditedGraceSeconds = 60

// finalDeleteBound: the container exits on TERM at once. The kubelet then writes the
// terminal phase and deletes the pod during its sync and status updates, which take
// seconds on a loaded 2-core machine (stopBound with no grace: 22 s). The API server
// writes the DELETE's audit event as it answers the request (audit-log-mode blocking).
// The bound is far below the 60 s grace, so a kubelet that waits the grace period out,
// or never deletes, fails here.
var finalDeleteBound = stopBound(0)

// auditPoll: each read of the audit log is a docker exec and a grep, which take a
// fraction of a second.
const auditPoll = time.Second

// auditLogPath is where kind-configs/default.yaml has the API server write its audit
// log. Rotated files (audit-log-maxbackup) sit next to it as
// kube-apiserver-audit-<time>.log.
const auditLogPath = "/var/log/kubernetes/kube-apiserver-audit.log"

var _ = Describe("The kubelet's final deletion", Label(suite.Disruptive), func() {
	It("comes after the terminal phase: the kubelet deletes the pod from the API server with grace period 0, and after that no client sees it",
		Label("TM-8", "TM-22"), suite.Timeout(runningBound, finalDeleteBound, watchBound), func(ctx SpecContext) {
			env.Require(facts.NodeShell()) // the audit log is a file on the control-plane node
			apiServers := auditedAPIServers(ctx)
			me := whoAmI(ctx)
			ns := env.Namespace(ctx)
			tl := env.Run(ctx, ns, stoppingPod(auditedPod, seconds(auditedGraceSeconds), onTerm("main", exitNow)))
			running(ctx, ns, tl, "main")
			uid, kubelet := tl.Pod().UID, "system:node:"+tl.Pod().Spec.NodeName

			// Like kubectl delete: no grace period of its own, so the pod's 60 s applies.
			Expect(env.Client.CoreV1().Pods(ns).Delete(ctx, auditedPod, metav1.DeleteOptions{})).To(Succeed())
			// A kubelet that never deletes leaves the pod Terminating in the API, since
			// nothing else removes it. In that case the audit log still shows only the
			// spec's own DELETE when the bound runs out. The kubelet's accepted DELETE is
			// logged once its handling is over, so the pod is gone by then (TM-22).
			var trail auditTrail
			Eventually(func(g Gomega) {
				trail = readAuditTrail(ctx, g, apiServers, ns, auditedPod)
				g.Expect(trail.deletes().by(kubelet).accepted()).NotTo(BeEmpty(), "no DELETE by %s accepted yet; the pod's audit trail:\n%s", kubelet, trail)
			}).WithContext(ctx).WithTimeout(finalDeleteBound).WithPolling(auditPoll).
				Should(Succeed(), "TM-8: the kubelet deletes the pod once its container has stopped, long before its %d s grace:\n%s", auditedGraceSeconds, tl)

			// TM-22: once the kubelet's DELETE has been answered, the object is gone.
			_, err := env.Client.CoreV1().Pods(ns).Get(ctx, auditedPod, metav1.GetOptions{})
			Expect(apierrors.IsNotFound(err)).To(BeTrue(), "TM-22: after the kubelet's DELETE was answered no client sees the pod; Get said %v\n%s", err, trail)
			Eventually(tl.Deleted).WithContext(ctx).WithTimeout(watchBound).Should(BeTrue(), "TM-22: the watch reports the pod deleted:\n%s", tl)

			// Check the instrument: the log gives the spec's own request to the spec.
			deletes := trail.deletes()
			Expect(deletes[0].User.Username).To(Equal(me), "the first DELETE is the spec's own:\n%s", trail)
			Expect(deletes[0].grace()).To(Or(BeNil(), HaveValue(Equal(int64(auditedGraceSeconds)))), "the spec's DELETE gives the pod's grace period, or none:\n%s", trail)
			final := deletes[len(deletes)-1]
			Expect(final.User.Username).To(Equal(kubelet), "TM-8: the last DELETE comes from the pod's kubelet:\n%s", trail)
			Expect(final.grace()).To(HaveValue(BeZero()), "TM-8: the kubelet deletes with grace period 0:\n%s", trail)
			Expect(final.code()).To(Equal(int32(200)), "TM-8: the API server accepted the kubelet's DELETE:\n%s", trail)
			Expect(final.uidPrecondition()).To(Equal(uid), "TM-8: the kubelet deletes this pod (its UID is the precondition), not another pod with the same name")
			Expect(deletes.users()).To(HaveEach(BeElementOf(me, kubelet)), "no one else deleted the pod:\n%s", trail)

			// TM-8's "then": the kubelet had the API server's answer to its write of the
			// terminal phase before it sent the DELETE. A response ends only after its
			// ResponseComplete time is taken, and both times come from the API server's
			// clock (one kernel for every control-plane node of a kind cluster).
			written := trail.terminalPhaseBy(kubelet)
			Expect(written).NotTo(BeNil(), "TM-8: no status write by %s set a terminal phase (kind-configs/audit/policy.yaml logs them for pods named %s):\n%s", kubelet, auditedPod, trail)
			Expect(written.phase()).To(Equal(corev1.PodSucceeded), "TM-8: Succeeded, as the container exited 0")
			Expect(written.StageTimestamp.Time).To(BeTemporally("<", final.RequestReceivedTimestamp.Time),
				"TM-8: the terminal phase was written before the kubelet sent its DELETE:\n%s", trail)
			AddReportEntry("terminal phase answered → kubelet's DELETE received (ms, API server's clock)",
				float64(final.RequestReceivedTimestamp.Time.Sub(written.StageTimestamp.Time).Microseconds())/1000)
			// The watch delivers writes in etcd's order. The first status with a terminal
			// phase already shows the container stopped.
			first, _ := tl.FirstPod(func(p *corev1.Pod) bool {
				return p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed
			})
			Expect(first).NotTo(BeNil(), "the watch never showed the terminal phase:\n%s", tl)
			Expect(first).To(HaveContainerState("main", "Terminated", ""), "TM-8: the phase becomes terminal after the containers have stopped:\n%s", tl)
		})
})

// auditedAPIServers are the control-plane nodes. Each runs an API server with its own
// audit log, and a request appears in the log of the API server that served it. A
// cluster the suite made from kind-configs/default.yaml but without a log is
// misconfigured; any other cluster is simply not audited.
func auditedAPIServers(ctx context.Context) []string {
	GinkgoHelper()
	var nodes []string
	for _, n := range env.Facts.Nodes {
		if _, cp := n.Labels["node-role.kubernetes.io/control-plane"]; cp {
			nodes = append(nodes, n.Name)
		}
	}
	if len(nodes) == 0 {
		Skip("needs the API server's audit log on a node labelled node-role.kubernetes.io/control-plane; the cluster has no such node")
	}
	for _, n := range nodes {
		out, err := env.NodeShell(ctx, n, "if [ -f "+auditLogPath+" ]; then echo audited; fi")
		Expect(err).NotTo(HaveOccurred())
		if strings.TrimSpace(out) == "audited" {
			continue
		}
		why := fmt.Sprintf("needs the API server's audit log %s on %s, which kind-configs/default.yaml turns on", auditLogPath, n)
		if env.Cluster.Provider == "kind" {
			Fail("misconfigured cluster: " + why)
		}
		Skip(why)
	}
	return nodes
}

// whoAmI is the user the API server takes the spec's requests to come from.
func whoAmI(ctx context.Context) string {
	GinkgoHelper()
	r, err := env.Client.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred(), "asking the API server who the spec is (SelfSubjectReview)")
	return r.Status.UserInfo.Username
}

// readAuditTrail collects the ResponseComplete events about pod ns/name from every API
// server's audit log, ordered by when each request was received.
func readAuditTrail(ctx context.Context, g Gomega, apiServers []string, ns, name string) auditTrail {
	// grep exits 1 while nothing matches and 2 on an error. The glob covers the rotated
	// files too.
	script := fmt.Sprintf("grep -hF -e '/namespaces/%s/pods/%s' %s*.log; [ $? -le 1 ]", ns, name, strings.TrimSuffix(auditLogPath, ".log"))
	var t auditTrail
	for _, n := range apiServers {
		out, err := env.NodeShell(ctx, n, script)
		g.Expect(err).NotTo(HaveOccurred(), "reading the audit log on %s", n)
		for _, line := range strings.Split(out, "\n") {
			if strings.TrimSpace(line) == "" {
				continue
			}
			var e auditEvent
			// A line the API server is still writing decodes on the next poll.
			g.Expect(json.Unmarshal([]byte(line), &e)).To(Succeed(), "an audit event on %s: %s", n, line)
			ref := e.ObjectRef
			if e.Stage == "ResponseComplete" && ref != nil && ref.Resource == "pods" && ref.Namespace == ns && ref.Name == name {
				t = append(t, e)
			}
		}
	}
	slices.SortFunc(t, func(a, b auditEvent) int {
		return a.RequestReceivedTimestamp.Time.Compare(b.RequestReceivedTimestamp.Time)
	})
	return t
}

// auditEvent is the part of an audit.k8s.io/v1 Event the spec reads. The Event type
// lives in k8s.io/apiserver, which is not in the module graph; the field types here
// are the ones it uses.
type auditEvent struct {
	Verb      string                    `json:"verb"`
	Stage     string                    `json:"stage"`
	User      authenticationv1.UserInfo `json:"user"`
	ObjectRef *struct {
		Resource    string `json:"resource"`
		Namespace   string `json:"namespace"`
		Name        string `json:"name"`
		Subresource string `json:"subresource"`
	} `json:"objectRef"`
	ResponseStatus *metav1.Status `json:"responseStatus"`
	// RequestObject is the request's body at level Request: DeleteOptions for a DELETE,
	// or the patch for a status write.
	RequestObject            json.RawMessage  `json:"requestObject"`
	RequestReceivedTimestamp metav1.MicroTime `json:"requestReceivedTimestamp"`
	StageTimestamp           metav1.MicroTime `json:"stageTimestamp"`
}

func (e auditEvent) deleteOptions() metav1.DeleteOptions {
	var o metav1.DeleteOptions
	_ = json.Unmarshal(e.RequestObject, &o) // not DeleteOptions: no grace, no preconditions
	return o
}

func (e auditEvent) grace() *int64 { return e.deleteOptions().GracePeriodSeconds }

func (e auditEvent) uidPrecondition() types.UID {
	if p := e.deleteOptions().Preconditions; p != nil && p.UID != nil {
		return *p.UID
	}
	return ""
}

// phase is the status.phase a status write sets; "" when it leaves the phase as it is.
func (e auditEvent) phase() corev1.PodPhase {
	var p struct {
		Status struct {
			Phase corev1.PodPhase `json:"phase"`
		} `json:"status"`
	}
	_ = json.Unmarshal(e.RequestObject, &p)
	return p.Status.Phase
}

func (e auditEvent) code() int32 {
	if e.ResponseStatus == nil {
		return 0
	}
	return e.ResponseStatus.Code
}

func (e auditEvent) statusWrite() bool {
	return (e.Verb == "patch" || e.Verb == "update") && e.ObjectRef.Subresource == "status"
}

func (e auditEvent) String() string {
	what := strings.ToUpper(e.Verb) + " pods"
	switch {
	case e.Verb == "delete":
		grace := "none"
		if g := e.grace(); g != nil {
			grace = fmt.Sprint(*g)
		}
		what += fmt.Sprintf(" (gracePeriodSeconds %s, uid precondition %q)", grace, e.uidPrecondition())
	case e.statusWrite():
		what += fmt.Sprintf("/status (phase %q)", e.phase())
	}
	return fmt.Sprintf("received %s, answered %s: %s by %s → %d", e.RequestReceivedTimestamp.UTC().Format("15:04:05.000000"),
		e.StageTimestamp.UTC().Format("15:04:05.000000"), what, e.User.Username, e.code())
}

// auditTrail is the audit events about one pod, in the order the requests were
// received.
type auditTrail []auditEvent

func (t auditTrail) deletes() auditTrail {
	return slices.DeleteFunc(slices.Clone(t), func(e auditEvent) bool { return e.Verb != "delete" || e.ObjectRef.Subresource != "" })
}

func (t auditTrail) by(user string) auditTrail {
	return slices.DeleteFunc(slices.Clone(t), func(e auditEvent) bool { return e.User.Username != user })
}

// accepted are the requests the API server answered 200 OK.
func (t auditTrail) accepted() auditTrail {
	return slices.DeleteFunc(slices.Clone(t), func(e auditEvent) bool { return e.code() != 200 })
}

func (t auditTrail) users() []string {
	var out []string
	for _, e := range t {
		out = append(out, e.User.Username)
	}
	return out
}

// terminalPhaseBy is the first status write by user that the API server accepted and
// that set a terminal phase, or nil if there is none.
func (t auditTrail) terminalPhaseBy(user string) *auditEvent {
	for _, e := range t.by(user) {
		if e.statusWrite() && e.code() == 200 && (e.phase() == corev1.PodSucceeded || e.phase() == corev1.PodFailed) {
			return &e
		}
	}
	return nil
}

func (t auditTrail) String() string {
	if len(t) == 0 {
		return "(no audit events about the pod)"
	}
	var b strings.Builder
	for _, e := range t {
		b.WriteString(e.String() + "\n")
	}
	return b.String()
}
