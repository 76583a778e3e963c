package observe

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestParseMarkersOrdersAndSkipsNoise(t *testing.T) {
	in := strings.Join([]string{
		"1796015719500 main stop",
		"nginx: [warn] something",
		"1796015719123 sidecar start",
		"17960157 short number",
		"1796015719123 main start", // same ms as sidecar start: append order kept
		"",
	}, "\n")
	ms, err := ParseMarkers(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range ms {
		got = append(got, m.Container+" "+m.Event)
	}
	want := "sidecar start,main start,main stop"
	if strings.Join(got, ",") != want {
		t.Fatalf("got %v, want %s", got, want)
	}
	if ms[2].At.Sub(ms[0].At) != 377*time.Millisecond {
		t.Fatalf("times not kept to the millisecond: %v", ms)
	}
}

func TestMergeMarkersDropsDuplicates(t *testing.T) {
	a := Marker{At: time.UnixMilli(2000), Container: "a", Event: "x"}
	b := Marker{At: time.UnixMilli(1000), Container: "b", Event: "y"}
	got := MergeMarkers([]Marker{a, b}, []Marker{a})
	if len(got) != 2 || got[0] != b || got[1] != a {
		t.Fatalf("got %v", got)
	}
	if at, ok := got.When(MarkOf("a", "x")); !ok || !at.Equal(a.At) {
		t.Fatalf("When: %v %v", at, ok)
	}
}

func TestMarkShellWritesTheParsedFormat(t *testing.T) {
	s := MarkShell("init-1")
	for _, want := range []string{"adjtimex", `line="$ms init-1 $1"`, MarkerDir + "/markers", "/proc/1/fd/1"} {
		if !strings.Contains(s, want) {
			t.Errorf("MarkShell lacks %q: %s", want, s)
		}
	}
}

func pod(phase corev1.PodPhase, node string, conds ...corev1.PodCondition) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns"},
		Spec:       corev1.PodSpec{NodeName: node},
		Status:     corev1.PodStatus{Phase: phase, Conditions: conds},
	}
}

func TestTimelineKeepsDistinctStatusesAndPhases(t *testing.T) {
	tl := &Timeline{Name: "p", stop: func() {}}
	tl.observePod(pod(corev1.PodPending, ""))
	tl.observePod(pod(corev1.PodPending, "")) // identical: not a new entry
	tl.observePod(pod(corev1.PodPending, "w1", corev1.PodCondition{Type: corev1.PodScheduled, Status: corev1.ConditionTrue}))
	tl.observePod(pod(corev1.PodRunning, "w1", corev1.PodCondition{Type: corev1.PodScheduled, Status: corev1.ConditionTrue},
		corev1.PodCondition{Type: corev1.PodReady, Status: corev1.ConditionTrue}))
	if n := len(tl.Entries()); n != 3 {
		t.Fatalf("want 3 entries, got %d:\n%s", n, tl)
	}
	if got := tl.Phases(); len(got) != 2 || got[0] != corev1.PodPending || got[1] != corev1.PodRunning {
		t.Fatalf("phases %v", got)
	}
	first := tl.ConditionsFirstTrue()
	if len(first) != 2 || !strings.HasPrefix(first[0], "PodScheduled +") || !strings.HasPrefix(first[1], "Ready +") {
		t.Fatalf("conditions first true: %v", first)
	}
	if !strings.Contains(tl.String(), "phase=Running node=w1 PodScheduled=True Ready=True") {
		t.Fatalf("rendering:\n%s", tl)
	}
	tl.observeDeletion()
	if tl.Pod() != nil {
		t.Fatal("Pod() after deletion must be nil, not the deleted pod")
	}
	tl.observePod(pod(corev1.PodPending, ""))
	if tl.Pod() == nil || len(tl.Entries()) != 5 {
		t.Fatalf("a pod re-created under the same name must be recorded:\n%s", tl)
	}
}

func TestDescribeState(t *testing.T) {
	s := corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{Reason: "Error", ExitCode: 1,
		StartedAt: metav1.NewTime(time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)), FinishedAt: metav1.NewTime(time.Date(2026, 1, 1, 10, 0, 2, 0, time.UTC))}}
	if got := DescribeState(s); got != "Terminated(Error, exit 1, 10:00:00..10:00:02)" {
		t.Fatal(got)
	}
	if got := DescribeState(corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}}); got != "Waiting(CrashLoopBackOff)" {
		t.Fatal(got)
	}
}
