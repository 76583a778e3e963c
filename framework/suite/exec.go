package suite

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"os/exec"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/remotecommand"
	"k8s.io/streaming/pkg/httpstream"

	"github.com/podlifecycle/conformance/framework/observe"
)

// Exec runs cmd in a container and returns its stdout; a non-zero exit is an error
// carrying stderr.
func (e *Env) Exec(ctx context.Context, ns, pod, container string, cmd ...string) (string, error) {
	cfg, err := e.Cluster.RestConfig()
	if err != nil {
		return "", err
	}
	req := e.Client.CoreV1().RESTClient().Post().Resource("pods").Namespace(ns).Name(pod).SubResource("exec").
		VersionedParams(&corev1.PodExecOptions{Container: container, Command: cmd, Stdout: true, Stderr: true}, scheme.ParameterCodec)
	exec, err := newExecutor(cfg, req.URL())
	if err != nil {
		return "", fmt.Errorf("exec in %s/%s: %w", ns, pod, err)
	}
	var stdout, stderr bytes.Buffer
	if err := exec.StreamWithContext(ctx, remotecommand.StreamOptions{Stdout: &stdout, Stderr: &stderr}); err != nil {
		return stdout.String(), fmt.Errorf("exec %v in %s/%s/%s: %w (stderr: %s)", cmd, ns, pod, container, err, stderr.String())
	}
	return stdout.String(), nil
}

// newExecutor streams over WebSocket, where Kubernetes is moving exec from SPDY
// (KEP-4006), and falls back to SPDY as kubectl exec does, so that an API server or a
// proxy that cannot upgrade to WebSocket still gets the exec through.
func newExecutor(cfg *rest.Config, u *url.URL) (remotecommand.Executor, error) {
	spdy, err := remotecommand.NewSPDYExecutor(cfg, "POST", u)
	if err != nil {
		return nil, err
	}
	// RFC 6455 opens a WebSocket with a GET; the SPDY upgrade is a POST.
	websocket, err := remotecommand.NewWebSocketExecutor(cfg, "GET", u.String())
	if err != nil {
		return nil, err
	}
	return remotecommand.NewFallbackExecutor(websocket, spdy, fallBackToSPDY)
}

// fallBackToSPDY is true when the WebSocket never opened: the server refused the
// upgrade, or an HTTPS proxy the WebSocket dialer cannot use stood in the way. An
// error once the stream is open (the command failed) is the command's own and is not
// retried, which would run it twice. The error types are k8s.io/streaming's, which
// client-go's transports return, not apimachinery's look-alikes.
func fallBackToSPDY(err error) bool {
	return httpstream.IsUpgradeFailure(err) || httpstream.IsHTTPSProxyError(err)
}

// Logs returns the current log of a container.
func (e *Env) Logs(ctx context.Context, ns, pod, container string) (string, error) {
	b, err := e.Client.CoreV1().Pods(ns).GetLogs(pod, &corev1.PodLogOptions{Container: container}).DoRaw(ctx)
	if err != nil {
		return "", fmt.Errorf("logs of %s/%s/%s: %w", ns, pod, container, err)
	}
	return string(b), nil
}

// previousLogWait is how long Markers waits for the kubelet to serve a previous
// instance's log. The kubelet finds that instance through its own status's lastState
// and answers 400 while it has none: in the kill matrix's stock run of 2026-12-06 it
// did so 80 ms after a status with restarts=1 reached the watch. 15 s is five of the
// kubelet's relists on a loaded machine; a log that never comes still fails the spec.
const previousLogWait = 15 * time.Second

// Markers reads the millisecond markers a container wrote to its log (see
// observe.MarkShell), from the current instance or, with previous, the one before.
func (e *Env) Markers(ctx context.Context, ns, pod, container string, previous bool) (observe.Log, error) {
	var b []byte
	var refused error // the kubelet's last 400 for a previous instance
	read := func(ctx context.Context) (bool, error) {
		var err error
		b, err = e.Client.CoreV1().Pods(ns).GetLogs(pod, &corev1.PodLogOptions{Container: container, Previous: previous}).DoRaw(ctx)
		if previous && apierrors.IsBadRequest(err) {
			refused = err
			return false, nil
		}
		return err == nil, err
	}
	var err error
	if previous {
		err = wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, previousLogWait, true, read)
		if wait.Interrupted(err) && refused != nil {
			err = fmt.Errorf("refused for %v: %w", previousLogWait, refused)
		}
	} else {
		_, err = read(ctx)
	}
	if err != nil {
		return nil, fmt.Errorf("logs of %s/%s/%s (previous: %t): %w", ns, pod, container, previous, err)
	}
	return observe.ParseMarkers(bytes.NewReader(b))
}

// NodeShell runs a shell script inside a kind node (its container has the node's
// name), for what only the node can do: restarting the kubelet, stopping a sandbox.
// A spec that needs it requires facts.NodeShell() up front, so that it is skipped
// before it has made anything on a cluster whose nodes are not containers here.
//
// The spec must carry the Disruptive label (a shell on a node is one of its rule's
// cases): NodeShell fails otherwise, so that a spec that gains a shell cannot run on
// another person's cluster unlabelled.
func (e *Env) NodeShell(ctx context.Context, node, script string) (string, error) {
	if !slices.Contains(CurrentSpecReport().Labels(), Disruptive) {
		return "", fmt.Errorf("a shell on node %s from a spec not labelled %s: label it (suite.Disruptive)", node, Disruptive)
	}
	return e.nodeShell(ctx, node, script)
}

// nodeShell is NodeShell for the suite's own reading of a node (the control plane's
// gates for the report, the kubelet's log lines about a failed spec), which change
// nothing.
func (e *Env) nodeShell(ctx context.Context, node, script string) (string, error) {
	if !e.Facts.LocalNodes {
		return "", fmt.Errorf("no shell on node %s: the spec must require facts.NodeShell()", node)
	}
	out, err := exec.CommandContext(ctx, "docker", "exec", node, "sh", "-c", script).CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("on node %s: %s: %w: %s", node, script, err, out)
	}
	return string(out), nil
}

// MarkerFile reads the pod's shared marker file (observe.WithMarkers) through a
// running container, via.
func (e *Env) MarkerFile(ctx context.Context, ns, pod, via string) (observe.Log, error) {
	out, err := e.Exec(ctx, ns, pod, via, "cat", observe.MarkerDir+"/markers")
	if err != nil {
		return nil, err
	}
	return observe.ParseMarkers(strings.NewReader(out))
}
