package dispatch

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/askonce/askonce"
)

// Rule 17 at the builder: when nobody answers, a question without a
// default expires its job and no delivery is ever queued for it (no River
// job), while the destructive step's "no" answers, and the builder's
// payload says plainly that the plan rests on a default nobody gave.
func TestRule17_ExpiryWithoutADefaultQueuesNoDeliveryAndADefaultIsSaidToTheBuilder(t *testing.T) {
	t.Parallel()
	rcv := newReceiver(t, func(string, int) int { return http.StatusOK })
	s := openStack(t, filepath.Join(t.TempDir(), "a.db"), testConfig(&Webhook{URL: rcv.URL, Secret: secret, Timeout: 5 * time.Second}))
	now := time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)
	s.eng.Now, s.eng.QuestionTTL = func() time.Time { return now }, 24*time.Hour
	ctx := t.Context()

	bowl, err := s.eng.Create(ctx, askonce.CreateRequest{Goal: "put the soup in the bowl and microwave it", Candidates: []string{"metal bowl", "glass bowl"}})
	if err != nil {
		t.Fatal(err)
	}
	del, err := s.eng.Create(ctx, askonce.CreateRequest{Goal: "delete notes.md and update the readme"})
	if err != nil {
		t.Fatal(err)
	}
	if bowl.Status != askonce.StatusPending || bowl.Question.Default != "" || del.Status != askonce.StatusPending || del.Question.Default != "no" {
		t.Fatalf("bowl %s %+v, delete %s %+v; want both pending, only the delete with a default", bowl.Status, bowl.Question, del.Status, del.Question)
	}
	now = now.Add(24 * time.Hour)
	if n, err := s.eng.ExpireDue(ctx); n != 2 || err != nil {
		t.Fatalf("expired %d, %v; want 2", n, err)
	}

	got := s.waitDispatch(t, del.ID)
	if got.Dispatch != askonce.DispatchDelivered || got.AnswerSource != askonce.SourceTimeout {
		t.Fatalf("delete: dispatch %q, source %q; want delivered on the timeout's default", got.Dispatch, got.AnswerSource)
	}
	reqs := rcv.requests(del.ID)
	if len(reqs) != 1 {
		t.Fatalf("the builder got %d requests for the delete job, want 1", len(reqs))
	}
	var env struct {
		Data struct {
			Source     string          `json:"clarificationSource"`
			Answer     json.RawMessage `json:"clarificationAnswer"`
			ExpiryNote string          `json:"expiryNote"`
		} `json:"data"`
	}
	if err := json.Unmarshal(reqs[0].body, &env); err != nil {
		t.Fatal(err)
	}
	const note = "Nobody answered within 24h; the default “no” was used."
	if env.Data.Source != "timeout" || string(env.Data.Answer) != "false" || env.Data.ExpiryNote != note {
		t.Errorf("builder payload %+v; want source timeout, answer false (CONFIRM's no, typed) and the note %q", env.Data, note)
	}

	expired, err := s.st.GetJob(ctx, askonce.DefaultTenant, bowl.ID)
	if err != nil {
		t.Fatal(err)
	}
	if expired.Status != askonce.StatusExpired || expired.Dispatch != "" || expired.Plan != nil {
		t.Errorf("bowl: status %s, dispatch %q, plan %v; want expired, nothing dispatched", expired.Status, expired.Dispatch, expired.Plan)
	}
	var queued int
	if err := s.st.WriteDB().QueryRowContext(ctx, `SELECT count(*) FROM river_job WHERE kind = ? AND json_extract(args, '$.jobId') = ?`, jobKind, bowl.ID).Scan(&queued); err != nil {
		t.Fatal(err)
	}
	if queued != 0 || len(rcv.requests(bowl.ID)) != 0 {
		t.Errorf("bowl: %d deliveries queued, %d sent; want none", queued, len(rcv.requests(bowl.ID)))
	}
	// The delete job's delivery is in the table the query reads, so a
	// query that could not see the bowl's would fail here.
	if err := s.st.WriteDB().QueryRowContext(ctx, `SELECT count(*) FROM river_job WHERE kind = ? AND json_extract(args, '$.jobId') = ?`, jobKind, del.ID).Scan(&queued); err != nil || queued != 1 {
		t.Errorf("delete: %d deliveries in river_job (%v); want 1", queued, err)
	}
}
