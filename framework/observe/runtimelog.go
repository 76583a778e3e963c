package observe

import (
	"bufio"
	"io"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// RuntimeStop is one stop of a container as containerd's CRI service logs it (v2.x,
// internal/cri: "StopContainer for %q with timeout %d (s)" when the kubelet's call
// arrives, "Stop container %q with signal %v" as it sends the stop signal, "Kill
// container %q" as it sends SIGKILL), each line with containerd's own nanosecond
// time. It is the most precise source of when the kubelet asked, with which grace,
// and when the runtime's timer gave up: the container's markers add the signal's
// delivery through runc and the shell's trap to each.
type RuntimeStop struct {
	Container string        // the container's name in its pod
	Called    time.Time     // the kubelet's StopContainer arrived
	Timeout   time.Duration // the grace period the kubelet passed
	Signaled  time.Time     // the stop signal sent; zero when the runtime skipped it (sent before)
	Signal    string        // as containerd names it ("terminated")
	Killed    time.Time     // SIGKILL sent; zero when the container stopped in time
}

var (
	runtimeLine    = regexp.MustCompile(`time="([^"]+)".*msg="(.*)"\s*$`)
	stopCalled     = regexp.MustCompile(`^StopContainer for \\"([0-9a-f]+)\\" with timeout (\d+) \(s\)$`)
	stopSignaled   = regexp.MustCompile(`^Stop container \\"([0-9a-f]+)\\" with signal (\S+)$`)
	killSent       = regexp.MustCompile(`^Kill container \\"([0-9a-f]+)\\"$`)
	containerIDURI = regexp.MustCompile(`^[a-z]+://([0-9a-f]+)$`)
)

// ContainerIDOf is the runtime's ID in a containerStatus's containerID
// ("containerd://<id>"), or "".
func ContainerIDOf(uri string) string {
	if m := containerIDURI.FindStringSubmatch(uri); m != nil {
		return m[1]
	}
	return ""
}

// ParseRuntimeStops reads containerd's log lines (journalctl -o cat) and returns the
// stops of the containers whose runtime IDs names maps to their names, in the order
// the kubelet called them. A line of another container, or of another kind, is skipped.
func ParseRuntimeStops(r io.Reader, names map[string]string) ([]RuntimeStop, error) {
	var stops []RuntimeStop
	open := map[string]int{} // container ID → index of its latest stop
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		m := runtimeLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		at, err := time.Parse(time.RFC3339Nano, m[1])
		if err != nil {
			continue
		}
		msg := m[2]
		if c := stopCalled.FindStringSubmatch(msg); c != nil {
			if name, ok := names[c[1]]; ok {
				secs, _ := strconv.Atoi(c[2])
				open[c[1]] = len(stops)
				stops = append(stops, RuntimeStop{Container: name, Called: at, Timeout: time.Duration(secs) * time.Second})
			}
			continue
		}
		if c := stopSignaled.FindStringSubmatch(msg); c != nil {
			if i, ok := open[c[1]]; ok && stops[i].Signaled.IsZero() {
				stops[i].Signaled, stops[i].Signal = at, c[2]
			}
			continue
		}
		if c := killSent.FindStringSubmatch(msg); c != nil {
			if i, ok := open[c[1]]; ok && stops[i].Killed.IsZero() {
				stops[i].Killed = at
			}
		}
	}
	return stops, sc.Err()
}

// RuntimeStopsOf are the stops of one container, in order.
func RuntimeStopsOf(stops []RuntimeStop, container string) []RuntimeStop {
	var out []RuntimeStop
	for _, s := range stops {
		if s.Container == container {
			out = append(out, s)
		}
	}
	return out
}

// String tells a stop in milliseconds from the kubelet's call.
func (s RuntimeStop) String() string {
	var b strings.Builder
	b.WriteString(s.Container + ": StopContainer(timeout " + s.Timeout.String() + ") at " + s.Called.UTC().Format("15:04:05.000000"))
	if !s.Signaled.IsZero() {
		b.WriteString(", " + s.Signal + " +" + strconv.FormatInt(s.Signaled.Sub(s.Called).Microseconds(), 10) + "µs")
	}
	if !s.Killed.IsZero() {
		b.WriteString(", SIGKILL +" + strconv.FormatInt(s.Killed.Sub(s.Called).Milliseconds(), 10) + "ms")
	}
	return b.String()
}
