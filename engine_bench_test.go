package askonce_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/sqlite"
)

// BenchmarkRoundTripClarification measures the in-process round trip
// create -> ask -> answer -> success with the rules interpreter on a SQLite
// file in WAL mode. Each iteration is one full clarification round trip;
// every goal is in its own session so that the repeat guard never answers.
//
// It reports, besides the time, the WAL frames and write transactions of
// one round trip (checkpoints off and untimed while it runs) and its time
// in one-row commits on the same driver and pragmas (floor-commits/op).
func BenchmarkRoundTripClarification(b *testing.B) {
	floor := floorCommit(b)
	st := openStore(b, filepath.Join(b.TempDir(), "bench.db"))
	e := &askonce.Engine{Store: st, Interpreter: rulesInterpreter(b)}
	m := newWALMeter(b, st.WriteDB(), st.Commits)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		j, err := e.Create(ctx, askonce.CreateRequest{Goal: "hot frozen cheese", SessionID: fmt.Sprint("bench-", i)})
		if err != nil || j.Status != askonce.StatusPending {
			b.Fatalf("create: %v %v", err, j.Status)
		}
		j, err = e.Answer(ctx, "", j.ID, "hot")
		if err != nil || j.Status != askonce.StatusSuccess {
			b.Fatalf("answer: %v %v", err, j.Status)
		}
		m.tick()
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "roundtrips/s")
	m.report(floor)
}

// BenchmarkCreateNoQuestion measures create -> success for a goal that
// needs no question.
func BenchmarkCreateNoQuestion(b *testing.B) {
	floor := floorCommit(b)
	st := openStore(b, filepath.Join(b.TempDir(), "bench.db"))
	e := &askonce.Engine{Store: st, Interpreter: rulesInterpreter(b)}
	m := newWALMeter(b, st.WriteDB(), st.Commits)
	b.ReportAllocs()
	for b.Loop() {
		j, err := e.Create(ctx, askonce.CreateRequest{Goal: "write the README then add tests", SessionID: "bench"})
		if err != nil || j.Status != askonce.StatusSuccess {
			b.Fatalf("create: %v %v", err, j.Status)
		}
		m.tick()
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "jobs/s")
	m.report(floor)
}

// BenchmarkRoundTripClarificationParallel runs round trips from 16
// goroutines per core, the way a server with many clients sees them; the
// store commits concurrent writes together.
func BenchmarkRoundTripClarificationParallel(b *testing.B) {
	st := openStore(b, filepath.Join(b.TempDir(), "bench.db"))
	e := &askonce.Engine{Store: st, Interpreter: rulesInterpreter(b)}
	start := st.Commits()
	b.ReportAllocs()
	b.SetParallelism(16)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			j, err := e.Create(ctx, askonce.CreateRequest{Goal: "hot frozen cheese"})
			if err != nil || j.Status != askonce.StatusPending {
				b.Fatalf("create: %v %v", err, j.Status)
			}
			if j, err = e.Answer(ctx, "", j.ID, "hot"); err != nil || j.Status != askonce.StatusSuccess {
				b.Fatalf("answer: %v %v", err, j.Status)
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "roundtrips/s")
	b.ReportMetric(float64(st.Commits()-start)/float64(b.N), "txs/op")
}

// floorStore opens the store whose writer floorCommit measures.
func floorStore(path string) (*sqlite.Store, error) { return sqlite.Open(context.Background(), path) }

// A walMeter counts the WAL frames and the write transactions of a store
// while a serial benchmark runs. Automatic checkpoints are off while it
// measures; every meterEvery iterations the timer stops and a TRUNCATE
// checkpoint reports the frames in the WAL and empties it, so the WAL
// never grows large and no checkpoint is timed.
type walMeter struct {
	b       *testing.B
	db      *sql.DB // the store's writer
	commits func() int64
	start   int64 // commits when the meter started
	frames  int64 // frames counted so far
	n       int   // iterations so far
}

const meterEvery = 128

func newWALMeter(b *testing.B, db *sql.DB, commits func() int64) *walMeter {
	b.Helper()
	if _, err := db.Exec(`PRAGMA wal_autocheckpoint = 0`); err != nil {
		b.Fatal(err)
	}
	m := &walMeter{b: b, db: db, commits: commits}
	m.checkpoint()
	m.frames = 0
	m.start = commits()
	return m
}

