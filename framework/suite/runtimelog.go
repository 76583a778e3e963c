package suite

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/podlifecycle/conformance/framework/observe"
)

// ErrNoRuntimeLog: the nodes are not the suite's own (no shell to read a journal), or
// their runtime is not containerd; a spec then times the signals by its containers'
// markers alone.
var ErrNoRuntimeLog = errors.New("no containerd journal to read on this cluster's nodes")

// RuntimeStops reads, from the containerd journal of pod's node between since and
// until, how the kubelet stopped each of pod's containers (observe.RuntimeStop). It
// changes nothing on the node. A second of slack each side: journalctl takes whole
// seconds.
func (e *Env) RuntimeStops(ctx context.Context, pod *corev1.Pod, since, until time.Time) ([]observe.RuntimeStop, error) {
	if !e.Facts.LocalNodes || pod.Spec.NodeName == "" {
		return nil, ErrNoRuntimeLog
	}
	names := map[string]string{}
	var grep strings.Builder
	for _, s := range append(append([]corev1.ContainerStatus(nil), pod.Status.InitContainerStatuses...), pod.Status.ContainerStatuses...) {
		if !strings.HasPrefix(s.ContainerID, "containerd://") {
			if s.ContainerID != "" {
				return nil, ErrNoRuntimeLog
			}
			continue
		}
		id := observe.ContainerIDOf(s.ContainerID)
		names[id] = s.Name
		fmt.Fprintf(&grep, " -e '%s'", id)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("pod %s/%s has no container ID in its status", pod.Namespace, pod.Name)
	}
	out, err := e.nodeShell(ctx, pod.Spec.NodeName, fmt.Sprintf(
		"journalctl -u containerd --since @%d --until @%d --no-pager -o cat | grep -F%s || true",
		since.Unix()-1, until.Unix()+1, grep.String()))
	if err != nil {
		return nil, err
	}
	return observe.ParseRuntimeStops(strings.NewReader(out), names)
}

// RuntimeStarts reads, from the containerd journal of pod's node between since and
// until, how the runtime made and started each of pod's containers
// (observe.RuntimeStart). It changes nothing on the node. since must come before the
// pod's sandbox was made (its UID ties the containers' lines to it).
func (e *Env) RuntimeStarts(ctx context.Context, pod *corev1.Pod, since, until time.Time) ([]observe.RuntimeStart, error) {
	if !e.Facts.LocalNodes || pod.Spec.NodeName == "" {
		return nil, ErrNoRuntimeLog
	}
	for _, s := range pod.Status.ContainerStatuses {
		if s.ContainerID != "" && !strings.HasPrefix(s.ContainerID, "containerd://") {
			return nil, ErrNoRuntimeLog
		}
	}
	out, err := e.nodeShell(ctx, pod.Spec.NodeName, fmt.Sprintf(
		"journalctl -u containerd --since @%d --until @%d --no-pager -o cat | grep -F -e '%s' -e 'CreateContainer within sandbox' -e 'StartContainer for' || true",
		since.Unix()-1, until.Unix()+1, pod.UID))
	if err != nil {
		return nil, err
	}
	return observe.ParseRuntimeStarts(strings.NewReader(out), string(pod.UID))
}
