package observe

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// EndpointState is how a Service's EndpointSlices list one pod: whether it is there and
// its ready, serving and terminating conditions.
type EndpointState struct {
	Listed, Ready, Serving, Terminating bool
}

func (s EndpointState) String() string {
	if !s.Listed {
		return "not listed"
	}
	return fmt.Sprintf("ready=%t serving=%t terminating=%t", s.Ready, s.Serving, s.Terminating)
}

// EndpointChange is a state of one pod's endpoint and when the watch delivered it.
type EndpointChange struct {
	Seen  time.Time
	State EndpointState
}

// Endpoints records, through a watch, every change of how a Service's EndpointSlices
// list one pod.
type Endpoints struct {
	mu      sync.Mutex
	changes []EndpointChange
	stop    context.CancelFunc
	slices  cache.Store
	pod     string
}

// RecordEndpoints starts watching the EndpointSlices of service in ns for pod; call
// Stop when done. It returns once the watch is synced.
func RecordEndpoints(ctx context.Context, client kubernetes.Interface, ns, service, pod string) (*Endpoints, error) {
	ctx, cancel := context.WithCancel(ctx)
	ep := &Endpoints{stop: cancel, pod: pod}
	inf := informerOf(client.DiscoveryV1().RESTClient(), "endpointslices", ns, &discoveryv1.EndpointSlice{},
		func(o *metav1.ListOptions) { o.LabelSelector = discoveryv1.LabelServiceName + "=" + service })
	ep.slices = inf.GetStore()
	changed := func(any) { ep.observe() }
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: changed, UpdateFunc: func(_, o any) { changed(o) }, DeleteFunc: changed}); err != nil {
		cancel()
		return nil, err
	}
	go inf.Run(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		cancel()
		return nil, fmt.Errorf("watching the EndpointSlices of service %s/%s: cache did not sync", ns, service)
	}
	ep.observe()
	return ep, nil
}

// Stop ends the watch.
func (ep *Endpoints) Stop() { ep.stop() }

func (ep *Endpoints) observe() {
	state := EndpointState{}
	for _, o := range ep.slices.List() {
		for _, e := range o.(*discoveryv1.EndpointSlice).Endpoints {
			if e.TargetRef == nil || e.TargetRef.Name != ep.pod {
				continue
			}
			state = EndpointState{Listed: true, Ready: isTrue(e.Conditions.Ready), Serving: isTrue(e.Conditions.Serving), Terminating: isTrue(e.Conditions.Terminating)}
		}
	}
	ep.mu.Lock()
	defer ep.mu.Unlock()
	if n := len(ep.changes); n > 0 && ep.changes[n-1].State == state {
		return
	}
	ep.changes = append(ep.changes, EndpointChange{Seen: time.Now(), State: state})
}

func isTrue(b *bool) bool { return b != nil && *b }

// Current is the latest state seen. It fits Eventually.
func (ep *Endpoints) Current() EndpointState {
	ep.mu.Lock()
	defer ep.mu.Unlock()
	if len(ep.changes) == 0 {
		return EndpointState{}
	}
	return ep.changes[len(ep.changes)-1].State
}

// Changes returns every state seen, in order.
func (ep *Endpoints) Changes() []EndpointChange {
	ep.mu.Lock()
	defer ep.mu.Unlock()
	return append([]EndpointChange(nil), ep.changes...)
}

// States returns the states seen, in order, without their times.
func (ep *Endpoints) States() []EndpointState {
	var out []EndpointState
	for _, c := range ep.Changes() {
		out = append(out, c.State)
	}
	return out
}

// String renders the changes with offsets from the first.
func (ep *Endpoints) String() string {
	cs := ep.Changes()
	if len(cs) == 0 {
		return "(no endpoint states)"
	}
	var b strings.Builder
	for _, c := range cs {
		fmt.Fprintf(&b, "  +%6dms %s\n", c.Seen.Sub(cs[0].Seen).Milliseconds(), c.State)
	}
	return b.String()
}
