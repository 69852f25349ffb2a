package storetest

import (
	"sync"
	"testing"

	"github.com/askonce/askonce"
)

var messageTests = []test{
	{"FirstPutWinsAndLaterPutsGetIt", func(t *testing.T, s askonce.Store) {
		ms := messageStore(t, s)
		j := NewJob(NewTenant())
		first := askonce.Message{TenantID: j.TenantID, JobID: j.ID, Channel: "slack", Ref: "C0123ABCD/1.000100"}
		got, err := ms.PutMessage(t.Context(), first)
		if err != nil || got != first {
			t.Fatalf("first put = %+v, %v; want %+v", got, err, first)
		}
		second := first
		second.Ref = "C0123ABCD/2.000200"
		if got, err = ms.PutMessage(t.Context(), second); err != nil || got != first {
			t.Fatalf("second put = %+v, %v; want the first %+v", got, err, first)
		}
		if got, err = ms.Message(t.Context(), j.TenantID, j.ID, "slack"); err != nil || got != first {
			t.Fatalf("Message = %+v, %v; want %+v", got, err, first)
		}
	}},
	{"MessageOfAnotherChannelOrTenantIsNotFound", func(t *testing.T, s askonce.Store) {
		ms := messageStore(t, s)
		j := NewJob(NewTenant())
		if _, err := ms.PutMessage(t.Context(), askonce.Message{TenantID: j.TenantID, JobID: j.ID, Channel: "slack", Ref: "x"}); err != nil {
			t.Fatal(err)
		}
		_, err := ms.Message(t.Context(), j.TenantID, j.ID, "email")
		wantCode(t, "other channel", err, askonce.ENOTFOUND)
		_, err = ms.Message(t.Context(), NewTenant(), j.ID, "slack")
		wantCode(t, "other tenant", err, askonce.ENOTFOUND)
	}},
	{"AppendEventAddsTheNextEventAndLeavesTheJob", func(t *testing.T, s askonce.Store) {
		ea, ok := s.(askonce.EventAppender)
		if !ok {
			t.Fatalf("%T appends no events (askonce.EventAppender)", s)
		}
		j := NewJob(NewTenant())
		if err := s.CreateJob(t.Context(), &askonce.Change{Job: j, Events: []askonce.Event{{Type: askonce.EventCreated}}}); err != nil {
			t.Fatal(err)
		}
		before, err := s.GetJob(t.Context(), j.TenantID, j.ID)
		if err != nil {
			t.Fatal(err)
		}
		ev := askonce.Event{TenantID: j.TenantID, JobID: j.ID, Type: askonce.EventNotifyFailed, At: Now(), Data: []byte(`{"channel":"slack"}`)}
		if err := ea.AppendEvent(t.Context(), ev); err != nil {
			t.Fatal(err)
		}
		evs, err := s.Events(t.Context(), askonce.EventQuery{TenantID: j.TenantID, JobID: j.ID})
		if err != nil || len(evs) != 2 || evs[1].Type != askonce.EventNotifyFailed || evs[1].ID <= evs[0].ID || string(evs[1].Data) != `{"channel":"slack"}` {
			t.Fatalf("events %+v, %v; want created then notify_failed", evs, err)
		}
		after, err := s.GetJob(t.Context(), j.TenantID, j.ID)
		if err != nil || after.Version != before.Version || !after.UpdatedAt.Equal(before.UpdatedAt) {
			t.Fatalf("the job moved: version %d -> %d, updated %v -> %v (%v)", before.Version, after.Version, before.UpdatedAt, after.UpdatedAt, err)
		}
		err = ea.AppendEvent(t.Context(), askonce.Event{TenantID: NewTenant(), JobID: j.ID, Type: askonce.EventNotified, At: Now()})
		wantCode(t, "another tenant's job", err, askonce.ENOTFOUND)
	}},
	{"RacingPutsAgreeOnOneWinner", func(t *testing.T, s askonce.Store) {
		ms := messageStore(t, s)
		j := NewJob(NewTenant())
		const n = 8
		got := make([]askonce.Message, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				m, err := ms.PutMessage(t.Context(), askonce.Message{TenantID: j.TenantID, JobID: j.ID, Channel: "email", Ref: string(rune('a' + i))})
				if err != nil {
					t.Error(err)
				}
				got[i] = m
			})
		}
		wg.Wait()
		for i := range got {
			if got[i] != got[0] {
				t.Fatalf("put %d got %+v, put 0 got %+v: two winners", i, got[i], got[0])
			}
		}
	}},
}

func messageStore(t *testing.T, s askonce.Store) askonce.MessageStore {
	t.Helper()
	ms, ok := s.(askonce.MessageStore)
	if !ok {
		t.Fatalf("%T keeps no channel messages (askonce.MessageStore)", s)
	}
	return ms
}
