package storetest

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/askonce/askonce"
)

var attemptTests = []test{
	{"UsageAddsUpAcrossAddAttemptAndUpdateJob", func(t *testing.T, s askonce.Store) {
		ctx := t.Context()
		j := create(t, s, NewJob(NewTenant()))
		held := j.Clone() // AddAttempt does not move the version: this stays current
		for i, u := range []askonce.Usage{{PromptTokens: 10, CompletionTokens: 5, CostUSD: 0.25}, {PromptTokens: 1, CompletionTokens: 2, CostUSD: 0.5}} {
			a := askonce.Attempt{N: i + 1, Reason: askonce.ReasonRetryParseError, Outcome: askonce.AttemptInvalid, Usage: u}
			if err := s.AddAttempt(ctx, j.TenantID, j.ID, a, askonce.Event{Type: askonce.EventAttempt}); err != nil {
				t.Fatalf("add attempt %d: %v", i+1, err)
			}
		}
		got := get(t, s, j.TenantID, j.ID)
		if want := (askonce.Usage{PromptTokens: 11, CompletionTokens: 7, CostUSD: 0.75}); got.Usage != want || got.AttemptCount != 2 {
			t.Errorf("after AddAttempt: usage %+v over %d attempts, want %+v over 2", got.Usage, got.AttemptCount, want)
		}
		update(t, s, &askonce.Change{Job: held, Attempts: []askonce.Attempt{
			{N: 3, Reason: askonce.ReasonRetryValidation, Outcome: askonce.AttemptInvalid, Usage: askonce.Usage{PromptTokens: 100, CompletionTokens: 50, CostUSD: 1}},
			{N: 4, Reason: askonce.ReasonRetryValidation, Outcome: askonce.AttemptPlan, Usage: askonce.Usage{PromptTokens: 1000, CompletionTokens: 500, CostUSD: 2}},
		}})
		want := askonce.Usage{PromptTokens: 1111, CompletionTokens: 557, CostUSD: 3.75}
		if held.Usage != want || held.AttemptCount != 4 || held.Version != 2 {
			t.Errorf("changed job: usage %+v over %d attempts at version %d, want %+v over 4 at version 2", held.Usage, held.AttemptCount, held.Version, want)
		}
		checkJob(t, "stored job", held, get(t, s, j.TenantID, j.ID))
	}},
	{"StaleUsageInTheChangeDoesNotOverwriteTheSums", func(t *testing.T, s askonce.Store) {
		ctx := t.Context()
		j := create(t, s, NewJob(NewTenant()))
		u := askonce.Usage{PromptTokens: 7, CompletionTokens: 8, CostUSD: 0.5}
		if err := s.AddAttempt(ctx, j.TenantID, j.ID, askonce.Attempt{N: 1, Reason: askonce.ReasonInitial, Outcome: askonce.AttemptInvalid, Usage: u}, askonce.Event{Type: askonce.EventAttempt}); err != nil {
			t.Fatalf("add attempt: %v", err)
		}
		// j still holds the usage of before the attempt; a bogus one too.
		for _, stale := range []askonce.Usage{{}, {PromptTokens: 999, CompletionTokens: 999, CostUSD: 99}} {
			j.Usage, j.AttemptCount = stale, 42
			update(t, s, &askonce.Change{Job: j})
			if j.Usage != u || j.AttemptCount != 1 {
				t.Errorf("changed job: usage %+v over %d attempts, want %+v over 1", j.Usage, j.AttemptCount, u)
			}
			if got := get(t, s, j.TenantID, j.ID); got.Usage != u || got.AttemptCount != 1 {
				t.Errorf("stored usage %+v over %d attempts, want %+v over 1", got.Usage, got.AttemptCount, u)
			}
		}
	}},
	{"AddAttemptKeepsTheVersion", func(t *testing.T, s askonce.Store) {
		j := create(t, s, NewJob(NewTenant()))
		a := askonce.Attempt{N: 1, Reason: askonce.ReasonInitial, Outcome: askonce.AttemptError, Error: "timeout"}
		if err := s.AddAttempt(t.Context(), j.TenantID, j.ID, a, askonce.Event{Type: askonce.EventAttempt}); err != nil {
			t.Fatalf("add attempt: %v", err)
		}
		if got := get(t, s, j.TenantID, j.ID); got.Version != 1 {
			t.Errorf("version after AddAttempt = %d, want 1", got.Version)
		}
		update(t, s, &askonce.Change{Job: j})
	}},
	{"RoundTripInOrder", func(t *testing.T, s askonce.Store) {
		ctx := t.Context()
		j := create(t, s, NewJob(NewTenant()))
		start := Now().Add(-time.Minute)
		want := []askonce.Attempt{
			{N: 1, Reason: askonce.ReasonInitial, StartedAt: start, Duration: 1500*time.Millisecond + 7,
				Outcome: askonce.AttemptInvalid, Raw: "{not json", Error: "output is not a JSON object",
				Usage: askonce.Usage{PromptTokens: 120, CompletionTokens: 30, CostUSD: 0.0625}},
			{N: 2, Reason: askonce.ReasonRetryParseError, StartedAt: start.Add(2 * time.Second), Duration: time.Second,
				Outcome: askonce.AttemptQuestion, Raw: `{"question": {"text": "どれ?"}}`,
				Usage: askonce.Usage{PromptTokens: 150, CompletionTokens: 40, CostUSD: 0.125}},
			{N: 3, Reason: askonce.ReasonClarificationAnswer, StartedAt: start.Add(time.Minute), Duration: 3 * time.Millisecond,
				Outcome: askonce.AttemptPlan, Raw: `{"plan": {}}`},
		}
		for _, a := range want[:2] {
			if err := s.AddAttempt(ctx, j.TenantID, j.ID, a, askonce.Event{Type: askonce.EventAttempt}); err != nil {
				t.Fatalf("add attempt %d: %v", a.N, err)
			}
		}
		update(t, s, &askonce.Change{Job: j, Attempts: want[2:]})
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
	}},
	{"UnknownJobIsNotFound", func(t *testing.T, s askonce.Store) {
		ctx := t.Context()
		tenant, id := NewTenant(), NewID()
		err := s.AddAttempt(ctx, tenant, id, askonce.Attempt{N: 1, Reason: askonce.ReasonInitial, Outcome: askonce.AttemptPlan}, askonce.Event{Type: askonce.EventAttempt})
		wantCode(t, "AddAttempt", err, askonce.ENOTFOUND)
		_, err = s.Attempts(ctx, tenant, id)
		wantCode(t, "Attempts", err, askonce.ENOTFOUND)

		j := create(t, s, NewJob(tenant))
		if got := attempts(t, s, j.TenantID, j.ID); len(got) != 0 {
			t.Errorf("a new job has %d attempts, want none", len(got))
		}
	}},
}

