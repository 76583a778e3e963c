package suite

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"

	"github.com/podlifecycle/conformance/framework/entries"
	"github.com/podlifecycle/conformance/framework/observe"
)

// kubeletLogLines is how much of the kubelet's journal a failed spec keeps per node:
// the last lines about its pods, which end where it failed.
const kubeletLogLines = 150

// kubeletLogBound bounds reading the journals after a failure: a docker exec and a
// journalctl over the spec's minutes take a second or two per node; a spec's pods are
// on one or two nodes.
const kubeletLogBound = 30 * time.Second

// specPods are the pods the running spec started with Run.
type specPods struct {
	timelines []*observe.Timeline
}

// watchForKubeletLog adds tl's pod to the running spec's pods; the first one registers
// the cleanup that, if the spec fails, records the kubelet's lines about all of them,
// one entry per node.
func (e *Env) watchForKubeletLog(tl *observe.Timeline) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.running != nil {
		e.running.timelines = append(e.running.timelines, tl)
		return
	}
	sp := &specPods{timelines: []*observe.Timeline{tl}}
	e.running = sp
	// Registered before the pods' own cleanups and after the namespace's, so it runs
	// once every timeline has stopped and before the pods go with their namespace.
	DeferCleanup(func(ctx SpecContext) {
		e.mu.Lock()
		e.running = nil
		e.mu.Unlock()
		if CurrentSpecReport().Failed() && e.Facts.LocalNodes {
			e.recordKubeletLogs(ctx, sp, CurrentSpecReport().StartTime, time.Now())
		}
	}, NodeTimeout(kubeletLogBound))
}

func (e *Env) recordKubeletLogs(ctx context.Context, sp *specPods, since, until time.Time) {
	patterns := map[string][]string{}
	for _, tl := range sp.timelines {
		if p := tl.Pod(); p != nil && p.Spec.NodeName != "" {
			patterns[p.Spec.NodeName] = append(patterns[p.Spec.NodeName], podPatterns(p.Namespace, p.Name, string(p.UID))...)
		}
	}
	for _, node := range slices.Sorted(maps.Keys(patterns)) {
		out, err := e.nodeShell(ctx, node, kubeletLogScript(since, until, patterns[node], kubeletLogLines))
		switch {
		case err != nil:
			out = fmt.Sprintf("(the kubelet's journal could not be read: %v)", err)
		case strings.TrimSpace(out) == "":
			out = fmt.Sprintf("(no line of the kubelet's journal from %s to %s names %s)",
				since.Format(time.TimeOnly), until.Format(time.TimeOnly), strings.Join(patterns[node], " or "))
		}
		AddReportEntry(entries.KubeletLogEntryPrefix+node, out, ReportEntryVisibilityFailureOrVerbose)
	}
}

// podPatterns are the strings the kubelet's log lines about a pod contain: its
// namespace/name as klog quotes it (pod="ns/name", pods=["ns/name"]; the closing quote
// keeps out pods whose name only starts with it), and its UID.
func podPatterns(ns, name, uid string) []string {
	out := []string{ns + "/" + name + `"`}
	if uid != "" {
		out = append(out, uid)
	}
	return out
}

// kubeletLogScript prints the last lines of the kubelet's journal from since to until
// (a second of slack each side: journalctl takes whole seconds) that contain any of
// patterns. Names and UIDs hold no single quote.
func kubeletLogScript(since, until time.Time, patterns []string, lines int) string {
	var grep strings.Builder
	for _, p := range patterns {
		fmt.Fprintf(&grep, " -e '%s'", p)
	}
	return fmt.Sprintf("command -v journalctl >/dev/null || { echo 'no journalctl on the node' >&2; exit 1; }\n"+
		"journalctl -u kubelet --since @%d --until @%d --no-pager -o short-precise | grep -F%s | tail -n %d",
		since.Unix()-1, until.Unix()+1, grep.String(), lines)
}
