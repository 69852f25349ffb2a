//go:build !unix

package exec

import osexec "os/exec"

// group is a no-op where process groups are not available: cancelling
// the context kills the direct child only.
func group(cmd *osexec.Cmd) {}

// killGroup kills the direct child.
func killGroup(cmd *osexec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return cmd.Process.Kill()
}
