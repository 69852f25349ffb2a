package storetest

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/askonce/askonce"
)

var jobTests = []test{
	{"CreateThenGetRoundTripsEveryField", func(t *testing.T, s askonce.Store) {
		j := FullJob(NewTenant())
		want := j.Clone()
		evs := []askonce.Event{{Type: askonce.EventCreated, Data: json.RawMessage(`{"goal": "cheese"}`)}}
		if err := s.CreateJob(t.Context(), &askonce.Change{Job: j, Events: evs}); err != nil {
			t.Fatalf("create: %v", err)
		}
		want.Version = 1
		want.UpdatedAt = want.CreatedAt
		checkJob(t, "job after create", want, j)
		checkJob(t, "stored job", want, get(t, s, j.TenantID, j.ID))
	}},
	{"CandidatesRoundTripThroughCreateGetUpdateAndList", func(t *testing.T, s askonce.Store) {
		// Candidates are kept whole and in order, through a transition
		// that leaves them alone and one that replaces them; a job
		// without them reads back with none (nil, not an empty list, so
		// that JSON leaves the field out).
		tenant := NewTenant()
		names := []string{"black pepper", "bell pepper", "黒胡椒", `<script>alert("x")</script>`, "staging, eu-west"}
		with := NewJob(tenant)
		with.Candidates = slices.Clone(names)
		create(t, s, with)
		without := create(t, s, NewJob(tenant))
		check := func(what string, j *askonce.Job, want []string) {
			t.Helper()
			if !slices.Equal(j.Candidates, want) || (want == nil) != (j.Candidates == nil) {
				t.Errorf("%s: candidates %q, want %q", what, j.Candidates, want)
			}
		}
		check("created job", get(t, s, tenant, with.ID), names)
		check("job created without candidates", get(t, s, tenant, without.ID), nil)

		with.Status = askonce.StatusPending
		update(t, s, &askonce.Change{Job: with})
		check("job after a transition", get(t, s, tenant, with.ID), names)
		with.Candidates = []string{"production"}
		update(t, s, &askonce.Change{Job: with})
		check("job after its candidates changed", get(t, s, tenant, with.ID), []string{"production"})

		page, err := s.ListJobs(t.Context(), tenant, askonce.JobFilter{})
		if err != nil {
			t.Fatalf("list jobs: %v", err)
		}
		if len(page.Jobs) != 2 {
			t.Fatalf("listed %d jobs, want 2", len(page.Jobs))
		}
		for _, j := range page.Jobs {
			switch j.ID {
			case with.ID:
				check("listed job", j, []string{"production"})
			case without.ID:
				check("listed job without candidates", j, nil)
			}
		}
	}},
	{"CreateStartsAtVersionOne", func(t *testing.T, s askonce.Store) {
		j := NewJob(NewTenant())
		j.Version = 7
		create(t, s, j)
		if j.Version != 1 {
			t.Errorf("version after create = %d, want 1", j.Version)
		}
		if got := get(t, s, j.TenantID, j.ID); got.Version != 1 {
			t.Errorf("stored version = %d, want 1", got.Version)
		}
	}},
	{"CreateWithoutCreatedAtTakesTheStoresTime", func(t *testing.T, s askonce.Store) {
		before := time.Now()
		j := create(t, s, NewJob(NewTenant()))
		after := time.Now()
		if j.CreatedAt.Before(before.Add(-time.Second)) || j.CreatedAt.After(after.Add(time.Second)) {
			t.Errorf("CreatedAt = %v, want about %v", j.CreatedAt, before)
		}
		if !j.UpdatedAt.Equal(j.CreatedAt) {
			t.Errorf("UpdatedAt = %v, want CreatedAt %v", j.UpdatedAt, j.CreatedAt)
		}
		checkJob(t, "stored job", j, get(t, s, j.TenantID, j.ID))
	}},
	{"CreateStartsWithoutUsage", func(t *testing.T, s askonce.Store) {
		// Usage and the attempt count belong to the attempts; a new job
		// has none.
		j := NewJob(NewTenant())
		j.Usage = askonce.Usage{PromptTokens: 5, CompletionTokens: 6, CostUSD: 0.5}
		j.AttemptCount = 3
		create(t, s, j)
		got := get(t, s, j.TenantID, j.ID)
		if got.Usage != (askonce.Usage{}) || got.AttemptCount != 0 {
			t.Errorf("stored usage %+v and attempt count %d, want none", got.Usage, got.AttemptCount)
		}
		checkJob(t, "job after create", got, j)
	}},
	{"CreateDuplicateIDIsConflict", func(t *testing.T, s askonce.Store) {
		j := create(t, s, NewJob(NewTenant()))
		dup := NewJob(j.TenantID)
		dup.ID = j.ID
		dup.Goal = "another goal"
		err := s.CreateJob(t.Context(), &askonce.Change{Job: dup, Events: []askonce.Event{{Type: askonce.EventCreated}}})
		wantCode(t, "second create", err, askonce.ECONFLICT)
		if got := get(t, s, j.TenantID, j.ID); got.Goal != j.Goal {
			t.Errorf("goal after duplicate create = %q, want %q", got.Goal, j.Goal)
		}
		if n := len(events(t, s, j.TenantID, j.ID)); n != 1 {
			t.Errorf("%d events after duplicate create, want 1", n)
		}
	}},
	{"CreateIDOfAnotherTenantsJobIsConflict", func(t *testing.T, s askonce.Store) {
		// Job ids are UUIDv7s, unique across tenants: dispatch is keyed by
		// them.
		j := create(t, s, NewJob(NewTenant()))
		dup := NewJob(NewTenant())
		dup.ID = j.ID
		wantCode(t, "create in another tenant", s.CreateJob(t.Context(), &askonce.Change{Job: dup}), askonce.ECONFLICT)
		_, err := s.GetJob(t.Context(), dup.TenantID, dup.ID)
		wantCode(t, "get in the other tenant", err, askonce.ENOTFOUND)
	}},
	{"GetUnknownIsNotFound", func(t *testing.T, s askonce.Store) {
		_, err := s.GetJob(t.Context(), NewTenant(), NewID())
		wantCode(t, "get", err, askonce.ENOTFOUND)
	}},
}

