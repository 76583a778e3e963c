package observe

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// MarkerDir is where containers append their markers: an emptyDir shared by all of
// the pod's containers, so one file holds the whole pod's story.
const MarkerDir = "/markers"

// Marker is one line `<unix-ms> <container> <event>` a container wrote.
type Marker struct {
	At        time.Time
	Container string
	Event     string
}

func (m Marker) String() string {
	return fmt.Sprintf("%s %s %s", m.At.UTC().Format("15:04:05.000"), m.Container, m.Event)
}

// MarkShell is a POSIX shell function `mark EVENT` for a container named container:
// it appends `<unix-ms> <container> EVENT` to MarkerDir/markers (when the pod mounts
// it, see WithMarkers) and to the container's log, through PID 1's stdout, so that
// markers of hooks (whose own output is not logged) reach the log too and outlive the
// container. Busybox's date has no sub-second format, so the time is read with
// adjtimex(2) (busybox adjtimex) and truncated to milliseconds; the fork of adjtimex
// and awk delays a marker by a few milliseconds. Its tv_usec holds nanoseconds when
// the kernel's clock is in nanosecond mode (STA_NANO, 8192, in status; a host's time
// daemon can set it at any moment): read as microseconds, every marker would have 16
// digits and be dropped as noise. The clock is the host's: kind nodes are containers
// sharing the host kernel, as does the test runner.
func MarkShell(container string) string {
	return `mark() { ms=$(adjtimex | awk '/status/{st=$2} /tv_sec/{s=$2} /tv_usec/{u=$2} ` +
		`END{if (int(st/8192)%2==1) u=int(u/1000); printf "%d%03d", s, int(u/1000)}'); ` +
		`line="$ms ` + container + ` $1"; [ -d ` + MarkerDir + ` ] && echo "$line" >> ` + MarkerDir + `/markers; echo "$line" > /proc/1/fd/1; }; `
}

// WithMarkers mounts an emptyDir at MarkerDir in every container of p and returns p.
func WithMarkers(p *corev1.Pod) *corev1.Pod {
	p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: "markers", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}})
	mount := corev1.VolumeMount{Name: "markers", MountPath: MarkerDir}
	for i := range p.Spec.InitContainers {
		p.Spec.InitContainers[i].VolumeMounts = append(p.Spec.InitContainers[i].VolumeMounts, mount)
	}
	for i := range p.Spec.Containers {
		p.Spec.Containers[i].VolumeMounts = append(p.Spec.Containers[i].VolumeMounts, mount)
	}
	return p
}

// ParseMarkers reads marker lines, skipping any other output, and orders them by time
// (ties keep their order in the input, which is append order).
func ParseMarkers(r io.Reader) (Log, error) {
	var out Log
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 3 {
			continue
		}
		ms, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil || len(fields[0]) != 13 { // unix milliseconds have 13 digits until 2286
			continue
		}
		out = append(out, Marker{At: time.UnixMilli(ms), Container: fields[1], Event: strings.Join(fields[2:], " ")})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading markers: %w", err)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].At.Before(out[j].At) })
	return out, nil
}

// MergeMarkers merges marker lists read from several sources (files, logs of several
// containers) into one time-ordered list without duplicates.
func MergeMarkers(lists ...[]Marker) Log {
	seen := map[Marker]bool{}
	var out Log
	for _, l := range lists {
		for _, m := range l {
			if !seen[m] {
				seen[m] = true
				out = append(out, m)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].At.Before(out[j].At) })
	return out
}
