package cluster

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/version"

	"github.com/podlifecycle/conformance/framework/cluster"
	"github.com/podlifecycle/conformance/framework/facts"
	. "github.com/podlifecycle/conformance/framework/match"
	"github.com/podlifecycle/conformance/framework/observe"
	"github.com/podlifecycle/conformance/framework/suite"
)

const podStartBound = suite.PodStartBound

var _ = Describe("The cluster", Label("infra"), func() {
	// No waits: a list of the nodes, and a docker inspect per node of a kind cluster here.
	It("has every node Ready, running the expected kubelet version", suite.Timeout(), func(ctx SpecContext) {
		nodes, err := env.Client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(nodes.Items).NotTo(BeEmpty())
		var table []string
		for _, n := range nodes.Items {
			// The kubelet the node reports is the one its node image holds: the stock
			// v1.37.2 one, or another one put there on purpose (KUBELET, KUBELET_VERSION,
			// a kind config's node image); the image's label names its version.
			got := n.Status.NodeInfo.KubeletVersion
			if env.Facts.LocalNodes {
				Expect(got).To(Equal(imageLabel(n.Name, cluster.KubeletVersionLabel)), "kubelet of %s, against its node image's %s label", n.Name, cluster.KubeletVersionLabel)
			} else {
				Expect(releaseFits(got, suite.ExpectedServerVersion(), schedulable(n.Name))).To(Succeed(), "kubelet of %s", n.Name)
			}
			ready := false
			for _, c := range n.Status.Conditions {
				if c.Type == corev1.NodeReady {
					ready = c.Status == corev1.ConditionTrue
				}
			}
			Expect(ready).To(BeTrue(), "node %s Ready", n.Name)
			table = append(table, fmt.Sprintf("| %s | %s |", n.Name, n.Status.NodeInfo.KubeletVersion))
		}
		AddReportEntry("kubelet version per node", "| node | kubelet version |\n|---|---|\n"+strings.Join(table, "\n"))
	})

	// kubeletHashBound: one node's check, a docker exec that hashes two kubelet binaries
	// of some 80 MB and runs one of them: seconds, up to 10 s on the loaded 2-core
	// machine under nested virtualisation (six of them took more than the 30 s of
	// Overhead there, 2026-12-06). defaultClusterNodes: the nodes of
	// kind-configs/default.yaml, the cluster this suite runs on.
	const kubeletHashBound, defaultClusterNodes = 10 * time.Second, 6
	// A shell on each node: Disruptive by the suite's rule, though it only reads. A
	// version string proves little of a custom kubelet (a patched v1.37.2 says
	// v1.37.2), so the binary is compared by its sha256 with the one the node image was
	// built with (the label images/scripts/node.sh and kubelet.sh put on every node
	// image): the running process's executable (/proc/PID/exe is the inode the kubelet
	// was started from, even after its file was replaced) and the file a kubelet
	// restart would start.
	It("runs on each node the kubelet binary its node image holds", Label(suite.Disruptive), suite.Timeout(defaultClusterNodes*kubeletHashBound), func(ctx SpecContext) {
		env.Require(facts.NodeShell())
		// Both answers must be of one process: a kubelet-restart spec of a suite beside
		// this one (make e2e runs its suites side by side) may restart a kubelet in
		// between, so the pair is read again until the unit's main PID is the same
		// before and after it.
		const script = `for try in 1 2 3 4 5 6 7 8 9 10; do
  pid=$(systemctl show --property MainPID --value kubelet)
  if [ "${pid:-0}" != 0 ] && out=$(sha256sum /proc/$pid/exe /usr/bin/kubelet | cut -d' ' -f1 && /proc/$pid/exe --version 2>/dev/null) &&
     [ "$(systemctl show --property MainPID --value kubelet)" = "$pid" ]; then
    echo "$out"; exit 0
  fi
  sleep 0.5
done
echo "no kubelet process stayed up for the check"; exit 1`
		var table []string
		for _, n := range env.Facts.Nodes {
			want := imageLabel(n.Name, cluster.KubeletSHA256Label)
			out, err := env.NodeShell(ctx, n.Name, script)
			Expect(err).NotTo(HaveOccurred())
			fields := strings.Fields(out) // <running sha256> <file sha256> Kubernetes <version>
			Expect(fields).To(HaveLen(4), "sha256 of the running kubelet and of /usr/bin/kubelet, and its --version, on %s: %q", n.Name, out)
			running, file, runningVersion := fields[0], fields[1], fields[3]
			Expect(running).To(Equal(want), "the kubelet running on %s (version %s) has sha256 %s; its node image was built with %s", n.Name, runningVersion, running, want)
			Expect(file).To(Equal(want), "/usr/bin/kubelet on %s, which a kubelet restart would start, has sha256 %s; its node image was built with %s", n.Name, file, want)
			Expect(runningVersion).To(Equal(imageLabel(n.Name, cluster.KubeletVersionLabel)), "version of the kubelet running on %s", n.Name)
			table = append(table, fmt.Sprintf("| %s | %s | %s |", n.Name, runningVersion, running))
		}
		AddReportEntry("kubelet per node", "| node | running kubelet | its sha256, as its node image's label |\n|---|---|---|\n"+strings.Join(table, "\n"))
	})

	It("runs CoreDNS Ready", suite.Timeout(podStartBound), func(ctx SpecContext) {
		Eventually(func(g Gomega) {
			pods, err := env.Client.CoreV1().Pods("kube-system").List(ctx, metav1.ListOptions{LabelSelector: "k8s-app=kube-dns"})
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(pods.Items).NotTo(BeEmpty())
			for i := range pods.Items {
				g.Expect(&pods.Items[i]).To(HaveCondition(corev1.PodReady, corev1.ConditionTrue, ""))
			}
		}).WithContext(ctx).WithTimeout(podStartBound).Should(Succeed())
	})

	// Four pods, a server and a client on each of two nodes, each waited for in turn;
	// then the Service.
	It("connects pods across nodes by IP and by Service name, with logs and exec working", suite.Timeout(4*podStartBound, 30*time.Second), func(ctx SpecContext) {
		env.Require(facts.SchedulableNodes(2))
		workers := schedulableNodes()
		ns := env.Namespace(ctx)

		servers := map[string]*observe.Timeline{}
		clients := map[string]*observe.Timeline{}
		for i, node := range workers[:2] {
			servers[node] = env.Run(ctx, ns, onNode(webServer(fmt.Sprintf("server-%d", i)), node))
			clients[node] = env.Run(ctx, ns, onNode(client(fmt.Sprintf("client-%d", i)), node))
		}
		for _, tl := range append(values(servers), values(clients)...) {
			Eventually(tl.Pod).WithContext(ctx).WithTimeout(podStartBound).Should(HaveCondition(corev1.PodReady, corev1.ConditionTrue, ""))
		}

		By("each client fetches the page of the server on the other node, by pod IP")
		for i, from := range workers[:2] {
			to := workers[1-i]
			server := servers[to].Pod()
			Expect(server.Status.PodIP).NotTo(BeEmpty())
			page, err := env.Exec(ctx, ns, clients[from].Name, "client", "wget", "-q", "-O", "-", "http://"+server.Status.PodIP+"/")
			Expect(err).NotTo(HaveOccurred(), "pod on %s → pod %s on %s", from, server.Status.PodIP, to)
			Expect(page).To(ContainSubstring("Welcome to nginx"))
		}

		By("a Service name resolves through CoreDNS and answers from the other node")
		svc := &corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Name: "web"},
			Spec: corev1.ServiceSpec{
				Selector: map[string]string{"app": "server-1"},
				Ports:    []corev1.ServicePort{{Port: 80, TargetPort: intstr.FromInt32(80)}},
			},
		}
		Expect(env.Create(ctx, ns, svc)).To(Succeed())
		// The EndpointSlice controller and kube-proxy program the Service within
		// seconds; 30 s bounds it on a loaded 2-core machine.
		Eventually(func() (string, error) {
			return env.Exec(ctx, ns, clients[workers[0]].Name, "client", "wget", "-q", "-O", "-", "http://web."+ns+".svc.cluster.local/")
		}).WithContext(ctx).WithTimeout(30 * time.Second).WithPolling(time.Second).Should(ContainSubstring("Welcome to nginx"))

		By("logs of a container are readable")
		logs, err := env.Logs(ctx, ns, clients[workers[0]].Name, "client")
		Expect(err).NotTo(HaveOccurred())
		Expect(logs).To(ContainSubstring("client on " + workers[0]))
	})

	It("reports each worker's kubelet gates as its kind config set them", suite.Timeout(), func(ctx SpecContext) {
		off := env.Facts.NodesWithLabel(facts.ProfileLabel, "restart-all-off")
		on := env.Facts.NodesWithLabel(facts.ProfileLabel, "defaults")
		if len(off) == 0 || len(on) == 0 {
			Skip("needs the workers labelled restart-all-off and defaults of kind-configs/default.yaml")
		}
		const gate = "RestartAllContainersOnContainerExits"
		Expect(off[0].KubeletGates).To(HaveKeyWithValue(gate, false), "kubelet of %s", off[0].Name)
		Expect(on[0].KubeletGates).To(HaveKeyWithValue(gate, true), "kubelet of %s", on[0].Name)
	})

	// The gates the cluster's configuration asks for (the kind config's and the run's
	// FEATURE_GATES and KUBELET_FEATURE_GATES) are in every component as asked, except
	// the run's gates left out of a worker whose kubelet's release does not know them
	// (a kubelet of another release than the control plane's): that kubelet keeps its
	// default, which is to have no such gate. No waits: env.Facts holds the metrics.
	It("gives every kubelet and the API server the gates asked of them, and no kubelet a gate its release does not know", suite.Timeout(), func(ctx SpecContext) {
		r := env.Cluster.Requested
		if len(r.ClusterGates)+len(r.AllKubeletGates)+len(r.KubeletGates)+len(r.APIServerGates) == 0 {
			Skip("the cluster's configuration asks for no feature gate")
		}
		var table []string
		for _, g := range sortedKeys(r.ClusterGates, r.APIServerGates) {
			on, _ := r.APIServerGate(g)
			Expect(env.Facts.APIServerGates).To(HaveKeyWithValue(g, on), "kube-apiserver's %s", g)
			table = append(table, fmt.Sprintf("| kube-apiserver | | %s | %t |", g, on))
		}
		for _, n := range env.Facts.Nodes {
			profile := n.Labels[facts.ProfileLabel]
			leftOut := map[string]bool{}
			for _, g := range r.LeftOutKubeletGates[profile] {
				leftOut[g] = true
			}
			for _, g := range sortedKeys(r.ClusterGates, r.AllKubeletGates, r.KubeletGates[profile], leftOut) {
				if r.LeftOut(g, profile) {
					Expect(n.KubeletGates).NotTo(HaveKey(g), "kubelet %s of %s: %s was left out of it, as a gate its release does not know, yet it reports it", n.KubeletVersion, n.Name, g)
					table = append(table, fmt.Sprintf("| kubelet %s | %s | %s | left out: unknown to kubelet %s, at its default |", n.KubeletVersion, n.Name, g, n.KubeletVersion))
					continue
				}
				on, asked := r.KubeletGate(g, profile)
				if !asked {
					continue
				}
				Expect(n.KubeletGates).To(HaveKeyWithValue(g, on), "kubelet %s of %s (profile %q): %s", n.KubeletVersion, n.Name, profile, g)
				table = append(table, fmt.Sprintf("| kubelet %s | %s | %s | %t |", n.KubeletVersion, n.Name, g, on))
			}
		}
		AddReportEntry("feature gates asked, per component", "| component | node | gate | set |\n|---|---|---|---|\n"+strings.Join(table, "\n"))
	})

	// The controller managers and schedulers serve their metrics on their node's
	// loopback only: a shell on the control-plane node reads them (Disruptive by the
	// suite's rule, though it only reads).
	It("gives the controller manager and the scheduler the cluster-wide gates", Label(suite.Disruptive), suite.Timeout(), func(ctx SpecContext) {
		env.Require(facts.NodeShell())
		r := env.Cluster.Requested
		if len(r.ClusterGates) == 0 {
			Skip("the cluster's configuration sets no cluster-wide feature gate")
		}
		for _, n := range env.Facts.Nodes {
			if _, cp := n.Labels["node-role.kubernetes.io/control-plane"]; !cp {
				continue
			}
			shell := func(ctx context.Context, script string) (string, error) { return env.NodeShell(ctx, n.Name, script) }
			for _, c := range facts.ControlPlaneComponents() {
				gates, err := facts.ComponentGates(ctx, shell, c)
				Expect(err).NotTo(HaveOccurred())
				for _, g := range sortedKeys(r.ClusterGates) {
					Expect(gates).To(HaveKeyWithValue(g, r.ClusterGates[g]), "%s on %s: %s", c.Name, n.Name, g)
				}
			}
		}
	})
})

