package backoff

import (
	"fmt"
	"testing"
	"time"

	"github.com/podlifecycle/conformance/framework/observe"
)

func TestExpected(t *testing.T) {
	s := time.Second
	cases := []struct {
		initial, max time.Duration
		n            int
		want         []time.Duration
	}{
		{10 * s, 300 * s, 5, []time.Duration{0, 10 * s, 20 * s, 40 * s, 80 * s}},
		{1 * s, 60 * s, 8, []time.Duration{0, 1 * s, 2 * s, 4 * s, 8 * s, 16 * s, 32 * s, 60 * s}},
		{10 * s, 2 * s, 4, []time.Duration{0, 2 * s, 2 * s, 2 * s}},
		{10 * s, 100 * s, 6, []time.Duration{0, 10 * s, 20 * s, 40 * s, 80 * s, 100 * s}},
	}
	for _, c := range cases {
		got := Expected(c.initial, c.max, c.n)
		if len(got) != len(c.want) {
			t.Fatalf("Expected(%v, %v, %d) = %v", c.initial, c.max, c.n, got)
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("Expected(%v, %v, %d)[%d] = %v, want %v", c.initial, c.max, c.n, i, got[i], c.want[i])
			}
		}
	}
}

func TestWithin(t *testing.T) {
	s := time.Second
	for _, c := range []struct {
		measured, b time.Duration
		ok          bool
	}{
		{12199 * time.Millisecond, 10 * s, true},
		{43400 * time.Millisecond, 40 * s, true},
		{57966 * time.Millisecond, 40 * s, false}, // unpaced, measured: 1.45 × b, the requeue jitter
		{9950 * time.Millisecond, 10 * s, true},   // within the marker latency
		{9800 * time.Millisecond, 10 * s, false},  // restarted early
		{18100 * time.Millisecond, 10 * s, false},
		{575 * time.Millisecond, 0, true},
		{3259 * time.Millisecond, 0, true}, // first restart on a just-booted 5-node cluster
		{4600 * time.Millisecond, 0, false},
		{4400 * time.Millisecond, 1 * s, true},
		{4800 * time.Millisecond, 1 * s, false},
	} {
		if Within(c.measured, c.b) != c.ok {
			t.Errorf("Within(%v, %v) = %v", c.measured, c.b, !c.ok)
		}
	}
}

func TestRestarts(t *testing.T) {
	at := func(ms int64) time.Time { return time.UnixMilli(1796000000000 + ms) }
	ms := []observe.Marker{
		{At: at(0), Container: "c", Event: "start"},
		{At: at(5), Container: "c", Event: "exit"},
		{At: at(600), Container: "c", Event: "start"},
		{At: at(606), Container: "other", Event: "start"},
		{At: at(610), Container: "c", Event: "exit"},
		{At: at(10710), Container: "c", Event: "start"},
	}
	got := Restarts(ms, "c")
	if len(got) != 2 || got[0].Start.Sub(got[0].Exit) != 595*time.Millisecond || got[1].Start.Sub(got[1].Exit) != 10100*time.Millisecond {
		t.Fatalf("Restarts = %v", got)
	}
}

func TestTableCarriesTheAllowedRange(t *testing.T) {
	s := time.Second
	table := Table([]time.Duration{0, 10 * s, 2 * s}, []time.Duration{483 * time.Millisecond, 12 * s})
	if len(table) != 2 {
		t.Fatalf("a measured delay is missing: want 2 rows, got %v", table)
	}
	// 0: at once, then PLEG detection (1 s), pace and sync (0.5 s), start latency (3 s).
	if got := table[0]; got.MinMs != 0 || got.MaxMs != 4500 || got.MeasuredMs != 483 {
		t.Errorf("row 1 = %+v", got)
	}
	// 10 s: 100 ms early; pace and sync 0.5 s + start latency 3 s late.
	if got := table[1]; got.MinMs != 9900 || got.MaxMs != 13500 || got.ExpectedMs != 10000 {
		t.Errorf("row 2 = %+v", got)
	}
	if want := "[1: expected 0ms measured 483ms (allowed 0–4500ms), 2: expected 10000ms measured 12000ms (allowed 9900–13500ms)]"; table.String() != want {
		t.Errorf("String() = %s\nwant       %s", table, want)
	}
}

