// Command liveness stands in for the k8s.gcr.io/liveness image of the docs'
// liveness-http example: its /server answers /healthz with 200 for the first 10
// seconds after it starts and with 500 after that, so a liveness probe starts failing.
package main

import (
	"fmt"
	"log"
	"net/http"
	"time"
)

func main() {
	started := time.Now()
	http.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {
		age := time.Since(started)
		if age > 10*time.Second {
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprintf(w, "error: %v\n", age.Seconds())
			return
		}
		w.WriteHeader(http.StatusOK)
		fmt.Fprintln(w, "ok")
	})
	log.Fatal(http.ListenAndServe(":8080", nil))
}
