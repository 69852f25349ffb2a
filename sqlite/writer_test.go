package sqlite

import (
	"context"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// A write that finds the writer idle runs on its caller's goroutine: the
// test function is on the stack of the write's function.
func TestLoneWriteRunsOnTheCallersGoroutine(t *testing.T) {
	s, _, appendEvent := batchFixture(t)
	var stack string
	if err := s.write(t.Context(), func(ctx context.Context, tx wtx) error {
		buf := make([]byte, 64<<10)
		stack = string(buf[:runtime.Stack(buf, false)])
		return appendEvent("lone")(ctx, tx)
	}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stack, "TestLoneWriteRunsOnTheCallersGoroutine") {
		t.Errorf("the write ran on another goroutine:\n%s", stack)
	}
}

// Writes that queue while another runs are still committed together.
func TestWritesQueuedBehindARunningWriteCommitTogether(t *testing.T) {
	s, j, appendEvent := batchFixture(t)
	const n = 8
	s.writing.Lock() // a write runs
	before := s.Commits()
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			if err := s.write(t.Context(), appendEvent("queued")); err != nil {
				t.Error(err)
			}
		})
	}
	// writeLoop holds the first of them; the others wait to be sent.
	waitForGoroutines(t, func(stacks []string) bool {
		sending, loopWaits := 0, false
		for _, g := range stacks {
			switch {
			case strings.Contains(g, "[select") && strings.Contains(g, "sqlite.(*Store).write("):
				sending++
			case strings.Contains(g, "[sync.Mutex.Lock") && strings.Contains(g, "sqlite.(*Store).writeLoop("):
				loopWaits = true
			}
		}
		return loopWaits && sending == n-1
	})
	s.writing.Unlock()
	wg.Wait()
	if got := s.Commits() - before; got >= n {
		t.Errorf("%d writes queued together took %d commits, want fewer", n, got)
	}
	if got := len(eventTypesOf(t, s, j)); got != n {
		t.Errorf("%d events, want %d", got, n)
	}
}

// waitForGoroutines waits until done holds for the stacks of every
// goroutine: how a test sees where goroutines it cannot reach are blocked.
func waitForGoroutines(t *testing.T, done func(stacks []string) bool) {
	t.Helper()
	buf := make([]byte, 1<<20)
	deadline := time.Now().Add(10 * time.Second)
	for {
		stacks := strings.Split(string(buf[:runtime.Stack(buf, true)]), "\n\n")
		if done(stacks) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("goroutines never got there:\n%s", strings.Join(stacks, "\n\n"))
		}
		time.Sleep(time.Millisecond)
	}
}