// sortedKeys are the keys of the maps, sorted, each once.
func sortedKeys[V any](maps ...map[string]V) []string {
	var out []string
	for _, m := range maps {
		for k := range m {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// releaseFits checks a kubelet version on a cluster the suite did not make, as
// Kubernetes versions, so that a vendor's build suffix (v1.37.2-eks-1a2b) passes when
// the release matches: a node that takes ordinary pods runs the release under test,
// since the specs' pods run there; a node that takes none (tainted, like a worker kept
// at an older release) may run an older one within the version-skew policy (kubelet at
// most three minor versions older than the API server, never newer).
func releaseFits(kubelet, release string, takesPods bool) error {
	got, err := version.ParseSemantic(kubelet)
	if err != nil {
		return fmt.Errorf("kubelet version %q: %w", kubelet, err)
	}
	want := version.MustParseSemantic(release)
	same := got.Major() == want.Major() && got.Minor() == want.Minor() && got.Patch() == want.Patch()
	switch {
	case same:
		return nil
	case takesPods:
		return fmt.Errorf("kubelet %s is not of release %s, and the node takes ordinary pods, where the specs run", kubelet, release)
	case got.Major() != want.Major() || got.Minor() > want.Minor() || got.Minor()+3 < want.Minor():
		return fmt.Errorf("kubelet %s on a node that takes no ordinary pods is outside the version-skew policy for an API server of %s (at most three minors older)", kubelet, release)
	}
	return nil
}

// schedulable says whether the node takes ordinary pods (a worker without a NoSchedule
// or NoExecute taint).
func schedulable(node string) bool {
	for _, n := range env.Facts.Nodes {
		if n.Name == node {
			return n.Schedulable(env.Facts.Nodes)
		}
	}
	return false
}

// imageLabel is a label of the image a kind node's container was made from; a node
// image without it is an error, since every node image the project builds has it.
func imageLabel(node, label string) string {
	GinkgoHelper()
	out, err := exec.Command("docker", "inspect", "--format", fmt.Sprintf(`{{index .Config.Labels %q}}`, label), node).Output()
	Expect(err).NotTo(HaveOccurred(), "docker inspect %s", node)
	v := strings.TrimSpace(string(out))
	Expect(v).NotTo(BeEmpty(), "the node image of %s has no label %s: it was not built by this project's images/ (make images builds it again)", node, label)
	return v
}

func schedulableNodes() []string {
	var out []string
	for _, n := range env.Facts.Nodes {
		if n.Schedulable(env.Facts.Nodes) {
			out = append(out, n.Name)
		}
	}
	return out
}

func onNode(p *corev1.Pod, node string) *corev1.Pod {
	p.Spec.NodeSelector = map[string]string{"kubernetes.io/hostname": node}
	return p
}

func webServer(name string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"app": name}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{
			Name: "nginx", Image: "nginx:1.14.2",
			ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/", Port: intstr.FromInt32(80)}}, PeriodSeconds: 1},
		}}},
	}
}

