// Package examples holds the documentation's example manifests as the docs print them
// (the Pod Lifecycle page, framework/statements/pages): one YAML file per manifest under
// manifests/, named after its metadata.name, embedded in the binary. Each has a typed
// accessor for specs that change what their statement needs, visibly, and run the pod
// under a timeline; Manifest gives the bytes for specs that create the objects as the
// docs do (suite.Env.CreateManifest).
package examples

import (
	"embed"
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

//go:embed manifests/*.yaml
var manifests embed.FS

// Manifest is the docs' manifest named name (its metadata.name), as printed.
func Manifest(name string) []byte {
	b, err := manifests.ReadFile("manifests/" + name + ".yaml")
	if err != nil {
		panic(fmt.Sprintf("examples: no manifest %q: %v", name, err))
	}
	return b
}

// WebServer is example 1 of "restart policy and exit codes": nginx under
// restartPolicy Always, which restarts the container whatever its exit code.
func WebServer() *corev1.Pod {
	return pod("web-server")
}

// DataProcessor is example 2: a Job whose pod template uses restartPolicy OnFailure
// and exits 0, so the Job completes without a restart.
func DataProcessor() *batchv1.Job {
	var j batchv1.Job
	mustDecode("data-processor", &j)
	return &j
}

// OnFailurePod is the first container restart rules example: under pod restartPolicy
// OnFailure, a container with its own restartPolicy Never runs once.
func OnFailurePod() *corev1.Pod {
	return pod("on-failure-pod")
}

// FailPodIfInitFails is the second restart rules example: an init container with
// restartPolicy Never under pod restartPolicy Always; if it fails, the pod fails.
func FailPodIfInitFails() *corev1.Pod {
	return pod("fail-pod-if-init-fails")
}

// RestartOnExitCodes is the third restart rules example: under pod restartPolicy
// Never, the container restarts only when it exits with 42.
func RestartOnExitCodes() *corev1.Pod {
	return pod("restart-on-exit-codes")
}

// MLWorker is the in-place pod restart example: the watcher sidecar's exit 88 matches a
// RestartAllContainers rule, which restarts the whole pod in place.
func MLWorker() *corev1.Pod {
	return pod("ml-worker")
}

// MigrationTask is example 3: a one-off task under restartPolicy Never that exits 1.
func MigrationTask() *corev1.Pod {
	return pod("migration-task")
}

// AppWithSidecar is the sidecar example: a fluent-bit sidecar (container-level
// restartPolicy Always) beside nginx, under pod restartPolicy OnFailure.
func AppWithSidecar() *corev1.Pod {
	return pod("app-with-sidecar")
}

// ExamplePod is the Node Declared Features page's example: a container with a
// RestartAllContainers rule, which the scheduler may place only on nodes that declare
// RestartAllContainersOnContainerExits.
func ExamplePod() *corev1.Pod {
	return pod("example-pod")
}

// LivenessHTTP is the "advanced liveness probe example" of the older Chinese
// pod-lifecycle article (seed 002): an HTTP liveness probe with a custom header and
// initialDelaySeconds 15 against k8s.gcr.io/liveness, whose /healthz fails after 10 s.
func LivenessHTTP() *corev1.Pod {
	return pod("liveness-http")
}

// pod decodes one of this package's manifests; a decoding error is a bug in the
// package, found by its unit tests.
func pod(name string) *corev1.Pod {
	var p corev1.Pod
	mustDecode(name, &p)
	return &p
}

// mustDecode decodes strictly: a field the API does not know (a typo in a copied
// example) fails instead of being dropped.
func mustDecode(name string, into any) {
	if err := yaml.UnmarshalStrict(Manifest(name), into); err != nil {
		panic(fmt.Sprintf("examples: decoding the documented manifest %s: %v", name, err))
	}
}
