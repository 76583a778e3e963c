package probes

import (
	"context"
	"fmt"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gmeasure"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/podlifecycle/conformance/framework/drift"
	"github.com/podlifecycle/conformance/framework/observe"
	"github.com/podlifecycle/conformance/framework/suite"
)

const podStartBound = suite.PodStartBound

// probeServerImage is images/cmd/probeserver: HTTP on 8080, TCP on 8081, gRPC health
// on 8082; busybox underneath, for exec probes and `touch`.
const probeServerImage = "podlifecycle/probeserver:1"

// The tolerance model of probe timing. The kubelet's probe worker ticks every
// periodSeconds from a time.Ticker, so consecutive probes are one period apart to
// within the scheduling delay of its goroutine and of the HTTP round trip, marked by
// the server when the request arrives: tickJitter, on a loaded 2-core machine. The
// first probe comes at the first tick at least initialDelaySeconds after the
// container started: up to one period later.
const tickJitter = 150 * time.Millisecond

// startedAtTruncation: the kubelet counts initialDelaySeconds from the container's
// StartedAt as its status manager keeps it, truncated to whole seconds
// (pkg/kubelet/status normalizeStatus, Rfc3339Copy), so the first probe may come up
// to a second before initialDelaySeconds have passed since the real start.
const startedAtTruncation = time.Second

// firstProbeWindow is when the first probe may come after the container's start: at
// the first tick of the worker's ticker once initialDelaySeconds have passed since the
// truncated StartedAt.
func firstProbeWindow(initialDelay, period time.Duration) (min, max time.Duration) {
	return initialDelay - startedAtTruncation - tickJitter, initialDelay + period + tickJitter
}

// probeClockStart is the instant a container's first-probe window is counted from:
// its own start marker, but no later than a second past the StartedAt the API shows
// (started). The kubelet counts initialDelaySeconds from StartedAt truncated to whole
// seconds, so the real start lies in [started, started+1s); the marker, written once
// the server runs, comes after the real start, on a loaded machine by more than a
// second (a first probe 320 ms after a marker, against a 2 s delay, 2026-12-04). The
// lesser of the two is never before the real start, so a first probe that respects
// the truncated StartedAt is never measured earlier than initialDelaySeconds − 1 s,
// and one within a period of it never later than the window's end.
func probeClockStart(log observe.Log, container string, started metav1.Time) time.Time {
	GinkgoHelper()
	marker, ok := log.When(observe.StartOf(container))
	Expect(ok).To(BeTrue(), "the %s's start marker:\n%s", container, log)
	Expect(started.IsZero()).To(BeFalse(), "the API shows no StartedAt for %s", container)
	if latest := started.Add(time.Second); marker.After(latest) {
		return latest
	}
	return marker
}

// earlyFirstProbe records how long the first probe of a spec's pod came after the
// container's real start (its own marker) against initialDelaySeconds. It decides no
// verdict: whether one pod's first probe comes early is chance (the fraction of a
// second its start lies past a whole second, against the phase of the worker's
// ticker), so PR-4's drift is decided over many pods at once (firstProbeEarlyPods).
func earlyFirstProbe(measured, initialDelay time.Duration) {
	AddReportEntry("PR-4: start → first probe, against initialDelaySeconds (a measurement; the many-pod spec decides the drift)",
		fmt.Sprintf("%d ms after the start; initialDelaySeconds %s", measured.Milliseconds(), initialDelay))
}

// firstProbeEarlyPods is how many pods decide PR-4's drift. One pod's first probe
// comes early only when the worker's tick falls in the part of a second by which the
// truncated StartedAt precedes the real start: 3 of 12, then 8 of 24 pods did here
// (early by 29–750 ms). A kubelet that counts from the truncated StartedAt then shows
// no early first probe on any of 24 pods with a probability of about 0.7^24 (0.02 %);
// one that counts from the real start never shows one. So the verdict is the same run
// after run, where one pod's was chance.
const firstProbeEarlyPods = 24

// firstProbeWave is how many of them start at once.
const firstProbeWave = 8

// recordEarlyFirstProbes records drift when the first probe of any of the pods came
// before initialDelaySeconds had passed since its container's real start.
func recordEarlyFirstProbes(pod *corev1.Pod, measured []time.Duration, initialDelay time.Duration) {
	var early []string
	earliest := measured[0]
	for _, m := range measured {
		earliest = min(earliest, m)
		if m < initialDelay {
			early = append(early, fmt.Sprintf("%d ms", (initialDelay-m).Milliseconds()))
		}
	}
	suite.Drift(drift.Observation[time.Duration]{
		Statement:  "PR-4",
		Topic:      "first probe before initialDelaySeconds",
		Docs:       fmt.Sprintf("initialDelaySeconds (%s) delays the first probe", initialDelay),
		Documented: initialDelay,
		Measured:   earliest,
		Same:       func(initialDelay, measured time.Duration) bool { return measured >= initialDelay },
		Evidence: fmt.Sprintf("of %d pods started %d at a time, %d had their first probe before initialDelaySeconds had passed since the container's real start (early by %s): the kubelet counts the delay from StartedAt truncated to whole seconds",
			len(measured), firstProbeWave, len(early), strings.Join(early, ", ")),
		Reproducer: suite.Reproducer(pod, "any node; start a few dozen, some come early"),
	})
}