var eventTests = []test{
	{"AppendedInOrderWithIncreasingIDsAndTheJobsKeys", func(t *testing.T, s askonce.Store) {
		ctx := t.Context()
		at := Now().Add(-time.Minute)
		j := NewJob(NewTenant())
		created := []askonce.Event{
			{Type: askonce.EventCreated, Data: json.RawMessage(`{"goal": "copper"}`)},
			{Type: askonce.EventAttempt, At: at, TenantID: "someone else", JobID: "another job"},
		}
		before := time.Now()
		if err := s.CreateJob(ctx, &askonce.Change{Job: j, Events: created}); err != nil {
			t.Fatalf("create: %v", err)
		}
		if err := s.AddAttempt(ctx, j.TenantID, j.ID, askonce.Attempt{N: 1, Reason: askonce.ReasonInitial, Outcome: askonce.AttemptQuestion},
			askonce.Event{Type: askonce.EventAttempt, Data: json.RawMessage(`{"n": 1}`)}); err != nil {
			t.Fatalf("add attempt: %v", err)
		}
		c := &askonce.Change{Job: j, Events: []askonce.Event{{Type: askonce.EventAsked}, {Type: askonce.EventAutoResolved, Data: json.RawMessage(`{"source": "history"}`)}}}
		update(t, s, c)

		got := events(t, s, j.TenantID, j.ID)
		wantTypes := []askonce.EventType{askonce.EventCreated, askonce.EventAttempt, askonce.EventAttempt, askonce.EventAsked, askonce.EventAutoResolved}
		if !slices.Equal(eventTypes(got), wantTypes) {
			t.Fatalf("event types %v, want %v", eventTypes(got), wantTypes)
		}
		for i, e := range got {
			if i > 0 && e.ID <= got[i-1].ID {
				t.Errorf("event %d has id %d after %d", i, e.ID, got[i-1].ID)
			}
			if e.TenantID != j.TenantID || e.JobID != j.ID {
				t.Errorf("event %d belongs to %s/%s, want %s/%s", i, e.TenantID, e.JobID, j.TenantID, j.ID)
			}
			if e.At.Before(before.Add(-time.Hour)) || e.At.After(time.Now().Add(time.Second)) {
				t.Errorf("event %d at %v, want about now", i, e.At)
			}
		}
		if !got[1].At.Equal(at) {
			t.Errorf("event with a time is at %v, want %v", got[1].At, at)
		}
		if !sameJSON(got[0].Data, created[0].Data) || !sameJSON(got[2].Data, json.RawMessage(`{"n": 1}`)) || len(got[3].Data) != 0 {
			t.Errorf("event data %s, %s, %s; want the appended data", got[0].Data, got[2].Data, got[3].Data)
		}
		// The events passed in hold what was stored.
		written := []askonce.Event{created[0], created[1], c.Events[0], c.Events[1]}
		stored := []askonce.Event{got[0], got[1], got[3], got[4]}
		for i, w := range written {
			g := stored[i]
			if w.ID != g.ID || w.TenantID != g.TenantID || w.JobID != g.JobID || !w.At.Equal(g.At) {
				t.Errorf("event %s written back as %+v, stored as %+v", w.Type, w, g)
			}
		}
	}},
	{"AfterAndLimitPageThroughInOrder", func(t *testing.T, s askonce.Store) {
		j := create(t, s, NewJob(NewTenant()))
		c := &askonce.Change{Job: j}
		for i := range 6 {
			c.Events = append(c.Events, askonce.Event{Type: askonce.EventAttempt, Data: json.RawMessage(fmt.Sprintf(`{"i": %d}`, i))})
		}
		update(t, s, c)
		all := events(t, s, j.TenantID, j.ID)
		if len(all) != 7 {
			t.Fatalf("%d events, want 7", len(all))
		}
		var paged []askonce.Event
		var after int64
		for range 10 {
			page, err := s.Events(t.Context(), askonce.EventQuery{TenantID: j.TenantID, JobID: j.ID, After: after, Limit: 3})
			if err != nil {
				t.Fatalf("events after %d: %v", after, err)
			}
			if len(page) > 3 {
				t.Fatalf("page of %d events, limit 3", len(page))
			}
			if len(page) == 0 {
				break
			}
			paged = append(paged, page...)
			after = page[len(page)-1].ID
		}
		if !slices.EqualFunc(paged, all, func(a, b askonce.Event) bool { return a.ID == b.ID }) {
			t.Errorf("paged events %v, want %v", paged, all)
		}
	}},
	// Ids increase within a job in the order its events were appended,
	// whatever other jobs append in between (askonce.Event.ID).
	{"IDsIncreaseWithinTheJobInTheOrderOfAppending", func(t *testing.T, s askonce.Store) {
		tenant := NewTenant()
		a := create(t, s, NewJob(tenant))
		b := create(t, s, NewJob(tenant))
		update(t, s, &askonce.Change{Job: a, Events: []askonce.Event{{Type: askonce.EventAttempt}, {Type: askonce.EventAsked}}})
		update(t, s, &askonce.Change{Job: b, Events: []askonce.Event{{Type: askonce.EventAttempt}}})
		update(t, s, &askonce.Change{Job: a, Events: []askonce.Event{{Type: askonce.EventAnswered}}})
		ea := events(t, s, tenant, a.ID)
		want := []askonce.EventType{askonce.EventCreated, askonce.EventAttempt, askonce.EventAsked, askonce.EventAnswered}
		if !slices.Equal(eventTypes(ea), want) {
			t.Fatalf("events of a %v, want %v", eventTypes(ea), want)
		}
		for i := 1; i < len(ea); i++ {
			if ea[i].ID <= ea[i-1].ID {
				t.Errorf("event %d (%s) has id %d, not after %d", i, ea[i].Type, ea[i].ID, ea[i-1].ID)
			}
		}
		if eb := events(t, s, tenant, b.ID); len(eb) != 2 || eb[1].ID <= eb[0].ID {
			t.Errorf("events of b %+v, want created and attempt in order", eb)
		}
	}},
	{"UnknownJobIsNotFoundAndTheEndIsEmpty", func(t *testing.T, s askonce.Store) {
		_, err := s.Events(t.Context(), askonce.EventQuery{TenantID: NewTenant(), JobID: NewID(), Limit: 10})
		wantCode(t, "events of an unknown job", err, askonce.ENOTFOUND)
		j := create(t, s, NewJob(NewTenant()))
		last := events(t, s, j.TenantID, j.ID)[0].ID
		got, err := s.Events(t.Context(), askonce.EventQuery{TenantID: j.TenantID, JobID: j.ID, After: last, Limit: 10})
		if err != nil || len(got) != 0 {
			t.Errorf("events after the last: %v, %v; want none", got, err)
		}
	}},
	{"OnlyCommittedChangesAppendEvents", func(t *testing.T, s askonce.Store) {
		ctx := t.Context()
		j := create(t, s, NewJob(NewTenant()))
		stale := j.Clone()
		update(t, s, &askonce.Change{Job: j, Dispatch: true, Events: []askonce.Event{{Type: askonce.EventDispatched}}})
		n := len(events(t, s, j.TenantID, j.ID))

		dup := NewJob(j.TenantID)
		dup.ID = j.ID
		ev := []askonce.Event{{Type: askonce.EventCreated}}
		wantCode(t, "duplicate create", s.CreateJob(ctx, &askonce.Change{Job: dup, Events: ev}), askonce.ECONFLICT)
		wantCode(t, "stale update", s.UpdateJob(ctx, &askonce.Change{Job: stale, Events: []askonce.Event{{Type: askonce.EventFailed}}}), askonce.ECONFLICT)
		if err := s.UpdateJob(ctx, &askonce.Change{Job: j.Clone(), Dispatch: true, Events: []askonce.Event{{Type: askonce.EventDispatched}}}); err == nil {
			t.Fatal("second dispatch succeeded")
		}
		if got := len(events(t, s, j.TenantID, j.ID)); got != n {
			t.Errorf("%d events after failed changes, want %d", got, n)
		}
	}},
}

