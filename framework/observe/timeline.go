// Package observe records what happens to a pod: every status change and event seen
// through a watch, with the time it was seen, and the millisecond markers its
// containers write. Specs assert on the record; failures print it.
package observe

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// Entry is one observation.
type Entry struct {
	Seen time.Time `json:"seen"`
	// Kind is "pod" (a status change), "event", "deleted", or "infra" (a host flake
	// answered by making the pod again, RetryHostFlakeOnce).
	Kind    string `json:"kind"`
	Summary string `json:"summary"`
	// Pod is the pod as seen, for "pod" entries.
	Pod *corev1.Pod `json:"-"`
}

// Timeline is the watch-based record of one pod.
type Timeline struct {
	Namespace, Name string

	mu      sync.Mutex
	entries []Entry
	last    *corev1.Pod
	lastSum string
	stop    context.CancelFunc

	// A host flake answered once (RetryHostFlakeOnce): remake makes the pod again,
	// flakes holds the runtime's message, earlier the record of the attempt it ended,
	// retired that attempt's UID, and remaking is true until the new pod is seen.
	remake   func(flake string)
	flakes   []string
	earlier  []Entry
	retired  types.UID
	remaking bool
}

// Record starts watching pod name in ns and its events; call Stop when done
// (DeferCleanup(tl.Stop)). It returns once both watches are synced.
func Record(ctx context.Context, client kubernetes.Interface, ns, name string) (*Timeline, error) {
	ctx, cancel := context.WithCancel(ctx)
	tl := &Timeline{Namespace: ns, Name: name, stop: cancel}

	podInformer := informerOf(client.CoreV1().RESTClient(), "pods", ns, &corev1.Pod{}, func(o *metav1.ListOptions) {
		o.FieldSelector = fields.OneTermEqualSelector("metadata.name", name).String()
	})
	if _, err := podInformer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(o any) { tl.observePod(o.(*corev1.Pod)) },
		UpdateFunc: func(_, o any) { tl.observePod(o.(*corev1.Pod)) },
		DeleteFunc: func(o any) { tl.observeDeletion() },
	}); err != nil {
		cancel()
		return nil, err
	}
	eventInformer := informerOf(client.CoreV1().RESTClient(), "events", ns, &corev1.Event{}, func(o *metav1.ListOptions) {
		o.FieldSelector = fields.OneTermEqualSelector("involvedObject.name", name).String()
	})
	if _, err := eventInformer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(o any) { tl.observeEvent(o.(*corev1.Event)) },
		UpdateFunc: func(old, o any) {
			if old.(*corev1.Event).Count != o.(*corev1.Event).Count {
				tl.observeEvent(o.(*corev1.Event))
			}
		},
	}); err != nil {
		cancel()
		return nil, err
	}
	go podInformer.Run(ctx.Done())
	go eventInformer.Run(ctx.Done())
	for _, synced := range []cache.InformerSynced{podInformer.HasSynced, eventInformer.HasSynced} {
		if !cache.WaitForCacheSync(ctx.Done(), synced) {
			cancel()
			return nil, fmt.Errorf("watching pod %s/%s: caches did not sync", ns, name)
		}
	}
	return tl, nil
}

// Stop ends the watches.
func (tl *Timeline) Stop() { tl.stop() }

// Pod returns the latest state seen (nil before the pod exists). It fits Eventually.
func (tl *Timeline) Pod() *corev1.Pod {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	if tl.last == nil {
		return nil
	}
	return tl.last.DeepCopy()
}

// Entries returns a copy of the record, in the order seen.
func (tl *Timeline) Entries() []Entry {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	return append([]Entry(nil), tl.entries...)
}

// Pods returns every distinct pod status seen, oldest first.
func (tl *Timeline) Pods() []*corev1.Pod {
	var out []*corev1.Pod
	for _, e := range tl.Entries() {
		if e.Pod != nil {
			out = append(out, e.Pod.DeepCopy())
		}
	}
	return out
}

// FirstPod is the first status the watch delivered for which ok holds, and when it was
// delivered; nil when none did.
func (tl *Timeline) FirstPod(ok func(*corev1.Pod) bool) (*corev1.Pod, time.Time) {
	for _, e := range tl.Entries() {
		if e.Kind == "pod" && ok(e.Pod) {
			return e.Pod, e.Seen
		}
	}
	return nil, time.Time{}
}

