package proc

import (
	"context"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestTailKeepsTheEndAndMarksACut(t *testing.T) {
	t.Parallel()
	tl := &Tail{Limit: 16}
	tl.Write([]byte("  short \n"))
	if got := tl.String(); got != "short" {
		t.Fatalf("uncut tail %q", got)
	}
	for range 10 {
		tl.Write([]byte("0123456789"))
	}
	tl.Write([]byte("the end"))
	if got := tl.String(); got != "…123456789the end" {
		t.Fatalf("cut tail %q, want the last 16 bytes after a mark", got)
	}
	if empty := (&Tail{Limit: 4}); empty.String() != "" {
		t.Fatal("an empty tail is not empty")
	}
}

func TestKillGroupKillsGrandchildren(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("process groups are a Unix feature")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	// The shell starts a grandchild that would outlive a kill of the
	// shell alone and keep stdout open.
	cmd := exec.CommandContext(ctx, "sh", "-c", "sleep 30 & sleep 30")
	OwnGroup(cmd)
	var out strings.Builder
	cmd.Stdout = &out
	start := time.Now()
	cmd.Run()
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("run took %s: the group was not killed", d)
	}
}
