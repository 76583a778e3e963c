// Command draplugin is the smallest DRA driver a kubelet accepts: it registers with the
// kubelet of its node through the plugin registration socket and answers
// NodePrepareResources and NodeUnprepareResources (DRA gRPC v1) for the claims of its
// driver. It publishes no ResourceSlice and needs no API access: the spec publishes the
// slice and the device class, so the program holds no credentials.
//
// While the hold file exists, every NodePrepareResources call waits (up to the
// kubelet's own deadline), so a spec can keep a pod's claims unprepared for as long as
// it watches the pod, then release them: `draplugin release` removes the file (run it
// with kubectl exec). Each event is a marker line `<unix-ms> <name> <event>` on stdout,
// the format of the suite's container markers:
//
//	registered | registration refused: <error>
//	prepare called <namespace>/<claim>     (for each claim of the call)
//	prepare returned <namespace>/<claim>
//	unprepare <namespace>/<claim>
//	stopped                                (its sockets removed, on SIGTERM)
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"google.golang.org/grpc"
	drapb "k8s.io/kubelet/pkg/apis/dra/v1"
	registerapi "k8s.io/kubelet/pkg/apis/pluginregistration/v1"

	"github.com/podlifecycle/conformance/images/internal/probelog"
)

func main() {
	if len(os.Args) == 3 && os.Args[1] == "release" {
		// The hold file's path is the second argument, so release needs no flags.
		if err := os.Remove(os.Args[2]); err != nil && !errors.Is(err, os.ErrNotExist) {
			log.Fatal(err)
		}
		return
	}
	driver := flag.String("driver", "", "the driver name (the ResourceSlice's and DeviceClass's)")
	registry := flag.String("registry-dir", "/var/lib/kubelet/plugins_registry", "the kubelet's plugin registration directory")
	plugins := flag.String("plugins-dir", "/var/lib/kubelet/plugins", "where the driver's own socket goes, in a directory of its name")
	hold := flag.String("hold-file", "", "while this file exists, NodePrepareResources waits; created at the start (empty: never hold)")
	flag.Parse()
	if *driver == "" {
		log.Fatal("-driver is required")
	}
	m := &probelog.Marker{Container: "draplugin"}
	if *hold != "" {
		if err := os.MkdirAll(filepath.Dir(*hold), 0o755); err != nil {
			log.Fatal(err)
		}
		if err := os.WriteFile(*hold, nil, 0o644); err != nil {
			log.Fatal(err)
		}
	}

	endpoint := filepath.Join(*plugins, *driver, "dra.sock")
	draServer := grpc.NewServer()
	drapb.RegisterDRAPluginServer(draServer, &node{marker: m, holdFile: *hold})
	serve(draServer, endpoint)

	regServer := grpc.NewServer()
	registerapi.RegisterRegistrationServer(regServer, &registration{marker: m, driver: *driver, endpoint: endpoint})
	// The kubelet watches this directory and registers the plugin when the socket appears.
	regSocket := filepath.Join(*registry, *driver+"-reg.sock")
	serve(regServer, regSocket)

	// Stopped (the pod deleted), the plugin takes its sockets away: the kubelet then
	// unregisters it, and no stale socket of a driver that is gone stays in the node's
	// kubelet directories for the kubelet to try again after its next restart.
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	<-stop
	regServer.Stop()
	draServer.Stop()
	for _, socket := range []string{regSocket, endpoint} {
		if err := os.Remove(socket); err != nil && !errors.Is(err, os.ErrNotExist) {
			log.Print(err)
		}
	}
	_ = os.Remove(filepath.Dir(endpoint))
	m.Mark("stopped")
}

// serve listens on a fresh unix socket at path (a stale one from an earlier pod goes).
func serve(s *grpc.Server, path string) {
	if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
		log.Fatal(err)
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		log.Fatal(err)
	}
	l, err := net.Listen("unix", path)
	if err != nil {
		log.Fatal(err)
	}
	go func() {
		if err := s.Serve(l); err != nil { // nil once stopped
			log.Fatal(err)
		}
	}()
}

type registration struct {
	registerapi.UnimplementedRegistrationServer
	marker           *probelog.Marker
	driver, endpoint string
}

func (r *registration) GetInfo(context.Context, *registerapi.InfoRequest) (*registerapi.PluginInfo, error) {
	return &registerapi.PluginInfo{Type: registerapi.DRAPlugin, Name: r.driver, Endpoint: r.endpoint,
		SupportedVersions: []string{drapb.DRAPluginService}}, nil
}

func (r *registration) NotifyRegistrationStatus(_ context.Context, s *registerapi.RegistrationStatus) (*registerapi.RegistrationStatusResponse, error) {
	if s.PluginRegistered {
		r.marker.Mark("registered")
	} else {
		r.marker.Mark("registration refused: " + s.Error)
	}
	return &registerapi.RegistrationStatusResponse{}, nil
}

type node struct {
	drapb.UnimplementedDRAPluginServer
	marker   *probelog.Marker
	holdFile string
}

// NodePrepareResources prepares nothing (its devices have no CDI side), so what it
// answers is only when: after the hold is released.
func (n *node) NodePrepareResources(ctx context.Context, req *drapb.NodePrepareResourcesRequest) (*drapb.NodePrepareResourcesResponse, error) {
	for _, c := range req.Claims {
		n.marker.Mark(fmt.Sprintf("prepare called %s/%s", c.Namespace, c.Name))
	}
	for n.holdFile != "" {
		if _, err := os.Stat(n.holdFile); err != nil {
			break
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err() // the kubelet gave up; it calls again
		case <-time.After(50 * time.Millisecond):
		}
	}
	resp := &drapb.NodePrepareResourcesResponse{Claims: map[string]*drapb.NodePrepareResourceResponse{}}
	for _, c := range req.Claims {
		resp.Claims[c.Uid] = &drapb.NodePrepareResourceResponse{}
		n.marker.Mark(fmt.Sprintf("prepare returned %s/%s", c.Namespace, c.Name))
	}
	return resp, nil
}

func (n *node) NodeUnprepareResources(_ context.Context, req *drapb.NodeUnprepareResourcesRequest) (*drapb.NodeUnprepareResourcesResponse, error) {
	resp := &drapb.NodeUnprepareResourcesResponse{Claims: map[string]*drapb.NodeUnprepareResourceResponse{}}
	for _, c := range req.Claims {
		resp.Claims[c.Uid] = &drapb.NodeUnprepareResourceResponse{}
		n.marker.Mark(fmt.Sprintf("unprepare %s/%s", c.Namespace, c.Name))
	}
	return resp, nil
}
