package run

import (
	"math"
	"strings"
	"testing"
	"time"
)

func TestReadProcStatCountsAllButIdleAndIOWait(t *testing.T) {
	stat := "cpu  100 5 50 800 40 3 2 0 7 0\ncpu0 50 2 25 400 20 1 1 0 3 0\nintr 1 2\n"
	busy, total, err := ReadProcStat(strings.NewReader(stat))
	if err != nil || busy != 160 || total != 1000 {
		t.Errorf("busy %d, total %d, %v; want 160 of 1000 (user, nice, system, irq, softirq, steal; guest is in user)", busy, total, err)
	}
	if _, _, err := ReadProcStat(strings.NewReader("intr 1 2\n")); err == nil {
		t.Error("a /proc/stat without its cpu line: want an error")
	}
}

func TestCPULoadBusyOverASpan(t *testing.T) {
	t0 := time.Unix(1000, 0)
	l := &CPULoad{cores: 2, period: 2 * time.Second}
	for i, busy := range []uint64{0, 100, 300, 500, 600} { // ticks: 100, 200, 200, 100 busy of 200 each 2 s
		l.samples = append(l.samples, cpuSample{at: t0.Add(time.Duration(i) * 2 * time.Second), busy: busy, total: uint64(i) * 200})
	}
	for name, c := range map[string]struct {
		from, to time.Time
		want     float64
		ok       bool
	}{
		"whole run":                     {t0, t0.Add(8 * time.Second), 1.5, true},
		"the busy middle":               {t0.Add(2 * time.Second), t0.Add(6 * time.Second), 2, true},
		"inside one period":             {t0.Add(2500 * time.Millisecond), t0.Add(3500 * time.Millisecond), 2, true},
		"ending after the last sample":  {t0.Add(6 * time.Second), t0.Add(9 * time.Second), 1, true},
		"ending long after the samples": {t0, t0.Add(20 * time.Second), 0, false},
		"starting before the samples":   {t0.Add(-10 * time.Second), t0.Add(4 * time.Second), 0, false},
	} {
		got, ok := l.Busy(c.from, c.to)
		if ok != c.ok || math.Abs(got-c.want) > 1e-9 {
			t.Errorf("%s: %.2f cores, %v; want %.2f, %v", name, got, ok, c.want, c.ok)
		}
	}
	var none *CPULoad
	if _, ok := none.Busy(t0, t0.Add(time.Second)); ok || none.column(t0, t0) != "" {
		t.Error("no sampler: want no figure")
	}
}
