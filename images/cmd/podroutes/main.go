// Command podroutes gives its node a route to every other node's pod range, through
// that node's InternalIP. Pod addresses come from the ptp CNI plugin, which containerd
// configures from the node's podCIDR; ptp only routes the pods of its own node. This is
// the routing half of kind's kindnetd, which cannot be built from the Go module proxy.
//
// It reaches the API server at CONTROL_PLANE_ENDPOINT (host:port, which kind fills in)
// rather than through the kubernetes Service, so it needs no kube-proxy rules; and it
// answers /readyz on -health-addr once every node with a pod range has its route.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/vishvananda/netlink"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
)

func main() {
	resync := flag.Duration("resync", 30*time.Second, "how often every route is re-applied, repairing any removed by hand")
	healthAddr := flag.String("health-addr", ":9363", "address of the /readyz endpoint")
	flag.Parse()
	self := os.Getenv("NODE_NAME")
	if self == "" {
		log.Fatal("NODE_NAME is not set (set it from spec.nodeName with the downward API)")
	}
	if ep := os.Getenv("CONTROL_PLANE_ENDPOINT"); ep != "" {
		host, port, err := net.SplitHostPort(ep)
		if err != nil {
			log.Fatalf("CONTROL_PLANE_ENDPOINT %q: %v", ep, err)
		}
		os.Setenv("KUBERNETES_SERVICE_HOST", host)
		os.Setenv("KUBERNETES_SERVICE_PORT", port)
	}
	cfg, err := rest.InClusterConfig()
	if err != nil {
		log.Fatalf("in-cluster config: %v", err)
	}
	client, err := corev1client.NewForConfig(cfg)
	if err != nil {
		log.Fatalf("client: %v", err)
	}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()

	// One informer on Nodes, from the core REST client: client-go's informer factory
	// would compile the informers and listers of every API group into this binary.
	nodes := cache.NewSharedIndexInformer(
		cache.NewListWatchFromClient(client.RESTClient(), "nodes", "", fields.Everything()),
		&corev1.Node{}, *resync, cache.Indexers{})
	changed := make(chan struct{}, 1)
	poke := func(any) {
		select {
		case changed <- struct{}{}:
		default:
		}
	}
	if _, err := nodes.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    poke,
		UpdateFunc: func(_, n any) { poke(n) },
		DeleteFunc: poke,
	}); err != nil {
		log.Fatalf("watching nodes: %v", err)
	}
	var ready atomic.Bool
	go serveReadiness(*healthAddr, &ready)
	go nodes.Run(ctx.Done())
	cache.WaitForCacheSync(ctx.Done(), nodes.HasSynced)

	for {
		select {
		case <-ctx.Done():
			return
		case <-changed:
			complete := true
			for _, obj := range nodes.GetStore().List() {
				n := obj.(*corev1.Node)
				if n.Name == self {
					continue
				}
				if err := routeTo(n); err != nil {
					complete = false
					log.Printf("route to pods of %s: %v", n.Name, err)
				}
			}
			ready.Store(complete)
		}
	}
}

// serveReadiness answers /readyz with 200 once every known node has its route.
func serveReadiness(addr string, ready *atomic.Bool) {
	mux := http.NewServeMux()
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		if !ready.Load() {
			http.Error(w, "routes not complete", http.StatusServiceUnavailable)
			return
		}
		w.Write([]byte("ok\n"))
	})
	log.Fatal(http.ListenAndServe(addr, mux))
}

// routeTo installs (or replaces) one route per pod CIDR of node n via its InternalIP.
func routeTo(n *corev1.Node) error {
	gw := internalIP(n)
	if gw == nil {
		return fmt.Errorf("node has no InternalIP yet")
	}
	if len(n.Spec.PodCIDRs) == 0 {
		return fmt.Errorf("node has no pod CIDR yet")
	}
	for _, c := range n.Spec.PodCIDRs {
		_, dst, err := net.ParseCIDR(c)
		if err != nil {
			return fmt.Errorf("pod CIDR %q: %w", c, err)
		}
		if (dst.IP.To4() == nil) != (gw.To4() == nil) {
			continue // a CIDR of the other address family needs a gateway of that family
		}
		if err := netlink.RouteReplace(&netlink.Route{Dst: dst, Gw: gw}); err != nil {
			return fmt.Errorf("ip route replace %s via %s: %w", dst, gw, err)
		}
	}
	return nil
}

func internalIP(n *corev1.Node) net.IP {
	for _, a := range n.Status.Addresses {
		if a.Type == corev1.NodeInternalIP {
			if ip := net.ParseIP(a.Address); ip != nil && ip.To4() != nil {
				return ip
			}
		}
	}
	return nil
}