// server is a probe server container named name, with extra flags.
func server(name string, flags ...string) corev1.Container {
	return corev1.Container{Name: name, Image: probeServerImage, Args: append([]string{"-name", name}, flags...)}
}

// httpProbe probes path on the server's HTTP port every period seconds, failing after
// threshold failures.
func httpProbe(path string, period, threshold int32) *corev1.Probe {
	return &corev1.Probe{
		ProbeHandler:  corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: path, Port: intstr.FromInt32(8080)}},
		PeriodSeconds: period, FailureThreshold: threshold,
	}
}

func podOf(name string, containers ...corev1.Container) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       corev1.PodSpec{Containers: containers, TerminationGracePeriodSeconds: ptr.To[int64](2)},
	}
}

// probeLog reads the probes a server container received (its current instance, or
// the one before with previous), each as an event "<path> <code>" ("<path> gave up
// after N ms" when the kubelet stopped waiting), plus its "started" marker; headers
// are dropped (see probeHeaders).
func probeLog(ctx context.Context, ns, pod, container string, previous bool) observe.Log {
	GinkgoHelper()
	raw, err := env.Markers(ctx, ns, pod, container, previous)
	Expect(err).NotTo(HaveOccurred())
	var out observe.Log
	for _, m := range raw {
		if kind, ok := strings.CutPrefix(m.Event, "probe "); ok {
			f := strings.Fields(kind)
			switch {
			case len(f) >= 7 && f[0] == "http" && f[2] == "gave":
				m.Event = strings.Join(f[1:7], " ")
			case len(f) >= 3 && f[0] == "http":
				m.Event = f[1] + " " + f[2]
			default: // tcp accept, grpc service="x" STATUS
				m.Event = strings.Join(f, " ")
			}
		}
		out = append(out, m)
	}
	return out
}

// probeHeaders returns the headers of every probe of path a container received, one
// string of " Name=value" fields per probe.
func probeHeaders(ctx context.Context, ns, pod, container, path string, previous bool) []string {
	GinkgoHelper()
	raw, err := env.Markers(ctx, ns, pod, container, previous)
	Expect(err).NotTo(HaveOccurred())
	var out []string
	for _, m := range raw {
		if rest, ok := strings.CutPrefix(m.Event, "probe http "+path+" "); ok {
			out = append(out, rest)
		}
	}
	return out
}

// times returns the times of the markers with event e (a path and code, see probeLog).
func times(log observe.Log, container, event string) []time.Time {
	var out []time.Time
	for _, m := range log.Of(container).WithEvent(event) {
		out = append(out, m.At)
	}
	return out
}

// withPrefix counts the markers whose event starts with prefix.
func withPrefix(log observe.Log, prefix string) int {
	n := 0
	for _, m := range log {
		if strings.HasPrefix(m.Event, prefix) {
			n++
		}
	}
	return n
}

var timings = suite.Timings

// within records d in exp with its allowed range and checks it.
func within(exp *gmeasure.Experiment, name string, d, min, max time.Duration, log observe.Log) {
	GinkgoHelper()
	suite.Record(exp, name, d, min, max)
	Expect(d).To(And(BeNumerically(">=", min), BeNumerically("<=", max)),
		"%s: measured %d ms, allowed %d–%d ms; the server's log:\n%s", name, d.Milliseconds(), min.Milliseconds(), max.Milliseconds(), log)
}

// exec runs a shell command in a container.
func exec(ctx context.Context, ns, pod, container, script string) {
	GinkgoHelper()
	_, err := env.Exec(ctx, ns, pod, container, "sh", "-c", script)
	Expect(err).NotTo(HaveOccurred())
}

func containerReady(name string) func(*corev1.Pod) bool {
	return func(p *corev1.Pod) bool {
		for _, s := range p.Status.ContainerStatuses {
			if s.Name == name {
				return s.Ready
			}
		}
		return false
	}
}

// eventsWith lists the timeline's events whose summary contains s.
// failedProbes is how many probe failures the kubelet reported in the events whose
// summary contains s, before the first event whose summary contains until (the kill
// of the container the failures were about: a restarted one's failures come after it;
// "" for none): per distinct message the highest count it reached (the API server
// aggregates a repeated event as "(xN)"), summed over the messages. A failure that
// never reached the container (connection refused before it listens, a timeout)
// counts here and in failureThreshold, though the server never marked it.
func failedProbes(tl *observe.Timeline, s, until string) int {
	highest := map[string]int{}
	for _, e := range tl.Entries() {
		if e.Kind != "event" {
			continue
		}
		if until != "" && strings.Contains(e.Summary, until) {
			break
		}
		if !strings.Contains(e.Summary, s) {
			continue
		}
		msg, count := e.Summary, 1
		if i := strings.LastIndex(msg, " (x"); i >= 0 && strings.HasSuffix(msg, ")") {
			if _, err := fmt.Sscanf(msg[i:], " (x%d)", &count); err == nil {
				msg = msg[:i]
			}
		}
		highest[msg] = max(highest[msg], count)
	}
	total := 0
	for _, n := range highest {
		total += n
	}
	return total
}

func eventsWith(tl *observe.Timeline, s string) []string {
	var out []string
	for _, e := range tl.Entries() {
		if e.Kind == "event" && strings.Contains(e.Summary, s) {
			out = append(out, e.Summary)
		}
	}
	return out
}
