package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/storetest"
)

func BenchmarkCreateJob(b *testing.B) {
	s := openTest(b, Options{})
	ctx := context.Background()
	tenant := storetest.NewTenant()
	b.ReportAllocs()
	for b.Loop() {
		j := storetest.NewJob(tenant)
		if err := s.CreateJob(ctx, j, []askonce.Event{{Type: askonce.EventCreated}}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkUpdateJob is one compare-and-set with an attempt and an event,
// the common write of the planning loop.
func BenchmarkUpdateJob(b *testing.B) {
	s := openTest(b, Options{})
	ctx := context.Background()
	j := storetest.NewJob(storetest.NewTenant())
	if err := s.CreateJob(ctx, j, nil); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		n++
		c := &askonce.Change{
			Job: j,
			Attempts: []askonce.Attempt{{N: n, Reason: askonce.ReasonRetryValidation, Outcome: askonce.AttemptInvalid,
				Raw: `{"plan": {"tasks": []}}`, Error: "plan has no tasks", Usage: askonce.Usage{PromptTokens: 100, CompletionTokens: 20}}},
			Events: []askonce.Event{{Type: askonce.EventAttempt}},
		}
		if err := s.UpdateJob(ctx, c); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkGetJob(b *testing.B) {
	s := openTest(b, Options{})
	ctx := context.Background()
	j := storetest.FullJob(storetest.NewTenant())
	if err := s.CreateJob(ctx, j, nil); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := s.GetJob(ctx, j.TenantID, j.ID); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkClarificationRoundTrip is what the engine stores for one
// question and its answer: create, ask (attempt, question), read, answer
// (history), plan (attempt, dispatch), read again: four write
// transactions and two reads. "serial" runs one round trip at a time;
// "parallel" runs 8 per CPU, as a busy server does, which lets writes
// share transactions.
func BenchmarkClarificationRoundTrip(b *testing.B) {
	plan := &askonce.Plan{Title: "Copper", Spec: json.RawMessage(`{"name": "copper"}`),
		Tasks: []askonce.Task{{ID: "t1", Title: "Block", Instruction: "Register the block"}}}
	b.Run("serial", func(b *testing.B) {
		floor := floorCommit(b)
		s := openTest(b, Options{})
		tenant := storetest.NewTenant()
		m := newWALMeter(b, s.WriteDB(), s.Commits)
		b.ReportAllocs()
		for b.Loop() {
			if err := roundTrip(context.Background(), s, tenant, plan); err != nil {
				b.Fatal(err)
			}
			m.tick()
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "roundtrips/s")
		m.report(floor)
	})
	b.Run("parallel", func(b *testing.B) {
		s := openTest(b, Options{})
		tenant := storetest.NewTenant()
		start := s.Commits()
		b.ReportAllocs()
		b.SetParallelism(8)
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if err := roundTrip(context.Background(), s, tenant, plan); err != nil {
					b.Error(err)
					return
				}
			}
		})
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "roundtrips/s")
		b.ReportMetric(float64(s.Commits()-start)/float64(b.N), "txs/op")
	})
}

// BenchmarkFloorCommit is the floor the round trips are measured against:
// one transaction that inserts one row, on the writer connection of a
// store (the same driver and pragmas), checkpoints off and untimed as in
// BenchmarkClarificationRoundTrip/serial.
func BenchmarkFloorCommit(b *testing.B) {
	s := openTest(b, Options{})
	db := s.WriteDB()
	ctx := context.Background()
	if _, err := db.Exec(`CREATE TABLE floor_bench (id INTEGER PRIMARY KEY, v TEXT NOT NULL) STRICT`); err != nil {
		b.Fatal(err)
	}
	ins, err := db.Prepare(`INSERT INTO floor_bench (v) VALUES (?)`)
	if err != nil {
		b.Fatal(err)
	}
	defer ins.Close()
	var commits int64
	m := newWALMeter(b, db, func() int64 { return commits })
	for b.Loop() {
		if err := floorOne(ctx, db, ins); err != nil {
			b.Fatal(err)
		}
		commits++
		m.tick()
	}
	m.report(0)
}

// floorStore opens the store whose writer floorCommit measures.
func floorStore(path string) (*Store, error) { return Open(context.Background(), path) }

func roundTrip(ctx context.Context, s *Store, tenant string, plan *askonce.Plan) error {
	j := storetest.NewJob(tenant)
	if err := s.CreateJob(ctx, j, []askonce.Event{{Type: askonce.EventCreated}}); err != nil {
		return err
	}
	j.Status, j.ClarificationStatus = askonce.StatusPending, askonce.ClarificationAsked
	j.Question = &askonce.Question{Type: askonce.QuestionConfirm, Text: "Overwrite the texture?", Options: []string{"yes", "no"}}
	if err := s.UpdateJob(ctx, &askonce.Change{Job: j,
		Attempts: []askonce.Attempt{{N: 1, Reason: askonce.ReasonInitial, Outcome: askonce.AttemptQuestion, Usage: askonce.Usage{PromptTokens: 200, CompletionTokens: 30}}},
		Events:   []askonce.Event{{Type: askonce.EventAttempt}, {Type: askonce.EventAsked}},
	}); err != nil {
		return err
	}
	j, err := s.GetJob(ctx, tenant, j.ID)
	if err != nil {
		return err
	}
	j.Status, j.ClarificationStatus, j.Answer, j.AnswerSource = askonce.StatusPlanning, askonce.ClarificationAnswered, "yes", askonce.SourceUser
	j.ResolvedPrompt = askonce.ResolvedPrompt(j.Goal, "yes")
	if err := s.UpdateJob(ctx, &askonce.Change{Job: j,
		Events:  []askonce.Event{{Type: askonce.EventAnswered}},
		History: &askonce.HistoryEntry{QuestionHash: askonce.QuestionHash(j.Question.Text), Type: j.Question.Type, Question: j.Question.Text, Answer: "yes"},
	}); err != nil {
		return err
	}
	j.Status, j.Plan = askonce.StatusSuccess, plan
	if err := s.UpdateJob(ctx, &askonce.Change{Job: j,
		Attempts: []askonce.Attempt{{N: 2, Reason: askonce.ReasonClarificationAnswer, Outcome: askonce.AttemptPlan, Usage: askonce.Usage{PromptTokens: 250, CompletionTokens: 120}}},
		Events:   []askonce.Event{{Type: askonce.EventAttempt}, {Type: askonce.EventPlanned}},
		Dispatch: true,
	}); err != nil {
		return err
	}
	_, err = s.GetJob(ctx, tenant, j.ID)
	return err
}

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
