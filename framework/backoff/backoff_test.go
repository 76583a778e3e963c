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
		{12199 * time.Millisecond, 10 * s, true}, // measured on this project's cluster
		{57966 * time.Millisecond, 40 * s, true}, // ditto: 1.45 × b
		{9950 * time.Millisecond, 10 * s, true},  // within the marker latency
		{9800 * time.Millisecond, 10 * s, false}, // restarted early
		{18100 * time.Millisecond, 10 * s, false},
		{575 * time.Millisecond, 0, true},
		{3259 * time.Millisecond, 0, true}, // first restart on a just-booted 5-node cluster
		{4100 * time.Millisecond, 0, false},
		{4400 * time.Millisecond, 1 * s, true},
		{4600 * time.Millisecond, 1 * s, false},
	} {
		if Within(c.measured, c.b) != c.ok {
			t.Errorf("Within(%v, %v) = %v", c.measured, c.b, !c.ok)
		}
	}
}

func TestDelays(t *testing.T) {
	at := func(ms int64) time.Time { return time.UnixMilli(1796000000000 + ms) }
	ms := []observe.Marker{
		{At: at(0), Container: "c", Event: "start"},
		{At: at(5), Container: "c", Event: "exit"},
		{At: at(600), Container: "c", Event: "start"},
		{At: at(606), Container: "other", Event: "start"},
		{At: at(610), Container: "c", Event: "exit"},
		{At: at(10710), Container: "c", Event: "start"},
	}
	got := Delays(ms, "c")
	if len(got) != 2 || got[0] != 595*time.Millisecond || got[1] != 10100*time.Millisecond {
		t.Fatalf("Delays = %v", got)
	}
}

