//go:build !unix

package sidebyside

import (
	"os"
	"os/exec"
)

func setProcessGroup(*exec.Cmd) {}

// InterruptGroup interrupts cmd's process.
func InterruptGroup(cmd *exec.Cmd) error { return cmd.Process.Signal(os.Interrupt) }
