package cluster

import (
	"context"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
)

// systemReadyBound bounds the wait for kube-system after kind reports the control
// plane ready: the network DaemonSet, kube-proxy and CoreDNS start in well under a
// minute on kind; two minutes allows for a loaded 2-core machine.
const systemReadyBound = 2 * time.Minute

// waitForSystem waits until all wantNodes nodes are Ready, every DaemonSet in kube-system is ready on every node it
// targets and every Deployment there is fully available. kind's own wait covers the
// control plane only; specs need pod networking between nodes (the network DaemonSet
// reports ready once it has routed every node), Service routing and DNS.
func waitForSystem(ctx context.Context, c *Cluster, wantNodes int) error {
	client, err := c.Client()
	if err != nil {
		return err
	}
	var notReady []string
	err = wait.PollUntilContextTimeout(ctx, time.Second, systemReadyBound, true, func(ctx context.Context) (bool, error) {
		notReady = nil
		nodes, err := client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, nil
		}
		ready := 0
		for _, n := range nodes.Items {
			for _, cond := range n.Status.Conditions {
				if cond.Type == corev1.NodeReady && cond.Status == corev1.ConditionTrue {
					ready++
				}
			}
		}
		if ready < wantNodes {
			// kind's create can return with a worker whose kubelet never registered.
			notReady = append(notReady, fmt.Sprintf("nodes %d Ready of %d in the config", ready, wantNodes))
		}
		dss, err := client.AppsV1().DaemonSets("kube-system").List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, nil // the API server may still be settling; keep polling
		}
		for _, ds := range dss.Items {
			if ds.Status.DesiredNumberScheduled == 0 || ds.Status.NumberReady < ds.Status.DesiredNumberScheduled {
				notReady = append(notReady, fmt.Sprintf("daemonset %s %d/%d", ds.Name, ds.Status.NumberReady, ds.Status.DesiredNumberScheduled))
			}
		}
		deps, err := client.AppsV1().Deployments("kube-system").List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, nil
		}
		for _, d := range deps.Items {
			want := int32(1)
			if d.Spec.Replicas != nil {
				want = *d.Spec.Replicas
			}
			if d.Status.AvailableReplicas < want {
				notReady = append(notReady, fmt.Sprintf("deployment %s %d/%d", d.Name, d.Status.AvailableReplicas, want))
			}
		}
		return len(notReady) == 0, nil
	})
	if err != nil {
		return fmt.Errorf("kube-system of cluster %s not ready after %s (%s): %w", c.Name, systemReadyBound, strings.Join(notReady, ", "), err)
	}
	return nil
}
