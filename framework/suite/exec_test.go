package suite

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/remotecommand"
)

// A server that refuses the WebSocket upgrade gets the exec again over SPDY: first a
// GET (RFC 6455), then the SPDY POST.
func TestExecFallsBackToSPDY(t *testing.T) {
	var mu sync.Mutex
	var methods []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		methods = append(methods, r.Method)
		mu.Unlock()
		http.Error(w, "no upgrade here", http.StatusForbidden)
	}))
	defer srv.Close()
	u, _ := url.Parse(srv.URL + "/api/v1/namespaces/ns/pods/p/exec?command=true&stdout=true")
	exec, err := newExecutor(&rest.Config{Host: srv.URL}, u)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := exec.StreamWithContext(ctx, remotecommand.StreamOptions{Stdout: io.Discard}); err == nil {
		t.Fatal("want an error from a server that refuses both upgrades")
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(methods, []string{http.MethodGet, http.MethodPost}) {
		t.Fatalf("requests %v, want a WebSocket GET then a SPDY POST", methods)
	}
}

// An error from a stream that opened is the command's: retrying it over SPDY would
// run the command twice.
func TestExecKeepsTheCommandsError(t *testing.T) {
	if fallBackToSPDY(errors.New("command terminated with exit code 1")) {
		t.Fatal("a command's failure must not be retried over SPDY")
	}
}
