package sqlite

import (
	"bufio"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/storetest"
)

func createJobs(t *testing.T, s *Store, n int) {
	t.Helper()
	tenant := storetest.NewTenant()
	for range n {
		if err := s.CreateJob(t.Context(), &askonce.Change{Job: storetest.NewJob(tenant), Events: []askonce.Event{{Type: askonce.EventCreated}}}); err != nil {
			t.Fatal(err)
		}
	}
}

// openWithCheckpointSize opens a store on a new file with CheckpointSize
// size, closed when the test ends, and returns it with the file's path.
func openWithCheckpointSize(t *testing.T, size int64) (*Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "askonce.db")
	s, err := Options{CheckpointSize: size}.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, path
}

// peakWAL runs write n times and returns the largest size the WAL file
// had after any of them. The background checkpoints may already cut the
// WAL back while the writes go on (on a slow machine they do), so its
// size at the end does not tell whether the writes ever passed a bound;
// the peak does.
func peakWAL(t *testing.T, path string, n int, write func(i int)) int64 {
	t.Helper()
	var peak int64
	for i := range n {
		write(i)
		peak = max(peak, walSize(t, path))
	}
	return peak
}

func walSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path + "-wal")
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// Without a checkpoint the WAL only grows; the writer no longer
// checkpoints by itself, so the background checkpoints must bring it back
// to CheckpointSize while writes go on.
func TestWALIsCutBackToCheckpointSizeUnderWrites(t *testing.T) {
	const size = 64 << 10
	s, path := openWithCheckpointSize(t, size)
	// About 3 MB of WAL, less than one automatic checkpoint's 1,000 pages.
	if peak := peakWAL(t, path, 300, func(int) { createJobs(t, s, 1) }); peak <= size {
		t.Fatalf("WAL was at most %d bytes over 300 jobs: too few writes to test the bound of %d", peak, size)
	}
	cutBack(t, path, size, time.Millisecond, func(int) { createJobs(t, s, 1) })
}

// cutBack goes on writing, one write every pause, until the WAL is at
// most size, and fails after a minute.
func cutBack(t *testing.T, path string, size int64, pause time.Duration, write func(i int)) {
	t.Helper()
	// A busy machine delays the checkpoints' goroutine: wait for the cut
	// itself, up to a minute (10 s was seen to run out at load 12).
	deadline := time.Now().Add(time.Minute)
	for i := 0; walSize(t, path) > size; i++ {
		if time.Now().After(deadline) {
			t.Fatalf("WAL still %d bytes after a minute of writes, want at most %d", walSize(t, path), size)
		}
		write(i)
		time.Sleep(pause)
	}
}

// The last connection to a file checkpoints as it closes; Close also
// copies its store's writes back while another process keeps the file
// open, so that they do not wait in the WAL for that process.
func TestCloseCheckpointsWhileAnotherStoreHasTheFileOpen(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "askonce.db")
	a, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	createJobs(t, a, 5)
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	// The database file alone, without the WAL, holds a's jobs.
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	alone := filepath.Join(dir, "alone.db")
	if err := os.WriteFile(alone, data, 0o600); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", alone)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM jobs`).Scan(&n); err != nil {
		t.Fatalf("the database file without its WAL: %v", err)
	}
	if n != 5 {
		t.Errorf("the database file without its WAL holds %d jobs, want 5", n)
	}
	createJobs(t, b, 1) // the other store goes on writing
}

// Writes on the writer that bypass the store (the builder queue's, through
// WriteDB) are checkpointed too, without a commit of the store's.
func TestWALOfWritesThroughWriteDBIsCutBack(t *testing.T) {
	const size = 64 << 10
	s, path := openWithCheckpointSize(t, size)
	put := func(i int) {
		if _, err := s.WriteDB().Exec(`INSERT OR REPLACE INTO settings (name, value) VALUES (?, randomblob(4000))`, fmt.Sprint("test-", i%50)); err != nil {
			t.Fatal(err)
		}
	}
	if peak := peakWAL(t, path, 100, put); peak <= size {
		t.Fatalf("WAL was at most %d bytes over 100 writes: too few to test the bound of %d", peak, size)
	}
	cutBack(t, path, size, 20*time.Millisecond, put)
}

