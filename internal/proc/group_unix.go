//go:build unix

package proc

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

// OwnGroup starts cmd in a process group of its own and makes cancelling
// its context kill the whole group, not only the direct child.
func OwnGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return KillGroup(cmd) }
}

// KillGroup sends SIGKILL to the process group of a cmd started after
// OwnGroup. A group that is already gone is os.ErrProcessDone.
func KillGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	// The group's id is the leader's pid.
	err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return os.ErrProcessDone
	}
	return err
}
