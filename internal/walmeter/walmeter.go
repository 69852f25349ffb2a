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
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	_ "modernc.org/sqlite" // the driver of the floor's database
)

// A Meter counts the WAL frames and the write transactions of a store
// while a serial benchmark runs, and gives its time in floor units.
// Automatic checkpoints are off while it measures. Every Every
// iterations the timer stops and the floor probes time FloorEvery units
// each, so that each window of Every iterations is paired with a floor
// sample taken in the same seconds: a burst of load on the shared
// machine moves both, and the reported ratio is the median of the
// windows' ratios. Every CheckpointEvery iterations, untimed, a
// checkpoint reports the frames in the store's WAL and empties it (so
// that the WAL stays below the store's own background checkpoint, 128
// MiB, while it grows as the store's does between two; every 128 gave
// the round trip 0.94× the time, docs/benchmarks.md).
type Meter struct {
	b       *testing.B
	db      *sql.DB // the store's writer
	commits func() int64
	start   int64 // commits when the meter started
	frames  int64 // frames counted so far
	n       int   // iterations so far
	floor   *Floor
	shape   *Floor  // see NewShapeFloor
	extra   []named // see Meter.Also
	last    time.Duration
	windows []float64 // ns per iteration of each window of Every
}

const (
	Every           = 128
	CheckpointEvery = 1024
	FloorEvery      = 32
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
func Checkpoint(b testing.TB, db *sql.DB) int64 {
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

// Tick counts one iteration; every Every it samples the floors, and
// every CheckpointEvery it checkpoints, untimed.
func (m *Meter) Tick() {
	m.n++
	if m.n%Every != 0 {
		return
	}
	m.b.StopTimer()
	el := m.b.Elapsed()
	m.windows = append(m.windows, float64((el-m.last).Nanoseconds())/Every)
	m.last = el
	for _, f := range []*Floor{m.floor, m.shape} {
		if f != nil {
			f.sample(m.b)
		}
	}
	for _, x := range m.extra {
		x.f.sample(m.b)
	}
	if m.n%CheckpointEvery == 0 {
		m.frames += Checkpoint(m.b, m.db)
	}
	m.b.StartTimer()
}

// Report checkpoints once more and reports walframes/op, txs/op and, with
// a floor probe, floor-commits/op: the time of one iteration in one-row
// commits of the floor (the median over the windows of each window's
// time per iteration over the floor sample's time per commit); with a
// shape (Meter.Shape), shape-floors/op.
func (m *Meter) Report() {
	m.frames += Checkpoint(m.b, m.db)
	if m.n == 0 {
		return
	}
	m.b.ReportMetric(float64(m.frames)/float64(m.n), "walframes/op")
	m.b.ReportMetric(float64(m.commits()-m.start)/float64(m.n), "txs/op")
	m.floor.report(m, "floor-commits/op")
	m.shape.report(m, "shape-floors/op")
	for _, x := range m.extra {
		x.f.report(m, x.metric+"s/op")
		if m.floor != nil {
			ratios := make([]float64, len(x.f.samples))
			for i, s := range x.f.samples {
				ratios[i] = s / m.floor.samples[i]
			}
			m.b.ReportMetric(median(ratios), x.metric+"-commits")
		}
	}
}

// A named floor is one of Meter.Also's.
type named struct {
	metric string
	f      *Floor
}

// Also reports the iteration's time in units of f too (METRICs/op; a
// stored floor, NewStoredFloor, say), and f's unit in one-row commits
// (METRIC-commits), sampled in the same seconds as the floor.
func (m *Meter) Also(metric string, f *Floor) { m.extra = append(m.extra, named{metric, f}) }

// Shape also reports the iteration's time in units of shape
// (shape-floors/op), sampled in the same seconds as the floor.
func (m *Meter) Shape(shape *Floor) { m.shape = shape }

// report reports the iteration's time in units of p, if any, as metric.
// Without a whole window (fewer than Every iterations) it takes the
// benchmark's time and one sample.
func (p *Floor) report(m *Meter, metric string) {
	if p == nil {
		return
	}
	if len(p.samples) == 0 {
		p.sample(m.b)
	}
	ratios := make([]float64, 0, len(m.windows))
	for i, w := range m.windows {
		ratios = append(ratios, w/p.samples[i])
	}
	if len(ratios) == 0 {
		ratios = append(ratios, float64(m.b.Elapsed().Nanoseconds())/float64(m.n)/p.samples[0])
	}
	m.b.ReportMetric(median(ratios), metric)
	if p.commitsPer == 1 {
		m.b.ReportMetric(median(p.samples), "floor-ns/commit")
		if len(p.outside) > 0 {
			pairs := make([]float64, len(p.outside))
			for i, o := range p.outside {
				pairs[i] = p.samples[i] / o
			}
			m.b.ReportMetric(median(p.outside), "outside-floor-ns/commit")
			m.b.ReportMetric(median(pairs), "floor/outside")
		}
	}
}

// median returns the median of xs, which it sorts.
func median(xs []float64) float64 {
	slices.Sort(xs)
	if n := len(xs); n%2 == 0 {
		return (xs[n/2-1] + xs[n/2]) / 2
	}
	return xs[len(xs)/2]
}

// A Floor times a unit of writes in a plain loop on a database file of
// its own, opened with the store's connection string (driver and
// pragmas) and nothing else: no store, no migrations, no checkpoints. Its
// WAL only grows, as the store's does between the background checkpoints
// (sqlite/checkpoint.go), so a commit costs what the cheapest durable
// commit on this machine costs: a commit right after a checkpoint costs
// two to five times as much (the file starts over), and the floor must
// not be inflated by the meter's own checkpoints. By default the unit is
// one one-row INSERT transaction (NewFloor); NewShapeFloor times the
// b-tree shape of a write path.
//
// With the environment variable ASKONCE_FLOOR_PROGRAM naming a build of
// sqlite/internal/floorcommit, each sample also runs that program,
// untimed, and the benchmark reports the per-commit time both measured
// (floor-ns/commit, outside-floor-ns/commit): the same loop in another
// process, in the same seconds, which the in-benchmark floor must agree
// with.
type Floor struct {
	db      *sql.DB
	unit    func(ctx context.Context) error
	samples []float64 // ns per unit of each sample

	program    string    // ASKONCE_FLOOR_PROGRAM, or ""
	dir        string    // the program's temporary directory
	outside    []float64 // ns per commit the program measured, each run
	commitsPer int       // one-row commits per unit, for floor-ns/commit
	commits    int64     // transactions committed (NewStoredFloor)
}

// ProgramEnv names the environment variable that holds the outside floor
// program (see Floor).
const ProgramEnv = "ASKONCE_FLOOR_PROGRAM"

// NewFloor opens the probe's database in a temporary directory with the
// connection string dsn returns for its path; its unit is one one-row
// commit.
func NewFloor(b *testing.B, dsn func(path string) string) *Floor {
	b.Helper()
	p := openFloor(b, dsn, 1)
	ins := p.prepare(b, 0)
	p.unit = func(ctx context.Context) error { return OneRowCommit(ctx, p.db, ins) }
	p.commitsPer = 1
	p.warm(b)
	return p
}

// NewShapeFloor is a floor whose unit is the least a write path of the
// given shape can cost: one transaction per element of leaves, the i-th
// inserting one short row into each of leaves[i] rowid tables, at their
// right edges. A write path whose transactions touch that many b-trees
// each cannot write fewer pages, whatever its rows hold, so its time in
// these units (shape-floors/op) is what the rest of it (its rows'
// content, splits, reads, the code around the store) costs on top.
func NewShapeFloor(b *testing.B, dsn func(path string) string, leaves ...int) *Floor {
	b.Helper()
	p := openFloor(b, dsn, slices.Max(leaves))
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
	p.warm(b)
	return p
}

// openOne opens a new database file named name in a temporary
// directory on one connection, kept open, as the store's writer is.
func openOne(b testing.TB, dsn func(path string) string, name string) *sql.DB {
	db, err := sql.Open("sqlite", dsn(filepath.Join(b.TempDir(), name)))
	if err != nil {
		b.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(0)
	db.SetConnMaxIdleTime(0)
	b.Cleanup(func() { db.Close() })
	return db
}

// openFloor opens a probe's database with tables floor_bench_0 to
// floor_bench_{tables-1} on one connection.
func openFloor(b *testing.B, dsn func(path string) string, tables int) *Floor {
	db := openOne(b, dsn, "floor.db")
	for i := range tables {
		if _, err := db.Exec(fmt.Sprintf(`CREATE TABLE floor_bench_%d (id INTEGER PRIMARY KEY, v TEXT NOT NULL) STRICT`, i)); err != nil {
			b.Fatal(err)
		}
	}
	// The store's writer has checkpoints off too; this states it for a
	// dsn that does not.
	if _, err := db.Exec(`PRAGMA wal_autocheckpoint = 0`); err != nil {
		b.Fatal(err)
	}
	return &Floor{db: db, program: os.Getenv(ProgramEnv), dir: b.TempDir()}
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

// warm runs FloorEvery units untimed, as the outside program warms up.
func (p *Floor) warm(b testing.TB) {
	ctx := context.Background()
	for range FloorEvery {
		if err := p.unit(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// sample times FloorEvery units in a plain loop and, with an outside
// program, runs it once.
func (p *Floor) sample(b *testing.B) {
	ctx := context.Background()
	start := time.Now()
	for range FloorEvery {
		if err := p.unit(ctx); err != nil {
			b.Fatal(err)
		}
	}
	p.samples = append(p.samples, float64(time.Since(start).Nanoseconds())/FloorEvery)
	if p.program != "" && p.commitsPer == 1 {
		d, n := runProgram(b, p.program, p.dir)
		p.outside = append(p.outside, float64(d.Nanoseconds())/float64(n))
	}
}

// runProgram runs the outside floor program on a new file in dir and
// returns the time of the commits it timed and how many.
func runProgram(b *testing.B, program, dir string) (time.Duration, int) {
	out, err := exec.Command(program, "-dir", dir, "-n", strconv.Itoa(FloorEvery), "-warmup", strconv.Itoa(FloorEvery)).Output()
	if err != nil {
		b.Fatalf("%s: %v", program, err)
	}
	var n int
	var ns int64
	if _, err := fmt.Sscanf(string(out), "%d commits in %d ns", &n, &ns); err != nil || n == 0 {
		b.Fatalf("%s printed %q: %v", program, out, err)
	}
	return time.Duration(ns), n
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
