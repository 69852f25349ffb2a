package askonce_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/askonce/askonce"
	"pgregory.net/rapid"
)

// The state-machine properties again, this time through the Engine and a
// real SQLite store: random interleavings of create, answer, report,
// cancel, decline and expire, with an interpreter whose every reply is
// drawn at random, never store a second question for a job, never move
// clarification_status backwards, and never dispatch a job twice; on both
// write paths.
func TestEngineProperties(t *testing.T) {
	t.Parallel()
	for _, p := range writePaths {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			checkEngineProperties(t, p.fast)
		})
	}
}

func checkEngineProperties(t *testing.T, fast bool) {
	st := openStore(t, filepath.Join(t.TempDir(), "prop.db"))
	rapid.Check(t, func(t *rapid.T) {
		now := time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)
		replies := []string{askTemp, planRaw, cycleRaw, "garbage", `{"question":{"type":"CONFIRM","text":"Delete it?","reason":"target_file_exists","default":"no"}}`}
		interp := onPath(askonce.InterpreterFunc(func(context.Context, *askonce.Request) (*askonce.Response, error) {
			return &askonce.Response{Raw: []byte(rapid.SampledFrom(replies).Draw(t, "reply"))}, nil
		}), fast)
		tenant := rapid.StringMatching(`t[a-z0-9]{12}`).Draw(t, "tenant")
		e := &askonce.Engine{Store: st, Interpreter: interp, QuestionTTL: time.Minute, Now: func() time.Time { return now }}
		var ids []string
		lastRank := map[string]int{}
		for range rapid.IntRange(1, 25).Draw(t, "ops") {
			now = now.Add(30 * time.Second)
			op := rapid.IntRange(0, 6).Draw(t, "op")
			if op == 0 || len(ids) == 0 {
				j, err := e.Create(ctx, askonce.CreateRequest{
					TenantID: tenant, SessionID: "s",
					Goal:    "hot frozen cheese",
					Mode:    rapid.SampledFrom([]askonce.Mode{askonce.ModeManaged, askonce.ModeGate}).Draw(t, "mode"),
					HardCap: rapid.SampledFrom([]askonce.HardCap{askonce.HardCapFallback, askonce.HardCapFail}).Draw(t, "hardCap"),
				})
				if err != nil {
					t.Fatalf("create: %v", err)
				}
				ids = append(ids, j.ID)
				continue
			}
			id := rapid.SampledFrom(ids).Draw(t, "job")
			var err error
			switch op {
			case 1:
				_, _, err = e.Act(ctx, askonce.Act{Do: askonce.ActAnswer, TenantID: tenant, ID: id, Answer: askonce.TextAnswer(rapid.SampledFrom([]string{"hot", "frozen", "yes", "banana"}).Draw(t, "answer"))})
			case 2:
				_, _, err = e.Act(ctx, askonce.Act{Do: askonce.ActCancel, TenantID: tenant, ID: id})
			case 3:
				_, _, err = e.Act(ctx, askonce.Act{Do: askonce.ActDecline, TenantID: tenant, ID: id})
			case 4:
				_, err = e.ExpireDue(ctx)
			case 5:
				r := askonce.Report{Question: &askonce.Question{Type: askonce.QuestionSelectOne, Text: "Hot or frozen?", Options: []string{"hot", "frozen"}}}
				if rapid.Bool().Draw(t, "reportPlan") {
					r = askonce.Report{Plan: &askonce.Plan{Tasks: []askonce.Task{{ID: "a", Title: "A"}}}}
				}
				_, err = e.Report(ctx, tenant, id, r)
			case 6:
				_, err = e.Get(ctx, tenant, id)
			}
			if c := askonce.ErrorCode(err); c != "" && c != askonce.ECONFLICT && c != askonce.EINVALID {
				t.Fatalf("op %d: %v", op, err)
			}
			for _, id := range ids {
				j, err := e.Get(ctx, tenant, id)
				if err != nil {
					t.Fatal(err)
				}
				if r := j.ClarificationStatus.Rank(); r < lastRank[id] {
					t.Fatalf("job %s: clarification moved backwards to %s", id, j.ClarificationStatus)
				} else {
					lastRank[id] = r
				}
				evs, err := e.Events(ctx, tenant, id, 0, 0)
				if err != nil {
					t.Fatal(err)
				}
				asked, dispatched := 0, 0
				for _, ev := range evs {
					switch ev.Type {
					case askonce.EventAsked:
						asked++
					case askonce.EventDispatched:
						dispatched++
					}
				}
				if asked > 1 || dispatched > 1 {
					t.Fatalf("job %s: %d questions, %d dispatches", id, asked, dispatched)
				}
				if dispatched == 1 && j.Status != askonce.StatusSuccess {
					t.Fatalf("job %s dispatched but %s", id, j.Status)
				}
			}
		}
	})
}
