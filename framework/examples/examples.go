// Package examples holds the documentation's example pods as the docs print them (the
// Pod Lifecycle page, shared/docs/seeds), one function per manifest, named after its
// metadata.name. Specs change only what their statement needs, visibly.
package examples

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// WebServer is example 1 of "restart policy and exit codes": nginx under
// restartPolicy Always, which restarts the container whatever its exit code.
func WebServer() *corev1.Pod {
	return pod(`
apiVersion: v1
kind: Pod
metadata:
  name: web-server
spec:
  restartPolicy: Always  # Container restarts regardless of exit code
  containers:
  - name: nginx
    image: nginx:1.14.2
    # If this container crashes or exits for any reason, it will be restarted
`)
}

// MigrationTask is example 3: a one-off task under restartPolicy Never that exits 1.
func MigrationTask() *corev1.Pod {
	return pod(`
apiVersion: v1
kind: Pod
metadata:
  name: migration-task
spec:
  restartPolicy: Never  # Never restarts, regardless of exit code
  containers:
  - name: migrate
    image: busybox:1.28
    command: ['sh', '-c', 'echo "Running migration..."; exit 1']
    # Even with exit code 1 (failure), the container will not be restarted
    # The Pod will remain in Failed state
`)
}

// AppWithSidecar is the sidecar example: a fluent-bit sidecar (container-level
// restartPolicy Always) beside nginx, under pod restartPolicy OnFailure.
func AppWithSidecar() *corev1.Pod {
	return pod(`
apiVersion: v1
kind: Pod
metadata:
  name: app-with-sidecar
spec:
  restartPolicy: OnFailure  # Applies only to the main container
  initContainers:
  - name: logging-sidecar    # This is a sidecar container
    image: fluent/fluent-bit:1.8
    restartPolicy: Always    # Sidecar always restarts regardless of exit code
    # Provides logging services throughout the Pod's lifetime
  containers:
  - name: main-app          # Follows the Pod-level restart policy
    image: nginx:1.14.2
    # Restarts only on failure (non-zero exit code) due to the Pod's OnFailure policy
`)
}

// pod decodes a manifest that is part of this package; a decoding error is a bug in
// the package, found by its unit tests.
func pod(manifest string) *corev1.Pod {
	var p corev1.Pod
	if err := yaml.UnmarshalStrict([]byte(manifest), &p); err != nil {
		panic(fmt.Sprintf("examples: decoding a documented manifest: %v", err))
	}
	return &p
}
