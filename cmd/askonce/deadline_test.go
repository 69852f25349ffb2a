package main_test

import (
	"fmt"
	"os"
	"os/exec"
	"runtime/debug"
	"sync"
	"testing"
	"time"
)

// e2eDeadline is how long one end-to-end test (each test or subtest
// that runs the binary) may take, from its first use of the binary:
// well under the package's timeout, so that a test that hangs fails
// with its own name and stacks instead of holding the run until go
// test's -timeout. ASKONCE_E2E_DEADLINE (a Go duration) changes it.
var e2eDeadline = func() time.Duration {
	if d, err := time.ParseDuration(os.Getenv("ASKONCE_E2E_DEADLINE")); err == nil && d > 0 {
		return d
	}
	return 8 * time.Minute
}()

var (
	// armed holds the tests whose deadline runs.
	armed sync.Map // testing.TB -> struct{}
	// running holds the servers the tests started, killed when a test's
	// deadline passes (the test binary exits then, without its
	// cleanups).
	running sync.Map // *exec.Cmd -> struct{}
)

// withDeadline starts t's deadline, once: when it passes before t ends,
// the run stops with a message naming t, every goroutine's stack, and
// the servers the tests started killed.
func withDeadline(t testing.TB) {
	if _, loaded := armed.LoadOrStore(t, struct{}{}); loaded {
		return
	}
	timer := time.AfterFunc(e2eDeadline, func() {
		fmt.Fprintf(os.Stderr, "FAIL: %s still running after %v, the deadline of an end-to-end test (ASKONCE_E2E_DEADLINE): it is stuck; the stacks follow\n", t.Name(), e2eDeadline)
		running.Range(func(k, _ any) bool {
			if p := k.(*exec.Cmd).Process; p != nil {
				p.Kill()
			}
			return true
		})
		debug.SetTraceback("all")
		panic(fmt.Sprintf("%s: end-to-end deadline of %v passed", t.Name(), e2eDeadline))
	})
	t.Cleanup(func() {
		timer.Stop()
		armed.Delete(t)
	})
}

// track adds cmd, once started, to the processes a passed deadline
// kills, until t ends.
func track(t testing.TB, cmd *exec.Cmd) {
	running.Store(cmd, struct{}{})
	t.Cleanup(func() { running.Delete(cmd) })
}