// checkpoint adds the frames in the WAL to m.frames and empties it. A
// PASSIVE checkpoint reports the frames (TRUNCATE reports those left
// after it, none), then TRUNCATE starts the WAL over.
func (m *walMeter) checkpoint() {
	var busy, log, done int64
	if err := m.db.QueryRow(`PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &log, &done); err != nil {
		m.b.Fatal(err)
	}
	if busy != 0 || done != log {
		m.b.Fatalf("wal checkpoint: busy, %d of %d frames copied", done, log)
	}
	m.frames += max(log, 0)
	if err := m.db.QueryRow(`PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&busy, &log, &done); err != nil {
		m.b.Fatal(err)
	}
	if busy != 0 {
		m.b.Fatal("wal checkpoint: busy")
	}
}

// tick counts one iteration and checkpoints, untimed, every meterEvery.
func (m *walMeter) tick() {
	m.n++
	if m.n%meterEvery == 0 {
		m.b.StopTimer()
		m.checkpoint()
		m.b.StartTimer()
	}
}

// report checkpoints once more and reports walframes/op, txs/op and, with
// floor (ns per one-row commit, 0: not measured), floor-commits/op: the
// time of one iteration in one-row commits on the same driver and pragmas.
func (m *walMeter) report(floor float64) {
	m.checkpoint()
	if m.n == 0 {
		return
	}
	m.b.ReportMetric(float64(m.frames)/float64(m.n), "walframes/op")
	m.b.ReportMetric(float64(m.commits()-m.start)/float64(m.n), "txs/op")
	if floor > 0 {
		m.b.ReportMetric(float64(m.b.Elapsed().Nanoseconds())/float64(m.n)/floor, "floor-commits/op")
	}
}

// floorOnce measures, once per test binary, what one-row INSERT commits
// cost on the driver and pragmas of a store: the floor a round trip's cost
// is given in.
var (
	floorOnce sync.Once
	floorNs   float64
	floorErr  error
)

// floorCommit returns the time of one one-row INSERT transaction on the
// writer of a fresh store (same driver, same pragmas, checkpoints off and
// untimed as under a walMeter), in nanoseconds.
func floorCommit(b *testing.B) float64 {
	b.Helper()
	floorOnce.Do(func() {
		dir, err := os.MkdirTemp("", "askonce-floor-")
		if err != nil {
			floorErr = err
			return
		}
		defer os.RemoveAll(dir)
		s, err := floorStore(filepath.Join(dir, "floor.db"))
		if err != nil {
			floorErr = err
			return
		}
		defer s.Close()
		db := s.WriteDB()
		floorNs, floorErr = timeFloor(db, 4096)
	})
	if floorErr != nil {
		b.Fatal(floorErr)
	}
	return floorNs
}

// timeFloor runs n one-row INSERT transactions on db and returns the mean
// time of one, checkpointing untimed every meterEvery.
func timeFloor(db *sql.DB, n int) (float64, error) {
	ctx := context.Background()
	if _, err := db.Exec(`CREATE TABLE IF NOT EXISTS floor_bench (id INTEGER PRIMARY KEY, v TEXT NOT NULL) STRICT`); err != nil {
		return 0, err
	}
	if _, err := db.Exec(`PRAGMA wal_autocheckpoint = 0`); err != nil {
		return 0, err
	}
	ins, err := db.Prepare(`INSERT INTO floor_bench (v) VALUES (?)`)
	if err != nil {
		return 0, err
	}
	defer ins.Close()
	var total time.Duration
	for done := 0; done < n; {
		start := time.Now()
		for i := 0; i < meterEvery && done < n; i, done = i+1, done+1 {
			if err := floorOne(ctx, db, ins); err != nil {
				return 0, err
			}
		}
		total += time.Since(start)
		if _, err := db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
			return 0, err
		}
	}
	return float64(total.Nanoseconds()) / float64(n), nil
}

// floorOne is one one-row INSERT transaction.
func floorOne(ctx context.Context, db *sql.DB, ins *sql.Stmt) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if _, err := tx.StmtContext(ctx, ins).ExecContext(ctx, "floor"); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}