// The documented model per statement: RS-6 defaults, RS-12 reduced decay, RS-13 a
// configured cap (also below the initial delay), RS-14 both; a /configz 300 s is the
// kubelet's default, not a cap set on purpose.
func TestSettingsDocumented(t *testing.T) {
	s := time.Second
	for _, c := range []struct {
		in       Settings
		want     []time.Duration
		scenario string
	}{
		{Settings{}, []time.Duration{0, 10 * s, 20 * s, 40 * s}, "RS-6"},
		{Settings{MaxPeriodGate: true, MaxPeriod: 300 * s}, []time.Duration{0, 10 * s, 20 * s, 40 * s}, "RS-6, default period in /configz"},
		{Settings{ReduceDefaultDecay: true, MaxPeriodGate: true, MaxPeriod: 300 * s}, []time.Duration{0, 1 * s, 2 * s, 4 * s, 8 * s, 16 * s, 32 * s, 60 * s}, "RS-12"},
		{Settings{MaxPeriodGate: true, MaxPeriod: 2 * s}, []time.Duration{0, 2 * s, 2 * s}, "RS-13 cap below the initial delay"},
		{Settings{MaxPeriod: 2 * s}, []time.Duration{0, 10 * s, 20 * s}, "period ignored with the gate off"},
		{Settings{ReduceDefaultDecay: true, MaxPeriodGate: true, MaxPeriod: 100 * s}, []time.Duration{0, 1 * s, 2 * s, 4 * s, 8 * s, 16 * s, 32 * s, 64 * s, 100 * s}, "RS-14"},
	} {
		got := c.in.Expected(len(c.want))
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%s: %v.Expected = %v, want %v", c.scenario, c.in, got, c.want)
		}
	}
}

func ms(v ...int64) []time.Duration {
	out := make([]time.Duration, len(v))
	for i, x := range v {
		out[i] = time.Duration(x) * time.Millisecond
	}
	return out
}

// longer is measured with each delay's backoff part made a fraction f longer: what a
// kubelet whose delays are all (1+f)·b would have given in the same loop.
func longer(expected, measured []time.Duration, f float64) []time.Duration {
	out := make([]time.Duration, len(measured))
	for i := range measured {
		out[i] = measured[i] + time.Duration(f*float64(expected[i]))
	}
	return out
}

// Paced loops pass the whole-loop rule; the same loops from a kubelet whose delays are
// all a fraction longer or shorter (above the loop's resolution) fail it.
func TestLoopTellsDocumentedFromAFractionLonger(t *testing.T) {
	for _, c := range []struct {
		name               string
		expected, measured []time.Duration
		f                  float64
	}{
		{"defaults, 4", ms(0, 10000, 20000, 40000), ms(640, 10912, 20817, 40996), 0.12},
		{"defaults, slow first start", ms(0, 10000, 20000, 40000), ms(1400, 10700, 21190, 40880), 0.12},
		{"container-level OnFailure, measured", ms(0, 10000, 20000), ms(1097, 12219, 22224), 0.2},
		{"reduced decay", ms(0, 1000, 2000, 4000, 8000, 16000), ms(700, 1520, 2830, 4610, 8750, 16640), 0.45},
		{"max-2s", ms(0, 2000, 2000, 2000, 2000), ms(527, 2620, 2580, 2700, 2590), 1.3},
	} {
		sum, ok := Loop(c.expected, c.measured)
		if !ok || !sum.Within() {
			t.Errorf("%s: loop rejected: %v", c.name, sum)
		}
		if c.f < sum.Resolution() {
			t.Errorf("%s: test fraction %.2f below the loop's resolution %.2f", c.name, c.f, sum.Resolution())
		}
		long := longer(c.expected, c.measured, c.f)
		if sum, _ := Loop(c.expected, long); sum.Within() {
			t.Errorf("%s: delays %.0f %% longer pass: %v", c.name, 100*c.f, sum)
		}
		if Fits(c.expected, long) {
			t.Errorf("%s: Fits takes delays %.0f %% longer", c.name, 100*c.f)
		}
		if sum, _ := Loop(c.expected, longer(c.expected, c.measured, -c.f)); sum.Within() {
			t.Errorf("%s: delays %.0f %% shorter pass: %v", c.name, 100*c.f, sum)
		}
	}
	// Unpaced delays (a pod left alone, measured on this project's cluster) carry the
	// requeue jitter and are not the backoff the paced rule checks.
	if sum, _ := Loop(ms(0, 10000, 20000, 40000), ms(428, 12607, 25943, 42085)); sum.Within() {
		t.Errorf("an unpaced loop with its jitter passes the paced rule: %v", sum)
	}
	if _, ok := Loop(ms(10000, 20000), ms(10500, 20500)); ok {
		t.Error("a loop without its zero-delay first restart has no measured overhead")
	}
	sum, ok := Loop(ms(0, 10000, 20000, 0, 10000), ms(500, 10600, 20700, 400, 10550))
	if !ok || sum.Documented != 40*time.Second || sum.Overhead != 400*time.Millisecond || sum.Measured != 1850*time.Millisecond {
		t.Errorf("a zero in the middle (a backoff reset) is not summed: %+v", sum)
	}
}

