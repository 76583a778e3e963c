// Command liveness stands in for the k8s.gcr.io/liveness image of the docs'
// liveness-http example: its /server answers /healthz with 200 for the first 10
// seconds after it starts and with 500 after that, so a liveness probe starts failing.
// It writes a marker line `<unix-ms> liveness <event>` (the suite's marker format) for
// its start and for every request, with the answer and the request's headers, so a
// spec can see what the kubelet sent.
package main

import (
	"fmt"
	"log"
	"net/http"
	"time"

	"github.com/podlifecycle/conformance/images/internal/probelog"
)

func main() {
	started := time.Now()
	m := &probelog.Marker{Container: "liveness"}
	http.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {
		age := time.Since(started)
		code := http.StatusOK
		if age > 10*time.Second {
			code = http.StatusInternalServerError
		}
		m.Mark(fmt.Sprintf("probe http %s %d%s", r.URL.Path, code, probelog.Headers(r)))
		w.WriteHeader(code)
		if code != http.StatusOK {
			fmt.Fprintf(w, "error: %v\n", age.Seconds())
			return
		}
		fmt.Fprintln(w, "ok")
	})
	m.Mark("started")
	log.Fatal(http.ListenAndServe(":8080", nil))
}
