package suite

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestReproducerIsAppliableAnywhere(t *testing.T) {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "crash-loop", Namespace: "plc-x", UID: "u1", ResourceVersion: "7"},
		Spec: corev1.PodSpec{NodeName: "plc-default-1-worker", NodeSelector: map[string]string{corev1.LabelHostname: "plc-default-1-worker"},
			Containers: []corev1.Container{{Name: "c", Image: "busybox:1.28"}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning},
	}
	r := Reproducer(p, "kubelet defaults")
	for _, gone := range []string{"plc-x", "u1", "resourceVersion", "plc-default-1-worker", "status:", "Running"} {
		if strings.Contains(r, gone) {
			t.Errorf("reproducer keeps %q:\n%s", gone, r)
		}
	}
	for _, kept := range []string{"# node: kubelet defaults", "kind: Pod", "name: crash-loop", "image: busybox:1.28"} {
		if !strings.Contains(r, kept) {
			t.Errorf("reproducer lacks %q:\n%s", kept, r)
		}
	}
}