// The requeue jitter is decided over the loop: visible in a loop left alone (measured
// on this project's cluster), not in a paced one.
// A probe kill's loop (measured on this project's cluster, under load) has two
// restarts at once; the quickest is the loop's overhead, and the loop fits.
func TestOverheadIsTheQuickestImmediateRestart(t *testing.T) {
	shifted := ms(0, 0, 10000, 20000)
	measured := ms(3951, 2876, 12457, 21528)
	if got := Overhead(shifted, measured); got != 2876*time.Millisecond {
		t.Errorf("Overhead = %v, want 2.876s", got)
	}
	if !Fits(shifted, measured) {
		sum, _ := Loop(shifted, measured)
		t.Errorf("the probe kill's loop does not fit its sequence: %v", sum)
	}
}

func TestRequeueJitter(t *testing.T) {
	j, ok := RequeueJitter(ms(0, 10000, 20000, 40000), ms(428, 12607, 25943, 42085))
	if !ok || !j.Visible() {
		t.Errorf("the measured unpaced loop shows no jitter: %v", j)
	}
	j, ok = RequeueJitter(ms(0, 10000, 20000, 40000), ms(640, 10912, 20817, 40996))
	if !ok || j.Visible() {
		t.Errorf("a paced loop shows jitter: %v", j)
	}
}

// Fits takes the documented delays, and not ones that skip the first backoff (a probe
// kill's extra immediate restart) nor ones a good fraction longer over the loop.
func TestFits(t *testing.T) {
	documented := Expected(10*time.Second, 300*time.Second, 4) // 0, 10, 20, 40 s
	shifted := append([]time.Duration{0}, Expected(10*time.Second, 300*time.Second, 3)...)
	for _, c := range []struct {
		name     string
		expected []time.Duration
		measured []time.Duration
		want     bool
	}{
		{"documented", documented, ms(300, 10400, 20900, 40700), true},
		{"10 % longer", documented, ms(300, 11400, 22900, 44700), false},
		{"an immediate restart more", documented, ms(166, 483, 10678, 20908), false},
		{"the same, against the shifted sequence", shifted, ms(166, 483, 10678, 20908), true},
		{"too few delays", documented, ms(300, 10400), false},
	} {
		if got := Fits(c.expected, c.measured); got != c.want {
			t.Errorf("%s: Fits = %v, want %v", c.name, got, c.want)
		}
	}
}

// The reduced decay's loops run to the seventh delay (RS-12, RS-14: 0, 1 s, … 32 s):
// a kubelet whose every delay is 20 % longer stays within the single-delay model up to
// 16 s and leaves it at 32 s, where the loop is out of the whole-loop rule's reach.
func TestReducedDecayLoopTellsTwentyPercentLonger(t *testing.T) {
	expected := Expected(time.Second, 60*time.Second, 7)
	longer := make([]time.Duration, len(expected))
	for i, b := range expected {
		longer[i] = b * 12 / 10
	}
	for i := 1; i < 6; i++ {
		if !Within(longer[i], expected[i]) {
			t.Errorf("delay %d: %v is already outside %v's bounds; the loop could stop earlier", i+1, longer[i], expected[i])
		}
	}
	if Within(longer[6], expected[6]) {
		t.Errorf("the seventh delay %v is within %v's bounds: 20 %% longer passes", longer[6], expected[6])
	}
	if sum, ok := Loop(expected[:6], longer[:6]); ok && !sum.Within() {
		t.Errorf("six delays already tell it by the whole loop (%v): the seventh is not needed", sum)
	}
}

