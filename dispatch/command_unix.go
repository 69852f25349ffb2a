//go:build unix

package dispatch

import (
	"os/exec"
	"syscall"
)

// ownProcessGroup runs cmd in a new process group and makes cancelling it
// kill the whole group.
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		// The group's id is the leader's pid.
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
