// Package walmeter measures what a SQLite write path costs in the units
// that matter on this storage engine: WAL frames and write transactions
// per benchmark iteration, and the iteration's time in one-row commits on
// the same driver and pragmas (the floor). The root package's and the
// sqlite package's benchmarks share it.
package walmeter

import (
	"context"
	"database/sql"
	"io"
	"path/filepath"
	"testing"
	"time"
)

// Opener opens a store of the kind being measured at path and returns its
// write connection pool and what closes it.
type Opener func(path string) (*sql.DB, io.Closer, error)

// A Meter counts the WAL frames and the write transactions of a store
// while a serial benchmark runs, and the floor its time is given in.
// Automatic checkpoints are off while it measures; every Every
// iterations the timer stops, a checkpoint reports the frames in the WAL
// and empties it (so the WAL never grows large and no checkpoint is
// timed), and the floor probe times FloorEvery one-row commits: the floor
// is measured in the same seconds as the benchmark, so a burst of load on
// the shared machine moves both.
type Meter struct {
	b       *testing.B
	db      *sql.DB // the store's writer
	commits func() int64
	start   int64 // commits when the meter started
	frames  int64 // frames counted so far
	n       int   // iterations so far
	floor   *Floor
}

const (
	Every      = 128
	FloorEvery = 32
)

// New meters the store whose writer is db; with floor, it also
// reports floor-commits/op.
func New(b *testing.B, db *sql.DB, commits func() int64, floor *Floor) *Meter {
	b.Helper()
	if _, err := db.Exec(`PRAGMA wal_autocheckpoint = 0`); err != nil {
		b.Fatal(err)
	}
	m := &Meter{b: b, db: db, commits: commits, floor: floor}
	Checkpoint(b, db)
	m.start = commits()
	return m
}

// Checkpoint returns the frames in db's WAL and empties it. A PASSIVE
// checkpoint reports the frames (TRUNCATE reports those left after it,
// none), then TRUNCATE starts the WAL over.
func Checkpoint(b *testing.B, db *sql.DB) int64 {
	var busy, log, done int64
	if err := db.QueryRow(`PRAGMA wal_Checkpoint(PASSIVE)`).Scan(&busy, &log, &done); err != nil {
		b.Fatal(err)
	}
	if busy != 0 || done != log {
		b.Fatalf("wal checkpoint: busy, %d of %d frames copied", done, log)
	}
	var tbusy, tlog, tdone int64
	if err := db.QueryRow(`PRAGMA wal_Checkpoint(TRUNCATE)`).Scan(&tbusy, &tlog, &tdone); err != nil {
		b.Fatal(err)
	}
	if tbusy != 0 {
		b.Fatal("wal checkpoint: busy")
	}
	return max(log, 0)
}

// Tick counts one iteration; every Every it checkpoints and samples
// the floor, untimed.
func (m *Meter) Tick() {
	m.n++
	if m.n%Every == 0 {
		m.b.StopTimer()
		m.frames += Checkpoint(m.b, m.db)
		if m.floor != nil {
			m.floor.sample(m.b)
		}
		m.b.StartTimer()
	}
}

// Report checkpoints once more and reports walframes/op, txs/op and, with
// a floor probe, floor-commits/op: the time of one iteration in one-row
// commits on the same driver and pragmas.
func (m *Meter) Report() {
	m.frames += Checkpoint(m.b, m.db)
	if m.n == 0 {
		return
	}
	m.b.ReportMetric(float64(m.frames)/float64(m.n), "walframes/op")
	m.b.ReportMetric(float64(m.commits()-m.start)/float64(m.n), "txs/op")
	if m.floor != nil {
		if m.floor.n == 0 {
			m.floor.sample(m.b)
		}
		perCommit := float64(m.floor.total.Nanoseconds()) / float64(m.floor.n)
		m.b.ReportMetric(float64(m.b.Elapsed().Nanoseconds())/float64(m.n)/perCommit, "floor-commits/op")
	}
}

// A Floor times one-row INSERT transactions on the writer of a store
// of its own (same driver, same pragmas, checkpoints off and untimed).
type Floor struct {
	db    *sql.DB
	ins   *sql.Stmt
	total time.Duration
	n     int
}

// NewFloor opens the probe's store in a temporary directory.
func NewFloor(b *testing.B, open Opener) *Floor {
	b.Helper()
	db, c, err := open(filepath.Join(b.TempDir(), "floor.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	p := &Floor{db: db}
	if _, err := p.db.Exec(`CREATE TABLE floor_bench (id INTEGER PRIMARY KEY, v TEXT NOT NULL) STRICT`); err != nil {
		b.Fatal(err)
	}
	if _, err := p.db.Exec(`PRAGMA wal_autocheckpoint = 0`); err != nil {
		b.Fatal(err)
	}
	if p.ins, err = p.db.Prepare(`INSERT INTO floor_bench (v) VALUES (?)`); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { p.ins.Close() })
	return p
}

// sample times FloorEvery commits, then empties the probe's WAL.
func (p *Floor) sample(b *testing.B) {
	ctx := context.Background()
	start := time.Now()
	for range FloorEvery {
		if err := OneRowCommit(ctx, p.db, p.ins); err != nil {
			b.Fatal(err)
		}
	}
	p.total += time.Since(start)
	p.n += FloorEvery
	Checkpoint(b, p.db)
}

// OneRowCommit is one transaction that inserts one row with ins: the
// floor's unit.
func OneRowCommit(ctx context.Context, db *sql.DB, ins *sql.Stmt) error {
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
