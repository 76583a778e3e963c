package observe

import (
	"regexp"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// The rule of a host flake: the container runtime failed to create a container for a
// reason of the host's cgroups, not of the pod. On a cgroup v1 host under load runc
// now and then cannot freeze or configure a new container's cgroup ("runc create
// failed: … error setting cgroup config for procHooks process: unable to freeze");
// the same pod made again starts. Both parts must match: an OCI runtime's create
// failure (a StartError, RunContainerError or CreateContainerError the kubelet reports
// with the runtime's message), and a cgroup operation as its cause. A command that
// does not exist, an image without the binary, a kubelet's own refusal: none of those
// names a cgroup, so none is ever taken for a host flake.
var (
	runtimeCreateFailed = regexp.MustCompile(`OCI runtime create failed|runc create failed`)
	cgroupOfTheHost     = regexp.MustCompile(`unable to freeze|error setting cgroup config|cgroup\S*: (device or resource busy|no such file or directory|operation not permitted)`)
)

// hostFlakeReasons are the container state reasons under which the kubelet reports a
// runtime's failure to create or start a container.
var hostFlakeReasons = map[string]bool{"StartError": true, "RunContainerError": true, "CreateContainerError": true}

// IsHostFlake applies the rule to one container state's reason and message.
func IsHostFlake(reason, message string) bool {
	return hostFlakeReasons[reason] && runtimeCreateFailed.MatchString(message) && cgroupOfTheHost.MatchString(message)
}

// HostFlake is the first container of p, init, sidecar or regular, whose state or last
// termination is a host flake, with the runtime's message: "" when there is none.
func HostFlake(p *corev1.Pod) string {
	statuses := append(append([]corev1.ContainerStatus(nil), p.Status.InitContainerStatuses...), p.Status.ContainerStatuses...)
	for _, s := range statuses {
		for _, st := range []corev1.ContainerState{s.State, s.LastTerminationState} {
			switch {
			case st.Terminated != nil && IsHostFlake(st.Terminated.Reason, st.Terminated.Message):
				return s.Name + ": " + strings.TrimSpace(st.Terminated.Message)
			case st.Waiting != nil && IsHostFlake(st.Waiting.Reason, st.Waiting.Message):
				return s.Name + ": " + strings.TrimSpace(st.Waiting.Message)
			}
		}
	}
	return ""
}
