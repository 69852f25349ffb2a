// Package walmeter measures what a SQLite write path costs in the units
// that matter on this storage engine: WAL frames and write transactions
// per benchmark iteration, and the iteration's time in one-row commits on
// the same driver and pragmas (the floor). The root package's and the
// sqlite package's benchmarks share it.
package walmeter

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"path/filepath"
	"slices"
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
	shape   *Floor // see NewShapeFloor
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
		for _, f := range []*Floor{m.floor, m.shape} {
			if f != nil {
				f.sample(m.b)
			}
		}
		m.b.StartTimer()
	}
}

// Report checkpoints once more and reports walframes/op, txs/op and, with
// a floor probe, floor-commits/op: the time of one iteration in one-row
// commits on the same driver and pragmas; with a shape (Meter.Shape),
// shape-floors/op.
func (m *Meter) Report() {
	m.frames += Checkpoint(m.b, m.db)
	if m.n == 0 {
		return
	}
	m.b.ReportMetric(float64(m.frames)/float64(m.n), "walframes/op")
	m.b.ReportMetric(float64(m.commits()-m.start)/float64(m.n), "txs/op")
	m.floor.report(m, "floor-commits/op")
	m.shape.report(m, "shape-floors/op")
}

// Shape also reports the iteration's time in units of shape
// (shape-floors/op), sampled in the same seconds as the floor.
func (m *Meter) Shape(shape *Floor) { m.shape = shape }

// report reports the iteration's time in units of p, if any, as metric.
func (p *Floor) report(m *Meter, metric string) {
	if p == nil {
		return
	}
	if p.n == 0 {
		p.sample(m.b)
	}
	perUnit := float64(p.total.Nanoseconds()) / float64(p.n)
	m.b.ReportMetric(float64(m.b.Elapsed().Nanoseconds())/float64(m.n)/perUnit, metric)
}

// A Floor times a unit of writes on the writer of a store of its own
// (same driver, same pragmas, checkpoints off and untimed): by default
// one one-row INSERT transaction (NewFloor), or the b-tree shape of a
// write path (NewShapeFloor).
type Floor struct {
	db    *sql.DB
	unit  func(ctx context.Context) error
	total time.Duration
	n     int
}

// NewFloor opens the probe's store in a temporary directory; its unit is
// one one-row commit.
func NewFloor(b *testing.B, open Opener) *Floor {
	b.Helper()
	p := openFloor(b, open, 1)
	ins := p.prepare(b, 0)
	p.unit = func(ctx context.Context) error { return OneRowCommit(ctx, p.db, ins) }
	return p
}

// NewShapeFloor is a floor whose unit is the least a write path of the
// given shape can cost: one transaction per element of leaves, the i-th
// inserting one short row into each of leaves[i] rowid tables, at their
// right edges. A write path whose transactions touch that many b-trees
// each cannot write fewer pages, whatever its rows hold, so its time in
// these units (shape-floors/op) is what the rest of it (its rows'
// content, splits, reads, the code around the store) costs on top.
func NewShapeFloor(b *testing.B, open Opener, leaves ...int) *Floor {
	b.Helper()
	p := openFloor(b, open, slices.Max(leaves))
	ins := make([]*sql.Stmt, slices.Max(leaves))
	for i := range ins {
		ins[i] = p.prepare(b, i)
	}
	p.unit = func(ctx context.Context) error {
		for _, n := range leaves {
			tx, err := p.db.BeginTx(ctx, nil)
			if err != nil {
				return err
			}
			for _, st := range ins[:n] {
				if _, err := tx.StmtContext(ctx, st).ExecContext(ctx, "floor"); err != nil {
					tx.Rollback()
					return err
				}
			}
			if err := tx.Commit(); err != nil {
				return err
			}
		}
		return nil
	}
	return p
}

// openFloor opens a probe's store with tables floor_bench_0 to
// floor_bench_{tables-1}.
func openFloor(b *testing.B, open Opener, tables int) *Floor {
	db, c, err := open(filepath.Join(b.TempDir(), "floor.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	for i := range tables {
		if _, err := db.Exec(fmt.Sprintf(`CREATE TABLE floor_bench_%d (id INTEGER PRIMARY KEY, v TEXT NOT NULL) STRICT`, i)); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := db.Exec(`PRAGMA wal_autocheckpoint = 0`); err != nil {
		b.Fatal(err)
	}
	return &Floor{db: db}
}

// prepare prepares the insert into table i.
func (p *Floor) prepare(b *testing.B, i int) *sql.Stmt {
	st, err := p.db.Prepare(fmt.Sprintf(`INSERT INTO floor_bench_%d (v) VALUES (?)`, i))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	return st
}

// sample times FloorEvery units, then empties the probe's WAL.
func (p *Floor) sample(b *testing.B) {
	ctx := context.Background()
	start := time.Now()
	for range FloorEvery {
		if err := p.unit(ctx); err != nil {
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