var tenancyTests = []test{
	{"OtherTenantCannotReachTheJob", func(t *testing.T, s askonce.Store) {
		ctx := t.Context()
		j := create(t, s, NewJob(NewTenant()))
		a := askonce.Attempt{N: 1, Reason: askonce.ReasonInitial, Outcome: askonce.AttemptPlan, Usage: askonce.Usage{PromptTokens: 1}}
		if err := s.AddAttempt(ctx, j.TenantID, j.ID, a, askonce.Event{Type: askonce.EventAttempt}); err != nil {
			t.Fatalf("add attempt: %v", err)
		}
		want := get(t, s, j.TenantID, j.ID)
		other := NewTenant()

		_, err := s.GetJob(ctx, other, j.ID)
		wantCode(t, "GetJob", err, askonce.ENOTFOUND)

		theirs := want.Clone()
		theirs.TenantID = other
		theirs.Title = "taken over"
		err = s.UpdateJob(ctx, &askonce.Change{Job: theirs, Events: []askonce.Event{{Type: askonce.EventPlanned}}})
		wantCode(t, "UpdateJob", err, askonce.ENOTFOUND)

		a.N = 2
		err = s.AddAttempt(ctx, other, j.ID, a, askonce.Event{Type: askonce.EventAttempt})
		wantCode(t, "AddAttempt", err, askonce.ENOTFOUND)

		_, err = s.Attempts(ctx, other, j.ID)
		wantCode(t, "Attempts", err, askonce.ENOTFOUND)

		_, err = s.Events(ctx, askonce.EventQuery{TenantID: other, JobID: j.ID, Limit: 100})
		wantCode(t, "Events", err, askonce.ENOTFOUND)

		page, err := s.ListJobs(ctx, other, askonce.JobFilter{})
		if err != nil {
			t.Fatalf("ListJobs: %v", err)
		}
		if len(page.Jobs) != 0 {
			t.Errorf("the other tenant lists %d jobs, want none", len(page.Jobs))
		}
		page, err = s.ListJobs(ctx, other, askonce.JobFilter{SessionID: j.SessionID})
		if err != nil {
			t.Fatalf("ListJobs by session: %v", err)
		}
		if len(page.Jobs) != 0 {
			t.Errorf("the other tenant lists %d jobs of the session, want none", len(page.Jobs))
		}

		checkJob(t, "job after the other tenant's tries", want, get(t, s, j.TenantID, j.ID))
		if n := len(attempts(t, s, j.TenantID, j.ID)); n != 1 {
			t.Errorf("%d attempts, want 1", n)
		}
		if n := len(events(t, s, j.TenantID, j.ID)); n != 2 {
			t.Errorf("%d events, want 2", n)
		}
	}},
	{"HistoryOfOneTenantIsInvisibleToAnother", func(t *testing.T, s askonce.Store) {
		ctx := t.Context()
		j := create(t, s, NewJob(NewTenant()))
		hash := askonce.QuestionHash("Which file?")
		update(t, s, &askonce.Change{Job: j, History: &askonce.HistoryEntry{
			SessionID: j.SessionID, QuestionHash: hash, Type: askonce.QuestionFreeText,
			Question: "Which file?", Answer: "main.go", JobID: j.ID, At: Now(),
		}})
		other := NewTenant()
		_, err := s.LookupHistory(ctx, askonce.HistoryQuery{TenantID: other, SessionID: j.SessionID, QuestionHash: hash})
		wantCode(t, "LookupHistory of the other tenant", err, askonce.ENOTFOUND)
		h, err := s.History(ctx, other, j.SessionID)
		if err != nil {
			t.Fatalf("History: %v", err)
		}
		if len(h) != 0 {
			t.Errorf("the other tenant sees %d history entries, want none", len(h))
		}

		// The other tenant's own answer to the same question in a session
		// of the same name is its own.
		o := NewJob(other)
		o.SessionID = j.SessionID
		create(t, s, o)
		update(t, s, &askonce.Change{Job: o, History: &askonce.HistoryEntry{
			SessionID: o.SessionID, QuestionHash: hash, Type: askonce.QuestionFreeText,
			Question: "Which file?", Answer: "other.go", JobID: o.ID, At: Now(),
		}})
		for _, c := range []struct{ tenant, answer string }{{j.TenantID, "main.go"}, {other, "other.go"}} {
			e, err := s.LookupHistory(ctx, askonce.HistoryQuery{TenantID: c.tenant, SessionID: j.SessionID, QuestionHash: hash})
			if err != nil {
				t.Fatalf("LookupHistory: %v", err)
			}
			if e.Answer != c.answer || e.TenantID != c.tenant {
				t.Errorf("tenant %s has answer %q of tenant %s, want %q", c.tenant, e.Answer, e.TenantID, c.answer)
			}
		}
	}},
}

