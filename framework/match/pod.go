// Package match holds Gomega matchers for pods. Each failure message says what was
// expected, what was seen, and the pod's status in one line, so a reader does not
// need the cluster to understand a failure.
package match

import (
	"fmt"
	"sort"
	"strings"

	"github.com/onsi/gomega"
	"github.com/onsi/gomega/types"
	corev1 "k8s.io/api/core/v1"

	"github.com/podlifecycle/conformance/framework/observe"
)

// podMatcher adapts a predicate over a pod to a Gomega matcher; actual may be a
// *corev1.Pod or a func() *corev1.Pod (such as observe.Timeline.Pod).
type podMatcher struct {
	want  string
	check func(p *corev1.Pod) (bool, string) // ok, and what was seen
	// settled, if set, tells a pod that can no longer come to match: Eventually
	// stops waiting at once (Gomega's MatchMayChangeInTheFuture) instead of
	// waiting out its bound.
	settled func(p *corev1.Pod) bool
	seen    string
	pod     *corev1.Pod
}

// MatchMayChangeInTheFuture is Gomega's oracle: false once the pod seen last has
// settled where it does not match.
func (m *podMatcher) MatchMayChangeInTheFuture(any) bool {
	return m.settled == nil || m.pod == nil || !m.settled(m.pod)
}

// terminal: the phases a pod never leaves (Succeeded, Failed: PL-6, PL-7).
func terminal(p corev1.PodPhase) bool { return p == corev1.PodSucceeded || p == corev1.PodFailed }

func (m *podMatcher) Match(actual any) (bool, error) {
	p, err := toPod(actual)
	if err != nil {
		return false, err
	}
	m.pod = p
	if p == nil {
		m.seen = "no pod yet"
		return false, nil
	}
	ok, seen := m.check(p)
	m.seen = seen
	return ok, nil
}

func (m *podMatcher) FailureMessage(any) string {
	return fmt.Sprintf("expected pod %s\n    to have %s\n    but saw %s%s", podName(m.pod), m.want, m.seen, statusLine(m.pod))
}

func (m *podMatcher) NegatedFailureMessage(any) string {
	return fmt.Sprintf("expected pod %s\n    not to have %s\n    but it does%s", podName(m.pod), m.want, statusLine(m.pod))
}

func toPod(actual any) (*corev1.Pod, error) {
	switch a := actual.(type) {
	case *corev1.Pod:
		return a, nil
	case corev1.Pod:
		return &a, nil
	case func() *corev1.Pod:
		return a(), nil
	default:
		return nil, fmt.Errorf("pod matcher: expected a *v1.Pod or func() *v1.Pod, got %T", actual)
	}
}

func podName(p *corev1.Pod) string {
	if p == nil {
		return "(none)"
	}
	return p.Namespace + "/" + p.Name
}

func statusLine(p *corev1.Pod) string {
	if p == nil {
		return ""
	}
	return "\n    pod status: " + observe.SummarizePod(p)
}

// HavePhase matches a pod in phase.
func HavePhase(phase corev1.PodPhase) types.GomegaMatcher {
	return &podMatcher{want: "phase " + string(phase), check: func(p *corev1.Pod) (bool, string) {
		return p.Status.Phase == phase, "phase " + string(p.Status.Phase)
	}, settled: func(p *corev1.Pod) bool {
		return terminal(p.Status.Phase) && p.Status.Phase != phase
	}}
}

// HaveCondition matches a pod whose condition of type t has status s and, when
// reason is not "", that reason.
func HaveCondition(t corev1.PodConditionType, s corev1.ConditionStatus, reason string) types.GomegaMatcher {
	want := fmt.Sprintf("condition %s=%s", t, s)
	if reason != "" {
		want += " with reason " + reason
	}
	return &podMatcher{want: want, check: func(p *corev1.Pod) (bool, string) {
		c := condition(p, t)
		if c == nil {
			return false, "no " + string(t) + " condition"
		}
		seen := fmt.Sprintf("%s=%s reason %q", t, c.Status, c.Reason)
		return c.Status == s && (reason == "" || c.Reason == reason), seen
	}}
}