// Phases returns the sequence of phases seen, each change once.
func (tl *Timeline) Phases() []corev1.PodPhase {
	var out []corev1.PodPhase
	for _, p := range tl.Pods() {
		if len(out) == 0 || out[len(out)-1] != p.Status.Phase {
			out = append(out, p.Status.Phase)
		}
	}
	return out
}

// ConditionsFirstTrue lists, in the order seen, when each pod condition was first
// seen True through the watch: millisecond-precise where lastTransitionTime has whole
// seconds, late only by the watch's delivery latency.
func (tl *Timeline) ConditionsFirstTrue() []string {
	var out []string
	seen := map[corev1.PodConditionType]bool{}
	var t0 time.Time
	for _, e := range tl.Entries() {
		if e.Pod == nil {
			continue
		}
		if t0.IsZero() {
			t0 = e.Seen
		}
		for _, c := range e.Pod.Status.Conditions {
			if c.Status == corev1.ConditionTrue && !seen[c.Type] {
				seen[c.Type] = true
				out = append(out, fmt.Sprintf("%s +%dms", c.Type, e.Seen.Sub(t0).Milliseconds()))
			}
		}
	}
	return out
}

// RetryHostFlakeOnce has the timeline answer the first host flake it sees (HostFlake)
// by calling remake, which deletes the pod and makes it again under the same name. The
// flaked attempt never shows: Pod keeps the last state before the flake, and Entries,
// Pods and the rest start again with the new pod; String and Save keep the earlier
// attempt. A second flake, and every other failure, stays in the record as it is.
func (tl *Timeline) RetryHostFlakeOnce(remake func(flake string)) {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	tl.remake = remake
}

// HostFlakes are the runtime's messages of the host flakes answered by making the pod
// again: at most one.
func (tl *Timeline) HostFlakes() []string {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	return append([]string(nil), tl.flakes...)
}

// Note adds an infrastructure note to the record (a remake that failed).
func (tl *Timeline) Note(summary string) {
	tl.add(Entry{Seen: time.Now(), Kind: "infra", Summary: summary})
}

func (tl *Timeline) observePod(p *corev1.Pod) {
	sum := SummarizePod(p)
	tl.mu.Lock()
	defer tl.mu.Unlock()
	if tl.retired != "" && p.UID == tl.retired { // the flaked attempt, going away
		tl.earlier = append(tl.earlier, Entry{Seen: time.Now(), Kind: "pod", Summary: sum})
		return
	}
	tl.remaking = false
	if tl.remake != nil && len(tl.flakes) == 0 {
		if flake := HostFlake(p); flake != "" {
			tl.flakes = append(tl.flakes, flake)
			tl.retired, tl.remaking = p.UID, true
			tl.earlier = append(tl.entries,
				Entry{Seen: time.Now(), Kind: "pod", Summary: sum},
				Entry{Seen: time.Now(), Kind: "infra", Summary: "host flake, " + flake + ": the pod is deleted and made once more"})
			tl.entries, tl.lastSum = nil, ""
			go tl.remake(flake)
			return
		}
	}
	tl.last = p.DeepCopy()
	if sum == tl.lastSum {
		return
	}
	tl.lastSum = sum
	tl.entries = append(tl.entries, Entry{Seen: time.Now(), Kind: "pod", Summary: sum, Pod: tl.last})
}

// observeDeletion records that the pod left the API; Pod() returns nil until a pod of
// the same name is created again.
func (tl *Timeline) observeDeletion() {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	if tl.remaking { // the flaked attempt left the API
		tl.earlier = append(tl.earlier, Entry{Seen: time.Now(), Kind: "deleted", Summary: "pod deleted from the API"})
		return
	}
	tl.last, tl.lastSum = nil, ""
	tl.entries = append(tl.entries, Entry{Seen: time.Now(), Kind: "deleted", Summary: "pod deleted from the API"})
}

// Deleted says whether the watch has seen the pod leave the API.
func (tl *Timeline) Deleted() bool {
	for _, e := range tl.Entries() {
		if e.Kind == "deleted" {
			return true
		}
	}
	return false
}

func (tl *Timeline) observeEvent(e *corev1.Event) {
	entry := Entry{Seen: time.Now(), Kind: "event", Summary: fmt.Sprintf("%s %s: %s (x%d)", e.Type, e.Reason, e.Message, max(e.Count, 1))}
	tl.mu.Lock()
	defer tl.mu.Unlock()
	if tl.retired != "" && e.InvolvedObject.UID == tl.retired {
		tl.earlier = append(tl.earlier, entry)
		return
	}
	tl.entries = append(tl.entries, entry)
}

