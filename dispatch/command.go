package dispatch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"time"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/internal/proc"
)

// DefaultCommandTimeout bounds one run of a Command when its Timeout is
// zero.
const DefaultCommandTimeout = time.Minute

// maxStderr caps the end of a failed command's standard error kept in the
// delivery error.
const maxStderr = 2 << 10

// Command delivers a job by running a program (askonce serve's
// --builder-cmd). Argv is run as is, without a shell; the job, as
// GET /jobs/{id} shows it (plan included), is written as JSON to its
// standard input, and the environment gets ASKONCE_JOB_ID and
// ASKONCE_TENANT_ID on top of askonce's own. Exit status 0 is a delivery;
// any other status, or running past Timeout, is a failed try whose error
// holds the end of the program's standard error. Standard output is
// discarded.
//
// On Unix the program runs in a process group of its own, and a timeout
// kills the whole group, so children it started die with it.
type Command struct {
	// Argv is the program and its arguments.
	Argv []string
	// Timeout bounds one run. Zero means DefaultCommandTimeout.
	Timeout time.Duration
	// Dir is the working directory; empty means askonce's.
	Dir string
}

// Name is "command".
func (c *Command) Name() string { return "command" }

// Deliver runs the command once with job on its standard input, with
// expiryNote when the plan rests on a default nobody answered
// (askonce.Job.ExpiryNote).
func (c *Command) Deliver(ctx context.Context, job *askonce.Job) error {
	if len(c.Argv) == 0 || c.Argv[0] == "" {
		return errors.New("command: no program configured")
	}
	in, err := json.Marshal(struct {
		*askonce.Job
		ExpiryNote string `json:"expiryNote,omitempty"`
	}{job, job.ExpiryNote()})
	if err != nil {
		return fmt.Errorf("command: encode job: %w", err)
	}
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = DefaultCommandTimeout
	}
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	cmd := exec.CommandContext(runCtx, c.Argv[0], c.Argv[1:]...)
	cmd.Dir = c.Dir
	cmd.Env = append(os.Environ(), "ASKONCE_JOB_ID="+job.ID, "ASKONCE_TENANT_ID="+job.TenantID)
	cmd.Stdin = bytes.NewReader(in)
	stderr := &proc.Tail{Limit: maxStderr}
	cmd.Stderr = stderr
	proc.OwnGroup(cmd)
	// Once killed, wait this long for the pipes to close (a grandchild
	// outside the group may hold them) before giving up on them.
	cmd.WaitDelay = 2 * time.Second

	err = cmd.Run()
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		// The caller gave up (askonce is stopping): not the program's fault.
		return fmt.Errorf("command: %w", ctx.Err())
	case errors.Is(runCtx.Err(), context.DeadlineExceeded):
		return withStderr(fmt.Sprintf("command: timed out after %s, killed", timeout), stderr)
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return withStderr(fmt.Sprintf("command: %s", exit.ProcessState), stderr)
	}
	return fmt.Errorf("command: %w", err)
}

func withStderr(msg string, stderr *proc.Tail) error {
	if s := stderr.String(); s != "" {
		msg += ": " + s
	}
	return errors.New(msg)
}
