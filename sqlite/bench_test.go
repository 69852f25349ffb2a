package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/internal/walmeter"
	"github.com/askonce/askonce/storetest"
)

func BenchmarkCreateJob(b *testing.B) {
	s := openTest(b, Options{})
	ctx := context.Background()
	tenant := storetest.NewTenant()
	b.ReportAllocs()
	for b.Loop() {
		j := storetest.NewJob(tenant)
		if err := s.CreateJob(ctx, &askonce.Change{Job: j, Events: []askonce.Event{{Type: askonce.EventCreated}}}); err != nil {
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
	if err := s.CreateJob(ctx, &askonce.Change{Job: j}); err != nil {
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
	if err := s.CreateJob(ctx, &askonce.Change{Job: j}); err != nil {
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
		floor := walmeter.NewFloor(b, WriterDSN)
		s := openTest(b, Options{})
		tenant := storetest.NewTenant()
		m := walmeter.New(b, s.WriteDB(), s.Commits, floor)
		b.ReportAllocs()
		for b.Loop() {
			if err := roundTrip(context.Background(), s, tenant, plan); err != nil {
				b.Fatal(err)
			}
			m.Tick()
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "roundtrips/s")
		m.Report()
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

// BenchmarkRoundTripPages tells where the WAL frames of
// BenchmarkClarificationRoundTrip/serial go: it runs the round trips with
// checkpoints off, reads the page number of every frame from the WAL's
// frame headers, names the pages by b-tree (table or index) with the
// dbstat table, and reports frames per round trip for each b-tree. Run it
// with a fixed count (-benchtime 200x): the WAL keeps every frame.
func BenchmarkRoundTripPages(b *testing.B) {
	plan := &askonce.Plan{Title: "Copper", Spec: json.RawMessage(`{"name": "copper"}`),
		Tasks: []askonce.Task{{ID: "t1", Title: "Block", Instruction: "Register the block"}}}
	s := openTest(b, Options{})
	db := s.WriteDB()
	ctx := context.Background()
	tenant := storetest.NewTenant()
	for range 200 { // a database that is not empty
		if err := roundTrip(ctx, s, tenant, plan); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := db.Exec(`PRAGMA wal_autocheckpoint = 0`); err != nil {
		b.Fatal(err)
	}
	walmeter.Checkpoint(b, db)
	n := 0
	for b.Loop() {
		if err := roundTrip(ctx, s, tenant, plan); err != nil {
			b.Fatal(err)
		}
		n++
	}
	b.StopTimer()
	walmeter.ReportFrames(b, walmeter.FramesByBtree(b, db), n)
}

// BenchmarkFloorCommit is the floor the round trips are measured against
// (walmeter.Floor), on its own: a plain loop of transactions that insert
// one row each, in a file of its own opened with the store writer's
// connection string (WriterDSN), never checkpointed.
func BenchmarkFloorCommit(b *testing.B) {
	db, ins := openFloorBench(b)
	ctx := context.Background()
	for b.Loop() {
		if err := walmeter.OneRowCommit(ctx, db, ins); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFloorCommitOnConn is BenchmarkFloorCommit with the same
// prepared insert between BEGIN IMMEDIATE and COMMIT on a Conn instead
// of database/sql's Tx (as the floor and the store commit), which starts
// a goroutine for every transaction and rebinds the statement to it.
func BenchmarkFloorCommitOnConn(b *testing.B) {
	db, _ := openFloorBench(b)
	ctx := context.Background()
	c, err := db.Conn(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	ins, err := c.PrepareContext(ctx, floorInsert)
	if err != nil {
		b.Fatal(err)
	}
	defer ins.Close()
	for b.Loop() {
		if _, err := c.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
			b.Fatal(err)
		}
		if _, err := ins.ExecContext(ctx, "floor"); err != nil {
			b.Fatal(err)
		}
		if _, err := c.ExecContext(ctx, "COMMIT"); err != nil {
			b.Fatal(err)
		}
	}
}

const floorInsert = `INSERT INTO floor_bench (v) VALUES (?)`

// openFloorBench opens the floor's file on one connection, with its
// table and the insert prepared.
func openFloorBench(b *testing.B) (*sql.DB, *sql.Stmt) {
	db, err := sql.Open("sqlite", WriterDSN(filepath.Join(b.TempDir(), "floor.db")))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(`CREATE TABLE floor_bench (id INTEGER PRIMARY KEY, v TEXT NOT NULL) STRICT`); err != nil {
		b.Fatal(err)
	}
	ins, err := db.Prepare(floorInsert)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ins.Close() })
	return db, ins
}

func roundTrip(ctx context.Context, s *Store, tenant string, plan *askonce.Plan) error {
	j := storetest.NewJob(tenant)
	if err := s.CreateJob(ctx, &askonce.Change{Job: j, Events: []askonce.Event{{Type: askonce.EventCreated}}}); err != nil {
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
	j.Status, j.ClarificationStatus, j.Answer, j.AnswerSource = askonce.StatusPlanning, askonce.ClarificationAnswered, askonce.AnswerOf(askonce.BoolValue(true)), askonce.SourceUser
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
