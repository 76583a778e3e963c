// Command probeserver is the suite's target for HTTP, TCP and gRPC probes, and the
// evidence of what the kubelet probed and when: it writes a marker line
// `<unix-ms> <name> <event>` (the format of the suite's container markers) to stdout
// for its start and for every probe it receives, with the kind, path, answer and the
// request's headers.
//
// Its health is steered from inside the container or by flags: while the file named
// by -unhealthy-file exists, or once -healthy-for has passed, every handler reports
// failure; -start-delay keeps every port closed for a while (a slow start).
//
//	HTTP  :8080  GET /healthz (and any path): 200, or 500 while unhealthy
//	             GET /status/NNN: answers NNN (500 while unhealthy)
//	             GET /redirect: 302 to /healthz
//	             GET /when-exists/NAME: 200 while /tmp/NAME exists, 500 otherwise
//	             GET /slow/MS: answers 200 after MS milliseconds, and marks how long
//	             the client waited when it gives up first ("gave up after N ms")
//	TCP   :8081  accepts connections; while unhealthy the listener is closed
//	gRPC  :8082  grpc.health.v1.Health: "" is SERVING, or NOT_SERVING while unhealthy;
//	             the service "serving" is always SERVING, "not-serving" never
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/podlifecycle/conformance/images/internal/probelog"
)

func main() {
	httpAddr := flag.String("http", ":8080", "HTTP listen address")
	tcpAddr := flag.String("tcp", ":8081", "TCP listen address")
	grpcAddr := flag.String("grpc", ":8082", "gRPC listen address")
	unhealthyFile := flag.String("unhealthy-file", "/tmp/unhealthy", "while this file exists, every probe fails")
	healthyFor := flag.Duration("healthy-for", 0, "fail every probe once this long has passed since the start (0: never)")
	startDelay := flag.Duration("start-delay", 0, "open no port until this long has passed (a slow start)")
	name := flag.String("name", "probeserver", "the container name its markers carry")
	flag.Parse()

	m := &probelog.Marker{Container: *name}
	started := time.Now()
	healthy := func() bool {
		if *healthyFor > 0 && time.Since(started) > *healthyFor {
			return false
		}
		_, err := os.Stat(*unhealthyFile)
		return err != nil
	}
	time.Sleep(*startDelay) // a slow start: nothing listens yet
	m.Mark("started")

	go func() { log.Fatal(http.ListenAndServe(*httpAddr, httpHandler(m, healthy))) }()

	hs := health.NewServer()
	hs.SetServingStatus("serving", healthpb.HealthCheckResponse_SERVING)
	hs.SetServingStatus("not-serving", healthpb.HealthCheckResponse_NOT_SERVING)
	gs := grpc.NewServer(grpc.UnaryInterceptor(func(ctx context.Context, req any, info *grpc.UnaryServerInfo, next grpc.UnaryHandler) (any, error) {
		resp, err := next(ctx, req)
		if check, ok := req.(*healthpb.HealthCheckRequest); ok {
			answer := "error"
			if r, ok := resp.(*healthpb.HealthCheckResponse); ok && err == nil {
				answer = r.Status.String()
			}
			m.Mark(fmt.Sprintf("probe grpc service=%q %s", check.Service, answer))
		}
		return resp, err
	}))
	healthpb.RegisterHealthServer(gs, hs)
	gl, err := net.Listen("tcp", *grpcAddr)
	if err != nil {
		log.Fatal(err)
	}
	go func() { log.Fatal(gs.Serve(gl)) }()

	tcp := &tcpServer{addr: *tcpAddr, m: m}
	for {
		ok := healthy()
		status := healthpb.HealthCheckResponse_SERVING
		if !ok {
			status = healthpb.HealthCheckResponse_NOT_SERVING
		}
		hs.SetServingStatus("", status)
		tcp.listen(ok)
		time.Sleep(100 * time.Millisecond) // the health file is polled; a probe period is ≥ 1 s
	}
}

func httpHandler(m *probelog.Marker, healthy func() bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived := time.Now()
		code := http.StatusOK
		switch {
		case r.URL.Path == "/redirect":
			code = http.StatusFound
			w.Header().Set("Location", "/healthz")
		case strings.HasPrefix(r.URL.Path, "/status/"):
			n, err := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/status/"))
			if err != nil || n < 100 || n > 999 {
				code = http.StatusBadRequest
			} else {
				code = n
			}
		case strings.HasPrefix(r.URL.Path, "/when-exists/"):
			if _, err := os.Stat("/tmp/" + path.Base(r.URL.Path)); err != nil {
				code = http.StatusInternalServerError
			}
		case strings.HasPrefix(r.URL.Path, "/slow/"):
			ms, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/slow/"))
			select {
			case <-time.After(time.Duration(ms) * time.Millisecond):
			case <-r.Context().Done():
				m.Mark(fmt.Sprintf("probe http %s gave up after %d ms%s", r.URL.Path, time.Since(arrived).Milliseconds(), probelog.Headers(r)))
				return
			}
		}
		if !healthy() && code < 400 {
			code = http.StatusInternalServerError
		}
		m.Mark(fmt.Sprintf("probe http %s %d%s", r.URL.Path, code, probelog.Headers(r)))
		w.WriteHeader(code)
		fmt.Fprintln(w, http.StatusText(code))
	})
}

// tcpServer accepts connections while healthy and closes its listener while not.
type tcpServer struct {
	addr string
	m    *probelog.Marker
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
				t.m.Mark("probe tcp accept")
				c.Close()
			}
		}()
	case !on && t.l != nil:
		t.l.Close()
		t.l = nil
	}
}