func TestTableCarriesTheAllowedRange(t *testing.T) {
	s := time.Second
	table := Table([]time.Duration{0, 10 * s, 2 * s}, []time.Duration{483 * time.Millisecond, 12 * s})
	if len(table) != 2 {
		t.Fatalf("a measured delay is missing: want 2 rows, got %v", table)
	}
	// 0: at once, then PLEG detection (1 s) and start latency (3 s).
	if got := table[0]; got.MinMs != 0 || got.MaxMs != 4000 || got.MeasuredMs != 483 {
		t.Errorf("row 1 = %+v", got)
	}
	// 10 s: 100 ms early, jitter 0.5·10 s + start latency 3 s late.
	if got := table[1]; got.MinMs != 9900 || got.MaxMs != 18000 || got.ExpectedMs != 10000 {
		t.Errorf("row 2 = %+v", got)
	}
	if want := "[1: expected 0ms measured 483ms (allowed 0–4000ms), 2: expected 10000ms measured 12000ms (allowed 9900–18000ms)]"; table.String() != want {
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

// Crash loops measured on this project's clusters pass the whole-loop rule; the same
// loops from a kubelet that waited 2·b (each delay b longer) fail it, including the
// max-2s profile, whose 2·b delays pass every per-delay bound.
func TestLoopTellsBFromTwoB(t *testing.T) {
	ms := func(v ...int64) []time.Duration {
		out := make([]time.Duration, len(v))
		for i, x := range v {
			out[i] = time.Duration(x) * time.Millisecond
		}
		return out
	}
	for _, c := range []struct {
		name               string
		expected, measured []time.Duration
	}{
		{"max-2s", ms(0, 2000, 2000, 2000, 2000), ms(1161, 3256, 2959, 2993, 3028)},
		{"max-2s, fast first restart", ms(0, 2000, 2000, 2000, 2000), ms(527, 3120, 3022, 3003, 3051)},
		{"reduced decay", ms(0, 1000, 2000, 4000, 8000, 16000), ms(1276, 1997, 2842, 5005, 12046, 17066)},
		{"both", ms(0, 1000, 2000, 4000, 8000), ms(1115, 2118, 3069, 5274, 10025)},
		{"defaults, 2", ms(0, 10000), ms(951, 12087)},
		{"defaults, 4", ms(0, 10000, 20000, 40000), ms(428, 12607, 25943, 42085)},
	} {
		sum, ok := Loop(c.expected, c.measured)
		if !ok || !sum.Within() {
			t.Errorf("%s: measured loop rejected: %v", c.name, sum)
		}
		doubled := make([]time.Duration, len(c.measured))
		for i := range c.measured {
			doubled[i] = c.measured[i] + c.expected[i]
		}
		if sum, _ := Loop(c.expected, doubled); sum.Within() {
			t.Errorf("%s: a kubelet waiting 2·b passes: %v", c.name, sum)
		}
		// Per delay, 2·b passes where b ≤ 6 s: only the loop tells them apart.
		if c.name == "max-2s" || c.name == "max-2s, fast first restart" {
			for i := 1; i < len(doubled); i++ {
				if !Within(doubled[i], c.expected[i]) {
					t.Errorf("max-2s: delay %d of 2·b (%v) no longer passes its own bound: the loop rule is then not what catches it", i, doubled[i])
				}
			}
		}
	}
	// Measured on the max-2s worker against the docs' delays halved (a deliberately
	// broken expectation): the kubelet's 2 s are 2·b for b = 1 s.
	if sum, _ := Loop(ms(0, 1000, 1000, 1000, 1000), ms(527, 3120, 3022, 3003, 3051)); sum.Within() {
		t.Errorf("2 s delays pass as 1 s: %v", sum)
	}
	if _, ok := Loop(ms(10000, 20000), ms(10500, 20500)); ok {
		t.Error("a loop without its zero-delay first restart has no measured overhead")
	}
	sum, ok := Loop(ms(0, 10000, 20000, 0, 10000), ms(500, 10600, 20700, 400, 10550))
	if !ok || sum.Documented != 40*time.Second || sum.Measured != 40*time.Second-1500*time.Millisecond+1850*time.Millisecond {
		t.Errorf("a zero in the middle (a backoff reset) is not summed: %+v", sum)
	}
}

// The jitter is drift only where a delay exceeds b + o₀ by more than a relist period.
func TestJittered(t *testing.T) {
	ms := func(v ...int64) []time.Duration {
		out := make([]time.Duration, len(v))
		for i, x := range v {
			out[i] = time.Duration(x) * time.Millisecond
		}
		return out
	}
	if got := Jittered(ms(0, 2000, 2000, 2000, 2000), ms(1161, 3256, 2959, 2993, 3028)); len(got) != 0 {
		t.Errorf("max-2s loop without visible jitter: %v", got)
	}
	if got := Jittered(ms(0, 1000, 2000, 4000, 8000, 16000), ms(1276, 1997, 2842, 5005, 12046, 17066)); fmt.Sprint(got) != "[4]" {
		t.Errorf("the 8 s delay measured 12 s: jittered = %v, want [4]", got)
	}
}

// Fits takes the documented delays, and not ones that skip the first backoff (a probe
// kill's extra immediate restart) nor ones a good fraction longer over the loop.
func TestFits(t *testing.T) {
	ms := func(v ...int) []time.Duration {
		out := make([]time.Duration, len(v))
		for i, x := range v {
			out[i] = time.Duration(x) * time.Millisecond
		}
		return out
	}
	documented := Expected(10*time.Second, 300*time.Second, 4) // 0, 10, 20, 40 s
	shifted := append([]time.Duration{0}, Expected(10*time.Second, 300*time.Second, 3)...)
	for _, c := range []struct {
		name     string
		expected []time.Duration
		measured []time.Duration
		want     bool
	}{
		{"documented", documented, ms(300, 10400, 20900, 41500), true},
		{"an immediate restart more", documented, ms(166, 483, 14578, 26308), false},
		{"the same, against the shifted sequence", shifted, ms(166, 483, 14578, 26308), true},
		{"too few delays", documented, ms(300, 10400), false},
	} {
		if got := Fits(c.expected, c.measured); got != c.want {
			t.Errorf("%s: Fits = %v, want %v", c.name, got, c.want)
		}
	}
}