func TestBoundsDetectedTakesAMeasuredDetectionLongerThanTheModels(t *testing.T) {
	// At once, the exit reported 4 s after it: the restart may come up to the model's
	// pace, sync and start after that report, not after the nominal 1 s.
	if _, hi := BoundsDetected(0, 4*time.Second); hi != 4*time.Second+Pace+SyncLatency+StartLatency {
		t.Errorf("at once, detected 4 s: hi %s", hi)
	}
	// A detection within the model's changes nothing, nor does one a backoff covers.
	for _, c := range []struct{ b, detected time.Duration }{{0, 0}, {0, 800 * time.Millisecond}, {10 * time.Second, 4 * time.Second}} {
		lo, hi := BoundsDetected(c.b, c.detected)
		wantLo, wantHi := Bounds(c.b)
		if lo != wantLo || hi != wantHi {
			t.Errorf("b %s detected %s: [%s, %s], want Bounds' [%s, %s]", c.b, c.detected, lo, hi, wantLo, wantHi)
		}
	}
	// A kubelet that saw the exit within a second and held the first restart for the
	// initial 10 s fails, detected or not.
	if WithinDetected(10500*time.Millisecond, 0, time.Second) {
		t.Error("a first restart 10.5 s after an exit reported after 1 s passed as at once")
	}
	// The reduced decay's 1 s backoff, the exit reported after 2.5 s.
	if _, hi := BoundsDetected(time.Second, 2500*time.Millisecond); hi != 2500*time.Millisecond+Pace+SyncLatency+StartLatency {
		t.Errorf("b 1 s, detected 2.5 s: hi %s", hi)
	}
}

// The kubelet's call: the runtime's share leaves the bound, the kubelet's turn stays;
// a detection not known keeps the marker model's upper bound.
func TestBoundsCalledLeaveTheStartToTheRuntime(t *testing.T) {
	lo, hi := BoundsCalled(20*time.Second, 1483*time.Millisecond)
	if lo != 20*time.Second-EarlyTolerance || hi != 22*time.Second {
		t.Errorf("BoundsCalled(20s, 1.483s) = %v, %v; want 19.9s, 22s", lo, hi)
	}
	// The kill matrix's stock delay that was 160 ms over its marker bound: the
	// kubelet called after 20712 ms, its runtime took 2873 ms more.
	if _, markerHi := BoundsDetected(20*time.Second, 1483*time.Millisecond); 23660*time.Millisecond <= markerHi {
		t.Fatalf("the marker bound %v should not hold 23.66 s", markerHi)
	}
	if 20712*time.Millisecond > hi {
		t.Errorf("the kubelet's call after 20.712 s is within the model, bound %v", hi)
	}
	// A kubelet that holds the restart 2.5 s past its backoff fails, though the marker
	// model (3.5 s late allowed) would pass it.
	if 22500*time.Millisecond <= hi {
		t.Errorf("a call 2.5 s past the backoff passes: bound %v", hi)
	}
	if _, hi := BoundsCalled(0, 0); hi != Detection+Pace+SyncLatency+StartLatency {
		t.Errorf("a restart at once whose detection is not known keeps the marker bound, got %v", hi)
	}
	if _, hi := BoundsCalled(0, 4*time.Second); hi != 4*time.Second+Pace+SyncLatency+CallLatency {
		t.Errorf("a restart at once after a 4 s detection: %v", hi)
	}
}

// Over a loop, the calls' limit is LoopCallLatency a delay.
func TestLoopCalledTakesTheCallsLatency(t *testing.T) {
	expected := []time.Duration{0, 10 * time.Second, 20 * time.Second, 40 * time.Second}
	calls := []time.Duration{time.Second, 10600 * time.Millisecond, 20900 * time.Millisecond, 40100 * time.Millisecond}
	sum, ok := LoopCalled(expected, calls)
	if !ok || sum.Limit != 3*(Pace+SyncLatency+LoopCallLatency) || !sum.Within() {
		t.Fatalf("LoopCalled = %v, %v", sum, ok)
	}
	// Every delay 10 % longer: 7 s over Σb 70 s, beyond the 5.25 s limit.
	longer := []time.Duration{time.Second, 11 * time.Second, 22 * time.Second, 44 * time.Second}
	if sum, _ := LoopCalled(expected, longer); sum.Within() {
		t.Errorf("delays 10 %% longer pass the loop: %v", sum)
	}
}
