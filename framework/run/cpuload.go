package run

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// CPULoad samples the machine's CPU time every period, so that each phase of a run
// can say how busy the machine was while it ran: a phase that keeps every core busy
// is bound by the CPU, and its timings are at their least steady.
type CPULoad struct {
	cores   int
	period  time.Duration
	mu      sync.Mutex
	samples []cpuSample
	stop    chan struct{}
	done    chan struct{}
}

type cpuSample struct {
	at          time.Time
	busy, total uint64 // clock ticks summed over every core
}

// StartCPULoad samples read (ReadProcStat of /proc/stat, say) every period until Stop;
// cores is the machine's number of cores. A read that fails is skipped.
func StartCPULoad(read func() (busy, total uint64, err error), cores int, period time.Duration) *CPULoad {
	l := &CPULoad{cores: cores, period: period, stop: make(chan struct{}), done: make(chan struct{})}
	sample := func() {
		if busy, total, err := read(); err == nil {
			l.mu.Lock()
			l.samples = append(l.samples, cpuSample{time.Now(), busy, total})
			l.mu.Unlock()
		}
	}
	sample()
	go func() {
		defer close(l.done)
		t := time.NewTicker(period)
		defer t.Stop()
		for {
			select {
			case <-l.stop:
				sample()
				return
			case <-t.C:
				sample()
			}
		}
	}()
	return l
}

// Stop takes a last sample and ends the sampling.
func (l *CPULoad) Stop() {
	close(l.stop)
	<-l.done
}

// Busy is how many cores were busy on average from from to to: between the sample
// nearest before from and the one nearest after to, or, where there is none yet, the
// nearest within a period inside the span; false when the samples do not cover it.
func (l *CPULoad) Busy(from, to time.Time) (float64, bool) {
	if l == nil {
		return 0, false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	first, last := -1, -1
	for i, s := range l.samples {
		if !s.at.After(from) || (first < 0 && s.at.Sub(from) <= l.period) {
			first = i
		}
		if last < 0 && !s.at.Before(to) {
			last = i
		}
	}
	if n := len(l.samples); last < 0 && n > 0 && to.Sub(l.samples[n-1].at) <= l.period {
		last = n - 1
	}
	if first < 0 || last <= first {
		return 0, false
	}
	a, b := l.samples[first], l.samples[last]
	if b.total <= a.total {
		return 0, false
	}
	return float64(b.busy-a.busy) / float64(b.total-a.total) * float64(l.cores), true
}

// column is the phase line's note of the machine's load over a span ("" unknown).
func (l *CPULoad) column(from, to time.Time) string {
	busy, ok := l.Busy(from, to)
	if !ok {
		return ""
	}
	return fmt.Sprintf("   %.2f of %d cores busy", busy, l.cores)
}

// ReadProcStatFile reads /proc/stat (ReadProcStat).
func ReadProcStatFile() (busy, total uint64, err error) {
	f, err := os.Open("/proc/stat")
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	return ReadProcStat(f)
}

// ReadProcStat reads the ticks of the aggregate "cpu" line of a /proc/stat: total is
// every field, busy all but idle and iowait (the 4th and 5th; guest time, the 9th and
// 10th, is already counted in user and nice).
func ReadProcStat(r io.Reader) (busy, total uint64, err error) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 5 || fields[0] != "cpu" {
			continue
		}
		for i, f := range fields[1:] {
			if i >= 8 {
				break
			}
			n, err := strconv.ParseUint(f, 10, 64)
			if err != nil {
				return 0, 0, fmt.Errorf("/proc/stat: cpu field %d: %w", i+1, err)
			}
			total += n
			if i != 3 && i != 4 {
				busy += n
			}
		}
		return busy, total, nil
	}
	if err := sc.Err(); err != nil {
		return 0, 0, err
	}
	return 0, 0, fmt.Errorf("/proc/stat: no aggregate cpu line")
}
