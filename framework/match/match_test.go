package match

import (
	"strings"
	"testing"
	"time"

	"github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func at(sec int) metav1.Time { return metav1.NewTime(time.Date(2026, 11, 30, 5, 0, sec, 0, time.UTC)) }

func runningPod() *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "web-server", Namespace: "ns1"},
		Status: corev1.PodStatus{
			Phase: corev1.PodRunning,
			Conditions: []corev1.PodCondition{
				{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: at(0)},
				{Type: corev1.PodInitialized, Status: corev1.ConditionTrue, LastTransitionTime: at(1)},
				{Type: corev1.PodReady, Status: corev1.ConditionFalse, Reason: "ContainersNotReady", LastTransitionTime: at(1)},
			},
			ContainerStatuses: []corev1.ContainerStatus{{
				Name: "nginx", RestartCount: 2,
				State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}},
			}},
		},
	}
}

func check(t *testing.T, m interface {
	Match(any) (bool, error)
	FailureMessage(any) string
}, actual any, wantOK bool, wantInMessage ...string) {
	t.Helper()
	ok, err := m.Match(actual)
	if err != nil {
		t.Fatal(err)
	}
	if ok != wantOK {
		t.Fatalf("Match = %v, want %v; message:\n%s", ok, wantOK, m.FailureMessage(actual))
	}
	msg := m.FailureMessage(actual)
	for _, w := range wantInMessage {
		if !strings.Contains(msg, w) {
			t.Errorf("failure message lacks %q:\n%s", w, msg)
		}
	}
}

func TestHavePhase(t *testing.T) {
	p := runningPod()
	check(t, HavePhase(corev1.PodRunning), p, true)
	check(t, HavePhase(corev1.PodSucceeded), p, false,
		"expected pod ns1/web-server", "to have phase Succeeded", "but saw phase Running", "pod status: phase=Running")
	check(t, HavePhase(corev1.PodRunning), func() *corev1.Pod { return p }, true)
	check(t, HavePhase(corev1.PodRunning), func() *corev1.Pod { return nil }, false, "no pod yet")
}

func TestHaveCondition(t *testing.T) {
	p := runningPod()
	check(t, HaveCondition(corev1.PodReady, corev1.ConditionFalse, "ContainersNotReady"), p, true)
	check(t, HaveCondition(corev1.PodReady, corev1.ConditionFalse, "ReadinessGatesNotReady"), p, false,
		"condition Ready=False with reason ReadinessGatesNotReady", `but saw Ready=False reason "ContainersNotReady"`)
	check(t, HaveCondition(corev1.DisruptionTarget, corev1.ConditionTrue, ""), p, false, "no DisruptionTarget condition")
}

func TestHaveConditionsTrueInOrder(t *testing.T) {
	p := runningPod()
	check(t, HaveConditionsTrueInOrder(corev1.PodScheduled, corev1.PodInitialized), p, true)
	check(t, HaveConditionsTrueInOrder(corev1.PodInitialized, corev1.PodScheduled), p, false,
		"order Initialized ≤ PodScheduled", "Initialized=True@05:00:01, PodScheduled=True@05:00:00")
	check(t, HaveConditionsTrueInOrder(corev1.PodScheduled, corev1.PodReady), p, false, "Ready=False@05:00:01")
	check(t, HaveConditionsTrueInOrder(corev1.PodScheduled, corev1.ContainersReady), p, false, "ContainersReady missing")
}

func TestHaveContainerRestartsAndState(t *testing.T) {
	p := runningPod()
	check(t, HaveContainerRestarts("nginx", 2), p, true)
	check(t, HaveContainerRestarts("nginx", 0), p, false, "container nginx with restartCount 0", "but saw restartCount 2")
	check(t, HaveContainerRestarts("nginx", gomega.BeNumerically(">=", 3)), p, false, "restartCount 2 (", ">=")
	check(t, HaveContainerRestarts("sidecar", 0), p, false, "no status for container sidecar")
	check(t, HaveContainerState("nginx", "Waiting", "CrashLoopBackOff"), p, true)
	check(t, HaveContainerState("nginx", "Terminated", "Error"), p, false,
		"container nginx Terminated(Error)", "but saw container nginx Waiting(CrashLoopBackOff)")
}

func TestConditionTypesInOrder(t *testing.T) {
	got := strings.Join(ConditionTypesInOrder(runningPod()), ",")
	if got != "PodScheduled,Initialized,Ready" {
		t.Fatal(got)
	}
}

// A pod in a terminal phase will not reach another: Eventually may stop at once.
func TestHavePhaseSettlesOnTerminalPhase(t *testing.T) {
	m := HavePhase(corev1.PodRunning).(*podMatcher)
	for _, c := range []struct {
		phase     corev1.PodPhase
		mayChange bool
	}{{corev1.PodPending, true}, {corev1.PodFailed, false}, {corev1.PodSucceeded, false}} {
		p := &corev1.Pod{Status: corev1.PodStatus{Phase: c.phase}}
		if ok, _ := m.Match(p); ok {
			t.Fatalf("phase %s matched Running", c.phase)
		}
		if got := m.MatchMayChangeInTheFuture(p); got != c.mayChange {
			t.Errorf("phase %s: MatchMayChangeInTheFuture = %t, want %t", c.phase, got, c.mayChange)
		}
	}
	failed := HavePhase(corev1.PodFailed).(*podMatcher)
	p := &corev1.Pod{Status: corev1.PodStatus{Phase: corev1.PodSucceeded}}
	failed.Match(p)
	if failed.MatchMayChangeInTheFuture(p) {
		t.Errorf("a Succeeded pod will never be Failed")
	}
}
