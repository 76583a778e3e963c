package restart

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/types"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/podlifecycle/conformance/framework/backoff"
	"github.com/podlifecycle/conformance/framework/facts"
	. "github.com/podlifecycle/conformance/framework/match"
	"github.com/podlifecycle/conformance/framework/observe"
	"github.com/podlifecycle/conformance/framework/suite"
)

const podStartBound = suite.PodStartBound

// restartAllContainersNode is where a pod with a RestartAllContainers rule is pinned:
// the API server must accept the action (and rules at all), and the kubelet of the
// node (the "defaults" worker of a kind config, or any node whose gates fit) must
// carry it out.
func restartAllContainersNode() facts.Node {
	GinkgoHelper()
	env.Require(facts.APIServerGate("RestartAllContainersOnContainerExits", true), facts.APIServerGate("ContainerRestartRules", true))
	return env.NodeFor("defaults", map[string]bool{"RestartAllContainersOnContainerExits": true, "ContainerRestartRules": true})
}

// crashLoopBound is how long crashloop.CheckLoop waits for a crash loop whose crasher
// runs take runs together (its one Eventually): the pod's start and the loop's budget.
func crashLoopBound(expected []time.Duration, runs time.Duration) time.Duration {
	return podStartBound + backoff.Budget(expected) + runs
}

// longestDelays are the kubelet settings whose documented delays are the longest:
// the default 10 s start is the longest Documented gives, and a cap at most shortens
// the loops of this suite (40 s at their longest). A spec that checks whatever delays
// its node documents waits no longer than it would under these.
var longestDelays = backoff.Settings{}

// firstRestartBound: the kubelet restarts a container at once after its first exit
// (RS-6); the bound is the container's start latency on a loaded machine.
const firstRestartBound = 20 * time.Second

func container(name, script string) corev1.Container {
	return corev1.Container{Name: name, Image: "busybox:1.28", Command: []string{"sh", "-c", observe.MarkShell(name) + script}}
}

func pod(name string, policy corev1.RestartPolicy, containers ...corev1.Container) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       corev1.PodSpec{RestartPolicy: policy, Containers: containers, TerminationGracePeriodSeconds: ptr(int64(1))},
	}
}

func ptr[T any](v T) *T { return &v }

// exitedWith matches a pod status that shows container name ended with reason: as its
// state (Terminated, before the restart) or as its lastState (after it). A v1.37.2
// kubelet here sometimes reports a restarted container with no lastState at all (three
// runs on 2026-12-06, for minutes, under load), so a spec that needs the exit behind a
// restart reads it from every status the watch saw, through either field.
func exitedWith(name, reason string) types.GomegaMatcher {
	ended := func(t *corev1.ContainerStateTerminated) bool { return t != nil && t.Reason == reason }
	return WithTransform(func(p *corev1.Pod) bool {
		s := ContainerStatus(p, name)
		return s != nil && (ended(s.State.Terminated) || ended(s.LastTerminationState.Terminated))
	}, BeTrue())
}

// restartedAfter matches the statuses a watch saw (Timeline.Pods, oldest first) when
// the latest shows container name restarted and holds now, and some status shows the exit
// behind the restart with reason (exitedWith: the lastState is not always reported).
func restartedAfter(name, reason string, now ...types.GomegaMatcher) types.GomegaMatcher {
	latest := append([]types.GomegaMatcher{HaveContainerRestarts(name, BeNumerically(">=", 1))}, now...)
	return And(latestIs(And(latest...)), ContainElement(exitedWith(name, reason)))
}

// latestIs applies m to the latest of the statuses a watch saw.
func latestIs(m types.GomegaMatcher) types.GomegaMatcher {
	return WithTransform(func(ps []*corev1.Pod) *corev1.Pod {
		if len(ps) == 0 {
			return nil
		}
		return ps[len(ps)-1]
	}, m)
}

// markersOf reads the pod's shared marker file through a running container.
func markersOf(ctx context.Context, ns, pod, via string) observe.Log {
	GinkgoHelper()
	ms, err := env.MarkerFile(ctx, ns, pod, via)
	Expect(err).NotTo(HaveOccurred())
	return ms
}
