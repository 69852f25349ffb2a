package storetest

import (
	"crypto/rand"
	"testing"

	"github.com/askonce/askonce"
)

// linkHash returns a random 32-byte answer-link hash.
func linkHash(t *testing.T) []byte {
	t.Helper()
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return b
}

// ask moves a stored planning job to pending with the answer-link hash.
func ask(t *testing.T, s askonce.Store, j *askonce.Job, hash []byte) {
	t.Helper()
	j.Status = askonce.StatusPending
	j.ClarificationStatus = askonce.ClarificationAsked
	j.Question = &askonce.Question{Type: askonce.QuestionFreeText, Text: "Which colour?"}
	update(t, s, &askonce.Change{Job: j, Events: []askonce.Event{{Type: askonce.EventAsked}}, AnswerLink: hash})
}

var linkTests = []test{
	{"AnswerLinkFindsItsJobInItsTenant", func(t *testing.T, s askonce.Store) {
		// The lookup crosses tenants: the link names its tenant.
		j := create(t, s, NewJob(NewTenant()))
		other := create(t, s, NewJob(NewTenant()))
		hash := linkHash(t)
		ask(t, s, j, hash)
		ask(t, s, other, linkHash(t))
		got, err := s.JobByAnswerLink(t.Context(), hash)
		if err != nil {
			t.Fatalf("JobByAnswerLink: %v", err)
		}
		checkJob(t, "job of the link", get(t, s, j.TenantID, j.ID), got)
	}},
	{"UnknownAnswerLinkIsNotFound", func(t *testing.T, s askonce.Store) {
		ask(t, s, create(t, s, NewJob(NewTenant())), linkHash(t))
		for _, h := range [][]byte{linkHash(t), nil, []byte("short")} {
			_, err := s.JobByAnswerLink(t.Context(), h)
			wantCode(t, "lookup of an unknown hash", err, askonce.ENOTFOUND)
		}
	}},
	{"AnswerLinkOfAConflictingChangeIsNotStored", func(t *testing.T, s askonce.Store) {
		j := create(t, s, NewJob(NewTenant()))
		stale := j.Clone()
		j.Title = "the winner"
		update(t, s, &askonce.Change{Job: j, Events: []askonce.Event{{Type: askonce.EventAttempt}}})
		hash := linkHash(t)
		stale.Status = askonce.StatusPending
		stale.ClarificationStatus = askonce.ClarificationAsked
		stale.Question = &askonce.Question{Type: askonce.QuestionFreeText, Text: "Which colour?"}
		err := s.UpdateJob(t.Context(), &askonce.Change{Job: stale, Events: []askonce.Event{{Type: askonce.EventAsked}}, AnswerLink: hash})
		wantCode(t, "stale ask", err, askonce.ECONFLICT)
		_, err = s.JobByAnswerLink(t.Context(), hash)
		wantCode(t, "lookup after the failed ask", err, askonce.ENOTFOUND)
	}},
	{"AnswerLinkOutlivesPendingAndShowsTheCurrentJob", func(t *testing.T, s askonce.Store) {
		// The row stays; the caller tells a dead link from the job.
		j := create(t, s, NewJob(NewTenant()))
		hash := linkHash(t)
		ask(t, s, j, hash)
		j.Status = askonce.StatusCancelled
		update(t, s, &askonce.Change{Job: j, Events: []askonce.Event{{Type: askonce.EventCancelled}}})
		got, err := s.JobByAnswerLink(t.Context(), hash)
		if err != nil {
			t.Fatalf("JobByAnswerLink after cancel: %v", err)
		}
		if got.Status != askonce.StatusCancelled || got.Version != j.Version {
			t.Errorf("job of the link is %s at version %d, want cancelled at %d", got.Status, got.Version, j.Version)
		}
	}},
	{"ChangeWithoutAnswerLinkStoresNone", func(t *testing.T, s askonce.Store) {
		// Each job's link is its own: writing one job's link does not
		// make another job's hash resolve.
		a := create(t, s, NewJob(NewTenant()))
		b := create(t, s, NewJob(a.TenantID))
		ha, hb := linkHash(t), linkHash(t)
		ask(t, s, a, ha)
		ask(t, s, b, nil)
		if got, err := s.JobByAnswerLink(t.Context(), ha); err != nil || got.ID != a.ID {
			t.Errorf("link of a: job %v, err %v; want job %s", got, err, a.ID)
		}
		_, err := s.JobByAnswerLink(t.Context(), hb)
		wantCode(t, "hash never written", err, askonce.ENOTFOUND)
	}},
}
