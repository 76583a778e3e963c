package observe

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// The message runc gave here on a cgroup v1 host under load (1 pod in 11 full runs).
const freezeFailure = `failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: error during container init: error setting cgroup config for procHooks process: unable to freeze: unknown`

func TestHostFlakeRule(t *testing.T) {
	for _, c := range []struct {
		reason, message string
		flake           bool
	}{
		{"StartError", freezeFailure, true},
		{"RunContainerError", freezeFailure, true},
		{"CreateContainerError", "OCI runtime create failed: runc create failed: openat2 /sys/fs/cgroup/pids/kubepods/x/cgroup.procs: no such file or directory", true},
		// The pod's own faults, and the behaviour under test, are never a host flake.
		{"StartError", `failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: exec: "nosuch": executable file not found in $PATH: unknown`, false},
		{"Error", freezeFailure, false}, // a container that ran and exited
		{"OOMKilled", "", false},
		{"CreateContainerConfigError", `secret "missing" not found`, false},
		{"StartError", "error setting cgroup config", false}, // not the runtime's create failure
		{"CrashLoopBackOff", "back-off 10s restarting failed container", false},
	} {
		if got := IsHostFlake(c.reason, c.message); got != c.flake {
			t.Errorf("IsHostFlake(%q, %.60q…) = %t, want %t", c.reason, c.message, got, c.flake)
		}
	}
}

func podWith(uid string, phase corev1.PodPhase, states ...corev1.ContainerState) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", UID: types.UID(uid)}, Status: corev1.PodStatus{Phase: phase}}
	for _, s := range states {
		p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, corev1.ContainerStatus{Name: "main", State: s})
	}
	return p
}

// The timeline answers the first host flake once: the flaked attempt never shows in
// Pod or Entries, the new pod's record starts afresh, and a second flake stays.
func TestTimelineRetriesAHostFlakeOnce(t *testing.T) {
	tl := &Timeline{Name: "p"}
	remade := make(chan string, 2)
	tl.RetryHostFlakeOnce(func(flake string) { remade <- flake })
	creating := corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ContainerCreating"}}
	flaked := corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{Reason: "StartError", ExitCode: 128, Message: freezeFailure}}
	running := corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}

	tl.observePod(podWith("a", corev1.PodPending, creating))
	tl.observePod(podWith("a", corev1.PodFailed, flaked))
	if got := <-remade; !strings.Contains(got, "unable to freeze") || !strings.HasPrefix(got, "main: ") {
		t.Errorf("remade for %q", got)
	}
	if p := tl.Pod(); p == nil || p.Status.Phase != corev1.PodPending {
		t.Errorf("Pod() shows the flaked attempt: %v", p)
	}
	tl.observeEvent(&corev1.Event{InvolvedObject: corev1.ObjectReference{UID: "a"}, Reason: "Failed", Message: freezeFailure})
	tl.observePod(podWith("a", corev1.PodFailed, flaked)) // deleting
	tl.observeDeletion()
	if es := tl.Entries(); len(es) != 0 {
		t.Errorf("the flaked attempt in Entries: %v", es)
	}
	tl.observePod(podWith("b", corev1.PodPending, creating))
	tl.observePod(podWith("b", corev1.PodRunning, running))
	if got := tl.Phases(); len(got) != 2 || got[0] != corev1.PodPending || got[1] != corev1.PodRunning {
		t.Errorf("phases of the new pod: %v", got)
	}
	tl.observePod(podWith("b", corev1.PodFailed, flaked))
	select {
	case f := <-remade:
		t.Errorf("a second flake remade too: %s", f)
	default:
	}
	if p := tl.Pod(); p.Status.Phase != corev1.PodFailed {
		t.Errorf("a second flake is hidden: %v", p.Status.Phase)
	}
	if got := tl.HostFlakes(); len(got) != 1 {
		t.Errorf("host flakes %v, want the first one", got)
	}
	s := tl.String()
	for _, want := range []string{"the attempt a host flake ended:", "infra", "unable to freeze", "Failed: " + freezeFailure, "the pod made once more:", "phase=Running"} {
		if !strings.Contains(s, want) {
			t.Errorf("String() lacks %q:\n%s", want, s)
		}
	}
}

// Without RetryHostFlakeOnce (a pod the spec did not make) a flake is recorded as seen.
func TestTimelineWithoutRetryKeepsTheFlake(t *testing.T) {
	tl := &Timeline{Name: "p"}
	tl.observePod(podWith("a", corev1.PodFailed, corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{Reason: "StartError", Message: freezeFailure}}))
	if p := tl.Pod(); p == nil || p.Status.Phase != corev1.PodFailed || len(tl.HostFlakes()) != 0 {
		t.Errorf("without a retry the flake must stay: %v", p)
	}
}