var historyTests = []test{
	{"EntryRoundTrips", func(t *testing.T, s askonce.Store) {
		j := create(t, s, NewJob(NewTenant()))
		want := askonce.HistoryEntry{
			TenantID: j.TenantID, SessionID: j.SessionID, QuestionHash: askonce.QuestionHash("Which file?"),
			Type: askonce.QuestionTargetFile, Question: "Which file?", Answer: "docs/notes.md", JobID: j.ID, At: Now(),
		}
		h := want
		update(t, s, &askonce.Change{Job: j, History: &h})
		got, err := s.LookupHistory(t.Context(), askonce.HistoryQuery{TenantID: j.TenantID, SessionID: j.SessionID, QuestionHash: want.QuestionHash})
		if err != nil {
			t.Fatalf("lookup: %v", err)
		}
		checkEntry(t, want, *got)
		all, err := s.History(t.Context(), j.TenantID, j.SessionID)
		if err != nil || len(all) != 1 {
			t.Fatalf("history: %v, %v; want the one entry", all, err)
		}
		checkEntry(t, want, all[0])
	}},
	{"UpsertsByTenantSessionAndHash", func(t *testing.T, s askonce.Store) {
		ctx := t.Context()
		j := create(t, s, NewJob(NewTenant()))
		hash := askonce.QuestionHash("Overwrite README.md?")
		first := askonce.HistoryEntry{SessionID: j.SessionID, QuestionHash: hash, Type: askonce.QuestionConfirm,
			Question: "Overwrite README.md?", Answer: "yes", JobID: j.ID, At: Now().Add(-time.Minute)}
		update(t, s, &askonce.Change{Job: j, History: &first})

		k := NewJob(j.TenantID)
		k.SessionID = j.SessionID
		create(t, s, k)
		second := askonce.HistoryEntry{TenantID: k.TenantID, SessionID: k.SessionID, QuestionHash: hash, Type: askonce.QuestionFreeText,
			Question: "overwrite readme.md", Answer: "no", JobID: k.ID, At: Now()}
		update(t, s, &askonce.Change{Job: k, History: &second})

		got, err := s.LookupHistory(ctx, askonce.HistoryQuery{TenantID: j.TenantID, SessionID: j.SessionID, QuestionHash: hash})
		if err != nil {
			t.Fatalf("lookup: %v", err)
		}
		checkEntry(t, second, *got)
		all, err := s.History(ctx, j.TenantID, j.SessionID)
		if err != nil || len(all) != 1 {
			t.Fatalf("history: %v, %v; want one entry", all, err)
		}
	}},
	{"LookupOfAnAbsentAnswerIsNotFound", func(t *testing.T, s askonce.Store) {
		_, err := s.LookupHistory(t.Context(), askonce.HistoryQuery{TenantID: NewTenant(), SessionID: "session", QuestionHash: askonce.QuestionHash("anything")})
		wantCode(t, "lookup", err, askonce.ENOTFOUND)
		h, err := s.History(t.Context(), NewTenant(), "session")
		if err != nil || len(h) != 0 {
			t.Errorf("history of an unknown session: %v, %v; want empty", h, err)
		}
	}},
	{"OldestFirst", func(t *testing.T, s askonce.Store) {
		j := create(t, s, NewJob(NewTenant()))
		base := Now().Add(-time.Hour)
		// Written out of order: the list is by time.
		for _, i := range []int{2, 0, 3, 1} {
			q := fmt.Sprintf("question %d", i)
			update(t, s, &askonce.Change{Job: j, History: &askonce.HistoryEntry{
				SessionID: j.SessionID, QuestionHash: askonce.QuestionHash(q), Type: askonce.QuestionFreeText,
				Question: q, Answer: fmt.Sprint(i), JobID: j.ID, At: base.Add(time.Duration(i) * time.Minute)}})
		}
		all, err := s.History(t.Context(), j.TenantID, j.SessionID)
		if err != nil {
			t.Fatalf("history: %v", err)
		}
		var answers []string
		for _, h := range all {
			answers = append(answers, h.Answer)
		}
		if want := []string{"0", "1", "2", "3"}; !slices.Equal(answers, want) {
			t.Errorf("answers %v, want %v", answers, want)
		}
	}},
	{"ScopedBySession", func(t *testing.T, s askonce.Store) {
		ctx := t.Context()
		tenant := NewTenant()
		hash := askonce.QuestionHash("Which directory?")
		for _, answer := range []string{"src", "lib"} {
			j := create(t, s, NewJob(tenant))
			update(t, s, &askonce.Change{Job: j, History: &askonce.HistoryEntry{
				SessionID: j.SessionID, QuestionHash: hash, Type: askonce.QuestionFreeText,
				Question: "Which directory?", Answer: answer, JobID: j.ID, At: Now()}})
			got, err := s.LookupHistory(ctx, askonce.HistoryQuery{TenantID: tenant, SessionID: j.SessionID, QuestionHash: hash})
			if err != nil || got.Answer != answer {
				t.Fatalf("lookup in session %s: %v, %v; want %q", j.SessionID, got, err, answer)
			}
			all, err := s.History(ctx, tenant, j.SessionID)
			if err != nil || len(all) != 1 || all[0].Answer != answer {
				t.Fatalf("history of session %s: %v, %v; want only %q", j.SessionID, all, err, answer)
			}
		}
		_, err := s.LookupHistory(ctx, askonce.HistoryQuery{TenantID: tenant, SessionID: "another session", QuestionHash: hash})
		wantCode(t, "lookup in another session", err, askonce.ENOTFOUND)
	}},
}

