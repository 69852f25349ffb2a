//go:build !unix

package proc

import "os/exec"

// OwnGroup leaves cmd as it is where process groups are not available:
// cancelling the context kills the direct child only.
func OwnGroup(*exec.Cmd) {}

// KillGroup kills the direct child.
func KillGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return cmd.Process.Kill()
}
