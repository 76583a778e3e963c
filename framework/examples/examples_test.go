package examples

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func TestExamplesDecodeAsTheDocsShowThem(t *testing.T) {
	ws := WebServer()
	if ws.Name != "web-server" || ws.Spec.RestartPolicy != corev1.RestartPolicyAlways || ws.Spec.Containers[0].Image != "nginx:1.14.2" {
		t.Errorf("web-server: %+v", ws.Spec)
	}
	mt := MigrationTask()
	if mt.Spec.RestartPolicy != corev1.RestartPolicyNever || mt.Spec.Containers[0].Command[2] != `echo "Running migration..."; exit 1` {
		t.Errorf("migration-task: %+v", mt.Spec)
	}
	s := AppWithSidecar()
	if s.Spec.RestartPolicy != corev1.RestartPolicyOnFailure || *s.Spec.InitContainers[0].RestartPolicy != corev1.ContainerRestartPolicyAlways {
		t.Errorf("app-with-sidecar: %+v", s.Spec)
	}
	if WebServer() == ws {
		t.Error("each call must return a fresh pod that a spec may change")
	}
}