var updateTests = []test{
	{"TypedAnswerAndConstraintsReadBackTheSame", func(t *testing.T, s askonce.Store) {
		one, ten := 1.0, 10.0
		manyQ := askonce.Question{Type: askonce.QuestionSelectMany, Text: "Which regions?", Options: []string{"eu", "EU", "us"},
			Constraints: askonce.Constraints{OptionTitles: []string{"Europe", "Europe (legacy)", ""}, MinItems: 1, MaxItems: 2}}
		fieldsQ := askonce.Question{Type: askonce.QuestionFreeText, Text: "Deploy:", Fields: []askonce.QuestionField{
			{Name: "replicas", Type: askonce.QuestionNumber, Text: "How many?", Constraints: askonce.Constraints{Integer: true, Minimum: &one, Maximum: &ten}},
			{Name: "db", Type: askonce.QuestionSelectOne, Text: "Which?", Options: []string{"Postgres", "postgres"}},
			{Name: "migrate", Type: askonce.QuestionConfirm, Text: "Migrate?", Options: []string{"yes", "no"}},
			{Name: "on", Type: askonce.QuestionFreeText, Text: "When?", Constraints: askonce.Constraints{Format: askonce.FormatDate}},
		}}
		for _, c := range []struct {
			name string
			q    askonce.Question
			a    askonce.Answer
		}{
			{"WholeNumberPastFloatPrecision", askonce.Question{Type: askonce.QuestionNumber, Text: "n?", Constraints: askonce.Constraints{Integer: true}}, askonce.AnswerOf(askonce.IntValue(9007199254740993))},
			{"Fraction", askonce.Question{Type: askonce.QuestionNumber, Text: "x?"}, askonce.AnswerOf(askonce.NumberValue("2.5"))},
			{"LargeNumber", askonce.Question{Type: askonce.QuestionNumber, Text: "x?"}, askonce.AnswerOf(askonce.NumberValue("1e+21"))},
			{"PicksDifferingInCase", manyQ, askonce.AnswerOf(askonce.OptionsValue("eu", "EU"))},
			{"No", askonce.Question{Type: askonce.QuestionConfirm, Text: "Delete?", Options: []string{"yes", "no"}}, askonce.AnswerOf(askonce.BoolValue(false))},
			{"Path", askonce.Question{Type: askonce.QuestionTargetFile, Text: "Which file?"}, askonce.AnswerOf(askonce.PathValue("docs/ノート.md"))},
			{"Text", askonce.Question{Type: askonce.QuestionFreeText, Text: "Why?"}, askonce.TextAnswer("because \"it\" is\nlate ✓")},
			{"Fields", fieldsQ, askonce.FieldsAnswer(
				askonce.FieldValue{Name: "replicas", Value: askonce.IntValue(3)},
				askonce.FieldValue{Name: "db", Value: askonce.OptionValue("postgres")},
				askonce.FieldValue{Name: "migrate", Value: askonce.BoolValue(true)},
				askonce.FieldValue{Name: "on", Value: askonce.TextValue("2026-11-28")})},
		} {
			t.Run(c.name, func(t *testing.T) {
				tenant := NewTenant()
				j := create(t, s, NewJob(tenant))
				next := j.Clone()
				q := c.q.Clone()
				next.Status, next.ClarificationStatus, next.Question = askonce.StatusPlanning, askonce.ClarificationAnswered, &q
				next.Answer, next.AnswerSource = c.a, askonce.SourceUser
				update(t, s, &askonce.Change{Job: next})
				got := get(t, s, tenant, j.ID)
				if !got.Answer.Equal(c.a) {
					t.Errorf("answer read back %+v, want %+v", got.Answer, c.a)
				}
				if !reflect.DeepEqual(got.Question.Constraints, c.q.Constraints) || !reflect.DeepEqual(got.Question.Fields, c.q.Fields) {
					t.Errorf("question read back %+v, want %+v", got.Question, c.q)
				}
			})
		}
	}},
	{"VersionIncreasesByExactlyOne", func(t *testing.T, s askonce.Store) {
		j := create(t, s, NewJob(NewTenant()))
		for want := int64(2); want <= 4; want++ {
			j.Title = fmt.Sprintf("title %d", want)
			update(t, s, &askonce.Change{Job: j})
			if j.Version != want {
				t.Fatalf("version after update = %d, want %d", j.Version, want)
			}
			if got := get(t, s, j.TenantID, j.ID); got.Version != want || got.Title != j.Title {
				t.Fatalf("stored version %d and title %q, want %d and %q", got.Version, got.Title, want, j.Title)
			}
		}
	}},
	{"ChangedJobHoldsTheStoredValues", func(t *testing.T, s askonce.Store) {
		j := create(t, s, NewJob(NewTenant()))
		j.Status = askonce.StatusPending
		update(t, s, &askonce.Change{Job: j, Attempts: []askonce.Attempt{{
			N: 1, Reason: askonce.ReasonInitial, Outcome: askonce.AttemptQuestion,
			Usage: askonce.Usage{PromptTokens: 3, CompletionTokens: 4, CostUSD: 0.125},
		}}})
		checkJob(t, "job after update", get(t, s, j.TenantID, j.ID), j)
	}},
	{"WritesEveryFieldAndClearsThem", func(t *testing.T, s askonce.Store) {
		j := create(t, s, NewJob(NewTenant()))
		full := FullJob(j.TenantID)
		full.ID, full.Version, full.CreatedAt = j.ID, j.Version, j.CreatedAt
		full.Dispatch = askonce.DispatchDelivered
		want := full.Clone()
		update(t, s, &askonce.Change{Job: full})
		want.Version, want.UpdatedAt = 2, full.UpdatedAt
		checkJob(t, "job after update", want, full)
		checkJob(t, "stored job", want, get(t, s, j.TenantID, j.ID))

		// Back to a job without question, plan, files or flags.
		bare := NewJob(j.TenantID)
		bare.ID, bare.Version, bare.CreatedAt = j.ID, full.Version, j.CreatedAt
		want = bare.Clone()
		update(t, s, &askonce.Change{Job: bare})
		want.Version, want.UpdatedAt = 3, bare.UpdatedAt
		checkJob(t, "stored job after clearing", want, get(t, s, j.TenantID, j.ID))
	}},
	{"PendingQuestionWithoutOptionalFieldsRoundTrips", func(t *testing.T, s askonce.Store) {
		// A question with no options, default, reason or expiry and a job
		// with no answer yet: what is unset reads back unset, and the
		// question is still there (NULL until set).
		j := create(t, s, NewJob(NewTenant()))
		j.Status = askonce.StatusPending
		j.ClarificationStatus = askonce.ClarificationAsked
		j.Question = &askonce.Question{Type: askonce.QuestionFreeText, Text: "Which colour?"}
		j.Result = `{"question": {"type": "FREE_TEXT", "text": "Which colour?"}}`
		want := j.Clone()
		update(t, s, &askonce.Change{Job: j, Events: []askonce.Event{{Type: askonce.EventAsked}}})
		want.Version, want.UpdatedAt = j.Version, j.UpdatedAt
		checkJob(t, "stored pending job", want, get(t, s, j.TenantID, j.ID))
	}},
	{"StaleVersionIsConflictAndWritesNothing", func(t *testing.T, s askonce.Store) {
		ctx := t.Context()
		j := create(t, s, NewJob(NewTenant()))
		stale := j.Clone()

		j.Title = "the winner"
		update(t, s, &askonce.Change{Job: j, Events: []askonce.Event{{Type: askonce.EventPlanned}}})
		want := get(t, s, j.TenantID, j.ID)

		stale.Title = "the loser"
		stale.Status = askonce.StatusSuccess
		hash := askonce.QuestionHash("Hot or cold?")
		c := &askonce.Change{
			Job: stale,
			Attempts: []askonce.Attempt{{N: 1, Reason: askonce.ReasonInitial, Outcome: askonce.AttemptPlan,
				Usage: askonce.Usage{PromptTokens: 10, CompletionTokens: 20, CostUSD: 1}}},
			Events: []askonce.Event{{Type: askonce.EventPlanned}, {Type: askonce.EventDispatched}},
			History: &askonce.HistoryEntry{SessionID: j.SessionID, QuestionHash: hash,
				Type: askonce.QuestionConfirm, Question: "Hot or cold?", Answer: "yes", JobID: j.ID, At: Now()},
			Dispatch: true,
		}
		e := wantCode(t, "stale update", s.UpdateJob(ctx, c), askonce.ECONFLICT)
		if e.Job == nil {
			t.Fatal("the conflict does not carry the current job")
		}
		checkJob(t, "job of the conflict", want, e.Job)
		if stale.Version != 1 || c.Events[0].ID != 0 {
			t.Errorf("the failed change was written back: version %d, event id %d", stale.Version, c.Events[0].ID)
		}

		checkJob(t, "stored job", want, get(t, s, j.TenantID, j.ID))
		if n := len(attempts(t, s, j.TenantID, j.ID)); n != 0 {
			t.Errorf("%d attempts, want none", n)
		}
		if got := eventTypes(events(t, s, j.TenantID, j.ID)); !slices.Equal(got, []askonce.EventType{askonce.EventCreated, askonce.EventPlanned}) {
			t.Errorf("events %v, want created and the winner's planned", got)
		}
		_, err := s.LookupHistory(ctx, askonce.HistoryQuery{TenantID: j.TenantID, SessionID: j.SessionID, QuestionHash: hash})
		wantCode(t, "history of the failed change", err, askonce.ENOTFOUND)

		// The failed change queued no dispatch: the current version can.
		cur := e.Job.Clone()
		update(t, s, &askonce.Change{Job: cur, Dispatch: true})
		if cur.Dispatch != askonce.DispatchQueued {
			t.Errorf("dispatch status %q after dispatching, want queued", cur.Dispatch)
		}
	}},
	{"UnknownJobIsNotFound", func(t *testing.T, s askonce.Store) {
		j := NewJob(NewTenant())
		j.Version = 1
		err := s.UpdateJob(t.Context(), &askonce.Change{Job: j, Events: []askonce.Event{{Type: askonce.EventPlanned}}})
		wantCode(t, "update", err, askonce.ENOTFOUND)
	}},
	{"ConcurrentUpdatesFromOneVersionHaveOneWinner", func(t *testing.T, s askonce.Store) {
		j := create(t, s, NewJob(NewTenant()))
		w := raceUpdates(t, 50, func(i int) *askonce.Change {
			c := &askonce.Change{
				Job: j.Clone(),
				Attempts: []askonce.Attempt{{N: 1, Reason: askonce.ReasonClarificationAnswer, Outcome: askonce.AttemptPlan,
					Usage: askonce.Usage{PromptTokens: int64(i + 1), CompletionTokens: 1, CostUSD: 0.5}}},
				Events: []askonce.Event{{Type: askonce.EventAnswered, Data: json.RawMessage(fmt.Sprintf(`{"writer": %d}`, i))}},
			}
			c.Job.Title = fmt.Sprintf("writer %d", i)
			c.Job.Answer = askonce.TextAnswer(fmt.Sprintf("answer %d", i))
			return c
		}, s)
		got := get(t, s, j.TenantID, j.ID)
		if got.Version != 2 || got.Title != fmt.Sprintf("writer %d", w) || got.Answer.String() != fmt.Sprintf("answer %d", w) {
			t.Errorf("stored version %d, title %q, answer %q; want the winner %d's at version 2", got.Version, got.Title, got.Answer, w)
		}
		if want := (askonce.Usage{PromptTokens: int64(w + 1), CompletionTokens: 1, CostUSD: 0.5}); got.Usage != want || got.AttemptCount != 1 {
			t.Errorf("stored usage %+v over %d attempts, want the winner's %+v over 1", got.Usage, got.AttemptCount, want)
		}
		evs := events(t, s, j.TenantID, j.ID)
		if len(evs) != 2 || !sameJSON(evs[1].Data, json.RawMessage(fmt.Sprintf(`{"writer": %d}`, w))) {
			t.Errorf("events %v, want created and the winner's answered", evs)
		}
		if n := len(attempts(t, s, j.TenantID, j.ID)); n != 1 {
			t.Errorf("%d attempts, want the winner's one", n)
		}
	}},
}

