package storetest

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/askonce/askonce"
)

// sharedTest is one behaviour of two stores on one database: what
// processes (replicas) sharing a database rely on.
type sharedTest struct {
	name string
	run  func(t *testing.T, a, b askonce.Store)
}

// RunShared runs the cross-connection cases against pairs of stores that
// open returns: two Store values, each with connections of its own, on
// one new, empty database (for SQLite, two stores opened on one file).
// open is called once per behaviour; RunShared closes both stores when
// its subtest ends. The subtests run in parallel.
func RunShared(t *testing.T, open func(t *testing.T) (a, b askonce.Store)) {
	for _, tc := range slices.Concat(sharedTests, sharedLeaseTests) {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a, b := open(t)
			t.Cleanup(func() {
				for _, s := range []askonce.Store{a, b} {
					if err := s.Close(); err != nil {
						t.Errorf("close store: %v", err)
					}
				}
			})
			tc.run(t, a, b)
		})
	}
}

var sharedTests = []sharedTest{
	{"ConcurrentUpdatesThroughBothStoresHaveOneWinner", func(t *testing.T, a, b askonce.Store) {
		j := create(t, a, NewJob(NewTenant()))
		w := raceUpdates(t, 40, func(i int) *askonce.Change {
			c := &askonce.Change{
				Job:      j.Clone(),
				Attempts: []askonce.Attempt{{N: 1, Reason: askonce.ReasonClarificationAnswer, Outcome: askonce.AttemptPlan, Usage: askonce.Usage{PromptTokens: int64(i + 1)}}},
				Events:   []askonce.Event{{Type: askonce.EventAnswered, Data: json.RawMessage(fmt.Sprintf(`{"writer": %d}`, i))}},
				Dispatch: true,
			}
			c.Job.Status = askonce.StatusSuccess
			c.Job.Answer = askonce.TextAnswer(fmt.Sprintf("answer %d", i))
			return c
		}, a, b)
		for name, s := range map[string]askonce.Store{"first": a, "second": b} {
			got := get(t, s, j.TenantID, j.ID)
			if got.Version != 2 || got.Answer.String() != fmt.Sprintf("answer %d", w) || got.Dispatch != askonce.DispatchQueued {
				t.Errorf("%s store reads version %d, answer %q, dispatch %q; want the winner %d's at version 2, queued", name, got.Version, got.Answer, got.Dispatch, w)
			}
			if got.AttemptCount != 1 || got.Usage.PromptTokens != int64(w+1) {
				t.Errorf("%s store reads %d attempts and %d prompt tokens, want the winner's 1 and %d", name, got.AttemptCount, got.Usage.PromptTokens, w+1)
			}
			if evs := events(t, s, j.TenantID, j.ID); len(evs) != 2 || !sameJSON(evs[1].Data, json.RawMessage(fmt.Sprintf(`{"writer": %d}`, w))) {
				t.Errorf("%s store reads events %v, want created and the winner's answered", name, evs)
			}
		}
	}},
	{"StaleChangeThroughTheOtherStoreIsConflictWithTheCurrentJob", func(t *testing.T, a, b askonce.Store) {
		j := create(t, a, NewJob(NewTenant()))
		stale := get(t, b, j.TenantID, j.ID)
		j.Title = "written through the first store"
		update(t, a, &askonce.Change{Job: j, Events: []askonce.Event{{Type: askonce.EventPlanned}}})
		stale.Title = "written through the second store"
		err := b.UpdateJob(t.Context(), &askonce.Change{Job: stale, Events: []askonce.Event{{Type: askonce.EventPlanned}}})
		e := wantCode(t, "stale update through the second store", err, askonce.ECONFLICT)
		if e.Job == nil || e.Job.Version != 2 || e.Job.Title != j.Title {
			t.Fatalf("the conflict carries %+v, want the first store's write at version 2", e.Job)
		}
		// The second store goes on from the job the conflict carried.
		next := e.Job.Clone()
		next.Title = "then through the second store"
		update(t, b, &askonce.Change{Job: next})
		if got := get(t, a, j.TenantID, j.ID); got.Version != 3 || got.Title != next.Title {
			t.Errorf("the first store reads version %d, title %q; want 3, %q", got.Version, got.Title, next.Title)
		}
	}},
	{"EventIDsIncreaseAcrossStoresInTheOrderOfAppending", func(t *testing.T, a, b askonce.Store) {
		j := create(t, a, NewJob(NewTenant()))
		for i := range 6 {
			s := []askonce.Store{a, b}[i%2]
			if err := s.AddAttempt(t.Context(), j.TenantID, j.ID,
				askonce.Attempt{N: i + 1, Reason: askonce.ReasonRetryParseError, Outcome: askonce.AttemptInvalid},
				askonce.Event{Type: askonce.EventAttempt, Data: json.RawMessage(fmt.Sprintf(`{"n": %d}`, i+1))}); err != nil {
				t.Fatalf("add attempt %d: %v", i+1, err)
			}
		}
		fromA, fromB := events(t, a, j.TenantID, j.ID), events(t, b, j.TenantID, j.ID)
		if len(fromA) != 7 {
			t.Fatalf("%d events, want created and 6 attempts", len(fromA))
		}
		for i := 1; i < len(fromA); i++ {
			if fromA[i].ID <= fromA[i-1].ID || !sameJSON(fromA[i].Data, json.RawMessage(fmt.Sprintf(`{"n": %d}`, i))) {
				t.Errorf("event %d: id %d after %d, data %s; want increasing ids in the order appended", i, fromA[i].ID, fromA[i-1].ID, fromA[i].Data)
			}
		}
		if !slices.EqualFunc(fromA, fromB, func(x, y askonce.Event) bool { return x.ID == y.ID && x.Type == y.Type }) {
			t.Errorf("the stores read different events: %v and %v", fromA, fromB)
		}
		if got := get(t, b, j.TenantID, j.ID); got.AttemptCount != 6 || got.Version != 1 {
			t.Errorf("attempt count %d at version %d, want 6 at 1", got.AttemptCount, got.Version)
		}
	}},
	{"AnswerLinkAndHistoryWrittenThroughOneStoreAreFoundThroughTheOther", func(t *testing.T, a, b askonce.Store) {
		j := create(t, a, NewJob(NewTenant()))
		hash := linkHash(t)
		ask(t, a, j, hash)
		got, err := b.JobByAnswerLink(t.Context(), hash)
		if err != nil || got.ID != j.ID || got.Version != j.Version {
			t.Fatalf("the second store finds %v (%v) by the link, want job %s at version %d", got, err, j.ID, j.Version)
		}
		qh := askonce.QuestionHash("Which colour?")
		got.Status = askonce.StatusSuccess
		update(t, b, &askonce.Change{Job: got, History: &askonce.HistoryEntry{
			QuestionHash: qh, Type: askonce.QuestionFreeText, Question: "Which colour?", Answer: "red"}})
		h, err := a.LookupHistory(t.Context(), askonce.HistoryQuery{TenantID: j.TenantID, SessionID: j.SessionID, QuestionHash: qh})
		if err != nil || h.Answer != "red" || h.JobID != j.ID {
			t.Fatalf("the first store looks up %+v (%v), want the answer red of job %s", h, err, j.ID)
		}
	}},
	{"RacingFirstAnswersKeepOneEntryTheNewest", racingFirstAnswers},
	{"OnlyOneOfRetriesRacingThroughBothStoresTakesOver", func(t *testing.T, a, b askonce.Store) {
		ia, ok1 := a.(askonce.IdempotencyStore)
		ib, ok2 := b.(askonce.IdempotencyStore)
		if !ok1 || !ok2 {
			t.Fatalf("the stores do not keep Idempotency-Key records (askonce.IdempotencyStore)")
		}
		racingRetriesHaveOneTaker(t, ia, ib)
	}},
}
