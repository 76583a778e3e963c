// Command probeserver is the suite's target for HTTP, TCP and gRPC probes. Its health
// is steered from inside the container, so a spec can flip it with `kubectl exec`:
// while the file named by -unhealthy-file exists every handler reports failure.
//
//	HTTP  :8080  GET /healthz (and any path): 200, or 500 while unhealthy
//	TCP   :8081  accepts connections; while unhealthy the listener is closed
//	gRPC  :8082  grpc.health.v1.Health: SERVING, or NOT_SERVING while unhealthy
package main

import (
	"flag"
	"log"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

func main() {
	httpAddr := flag.String("http", ":8080", "HTTP listen address")
	tcpAddr := flag.String("tcp", ":8081", "TCP listen address")
	grpcAddr := flag.String("grpc", ":8082", "gRPC listen address")
	unhealthyFile := flag.String("unhealthy-file", "/tmp/unhealthy", "while this file exists, every probe fails")
	flag.Parse()

	healthy := func() bool { _, err := os.Stat(*unhealthyFile); return err != nil }

	go func() {
		log.Fatal(http.ListenAndServe(*httpAddr, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !healthy() {
				http.Error(w, "unhealthy", http.StatusInternalServerError)
				return
			}
			w.Write([]byte("ok\n"))
		})))
	}()

	hs := health.NewServer()
	gs := grpc.NewServer()
	healthpb.RegisterHealthServer(gs, hs)
	gl, err := net.Listen("tcp", *grpcAddr)
	if err != nil {
		log.Fatal(err)
	}
	go func() { log.Fatal(gs.Serve(gl)) }()

	tcp := &tcpServer{addr: *tcpAddr}
	for {
		ok := healthy()
		status := healthpb.HealthCheckResponse_SERVING
		if !ok {
			status = healthpb.HealthCheckResponse_NOT_SERVING
		}
		hs.SetServingStatus("", status)
		tcp.listen(ok)
		time.Sleep(200 * time.Millisecond) // the health file is polled; a probe period is ≥ 1 s
	}
}

// tcpServer accepts connections while healthy and closes its listener while not.
type tcpServer struct {
	addr string
	mu   sync.Mutex
	l    net.Listener
}

func (t *tcpServer) listen(on bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case on && t.l == nil:
		l, err := net.Listen("tcp", t.addr)
		if err != nil {
			log.Printf("tcp listen: %v", err)
			return
		}
		t.l = l
		go func() {
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				c.Close()
			}
		}()
	case !on && t.l != nil:
		t.l.Close()
		t.l = nil
	}
}