// raceUpdates runs writers compare-and-sets of one job from its version
// 1 at once, writer i's change made by change(i) and sent through the
// stores in turn, and returns the one winner. Every loser must get
// ECONFLICT carrying the job at the winner's version 2.
func raceUpdates(t *testing.T, writers int, change func(i int) *askonce.Change, stores ...askonce.Store) (winner int) {
	t.Helper()
	var (
		wg        sync.WaitGroup
		start     = make(chan struct{})
		mu        sync.Mutex
		winners   []int
		conflicts int
	)
	for i := range writers {
		s, c := stores[i%len(stores)], change(i)
		wg.Go(func() {
			<-start
			err := s.UpdateJob(t.Context(), c)
			mu.Lock()
			defer mu.Unlock()
			switch askonce.ErrorCode(err) {
			case "":
				winners = append(winners, i)
			case askonce.ECONFLICT:
				conflicts++
				var e *askonce.Error
				if errors.As(err, &e); e.Job == nil || e.Job.Version != 2 {
					t.Errorf("writer %d: the conflict carries %+v, want the job at version 2", i, e.Job)
				}
			default:
				t.Errorf("writer %d: %v", i, err)
			}
		})
	}
	close(start)
	wg.Wait()
	if len(winners) != 1 || conflicts != writers-1 {
		t.Fatalf("%d winners and %d conflicts, want 1 and %d", len(winners), conflicts, writers-1)
	}
	return winners[0]
}
