//go:build unix

package exec

import (
	"errors"
	"os"
	osexec "os/exec"
	"syscall"
)

// group starts cmd in a process group of its own and makes cancelling its
// context kill the whole group, not only the direct child.
func group(cmd *osexec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return killGroup(cmd) }
}

// killGroup sends SIGKILL to cmd's process group. A group that is already
// gone is os.ErrProcessDone.
func killGroup(cmd *osexec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return os.ErrProcessDone
	}
	return err
}
