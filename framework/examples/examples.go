// Package examples holds the documentation's example pods as the docs print them (the
// Pod Lifecycle page, shared/docs/seeds), one function per manifest, named after its
// metadata.name. Specs change only what their statement needs, visibly.
package examples

import (
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
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

// DataProcessor is example 2: a Job whose pod template uses restartPolicy OnFailure
// and exits 0, so the Job completes without a restart.
func DataProcessor() *batchv1.Job {
	var j batchv1.Job
	mustDecode(`
apiVersion: batch/v1
kind: Job
metadata:
  name: data-processor
spec:
  template:
    spec:
      restartPolicy: OnFailure  # Restarts only on non-zero exit code
      containers:
      - name: processor
        image: busybox:1.28
        command: ['sh', '-c', 'echo "Processing data..."; exit 0']
        # Exit code 0: Job completes successfully, no restart
        # Exit code 1+: Container restarts to retry the job
`, &j)
	return &j
}

// OnFailurePod is the first container restart rules example: under pod restartPolicy
// OnFailure, a container with its own restartPolicy Never runs once.
func OnFailurePod() *corev1.Pod {
	return pod(`
apiVersion: v1
kind: Pod
metadata:
  name: on-failure-pod
spec:
  restartPolicy: OnFailure
  containers:
  - name: try-once-container    # This container will run only once because the restartPolicy is Never.
    image: registry.k8s.io/busybox:1.27.2
    command: ['sh', '-c', 'echo "Only running once" && sleep 10 && exit 1']
    restartPolicy: Never
  - name: on-failure-container  # This container will be restarted on failure.
    image: registry.k8s.io/busybox:1.27.2
    command: ['sh', '-c', 'echo "Keep restarting" && sleep 1800 && exit 1']
`)
}

// FailPodIfInitFails is the second restart rules example: an init container with
// restartPolicy Never under pod restartPolicy Always; if it fails, the pod fails.
func FailPodIfInitFails() *corev1.Pod {
	return pod(`
apiVersion: v1
kind: Pod
metadata:
  name: fail-pod-if-init-fails
spec:
  restartPolicy: Always
  initContainers:
  - name: init-once      # This init container will only try once. If it fails, the pod will fail.
    image: registry.k8s.io/busybox:1.27.2
    command: ['sh', '-c', 'echo "Failing initialization" && sleep 10 && exit 1']
    restartPolicy: Never
  containers:
  - name: main-container # This container will always be restarted once initialization succeeds.
    image: registry.k8s.io/busybox:1.27.2
    command: ['sh', '-c', 'sleep 1800 && exit 0']
`)
}

// RestartOnExitCodes is the third restart rules example: under pod restartPolicy
// Never, the container restarts only when it exits with 42.
func RestartOnExitCodes() *corev1.Pod {
	return pod(`
apiVersion: v1
kind: Pod
metadata:
  name: restart-on-exit-codes
spec:
  restartPolicy: Never
  containers:
  - name: restart-on-exit-codes
    image: registry.k8s.io/busybox:1.27.2
    command: ['sh', '-c', 'sleep 60 && exit 0']
    restartPolicy: Never     # Container restart policy must be specified if rules are specified
    restartPolicyRules:      # Only restart the container if it exits with code 42
    - action: Restart
      exitCodes:
        operator: In
        values: [42]
`)
}

// MLWorker is the in-place pod restart example: the watcher sidecar's exit 88 matches a
// RestartAllContainers rule, which restarts the whole pod in place.
func MLWorker() *corev1.Pod {
	return pod(`
apiVersion: v1
kind: Pod
metadata:
  name: ml-worker
spec:
  restartPolicy: Never # The pod itself should not restart unless explicitly told to.
  initContainers:
  - name: setup-environment
    image: registry.k8s.io/busybox:1.27.2
    command: ['sh', '-c', 'echo "Setting up environment"']
    # This init container runs once to prepare the environment.
    # It will run again after a RestartAllContainers action.
  - name: watcher-sidecar
    image: registry.k8s.io/busybox:1.27.2
    # In a real-world scenario, this would be a dedicated watcher image.
    # This command simulates the watcher exiting with a special code.
    command: ['sh', '-c', 'sleep 60; exit 88']
    restartPolicy: Always
    restartPolicyRules:
    - action: RestartAllContainers
      exitCodes:
        # Exit code 88 triggers a full pod restart.
        operator: In
        values: [88]
  containers:
  - name: main-application
    image: registry.k8s.io/busybox:1.27.2
    command: ['sh', '-c', 'echo "Application is running"; sleep 3600']
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

// ExamplePod is the Node Declared Features page's example: a container with a
// RestartAllContainers rule, which the scheduler may place only on nodes that declare
// RestartAllContainersOnContainerExits.
func ExamplePod() *corev1.Pod {
	return pod(`
apiVersion: v1
kind: Pod
metadata:
  name: example-pod
spec:
  containers:
  - name: main
    image: registry.k8s.io/busybox:1.27.2
    restartPolicy: Never     # A container restart policy is required when rules are set
    restartPolicyRules:      # Restart the whole pod in place on exit code 42
    - action: RestartAllContainers
      exitCodes:
        operator: In
        values: [42]
`)
}

// LivenessHTTP is the "advanced liveness probe example" of the older Chinese
// pod-lifecycle article (seed 002): an HTTP liveness probe with a custom header and
// initialDelaySeconds 15 against k8s.gcr.io/liveness, whose /healthz fails after 10 s.
func LivenessHTTP() *corev1.Pod {
	return pod(`
apiVersion: v1
kind: Pod
metadata:
  labels:
    test: liveness
  name: liveness-http
spec:
  containers:
  - args:
    - /server
    image: k8s.gcr.io/liveness
    livenessProbe:
      httpGet:
        # when "host" is not defined, "PodIP" will be used
        # host: my-host
        # when "scheme" is not defined, "HTTP" scheme will be used. Only "HTTP" and "HTTPS" are allowed
        # scheme: HTTPS
        path: /healthz
        port: 8080
        httpHeaders:
        - name: X-Custom-Header
          value: Awesome
      initialDelaySeconds: 15
      timeoutSeconds: 1
    name: liveness
`)
}

// pod decodes a manifest that is part of this package; a decoding error is a bug in
// the package, found by its unit tests.
func pod(manifest string) *corev1.Pod {
	var p corev1.Pod
	mustDecode(manifest, &p)
	return &p
}

func mustDecode(manifest string, into any) {
	if err := yaml.UnmarshalStrict([]byte(manifest), into); err != nil {
		panic(fmt.Sprintf("examples: decoding a documented manifest: %v", err))
	}
}
