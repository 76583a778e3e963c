package suite

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/podlifecycle/conformance/framework/observe"
)

// MarkerFollower follows the logs of a pod's containers (Follow=true) from the moment
// each can be read until it exits, keeping every line. Markers read after a deleted pod
// has stopped cannot come from the kubelet's log API: once such a pod is terminal the
// kubelet removes all of its dead containers, logs included
// (cleanUpContainersInPod with removeAll), and a read races with that removal.
type MarkerFollower struct {
	mu    sync.Mutex
	lines map[string][]byte
	errs  map[string]error
	done  map[string]chan struct{}
}

// FollowMarkers starts following the named containers of pod in ns. A container that
// has not started yet is waited for, as long as ctx lasts. Stop by cancelling ctx.
func (e *Env) FollowMarkers(ctx context.Context, ns, pod string, containers ...string) *MarkerFollower {
	f := &MarkerFollower{lines: map[string][]byte{}, errs: map[string]error{}, done: map[string]chan struct{}{}}
	for _, c := range containers {
		f.done[c] = make(chan struct{})
		go f.follow(ctx, e, ns, pod, c)
	}
	return f
}

func (f *MarkerFollower) follow(ctx context.Context, e *Env, ns, pod, container string) {
	defer close(f.done[container])
	req := e.Client.CoreV1().Pods(ns).GetLogs(pod, &corev1.PodLogOptions{Container: container, Follow: true})
	// The log is opened once the container has started: before, the API answers with
	// an error, or, for a created container, the kubelet ends a follow at once because
	// the container is not running.
	err := wait.PollUntilContextCancel(ctx, 200*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		p, err := e.Client.CoreV1().Pods(ns).Get(ctx, pod, metav1.GetOptions{})
		if err != nil || !hasStarted(p, container) {
			return false, nil
		}
		stream, err := req.Stream(ctx)
		if err != nil {
			return false, nil
		}
		defer stream.Close()
		sc := bufio.NewScanner(stream)
		for sc.Scan() {
			f.mu.Lock()
			f.lines[container] = append(append(f.lines[container], sc.Bytes()...), '\n')
			f.mu.Unlock()
		}
		return true, sc.Err()
	})
	if err != nil {
		f.mu.Lock()
		f.errs[container] = err
		f.mu.Unlock()
	}
}

// hasStarted says whether container has run: it is running or has terminated.
func hasStarted(p *corev1.Pod, container string) bool {
	for _, st := range append(p.Status.InitContainerStatuses, p.Status.ContainerStatuses...) {
		if st.Name == container {
			return st.State.Running != nil || st.State.Terminated != nil || st.LastTerminationState.Terminated != nil
		}
	}
	return false
}

// Log is the markers every followed container wrote so far, merged in time order.
func (f *MarkerFollower) Log() observe.Log {
	f.mu.Lock()
	defer f.mu.Unlock()
	var lists [][]observe.Marker
	for _, b := range f.lines {
		ms, _ := observe.ParseMarkers(bytes.NewReader(b)) // reading a byte slice cannot fail
		lists = append(lists, ms)
	}
	return observe.MergeMarkers(lists...)
}

// Wait waits until every followed container's log has ended (the container exited)
// or timeout passes, and returns the merged markers.
func (f *MarkerFollower) Wait(timeout time.Duration) (observe.Log, error) {
	deadline := time.After(timeout)
	for c, done := range f.done {
		select {
		case <-done:
		case <-deadline:
			return f.Log(), fmt.Errorf("the log of container %s had not ended %s after its pod stopped", c, timeout)
		}
	}
	f.mu.Lock()
	var err error
	for c, e := range f.errs {
		err = fmt.Errorf("following the log of container %s: %w", c, e)
	}
	f.mu.Unlock()
	return f.Log(), err
}
