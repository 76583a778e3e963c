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
	err := eachRuntimeLine(r, func(at time.Time, msg string) {
		if c := stopCalled.FindStringSubmatch(msg); c != nil {
			if name, ok := names[c[1]]; ok {
				secs, _ := strconv.Atoi(c[2])
				open[c[1]] = len(stops)
				stops = append(stops, RuntimeStop{Container: name, Called: at, Timeout: time.Duration(secs) * time.Second})
			}
			return
		}
		if c := stopSignaled.FindStringSubmatch(msg); c != nil {
			if i, ok := open[c[1]]; ok && stops[i].Signaled.IsZero() {
				stops[i].Signaled, stops[i].Signal = at, c[2]
			}
			return
		}
		if c := killSent.FindStringSubmatch(msg); c != nil {
			if i, ok := open[c[1]]; ok && stops[i].Killed.IsZero() {
				stops[i].Killed = at
			}
		}
	})
	return stops, err
}

// eachRuntimeLine calls line with the time and message of each of containerd's log
// lines in r (journalctl -o cat), skipping what is not one.
func eachRuntimeLine(r io.Reader, line func(at time.Time, msg string)) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		m := runtimeLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		if at, err := time.Parse(time.RFC3339Nano, m[1]); err == nil {
			line(at, m[2])
		}
	}
	return sc.Err()
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

// RuntimeStart is one start of a container as containerd's CRI service logs it (v2.x,
// internal/cri/instrument): "CreateContainer within sandbox %q for container %+v" when
// the kubelet's create call arrives, "… returns container id %q" when the runtime has
// made it, "StartContainer for %q" when the kubelet's start call arrives. Between the
// first and the last, only the runtime works (and the kubelet's turnaround between its
// two calls); so the time the runtime's own work adds to a start, up to the container's
// first marker, is RuntimeShare.
type RuntimeStart struct {
	Container    string // the container's name in its pod
	Attempt      int    // the kubelet's attempt: its restart count
	ID           string
	CreateCalled time.Time
	Created      time.Time // zero: the runtime never answered
	StartCalled  time.Time // zero: the kubelet never asked
	Started      time.Time // the runtime's answer to the start call; zero: none
}

// RuntimeShare is the runtime's part of the start that began with s and ended at
// started (the container's first marker): making the container, and starting it up to
// the marker. ok is false when the log lacks one of s's lines.
func (s RuntimeStart) RuntimeShare(started time.Time) (share time.Duration, ok bool) {
	if s.Created.IsZero() || s.StartCalled.IsZero() || started.Before(s.StartCalled) {
		return 0, false
	}
	return s.Created.Sub(s.CreateCalled) + started.Sub(s.StartCalled), true
}

var (
	// The metadata are Go's protobuf text (%+v), whose spacing between fields varies
	// from build to build on purpose: matched with \s+.
	sandboxMade   = regexp.MustCompile(`^RunPodSandbox for .*\buid:\\"([^\\"]+)\\".* returns sandbox id \\"([0-9a-f]+)\\"$`)
	createCalled  = regexp.MustCompile(`^CreateContainer within sandbox \\"([0-9a-f]+)\\" for container (.*)$`)
	createdReturn = regexp.MustCompile(`^CreateContainer within sandbox \\"([0-9a-f]+)\\" for (.*) returns container id \\"([0-9a-f]+)\\"$`)
	startCalled   = regexp.MustCompile(`^StartContainer for \\"([0-9a-f]+)\\"$`)
	startReturned = regexp.MustCompile(`^StartContainer for \\"([0-9a-f]+)\\" returns successfully$`)
	metaName      = regexp.MustCompile(`\bname:\\"([^\\"]+)\\"`)
	metaAttempt   = regexp.MustCompile(`\battempt:(\d+)`)
)

// ParseRuntimeStarts reads containerd's log lines (journalctl -o cat) and returns the
// starts of the containers of the pod whose UID is uid (in its sandboxes the log shows
// being made), in the order the kubelet called them. Lines of other pods are skipped.
func ParseRuntimeStarts(r io.Reader, uid string) ([]RuntimeStart, error) {
	var starts []RuntimeStart
	sandboxes := map[string]bool{}
	byID := map[string]int{}
	err := eachRuntimeLine(r, func(at time.Time, msg string) {
		if c := sandboxMade.FindStringSubmatch(msg); c != nil {
			if c[1] == uid {
				sandboxes[c[2]] = true
			}
			return
		}
		if c := createdReturn.FindStringSubmatch(msg); c != nil {
			if !sandboxes[c[1]] {
				return
			}
			name, attempt := metadata(c[2])
			for i := len(starts) - 1; i >= 0; i-- {
				if starts[i].Container == name && starts[i].Attempt == attempt && starts[i].Created.IsZero() {
					starts[i].Created, starts[i].ID = at, c[3]
					byID[c[3]] = i
					break
				}
			}
			return
		}
		if c := createCalled.FindStringSubmatch(msg); c != nil {
			if sandboxes[c[1]] {
				name, attempt := metadata(c[2])
				starts = append(starts, RuntimeStart{Container: name, Attempt: attempt, CreateCalled: at})
			}
			return
		}
		if c := startCalled.FindStringSubmatch(msg); c != nil {
			if i, ok := byID[c[1]]; ok && starts[i].StartCalled.IsZero() {
				starts[i].StartCalled = at
			}
			return
		}
		if c := startReturned.FindStringSubmatch(msg); c != nil {
			if i, ok := byID[c[1]]; ok && starts[i].Started.IsZero() {
				starts[i].Started = at
			}
		}
	})
	return starts, err
}

// metadata reads a container's name and attempt from its CRI metadata as text
// (attempt 0 is left out of the text).
func metadata(text string) (name string, attempt int) {
	if m := metaName.FindStringSubmatch(text); m != nil {
		name = m[1]
	}
	if m := metaAttempt.FindStringSubmatch(text); m != nil {
		attempt, _ = strconv.Atoi(m[1])
	}
	return name, attempt
}

// RuntimeBusy is how long, between from and until, the runtime was making and starting
// containers of the pod other than container (from each create call to the start's
// answer, only starts wholly inside the window): a kubelet starts a pod's containers
// one after another in a sync, so a container's create call waits for those.
func RuntimeBusy(starts []RuntimeStart, container string, from, until time.Time) time.Duration {
	var busy time.Duration
	for _, s := range starts {
		if s.Container == container || s.Started.IsZero() || s.CreateCalled.Before(from) || s.Started.After(until) {
			continue
		}
		busy += s.Started.Sub(s.CreateCalled)
	}
	return busy
}

// RuntimeStartOf is the start of container at attempt, if the log has it.
func RuntimeStartOf(starts []RuntimeStart, container string, attempt int) (RuntimeStart, bool) {
	for _, s := range starts {
		if s.Container == container && s.Attempt == attempt {
			return s, true
		}
	}
	return RuntimeStart{}, false
}
