package examples

import (
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
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
	if j := DataProcessor(); j.Spec.Template.Spec.RestartPolicy != corev1.RestartPolicyOnFailure {
		t.Errorf("data-processor: %+v", j.Spec.Template.Spec)
	}
	if p := OnFailurePod(); *p.Spec.Containers[0].RestartPolicy != corev1.ContainerRestartPolicyNever || p.Spec.Containers[1].RestartPolicy != nil {
		t.Errorf("on-failure-pod: %+v", p.Spec)
	}
	if p := FailPodIfInitFails(); *p.Spec.InitContainers[0].RestartPolicy != corev1.ContainerRestartPolicyNever {
		t.Errorf("fail-pod-if-init-fails: %+v", p.Spec)
	}
	if p := RestartOnExitCodes(); p.Spec.Containers[0].RestartPolicyRules[0].ExitCodes.Values[0] != 42 {
		t.Errorf("restart-on-exit-codes: %+v", p.Spec)
	}
	if p := MLWorker(); p.Spec.InitContainers[1].RestartPolicyRules[0].Action != corev1.ContainerRestartRuleActionRestartAllContainers {
		t.Errorf("ml-worker: %+v", p.Spec)
	}
	if p := LivenessHTTP(); p.Spec.Containers[0].LivenessProbe.HTTPGet.HTTPHeaders[0].Value != "Awesome" || p.Spec.Containers[0].LivenessProbe.InitialDelaySeconds != 15 {
		t.Errorf("liveness-http: %+v", p.Spec)
	}
	if p := ExamplePod(); p.Spec.Containers[0].RestartPolicyRules[0].Action != corev1.ContainerRestartRuleActionRestartAllContainers {
		t.Errorf("example-pod: %+v", p.Spec)
	}
	if WebServer() == ws {
		t.Error("each call must return a fresh pod that a spec may change")
	}
}

// Every manifest file decodes strictly into the type its kind names, and is reachable
// by its metadata.name: a copied example with a field the API does not know fails here.
func TestEveryManifestDecodesStrictly(t *testing.T) {
	entries, err := manifests.ReadDir("manifests")
	if err != nil || len(entries) == 0 {
		t.Fatalf("no embedded manifests: %v", err)
	}
	for _, e := range entries {
		name := strings.TrimSuffix(e.Name(), ".yaml")
		var meta metav1.PartialObjectMetadata
		if err := yaml.Unmarshal(Manifest(name), &meta); err != nil {
			t.Fatalf("%s: %v", e.Name(), err)
		}
		if meta.Name != name {
			t.Errorf("%s: metadata.name is %q; the file must be named after it", e.Name(), meta.Name)
		}
		var into any
		switch meta.Kind {
		case "Pod":
			into = &corev1.Pod{}
		case "Job":
			into = &batchv1.Job{}
		default:
			t.Fatalf("%s: kind %s has no typed check here", e.Name(), meta.Kind)
		}
		if err := yaml.UnmarshalStrict(Manifest(name), into); err != nil {
			t.Errorf("%s: %v", e.Name(), err)
		}
	}
}

func TestStrictDecodingRejectsAnUnknownField(t *testing.T) {
	typo := strings.Replace(string(Manifest("web-server")), "restartPolicy:", "restartPolcy:", 1)
	if err := yaml.UnmarshalStrict([]byte(typo), &corev1.Pod{}); err == nil {
		t.Error("a misspelt field decoded without error")
	}
}