func checkEntry(t *testing.T, want, got askonce.HistoryEntry) {
	t.Helper()
	want.At, got.At = normTime(want.At), normTime(got.At)
	if want.TenantID == "" {
		want.TenantID = got.TenantID
	}
	if want.Scope == "" {
		want.Scope = askonce.MemorySession
	}
	if !reflect.DeepEqual(want, got) {
		t.Errorf("history entry %+v, want %+v", got, want)
	}
}

var dispatchTests = []test{
	{"DispatchQueuesTheJob", func(t *testing.T, s askonce.Store) {
		j := create(t, s, NewJob(NewTenant()))
		j.Status = askonce.StatusSuccess
		update(t, s, &askonce.Change{Job: j, Dispatch: true})
		if j.Dispatch != askonce.DispatchQueued || j.Version != 2 {
			t.Errorf("changed job: dispatch %q at version %d, want queued at 2", j.Dispatch, j.Version)
		}
		checkJob(t, "stored job", j, get(t, s, j.TenantID, j.ID))
	}},
	{"SecondDispatchFailsAndRollsBackTheWholeChange", func(t *testing.T, s askonce.Store) {
		ctx := t.Context()
		j := create(t, s, NewJob(NewTenant()))
		j.Status = askonce.StatusSuccess
		update(t, s, &askonce.Change{Job: j, Dispatch: true})
		want := get(t, s, j.TenantID, j.ID)
		nEvents := len(events(t, s, j.TenantID, j.ID))

		again := j.Clone()
		again.Title = "dispatched twice"
		hash := askonce.QuestionHash("Again?")
		err := s.UpdateJob(ctx, &askonce.Change{
			Job:      again,
			Attempts: []askonce.Attempt{{N: 1, Reason: askonce.ReasonInitial, Outcome: askonce.AttemptPlan, Usage: askonce.Usage{PromptTokens: 9}}},
			Events:   []askonce.Event{{Type: askonce.EventDispatched}},
			History: &askonce.HistoryEntry{SessionID: j.SessionID, QuestionHash: hash, Type: askonce.QuestionConfirm,
				Question: "Again?", Answer: "yes", JobID: j.ID, At: Now()},
			Dispatch: true,
		})
		wantCode(t, "second dispatch", err, askonce.ECONFLICT)
		if again.Version != want.Version {
			t.Errorf("the failed change was written back: version %d, want %d", again.Version, want.Version)
		}
		checkJob(t, "stored job", want, get(t, s, j.TenantID, j.ID))
		if n := len(events(t, s, j.TenantID, j.ID)); n != nEvents {
			t.Errorf("%d events, want %d", n, nEvents)
		}
		if n := len(attempts(t, s, j.TenantID, j.ID)); n != 0 {
			t.Errorf("%d attempts, want none", n)
		}
		_, err = s.LookupHistory(ctx, askonce.HistoryQuery{TenantID: j.TenantID, SessionID: j.SessionID, QuestionHash: hash})
		wantCode(t, "history of the failed change", err, askonce.ENOTFOUND)
	}},
	{"QueuedDispatchOutlivesTheJobsFlag", func(t *testing.T, s askonce.Store) {
		// The queue entry, written in the success's transaction, is what
		// makes dispatch unique: a later write that clears the job's
		// dispatch flag does not remove it, so a second dispatch is still
		// refused.
		ctx := t.Context()
		j := create(t, s, NewJob(NewTenant()))
		j.Status = askonce.StatusSuccess
		update(t, s, &askonce.Change{Job: j, Dispatch: true})
		j.Dispatch = askonce.DispatchNone
		update(t, s, &askonce.Change{Job: j})
		if got := get(t, s, j.TenantID, j.ID); got.Dispatch != askonce.DispatchNone {
			t.Fatalf("dispatch flag %q after clearing it, want none", got.Dispatch)
		}
		again := j.Clone()
		err := s.UpdateJob(ctx, &askonce.Change{Job: again, Events: []askonce.Event{{Type: askonce.EventDispatched}}, Dispatch: true})
		wantCode(t, "dispatch of a job whose flag was cleared", err, askonce.ECONFLICT)
		if types := eventTypes(events(t, s, j.TenantID, j.ID)); slices.Contains(types, askonce.EventDispatched) {
			t.Errorf("events %v: the refused change appended its dispatched event", types)
		}
	}},
	{"DeliveryStatusIsWrittenWithTheJob", func(t *testing.T, s askonce.Store) {
		j := create(t, s, NewJob(NewTenant()))
		j.Status = askonce.StatusSuccess
		update(t, s, &askonce.Change{Job: j, Dispatch: true})
		j.Dispatch, j.DeliveryAttempts, j.DeliveryError = askonce.DispatchDelivered, 3, "HTTP 503 from the builder"
		update(t, s, &askonce.Change{Job: j, Events: []askonce.Event{{Type: askonce.EventDelivered}}})
		got := get(t, s, j.TenantID, j.ID)
		if got.Dispatch != askonce.DispatchDelivered || got.DeliveryAttempts != 3 || got.DeliveryError != "HTTP 503 from the builder" {
			t.Errorf("delivery %q after %d attempts, error %q; want delivered after 3 with the error", got.Dispatch, got.DeliveryAttempts, got.DeliveryError)
		}
	}},
}
