// Package probelog writes the marker lines the suite's probe targets leave in their
// container log: `<unix-ms> <container> <event>`, the format of the suite's container
// markers (framework/observe), one line per probe received.
package probelog

import (
	"fmt"
	"net/http"
	"os"
	"sort"
	"strings"
	"sync"
	"time"
)

// Marker writes marker lines for one container to stdout; its mutex keeps lines of
// concurrent requests whole.
type Marker struct {
	Container string
	mu        sync.Mutex
}

// Mark writes one marker line with the current time.
func (m *Marker) Mark(event string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	fmt.Fprintf(os.Stdout, "%d %s %s\n", time.Now().UnixMilli(), m.Container, event)
}

// Headers renders a request's headers as " Name=value" fields, sorted, with spaces in
// values replaced, so a marker stays one line of fields.
func Headers(r *http.Request) string {
	var names []string
	for k := range r.Header {
		names = append(names, k)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, k := range names {
		fmt.Fprintf(&b, " %s=%s", k, strings.ReplaceAll(strings.Join(r.Header[k], ","), " ", "_"))
	}
	return b.String()
}
