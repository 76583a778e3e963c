package observe

import (
	"fmt"
	"strings"
	"time"
)

// HeartbeatPeriod is how often a StopperScript marks Alive: the precision of "when
// did it die" for a container killed without a chance to say so.
const HeartbeatPeriod = 200 * time.Millisecond

// TrappedSignals are the signals a StopperScript traps, so that whichever one a
// container is sent is recorded.
var TrappedSignals = []string{"TERM", "USR1", "USR2"}

// What a StopperScript may do once it has marked a signal.
const (
	KeepRunning = ":"
	ExitNow     = "mark " + Exiting + "; exit 0"
)

// ExitAfter marks the exit d after the signal, then exits 0.
func ExitAfter(d time.Duration) string {
	return fmt.Sprintf("sleep %g; %s", d.Seconds(), ExitNow)
}

// StopperScript is a POSIX shell script for container that marks Started, traps each
// of TrappedSignals (marking Signal(sig), then running then[sig], KeepRunning when
// absent), and marks Alive every HeartbeatPeriod until it exits or is killed. A
// trapped signal interrupts the `wait`, so its marker is written at once.
func StopperScript(container string, then map[string]string) string {
	var b strings.Builder
	b.WriteString(MarkShell(container))
	fmt.Fprintf(&b, "mark %s; ", Started)
	for _, sig := range TrappedSignals {
		action := then[sig]
		if action == "" {
			action = KeepRunning
		}
		fmt.Fprintf(&b, "trap 'mark \"%s\"; %s' %s; ", Signal(sig), action, sig)
	}
	fmt.Fprintf(&b, "while :; do mark %s; sleep %g & wait $!; done", Alive, HeartbeatPeriod.Seconds())
	return b.String()
}
