package observe

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestStopperScriptMarksSignalsAtOnce runs StopperScript as PID 1 of a new PID
// namespace (as in a container, so that /proc/1/fd/1 is its own stdout), with a
// stand-in for busybox's adjtimex, and checks what the suites' tolerance models assume:
// a trapped signal is marked at once, not after the heartbeat's sleep; heartbeats come
// every HeartbeatPeriod; the action after a signal runs.
func TestStopperScriptMarksSignalsAtOnce(t *testing.T) {
	if _, err := exec.LookPath("unshare"); err != nil || os.Geteuid() != 0 {
		t.Skip("needs root and unshare (util-linux) for a PID namespace")
	}
	bin := t.TempDir()
	// busybox adjtimex prints tv_sec and tv_usec; the leading 1 keeps the shell from
	// reading nanoseconds with leading zeros as octal.
	adjtimex := "#!/bin/sh\nns=$(date +%s%N)\necho \"tv_sec: ${ns%?????????}\"\necho \"tv_usec: $(( 1${ns#??????????} / 1000 - 1000000 ))\"\n"
	if err := os.WriteFile(filepath.Join(bin, "adjtimex"), []byte(adjtimex), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("unshare", "--pid", "--fork", "--kill-child", "--mount-proc", "sh", "-c", StopperScript("main", map[string]string{"USR1": ExitNow}))
	cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"))
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Skipf("cannot make a PID namespace here: %v", err)
	}
	defer func() { _ = cmd.Process.Signal(syscall.SIGKILL); _ = cmd.Wait() }()
	lines := make(chan string)
	go func() {
		defer close(lines)
		for sc := bufio.NewScanner(stdout); sc.Scan(); {
			lines <- sc.Text()
		}
	}()
	var log Log
	// awaitMarker reads markers until one with event arrives (bounded by 5 s).
	awaitMarker := func(event string) time.Time {
		t.Helper()
		deadline := time.After(5 * time.Second)
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("the script ended before marking %q:\n%s", event, log)
				}
				ms, _ := ParseMarkers(strings.NewReader(l))
				log = append(log, ms...)
				if len(ms) == 1 && ms[0].Event == event {
					return ms[0].At
				}
			case <-deadline:
				t.Fatalf("no %q marker within 5 s:\n%s", event, log)
			}
		}
	}
	// unshare forwards no signals: signal its child, the script (PID 1 inside).
	signal := func(sig string) time.Time {
		t.Helper()
		sent := time.Now()
		if err := exec.Command("pkill", "-"+sig, "-P", strconv.Itoa(cmd.Process.Pid)).Run(); err != nil {
			t.Fatalf("pkill -%s: %v", sig, err)
		}
		return sent
	}

	awaitMarker(Started)
	for range 4 {
		awaitMarker(Alive)
	}
	sent := signal("TERM") // marked, then it keeps running
	if d := awaitMarker(Signal("TERM")).Sub(sent); d > HeartbeatPeriod/2 {
		t.Errorf("TERM marked %v after it was sent; want under %v, not after the heartbeat's sleep:\n%s", d, HeartbeatPeriod/2, log)
	}
	awaitMarker(Alive)
	signal("USR1") // marked, then it exits
	awaitMarker(Signal("USR1"))
	awaitMarker(Exiting)

	// Until a signal interrupts it, a heartbeat comes every period plus the fork of
	// adjtimex and awk; the one after a trap comes early, as the trap ends the wait.
	term, _ := log.When(SignalTo("main", "TERM"))
	beats := log.Of("main").WithEvent(Alive)
	for i := 1; i < len(beats) && beats[i].At.Before(term); i++ {
		if d := beats[i].At.Sub(beats[i-1].At); d < HeartbeatPeriod || d > HeartbeatPeriod+150*time.Millisecond {
			t.Errorf("heartbeats %v apart, want %v plus the marker's fork:\n%s", d, HeartbeatPeriod, log)
		}
	}
}

// The mark function reads adjtimex's tv_usec as microseconds, or as nanoseconds when
// the clock's status has STA_NANO: both give the same 13-digit millisecond marker.
func TestMarkReadsTheClockInBothModes(t *testing.T) {
	for name, out := range map[string]string{
		"microseconds": "    status:       64 (UNSYNC)\n    time.tv_sec:  1796319667\n    time.tv_usec: 590114\n",
		"nanoseconds":  "    status:       8256 (UNSYNC)\n    time.tv_sec:  1796319667\n    time.tv_usec: 590114373\n",
	} {
		bin := t.TempDir()
		if err := os.WriteFile(filepath.Join(bin, "adjtimex"), []byte("#!/bin/sh\nprintf '"+out+"'\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		// /proc/1/fd/1 is not ours outside a container: the marker file is read instead.
		dir := t.TempDir()
		script := strings.NewReplacer("[ -d "+MarkerDir+" ]", "[ -d "+dir+" ]", MarkerDir+"/markers", dir+"/markers").Replace(MarkShell("main")) + "mark started"
		cmd := exec.Command("sh", "-c", strings.ReplaceAll(script, "/proc/1/fd/1", "/dev/null"))
		cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"))
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v: %s", name, err, b)
		}
		data, err := os.ReadFile(filepath.Join(dir, "markers"))
		if err != nil {
			t.Fatal(err)
		}
		ms, _ := ParseMarkers(strings.NewReader(string(data)))
		if len(ms) != 1 || ms[0].At.UnixMilli() != 1796319667590 || ms[0].Event != "started" {
			t.Errorf("%s: marker file %q read as %v, want 1796319667590 main started", name, data, ms)
		}
	}
}
