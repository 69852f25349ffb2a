package askonce_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/sqlite"
)

// consentEngine is an engine on a real SQLite file whose clock the test
// moves, with questions that expire after 24h, and the ids of the jobs
// whose builder delivery was queued (the store's dispatch hook, called in
// the transaction of the success).
func consentEngine(t *testing.T, interp askonce.Interpreter, now *time.Time) (*askonce.Engine, func() map[string]int) {
	t.Helper()
	var mu sync.Mutex
	queued := map[string]int{}
	st, err := sqlite.Options{OnDispatch: func(_ context.Context, _ *sql.Tx, j *askonce.Job) error {
		mu.Lock()
		defer mu.Unlock()
		queued[j.ID]++
		return nil
	}}.Open(ctx, filepath.Join(t.TempDir(), "askonce.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	e := &askonce.Engine{Store: st, Interpreter: interp, QuestionTTL: 24 * time.Hour, Now: func() time.Time { return *now }}
	return e, func() map[string]int {
		mu.Lock()
		defer mu.Unlock()
		return queued
	}
}

// eventData is the data of j's last event of type typ, decoded.
func eventData(t *testing.T, e *askonce.Engine, j *askonce.Job, typ askonce.EventType) map[string]any {
	t.Helper()
	evs, err := e.Events(ctx, j.TenantID, j.ID, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := len(evs) - 1; i >= 0; i-- {
		if evs[i].Type == typ {
			var d map[string]any
			if err := json.Unmarshal(evs[i].Data, &d); err != nil {
				t.Fatalf("%s event data %s: %v", typ, evs[i].Data, err)
			}
			return d
		}
	}
	t.Fatalf("job %s has no %s event", j.ID, typ)
	return nil
}

// Rule 17, no silent consent: a question nobody answers expires its job,
// with nothing dispatched, unless someone chose its default: the rules
// interpreter for a destructive step ("no"), the spec schema, or the
// asking agent in gate mode. A default that answered because nobody did
// is said plainly on the job and in its answered event.
func TestRule17_ExpiryWithoutAChosenDefaultExpiresAndDispatchesNothing(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)
	const defaultUsed = "Nobody answered within 24h; the default “no” was used."
	const noDefault = "Nobody answered within 24h, and the question had no default; the job expired."

	t.Run("RulesInterpreter", func(t *testing.T) {
		t.Parallel()
		now := now
		e, queued := consentEngine(t, rulesInterpreter(t), &now)
		bowl, err := e.Create(ctx, askonce.CreateRequest{Goal: "put the soup in the bowl and microwave it", Candidates: []string{"metal bowl", "glass bowl"}})
		if err != nil {
			t.Fatal(err)
		}
		del := create(t, e, "delete notes.md and update the readme")
		if bowl.Status != askonce.StatusPending || bowl.Question.Default != "" {
			t.Fatalf("bowl: status %s, question %+v; want pending without a default", bowl.Status, bowl.Question)
		}
		if del.Status != askonce.StatusPending || del.Question.Default != "no" {
			t.Fatalf("delete: status %s, question %+v; want pending with the default no", del.Status, del.Question)
		}
		now = now.Add(24 * time.Hour)
		if n, err := e.ExpireDue(ctx); n != 2 || err != nil {
			t.Fatalf("expired %d, %v; want 2", n, err)
		}

		bowl, _ = e.Get(ctx, "", bowl.ID)
		if bowl.Status != askonce.StatusExpired || bowl.ClarificationStatus != askonce.ClarificationAsked || !bowl.Answer.IsZero() || bowl.Plan != nil {
			t.Errorf("bowl: status %s, clarification %s, answer %q, plan %v; want expired, asked, no answer, no plan", bowl.Status, bowl.ClarificationStatus, bowl.Answer, bowl.Plan)
		}
		if bowl.Dispatch != "" || queued()[bowl.ID] != 0 || count(eventTypes(t, e, bowl), askonce.EventDispatched) != 0 {
			t.Errorf("bowl: dispatch %q, %d deliveries queued; want nothing dispatched", bowl.Dispatch, queued()[bowl.ID])
		}
		if got := bowl.ExpiryNote(); got != noDefault {
			t.Errorf("bowl: note %q, want %q", got, noDefault)
		}
		if d := eventData(t, e, bowl, askonce.EventExpired); d["note"] != noDefault {
			t.Errorf("bowl: expired event %v, want the note %q", d, noDefault)
		}

		del, _ = e.Get(ctx, "", del.ID)
		if del.Status != askonce.StatusSuccess || del.AnswerSource != askonce.SourceTimeout || del.Answer.String() != "no" || queued()[del.ID] != 1 {
			t.Errorf("delete: status %s, source %s, answer %q, %d deliveries queued; want success on the default no, queued once", del.Status, del.AnswerSource, del.Answer, queued()[del.ID])
		}
		if got := del.ExpiryNote(); got != defaultUsed {
			t.Errorf("delete: note %q, want %q", got, defaultUsed)
		}
		if d := eventData(t, e, del, askonce.EventAnswered); d["source"] != string(askonce.SourceTimeout) || d["note"] != defaultUsed {
			t.Errorf("delete: answered event %v, want source timeout and the note %q", d, defaultUsed)
		}
	})

	t.Run("AnInterpretersDefaultNobodyChoseIsDropped", func(t *testing.T) {
		t.Parallel()
		now := now
		guess := `{"question":{"type":"SELECT_ONE","text":"Which bowl?","options":["metal bowl","glass bowl"],"reason":"target_action_ambiguous","default":"metal bowl"}}`
		e, queued := consentEngine(t, scripted(reply(guess, u1)), &now)
		j := create(t, e, "microwave the soup")
		if j.Status != askonce.StatusPending || j.Question.Default != "" {
			t.Fatalf("status %s, question %+v; want pending, the model's default dropped", j.Status, j.Question)
		}
		now = now.Add(24 * time.Hour)
		if _, err := e.ExpireDue(ctx); err != nil {
			t.Fatal(err)
		}
		j, _ = e.Get(ctx, "", j.ID)
		if j.Status != askonce.StatusExpired || !j.Answer.IsZero() || queued()[j.ID] != 0 {
			t.Errorf("status %s, answer %q, %d deliveries queued; want expired, nothing dispatched", j.Status, j.Answer, queued()[j.ID])
		}
	})

	t.Run("TheSchemasDefaultAnswers", func(t *testing.T) {
		t.Parallel()
		now := now
		schema := json.RawMessage(`{"type":"object","properties":{"environment":{"enum":["staging","production"],"default":"staging"},"replicas":{"type":"integer","default":2}}}`)
		fields := `{"question":{"text":"Before the deploy:","reason":"missing_required_info","fields":[` +
			`{"name":"environment","type":"SELECT_ONE","options":["staging","production"],"default":"staging","required":true},` +
			`{"name":"replicas","text":"How many replicas?","default":"2","required":true}]}}`
		e, queued := consentEngine(t, scripted(reply(fields, u1), reply(planRaw, u1)), &now)
		j, err := e.Create(ctx, askonce.CreateRequest{Goal: "deploy the shop", SpecSchema: schema})
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := j.Question.DefaultAnswer(); j.Status != askonce.StatusPending || !ok {
			t.Fatalf("status %s, question %+v; want pending with the schema's defaults", j.Status, j.Question)
		}
		now = now.Add(24 * time.Hour)
		if _, err := e.ExpireDue(ctx); err != nil {
			t.Fatal(err)
		}
		j, _ = e.Get(ctx, "", j.ID)
		if j.Status != askonce.StatusSuccess || j.AnswerSource != askonce.SourceTimeout || queued()[j.ID] != 1 {
			t.Fatalf("status %s, source %s, %d deliveries queued; want success on the default, queued once", j.Status, j.AnswerSource, queued()[j.ID])
		}
		want := "Nobody answered within 24h; the default “environment: staging; replicas: 2” was used."
		if got := j.ExpiryNote(); got != want {
			t.Errorf("note %q, want %q", got, want)
		}
		if d := eventData(t, e, j, askonce.EventAnswered); d["note"] != want {
			t.Errorf("answered event %v, want the note %q", d, want)
		}
	})

	t.Run("TheAskingAgentsDefaultAnswers", func(t *testing.T) {
		t.Parallel()
		now := now
		e, _ := consentEngine(t, nil, &now)
		j, err := e.Create(ctx, askonce.CreateRequest{Goal: "microwave the soup", Mode: askonce.ModeGate})
		if err != nil {
			t.Fatal(err)
		}
		q := &askonce.Question{Reason: "target_action_ambiguous", Text: "Which bowl?", Options: []string{"metal bowl", "glass bowl"}, Default: "glass bowl"}
		if r, err := e.Report(ctx, "", j.ID, askonce.Report{Question: q}); err != nil || r.Action != askonce.ActionAsk || r.Question.Default != "glass bowl" {
			t.Fatalf("report: %+v, %v; want ask with the agent's default", r, err)
		}
		now = now.Add(24 * time.Hour)
		if _, err := e.ExpireDue(ctx); err != nil {
			t.Fatal(err)
		}
		j, _ = e.Get(ctx, "", j.ID)
		want := "Nobody answered within 24h; the default “glass bowl” was used."
		if j.ClarificationStatus != askonce.ClarificationAnswered || j.AnswerSource != askonce.SourceTimeout || j.ExpiryNote() != want {
			t.Errorf("clarification %s, source %s, note %q; want answered on the agent's default: %q", j.ClarificationStatus, j.AnswerSource, j.ExpiryNote(), want)
		}
	})
}