// checkpointChildEnv names the file a child process of
// TestRule13_KillDuringBackgroundCheckpointsLosesNoAcknowledgedJob writes.
const checkpointChildEnv = "ASKONCE_TEST_CHECKPOINT_CHILD"

// Rule 13 with checkpoints off the write path: a process killed while its
// store writes and checkpoints in the background (CheckpointSize 64 KiB,
// so that checkpoints and starts of the WAL over run all the time) loses
// none of the jobs whose CreateJob had returned. The child prints each
// such job's id; the parent waits until a background checkpoint has run
// (the database file grew: pages were copied into it, which only a
// checkpoint does), lets the child acknowledge afterCheckpoint more jobs
// so that the kill lands among further writes and checkpoints, kills it
// with SIGKILL and opens the file. A busy machine delays the checkpoints'
// goroutine, so the test waits for the growth itself, up to the child's
// 60 s, rather than for a count of writes.
func TestRule13_KillDuringBackgroundCheckpointsLosesNoAcknowledgedJob(t *testing.T) {
	if path := os.Getenv(checkpointChildEnv); path != "" {
		checkpointChild(t, path)
		return
	}
	const afterCheckpoint = 300
	path := filepath.Join(t.TempDir(), "askonce.db")
	cmd := exec.Command(os.Args[0], "-test.run=^TestRule13_KillDuringBackgroundCheckpointsLosesNoAcknowledgedJob$")
	cmd.Env = append(os.Environ(), checkpointChildEnv+"="+path)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	// The child stops by itself after 60 s; this kill ends the wait if it
	// hangs instead.
	stop := time.AfterFunc(90*time.Second, func() { cmd.Process.Kill() })
	defer stop.Stop()
	lines := bufio.NewScanner(out)
	var tenant string
	var acked []string
	var fileAtStart int64
	checkpointedAt := -1 // len(acked) when the file was first seen grown
	for lines.Scan() {
		line := lines.Text()
		if name, ok := strings.CutPrefix(line, "tenant "); ok {
			tenant = name
			fileAtStart = fileSize(t, path)
			continue
		}
		id, ok := strings.CutPrefix(line, "job ")
		if !ok {
			continue // the test binary's own output
		}
		acked = append(acked, id)
		if checkpointedAt < 0 && fileSize(t, path) > fileAtStart {
			checkpointedAt = len(acked)
		}
		if checkpointedAt >= 0 && len(acked) >= checkpointedAt+afterCheckpoint {
			break
		}
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if checkpointedAt < 0 {
		t.Fatalf("the database file stayed at %d bytes while the child wrote %d jobs until it ended: no checkpoint ran (its output above)", fileAtStart, len(acked))
	}
	if len(acked) < checkpointedAt+afterCheckpoint {
		t.Fatalf("the child acknowledged %d jobs after the first checkpoint before it ended, want %d (its output above)", len(acked)-checkpointedAt, afterCheckpoint)
	}
	t.Logf("first checkpoint seen after %d jobs; killed after %d", checkpointedAt, len(acked))
	s, err := Open(t.Context(), path)
	if err != nil {
		t.Fatalf("open after the kill: %v", err)
	}
	defer s.Close()
	for _, id := range acked {
		if _, err := s.GetJob(t.Context(), tenant, id); err != nil {
			t.Errorf("acknowledged job %s after the kill: %v", id, err)
		}
	}
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// checkpointChild creates jobs in the store at path until it is killed
// (or for at most 60 s, or 100,000 jobs), printing each one's id once its
// CreateJob returned.
func checkpointChild(t *testing.T, path string) {
	s, err := Options{CheckpointSize: 64 << 10}.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	tenant := storetest.NewTenant()
	fmt.Printf("tenant %s\n", tenant)
	deadline := time.Now().Add(60 * time.Second)
	for range 100_000 {
		if time.Now().After(deadline) {
			break
		}
		j := storetest.NewJob(tenant)
		if err := s.CreateJob(t.Context(), &askonce.Change{Job: j, Events: []askonce.Event{{Type: askonce.EventCreated}}}); err != nil {
			t.Fatal(err)
		}
		fmt.Printf("job %s\n", j.ID)
	}
	s.Close()
}
