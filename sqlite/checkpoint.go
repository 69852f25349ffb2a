package sqlite

import (
	"context"
	"database/sql"
	"os"
	"time"
)

// Checkpoints run off the write path. SQLite's automatic checkpoint (every
// 1,000 WAL pages) runs inside the commit that crosses the mark, on the
// one writer connection: it copies the pages back into the database file
// and syncs both files while every queued write waits. Here the writer
// never checkpoints by itself (wal_autocheckpoint 0). A goroutine of the
// store (checkpointLoop), on a connection of its own, watches the size of
// the WAL file and, once it passes Options.CheckpointSize, runs a PASSIVE
// checkpoint, which copies alongside the writer and blocks nobody. What it
// cannot do is start the WAL over: SQLite rewinds the WAL at the first
// write after a checkpoint that copied every frame, and under steady
// writes the writer has always appended more by then. So after each
// background checkpoint the writer, between two batches, runs a PASSIVE
// checkpoint of its own, which copies only the frames written meanwhile,
// so that its next write can rewind the WAL (it does when no reader still
// reads from the WAL; until then the rounds repeat, one per poll), and
// journal_size_limit cuts the file back to CheckpointSize. Should the WAL still grow (a reader held an old
// snapshot throughout), past four times CheckpointSize the writer runs a
// RESTART checkpoint instead, which waits for those readers, so that the
// WAL cannot grow without bound.

// defaultCheckpointSize is CheckpointSize when unset. It is larger than
// the WAL the metered benchmarks (internal/walmeter) let grow between
// their own checkpoints, so that no background checkpoint runs while they
// count frames. The writer's catch-up checkpoint at each start-over of
// the WAL sometimes takes milliseconds (it syncs), so the size sets how
// often writes see that stall: over HTTP with 16 clients the answer p99
// was 19.5 and 17.3 ms at 32 MiB, 16.6 and 16.8 ms at 128 MiB, 16.8 and
// 15.3 ms at 256 MiB, in turn (docs/benchmarks.md). 128 MiB keeps most of
// the gain at half the disk of 256.
const defaultCheckpointSize = 128 << 20

// checkpointPoll is how often checkpointLoop looks at the WAL's size
// while the store writes.
const checkpointPoll = 10 * time.Millisecond

// checkpointIdlePolls is every how many polls the WAL's size is looked at
// even though the store committed nothing since the last one.
const checkpointIdlePolls = 100

// checkpointLoop runs background checkpoints on db until the store
// closes.
func (s *Store) checkpointLoop(db *sql.DB, wal string, size int64) {
	defer close(s.checkpointDone)
	tick := time.NewTicker(checkpointPoll)
	defer tick.Stop()
	seen := s.commits.Load()
	for ticks := 1; ; ticks++ {
		select {
		case <-s.closing:
			return
		case <-tick.C:
		}
		// The size is looked at after the store's commits, and now and
		// then without them, for the writes that bypass the store on
		// its writer (WriteDB: the builder queue). Another process's
		// writes to the file are its own store's to checkpoint.
		if n := s.commits.Load(); n == seen && ticks%checkpointIdlePolls != 0 {
			continue
		} else {
			seen = n
		}
		fi, err := os.Stat(wal)
		if err != nil || fi.Size() <= size {
			continue
		}
		// An error (SQLITE_BUSY while another process checkpoints, say)
		// leaves the WAL for the next round.
		if _, err := db.Exec(`PRAGMA wal_checkpoint(PASSIVE)`); err != nil {
			continue
		}
		mode := "PASSIVE"
		if fi.Size() > 4*size {
			mode = "RESTART"
		}
		s.catchUp.Store(&mode)
	}
}

// catchUpCheckpoint runs on the writer, with s.writing held, the checkpoint
// checkpointLoop asked for, if any.
func (s *Store) catchUpCheckpoint() {
	mode := s.catchUp.Swap(nil)
	if mode == nil {
		return
	}
	// Errors are left for the next round, as above.
	s.writer.ExecContext(context.Background(), `PRAGMA wal_checkpoint(`+*mode+`)`)
}
