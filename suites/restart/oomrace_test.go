package restart

import (
	"context"
	"fmt"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"

	"github.com/podlifecycle/conformance/framework/drift"
	"github.com/podlifecycle/conformance/framework/facts"
	. "github.com/podlifecycle/conformance/framework/match"
	"github.com/podlifecycle/conformance/framework/observe"
	"github.com/podlifecycle/conformance/framework/suite"
)

// forcedOOMBound bounds each wait of the forced race: the kill after the trigger (a
// 16Mi limit is reached in well under a second), the removal of the container's
// cgroup after its last process exits, and the status after the shim resumes (the
// next relist).
const forcedOOMBound = 20 * time.Second

// The OOM race made to happen on purpose, so that RS-2's verdict on it is the same
// run after run: the spec holds the pod's containerd shim stopped (SIGSTOP) across
// the OOM kill of a container whose process 1 is the one killed, and resumes it only
// once the container's memory cgroup is gone. A runtime that learns of OOM kills
// only from the cgroup's event while the cgroup exists then reports Error (exit
// 137); one that records the kill otherwise (the kernel's oom_kill count kept past
// the cgroup, the exit status read with the kill's cause) reports OOMKilled, as the
// pages promise. The measurement decides which, and a reason other than OOMKilled is
// drift with this reproducer. The six-pod spec of policy_test.go measures how often
// the race happens unforced, under the run's own load.
var _ = Describe("Restart policy, OOM race", Label(suite.Disruptive), func() {
	It("reports an OOM kill as OOMKilled even when the runtime resumes only after the container's cgroup is gone (the race forced)",
		Label("RS-2"), suite.Timeout(podStartBound, 3*forcedOOMBound+10*time.Second), func(ctx SpecContext) {
			env.Require(facts.NodeShell())
			ns := env.Namespace(ctx)
			p := oomKilledAtOnce("oom-forced")
			// main grows only once the spec has stopped the shim: the trigger file is
			// written from the node into the container's root (/proc/<pid>/root), which
			// needs no shim, where an exec would.
			p.Spec.Containers[0].Command = []string{"sh", "-c", observe.MarkShell("main") +
				"mark start; while [ ! -e /tmp/grow ]; do sleep 0.1; done; exec tail /dev/zero"}
			tl := env.Run(ctx, ns, p)
			Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound).Should(HaveContainerState("main", "Running", ""))
			node := tl.Pod().Spec.NodeName
			id, ok := strings.CutPrefix(tl.Pod().Status.ContainerStatuses[0].ContainerID, "containerd://")
			Expect(ok).To(BeTrue(), "a containerd container: %s", tl.Pod().Status.ContainerStatuses[0].ContainerID)

			// The container's process 1, its shim (the parent of every container of the
			// pod's sandbox) and its memory cgroup, read before anything stops.
			shell := func(script string) string {
				GinkgoHelper()
				out, err := env.NodeShell(ctx, node, script)
				Expect(err).NotTo(HaveOccurred(), "on %s: %s", node, out)
				return strings.TrimSpace(out)
			}
			fields := strings.Fields(shell(fmt.Sprintf(`pid=$(crictl --timeout=10s inspect -o go-template --template '{{.info.pid}}' %s) &&
shim=$(awk '/^PPid:/ {print $2}' /proc/$pid/status) &&
grep -q containerd-shim /proc/$shim/cmdline &&
cg=$(awk -F: '$2 == "memory" {print $3}' /proc/$pid/cgroup) &&
echo "$pid $shim $cg"`, id)))
			Expect(fields).To(HaveLen(3), "pid, shim and memory cgroup of container %s", id)
			pid, shim, cgroup := fields[0], fields[1], "/sys/fs/cgroup/memory"+fields[2]

			// Resumed in any case, also when the spec fails or times out meanwhile.
			resume := func(c context.Context) { _, _ = env.NodeShell(c, node, "kill -CONT "+shim) }
			DeferCleanup(resume, NodeTimeout(10*time.Second))
			shell(fmt.Sprintf("kill -STOP %s && touch /proc/%s/root/tmp/grow", shim, pid))
			stoppedAt := time.Now()

			// The kill: process 1 dead (a zombie its stopped parent has not reaped, or
			// gone); then the cgroup removed, which the systemd cgroup driver does as
			// soon as the cgroup has no process left.
			Eventually(func() string {
				return shell(fmt.Sprintf(`if [ ! -e /proc/%[1]s ] || grep -q '^State:.*Z' /proc/%[1]s/status; then echo dead; else echo alive; fi`, pid))
			}).WithContext(ctx).WithTimeout(forcedOOMBound).WithPolling(200*time.Millisecond).Should(Equal("dead"),
				"RS-2: the container's process 1 was not killed after it began to grow past its 16Mi limit")
			gone := func() bool { return shell(fmt.Sprintf(`[ -d %s ] && echo present || echo gone`, cgroup)) == "gone" }
			Eventually(gone).WithContext(ctx).WithTimeout(forcedOOMBound).WithPolling(200*time.Millisecond).Should(BeTrue(),
				"the container's memory cgroup %s stayed after its process died, with the shim stopped: the race could not be forced on this node", cgroup)
			resume(ctx)
			AddReportEntry("OOM race forced: shim stopped, process 1 killed, cgroup gone, shim resumed", time.Since(stoppedAt).Round(time.Millisecond).String())

			Eventually(tl.Pod).WithContext(ctx).WithTimeout(forcedOOMBound).Should(And(
				HavePhase(corev1.PodFailed), HaveContainerRestarts("main", 0)), "RS-2 (Never):\n%s", tl)
			st := tl.Pod().Status.ContainerStatuses[0].State.Terminated
			Expect(st).NotTo(BeNil())
			Expect(st.ExitCode).To(BeEquivalentTo(137), "RS-2: the OOM killer's SIGKILL ends the container:\n%s", tl)
			suite.Drift(drift.Observation[string]{
				Statement:  "RS-2",
				Topic:      "an OOM kill reported as Error when the runtime reads the OOM event after the container's cgroup is gone",
				Docs:       "a container the OOM killer ended is reported with reason OOMKilled",
				Documented: "OOMKilled",
				Measured:   st.Reason,
				Evidence: fmt.Sprintf("container %s's process 1 OOM-killed with the pod's containerd shim stopped; the shim resumed once the memory cgroup %s was gone; reported reason %q, exit %d:\n%s",
					id, cgroup, st.Reason, st.ExitCode, tl),
				Reproducer: suite.Reproducer(p, "any node; on the node, with the container running: kill -STOP <its shim>; touch /proc/<its pid>/root/tmp/grow; wait for its memory cgroup to go; kill -CONT <the shim>"),
			})
		})
})