func (tl *Timeline) add(e Entry) {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	tl.entries = append(tl.entries, e)
}

// String renders the record, one line per entry, with times relative to the first;
// an attempt a host flake ended comes first.
func (tl *Timeline) String() string {
	tl.mu.Lock()
	earlier := append([]Entry(nil), tl.earlier...)
	tl.mu.Unlock()
	if len(earlier) == 0 {
		return FormatEntries(tl.Entries())
	}
	return "the attempt a host flake ended:\n" + FormatEntries(earlier) + "the pod made once more:\n" + FormatEntries(tl.Entries())
}

// FormatEntries renders entries with their offsets from the first one.
func FormatEntries(es []Entry) string {
	if len(es) == 0 {
		return "(nothing observed)"
	}
	var b strings.Builder
	t0 := es[0].Seen
	for _, e := range es {
		fmt.Fprintf(&b, "%s +%7.3fs %-7s %s\n", e.Seen.UTC().Format("15:04:05.000"), e.Seen.Sub(t0).Seconds(), e.Kind, e.Summary)
	}
	return b.String()
}

// Save writes the record as JSON and text into dir, named after the spec.
func (tl *Timeline) Save(dir, spec string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	base := filepath.Join(dir, SavedName(spec, tl.Name))
	tl.mu.Lock()
	earlier, flakes := append([]Entry(nil), tl.earlier...), append([]string(nil), tl.flakes...)
	tl.mu.Unlock()
	data, err := json.MarshalIndent(struct {
		Namespace string   `json:"namespace"`
		Pod       string   `json:"pod"`
		Entries   []Entry  `json:"entries"`
		Flakes    []string `json:"hostFlakes,omitempty"`
		Earlier   []Entry  `json:"earlierAttempt,omitempty"`
	}{tl.Namespace, tl.Name, tl.Entries(), flakes, earlier}, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(base+".json", data, 0o644); err != nil {
		return err
	}
	return os.WriteFile(base+".txt", []byte(tl.String()), 0o644)
}

// SavedName is the base name (no extension) Save gives the timeline of pod recorded
// by the spec whose full text is spec; the report finds the files by it.
func SavedName(spec, pod string) string {
	return safeFileName(spec) + "-" + pod
}

func safeFileName(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '_'
	}, s)
}

// SummarizePod is a one-line account of a pod's status: phase, conditions with their
// transition times, and each container's state.
func SummarizePod(p *corev1.Pod) string {
	var b strings.Builder
	fmt.Fprintf(&b, "phase=%s", p.Status.Phase)
	if p.DeletionTimestamp != nil {
		b.WriteString(" deleting")
	}
	if p.Spec.NodeName != "" {
		fmt.Fprintf(&b, " node=%s", p.Spec.NodeName)
	}
	conds := append([]corev1.PodCondition(nil), p.Status.Conditions...)
	sort.SliceStable(conds, func(i, j int) bool { return conds[i].Type < conds[j].Type })
	for _, c := range conds {
		fmt.Fprintf(&b, " %s=%s", c.Type, c.Status)
		if c.Reason != "" {
			fmt.Fprintf(&b, "(%s)", c.Reason)
		}
	}
	statuses := append(append(append([]corev1.ContainerStatus(nil), p.Status.InitContainerStatuses...), p.Status.ContainerStatuses...), p.Status.EphemeralContainerStatuses...)
	for _, s := range statuses {
		fmt.Fprintf(&b, " | %s: %s restarts=%d ready=%t", s.Name, DescribeState(s.State), s.RestartCount, s.Ready)
		if s.LastTerminationState.Terminated != nil {
			fmt.Fprintf(&b, " last=%s", DescribeState(s.LastTerminationState))
		}
	}
	return b.String()
}

// DescribeState renders a container state as Kind(reason, details).
func DescribeState(s corev1.ContainerState) string {
	switch {
	case s.Waiting != nil:
		return "Waiting(" + s.Waiting.Reason + ")"
	case s.Running != nil:
		return "Running(since " + s.Running.StartedAt.UTC().Format("15:04:05") + ")"
	case s.Terminated != nil:
		t := s.Terminated
		return fmt.Sprintf("Terminated(%s, exit %d, %s..%s)", t.Reason, t.ExitCode,
			t.StartedAt.UTC().Format("15:04:05"), t.FinishedAt.UTC().Format("15:04:05"))
	default:
		return "Unknown"
	}
}
