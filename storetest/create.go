package storetest

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/askonce/askonce"
)

// createTests pin what CreateJob writes with the job besides its events:
// everything a Change carries, as UpdateJob writes it, so that a job and
// an outcome computed before it was stored commit together or not at all.
var createTests = []test{
	{"AttemptsAreStoredAndTheirUsageIsTheJobs", func(t *testing.T, s askonce.Store) {
		j := NewJob(NewTenant())
		// Not the attempts': the store sums theirs.
		j.Usage = askonce.Usage{PromptTokens: 1000, CostUSD: 9}
		j.AttemptCount = 7
		start := Now().Add(-time.Second)
		want := []askonce.Attempt{
			{N: 1, Reason: askonce.ReasonInitial, StartedAt: start, Duration: 40 * time.Millisecond,
				Outcome: askonce.AttemptInvalid, Raw: "{not json", Error: "output is not a JSON object",
				Usage: askonce.Usage{PromptTokens: 120, CompletionTokens: 30, CostUSD: 0.0625}},
			{N: 2, Reason: askonce.ReasonRetryParseError, StartedAt: start.Add(time.Millisecond), Duration: time.Millisecond,
				Outcome: askonce.AttemptPlan, Raw: `{"plan": {}}`,
				Usage: askonce.Usage{PromptTokens: 150, CompletionTokens: 40, CostUSD: 0.125}},
		}
		c := &askonce.Change{Job: j, Attempts: slices.Clone(want), Events: []askonce.Event{{Type: askonce.EventCreated}}}
		if err := s.CreateJob(t.Context(), c); err != nil {
			t.Fatalf("create: %v", err)
		}
		sum := askonce.Usage{PromptTokens: 270, CompletionTokens: 70, CostUSD: 0.1875}
		if j.Usage != sum || j.AttemptCount != 2 || j.Version != 1 {
			t.Errorf("created job: usage %+v, %d attempts, version %d; want %+v, 2, 1", j.Usage, j.AttemptCount, j.Version, sum)
		}
		checkJob(t, "stored job", j, get(t, s, j.TenantID, j.ID))
		got := attempts(t, s, j.TenantID, j.ID)
		if len(got) != len(want) {
			t.Fatalf("%d attempts, want %d", len(got), len(want))
		}
		for i := range want {
			w, g := want[i], got[i]
			w.StartedAt, g.StartedAt = normTime(w.StartedAt), normTime(g.StartedAt)
			if !reflect.DeepEqual(w, g) {
				t.Errorf("attempt %d: got %+v, want %+v", i+1, g, w)
			}
		}
		// Later attempts add to the sums the create started.
		update(t, s, &askonce.Change{Job: j, Attempts: []askonce.Attempt{{N: 3, Reason: askonce.ReasonClarificationAnswer,
			Outcome: askonce.AttemptPlan, Usage: askonce.Usage{PromptTokens: 1}}}})
		if got := get(t, s, j.TenantID, j.ID); got.Usage.PromptTokens != 271 || got.AttemptCount != 3 {
			t.Errorf("after a further attempt: %d prompt tokens, %d attempts; want 271, 3", got.Usage.PromptTokens, got.AttemptCount)
		}
	}},
	{"EventsAreAppendedInOrder", func(t *testing.T, s askonce.Store) {
		tenant := NewTenant()
		j := NewJob(tenant)
		at := Now().Add(-time.Minute)
		evs := []askonce.Event{
			{Type: askonce.EventCreated, Data: json.RawMessage(`{"mode": "managed"}`)},
			{Type: askonce.EventAttempt, At: at},
			{Type: askonce.EventPlanned, TenantID: "someone else", JobID: "another job"},
			{Type: askonce.EventDispatched},
		}
		c := &askonce.Change{Job: j, Events: evs}
		if err := s.CreateJob(t.Context(), c); err != nil {
			t.Fatalf("create: %v", err)
		}
		got := events(t, s, j.TenantID, j.ID)
		want := []askonce.EventType{askonce.EventCreated, askonce.EventAttempt, askonce.EventPlanned, askonce.EventDispatched}
		if !slices.Equal(eventTypes(got), want) {
			t.Fatalf("event types %v, want %v", eventTypes(got), want)
		}
		var last int64
		for i, e := range got {
			if e.ID <= last {
				t.Errorf("event %d has id %d, not after %d", i, e.ID, last)
			}
			last = e.ID
			if e.TenantID != j.TenantID || e.JobID != j.ID {
				t.Errorf("event %d belongs to %s/%s, want %s/%s", i, e.TenantID, e.JobID, j.TenantID, j.ID)
			}
			if w := c.Events[i]; w.ID != e.ID || w.TenantID != e.TenantID || w.JobID != e.JobID || !w.At.Equal(e.At) {
				t.Errorf("event %s written back as %+v, stored as %+v", e.Type, w, e)
			}
		}
		if !got[1].At.Equal(at) || !sameJSON(got[0].Data, evs[0].Data) {
			t.Errorf("events %+v, want the time and data given", got[:2])
		}
	}},
	{"HistoryIsUpsertedWithTheJobsKeys", func(t *testing.T, s askonce.Store) {
		ctx := t.Context()
		first := NewJob(NewTenant())
		hash := askonce.QuestionHash("Which file?")
		entry := func(answer string) *askonce.HistoryEntry {
			// Session, job and time unset: the store takes the job's.
			return &askonce.HistoryEntry{QuestionHash: hash, Type: askonce.QuestionTargetFile, Question: "Which file?", Answer: answer}
		}
		c := &askonce.Change{Job: first, History: entry("a.md")}
		if err := s.CreateJob(ctx, c); err != nil {
			t.Fatalf("create: %v", err)
		}
		if h := c.History; h.TenantID != first.TenantID || h.SessionID != first.SessionID || h.JobID != first.ID || h.At.IsZero() {
			t.Errorf("history written back as %+v, want the job's tenant, session and id and a time", h)
		}
		second := NewJob(first.TenantID)
		second.SessionID = first.SessionID
		if err := s.CreateJob(ctx, &askonce.Change{Job: second, History: entry("b.md")}); err != nil {
			t.Fatalf("create the second: %v", err)
		}
		got, err := s.LookupHistory(ctx, askonce.HistoryQuery{TenantID: first.TenantID, SessionID: first.SessionID, QuestionHash: hash})
		if err != nil {
			t.Fatalf("lookup: %v", err)
		}
		if got.Answer != "b.md" || got.JobID != second.ID {
			t.Errorf("history entry %+v, want the second job's answer b.md", got)
		}
		if all, err := s.History(ctx, first.TenantID, first.SessionID); err != nil || len(all) != 1 {
			t.Errorf("history: %v, %v; want one entry", all, err)
		}
	}},
	{"DispatchIsQueuedOnce", func(t *testing.T, s askonce.Store) {
		j := NewJob(NewTenant())
		j.Status = askonce.StatusSuccess
		j.ClarificationStatus = askonce.ClarificationSkipped
		j.Plan = &askonce.Plan{Tasks: []askonce.Task{{ID: "t1", Title: "Block", Instruction: "Add the block"}}}
		if err := s.CreateJob(t.Context(), &askonce.Change{Job: j, Dispatch: true, Events: []askonce.Event{{Type: askonce.EventDispatched}}}); err != nil {
			t.Fatalf("create: %v", err)
		}
		if j.Dispatch != askonce.DispatchQueued {
			t.Errorf("created job's dispatch %q, want queued", j.Dispatch)
		}
		checkJob(t, "stored job", j, get(t, s, j.TenantID, j.ID))
		again := j.Clone()
		err := s.UpdateJob(t.Context(), &askonce.Change{Job: again, Dispatch: true, Events: []askonce.Event{{Type: askonce.EventDispatched}}})
		wantCode(t, "second dispatch", err, askonce.ECONFLICT)
	}},
	{"AnswerLinkFindsTheCreatedJob", func(t *testing.T, s askonce.Store) {
		j := NewJob(NewTenant())
		j.Status = askonce.StatusPending
		j.ClarificationStatus = askonce.ClarificationAsked
		j.Question = &askonce.Question{Type: askonce.QuestionFreeText, Text: "Which colour?"}
		hash := linkHash(t)
		c := &askonce.Change{Job: j, AnswerLink: hash, Notify: askonce.QuestionAsked, Events: []askonce.Event{{Type: askonce.EventAsked}}}
		if err := s.CreateJob(t.Context(), c); err != nil {
			t.Fatalf("create: %v", err)
		}
		got, err := s.JobByAnswerLink(t.Context(), hash)
		if err != nil {
			t.Fatalf("JobByAnswerLink: %v", err)
		}
		checkJob(t, "job of the link", j, got)
	}},
	{"FailedCreateWritesNothing", func(t *testing.T, s askonce.Store) {
		ctx := t.Context()
		j := create(t, s, NewJob(NewTenant()))
		want := get(t, s, j.TenantID, j.ID)
		nEvents := len(events(t, s, j.TenantID, j.ID))

		dup := NewJob(j.TenantID)
		dup.ID = j.ID
		dup.Status = askonce.StatusSuccess
		hash, link := askonce.QuestionHash("Again?"), linkHash(t)
		c := &askonce.Change{
			Job:      dup,
			Attempts: []askonce.Attempt{{N: 1, Reason: askonce.ReasonInitial, Outcome: askonce.AttemptPlan, Usage: askonce.Usage{PromptTokens: 9}}},
			Events:   []askonce.Event{{Type: askonce.EventCreated}, {Type: askonce.EventPlanned}},
			History:  &askonce.HistoryEntry{QuestionHash: hash, Type: askonce.QuestionConfirm, Question: "Again?", Answer: "yes"},
			Dispatch: true, AnswerLink: link, Notify: askonce.QuestionAsked,
		}
		wantCode(t, "create with a taken id", s.CreateJob(ctx, c), askonce.ECONFLICT)
		if dup.Version != 0 || c.Events[0].ID != 0 {
			t.Errorf("the failed create was written back: version %d, first event id %d", dup.Version, c.Events[0].ID)
		}
		checkJob(t, "stored job", want, get(t, s, j.TenantID, j.ID))
		if n := len(events(t, s, j.TenantID, j.ID)); n != nEvents {
			t.Errorf("%d events, want %d", n, nEvents)
		}
		if n := len(attempts(t, s, j.TenantID, j.ID)); n != 0 {
			t.Errorf("%d attempts, want none", n)
		}
		_, err := s.LookupHistory(ctx, askonce.HistoryQuery{TenantID: dup.TenantID, SessionID: dup.SessionID, QuestionHash: hash})
		wantCode(t, "history of the failed create", err, askonce.ENOTFOUND)
		_, err = s.JobByAnswerLink(ctx, link)
		wantCode(t, "answer link of the failed create", err, askonce.ENOTFOUND)
		// Its dispatch was not queued either: the job can still be
		// dispatched once.
		j.Status = askonce.StatusSuccess
		update(t, s, &askonce.Change{Job: j, Dispatch: true})
	}},
}