func client(name string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{
			Name: "client", Image: "busybox:1.28",
			Command: []string{"sh", "-c", `echo "client on $NODE"; exec sleep 3600`},
			Env:     []corev1.EnvVar{{Name: "NODE", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "spec.nodeName"}}}},
		}}, TerminationGracePeriodSeconds: new(int64)},
	}
}

func values(m map[string]*observe.Timeline) []*observe.Timeline {
	var out []*observe.Timeline
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

var _ = Describe("A kind config", Label("infra"), func() {
	// No waits: the gates are checked by two short-lived `docker run`s before any node
	// exists, and `docker ps` lists what is left.
	It("that sets an unknown feature gate is rejected before any node boots", suite.Timeout(), func(ctx SpecContext) {
		if env.Cluster.Provider != "kind" {
			Skip("runs only with the kind provider (KUBECONFIG is set)")
		}
		path := filepath.Join(GinkgoT().TempDir(), "unknown-gate.yaml")
		Expect(os.WriteFile(path, []byte("kind: Cluster\napiVersion: kind.x-k8s.io/v1alpha4\n"+
			"featureGates:\n  NoSuchGateInKubernetes: true\nnodes:\n- role: control-plane\n"), 0o644)).To(Succeed())
		provider, err := cluster.NewKind(path, suite.KindOptions())
		Expect(err).NotTo(HaveOccurred())
		_, err = provider.Acquire(ctx)
		Expect(err).To(MatchError(And(ContainSubstring("unrecognized feature gate"), ContainSubstring("NoSuchGateInKubernetes"))))

		out, err := exec.CommandContext(ctx, "docker", "ps", "-a", "--format", `{{.Label "io.x-k8s.kind.cluster"}}`).Output()
		Expect(err).NotTo(HaveOccurred())
		for _, c := range strings.Fields(string(out)) {
			Expect(c).NotTo(HavePrefix("plc-unknown-gate-"), "no node container may exist for the rejected config")
		}
	})
})
