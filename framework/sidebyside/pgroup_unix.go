//go:build unix

package sidebyside

import (
	"os/exec"
	"syscall"
)

// setProcessGroup puts a suite's Ginkgo and the spec processes it starts in a process
// group of their own: a Ctrl-C at the terminal reaches this process, which hands each
// group one interrupt (InterruptGroup), instead of every process getting it twice.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// InterruptGroup sends SIGINT to the process group of cmd (set up by Do): what a
// Ctrl-C at a terminal sends to a Ginkgo run.
func InterruptGroup(cmd *exec.Cmd) error {
	return syscall.Kill(-cmd.Process.Pid, syscall.SIGINT)
}