// HaveConditionsTrueInOrder matches a pod whose conditions of the given types are all
// True with lastTransitionTime non-decreasing in the order given. The API's
// transition times have whole-second resolution, so equal times count as in order.
func HaveConditionsTrueInOrder(types ...corev1.PodConditionType) types.GomegaMatcher {
	names := make([]string, len(types))
	for i, t := range types {
		names[i] = string(t)
	}
	return &podMatcher{want: "conditions True in lastTransitionTime order " + strings.Join(names, " ≤ "),
		check: func(p *corev1.Pod) (bool, string) {
			var seen []string
			ok := true
			var prev *corev1.PodCondition
			for _, t := range types {
				c := condition(p, t)
				if c == nil {
					seen = append(seen, string(t)+" missing")
					ok = false
					continue
				}
				seen = append(seen, fmt.Sprintf("%s=%s@%s", t, c.Status, c.LastTransitionTime.UTC().Format("15:04:05")))
				if c.Status != corev1.ConditionTrue {
					ok = false
				}
				if prev != nil && c.LastTransitionTime.Before(&prev.LastTransitionTime) {
					ok = false
				}
				prev = c
			}
			return ok, strings.Join(seen, ", ")
		}}
}

// HaveContainerRestarts matches a pod whose container name has a restart count that
// matches count (a number or a matcher such as BeNumerically(">=", 2)).
func HaveContainerRestarts(name string, count any) types.GomegaMatcher {
	inner, isMatcher := count.(types.GomegaMatcher)
	want := fmt.Sprintf("container %s with restartCount %v", name, count)
	if !isMatcher {
		inner = gomega.BeNumerically("==", count)
	} else {
		want = fmt.Sprintf("container %s with a restartCount that satisfies the matcher", name)
	}
	return &podMatcher{want: want,
		check: func(p *corev1.Pod) (bool, string) {
			s := ContainerStatus(p, name)
			if s == nil {
				return false, "no status for container " + name
			}
			ok, err := inner.Match(s.RestartCount)
			seen := fmt.Sprintf("restartCount %d", s.RestartCount)
			if isMatcher && !ok {
				seen += " (" + strings.Join(strings.Fields(inner.FailureMessage(s.RestartCount)), " ") + ")"
			}
			return ok && err == nil, seen
		}}
}

// HaveContainerReady matches a pod whose container name reports ready.
func HaveContainerReady(name string, ready bool) types.GomegaMatcher {
	return &podMatcher{want: fmt.Sprintf("container %s with ready %t", name, ready),
		check: func(p *corev1.Pod) (bool, string) {
			s := ContainerStatus(p, name)
			if s == nil {
				return false, "no status for container " + name
			}
			return s.Ready == ready, fmt.Sprintf("ready %t", s.Ready)
		}}
}

// HaveContainerState matches a pod whose container name is in state kind ("Waiting",
// "Running" or "Terminated") with reason, when reason is not "".
func HaveContainerState(name, kind, reason string) types.GomegaMatcher {
	want := fmt.Sprintf("container %s %s", name, kind)
	if reason != "" {
		want += "(" + reason + ")"
	}
	return &podMatcher{want: want, check: func(p *corev1.Pod) (bool, string) {
		s := ContainerStatus(p, name)
		if s == nil {
			return false, "no status for container " + name
		}
		k, r := stateKindReason(s.State)
		return k == kind && (reason == "" || r == reason), "container " + name + " " + observe.DescribeState(s.State)
	}}
}

func condition(p *corev1.Pod, t corev1.PodConditionType) *corev1.PodCondition {
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == t {
			return &p.Status.Conditions[i]
		}
	}
	return nil
}

// ContainerStatus is the status of the container (app or init) named name, or nil.
func ContainerStatus(p *corev1.Pod, name string) *corev1.ContainerStatus {
	for _, list := range [][]corev1.ContainerStatus{p.Status.ContainerStatuses, p.Status.InitContainerStatuses} {
		for i := range list {
			if list[i].Name == name {
				return &list[i]
			}
		}
	}
	return nil
}

func stateKindReason(s corev1.ContainerState) (string, string) {
	switch {
	case s.Waiting != nil:
		return "Waiting", s.Waiting.Reason
	case s.Running != nil:
		return "Running", ""
	case s.Terminated != nil:
		return "Terminated", s.Terminated.Reason
	}
	return "Unknown", ""
}

// ConditionTypesInOrder returns the pod's condition types sorted by
// lastTransitionTime (stable for equal times), for reports.
func ConditionTypesInOrder(p *corev1.Pod) []string {
	conds := append([]corev1.PodCondition(nil), p.Status.Conditions...)
	sort.SliceStable(conds, func(i, j int) bool { return conds[i].LastTransitionTime.Before(&conds[j].LastTransitionTime) })
	out := make([]string, len(conds))
	for i, c := range conds {
		out[i] = string(c.Type)
	}
	return out
}
