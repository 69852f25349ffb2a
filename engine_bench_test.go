package askonce_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
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
	floor := newFloorProbe(b)
	st := openStore(b, filepath.Join(b.TempDir(), "bench.db"))
	e := &askonce.Engine{Store: st, Interpreter: rulesInterpreter(b)}
	m := newWALMeter(b, st.WriteDB(), st.Commits, floor)
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
	m.report()
}

// BenchmarkCreateNoQuestion measures create -> success for a goal that
// needs no question.
func BenchmarkCreateNoQuestion(b *testing.B) {
	floor := newFloorProbe(b)
	st := openStore(b, filepath.Join(b.TempDir(), "bench.db"))
	e := &askonce.Engine{Store: st, Interpreter: rulesInterpreter(b)}
	m := newWALMeter(b, st.WriteDB(), st.Commits, floor)
	b.ReportAllocs()
	for b.Loop() {
		j, err := e.Create(ctx, askonce.CreateRequest{Goal: "write the README then add tests", SessionID: "bench"})
		if err != nil || j.Status != askonce.StatusSuccess {
			b.Fatalf("create: %v %v", err, j.Status)
		}
		m.tick()
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "jobs/s")
	m.report()
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
// while a serial benchmark runs, and the floor its time is given in.
// Automatic checkpoints are off while it measures; every meterEvery
// iterations the timer stops, a checkpoint reports the frames in the WAL
// and empties it (so the WAL never grows large and no checkpoint is
// timed), and the floor probe times floorEvery one-row commits: the floor
// is measured in the same seconds as the benchmark, so a burst of load on
// the shared machine moves both.
type walMeter struct {
	b       *testing.B
	db      *sql.DB // the store's writer
	commits func() int64
	start   int64 // commits when the meter started
	frames  int64 // frames counted so far
	n       int   // iterations so far
	floor   *floorProbe
}

const (
	meterEvery = 128
	floorEvery = 32
)

// newWALMeter meters the store whose writer is db; with floor, it also
// reports floor-commits/op.
func newWALMeter(b *testing.B, db *sql.DB, commits func() int64, floor *floorProbe) *walMeter {
	b.Helper()
	if _, err := db.Exec(`PRAGMA wal_autocheckpoint = 0`); err != nil {
		b.Fatal(err)
	}
	m := &walMeter{b: b, db: db, commits: commits, floor: floor}
	checkpoint(b, db)
	m.start = commits()
	return m
}

// checkpoint returns the frames in db's WAL and empties it. A PASSIVE
// checkpoint reports the frames (TRUNCATE reports those left after it,
// none), then TRUNCATE starts the WAL over.
func checkpoint(b *testing.B, db *sql.DB) int64 {
	var busy, log, done int64
	if err := db.QueryRow(`PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &log, &done); err != nil {
		b.Fatal(err)
	}
	if busy != 0 || done != log {
		b.Fatalf("wal checkpoint: busy, %d of %d frames copied", done, log)
	}
	var tbusy, tlog, tdone int64
	if err := db.QueryRow(`PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&tbusy, &tlog, &tdone); err != nil {
		b.Fatal(err)
	}
	if tbusy != 0 {
		b.Fatal("wal checkpoint: busy")
	}
	return max(log, 0)
}

// tick counts one iteration; every meterEvery it checkpoints and samples
// the floor, untimed.
func (m *walMeter) tick() {
	m.n++
	if m.n%meterEvery == 0 {
		m.b.StopTimer()
		m.frames += checkpoint(m.b, m.db)
		if m.floor != nil {
			m.floor.sample(m.b)
		}
		m.b.StartTimer()
	}
}

// report checkpoints once more and reports walframes/op, txs/op and, with
// a floor probe, floor-commits/op: the time of one iteration in one-row
// commits on the same driver and pragmas.
func (m *walMeter) report() {
	m.frames += checkpoint(m.b, m.db)
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

// A floorProbe times one-row INSERT transactions on the writer of a store
// of its own (same driver, same pragmas, checkpoints off and untimed).
type floorProbe struct {
	db    *sql.DB
	ins   *sql.Stmt
	total time.Duration
	n     int
}

// newFloorProbe opens the probe's store in a temporary directory.
func newFloorProbe(b *testing.B) *floorProbe {
	b.Helper()
	s, err := floorStore(filepath.Join(b.TempDir(), "floor.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	p := &floorProbe{db: s.WriteDB()}
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

// sample times floorEvery commits, then empties the probe's WAL.
func (p *floorProbe) sample(b *testing.B) {
	ctx := context.Background()
	start := time.Now()
	for range floorEvery {
		if err := floorOne(ctx, p.db, p.ins); err != nil {
			b.Fatal(err)
		}
	}
	p.total += time.Since(start)
	p.n += floorEvery
	checkpoint(b, p.db)
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
