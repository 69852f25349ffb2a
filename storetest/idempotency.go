package storetest

import (
	"sync"
	"testing"
	"time"

	"github.com/askonce/askonce"
)

// idempotencyTest is one behaviour of a askonce.IdempotencyStore.
type idempotencyTest struct {
	name string
	run  func(t *testing.T, s askonce.IdempotencyStore)
}

// RunIdempotency runs the conformance suite of askonce.IdempotencyStore
// (the HTTP API's Idempotency-Key records) against the stores open
// returns. open is called once per behaviour and must return a new,
// empty store that no other subtest uses; it closes the store itself
// (with t.Cleanup). The subtests run in parallel.
func RunIdempotency(t *testing.T, open func(t *testing.T) askonce.IdempotencyStore) {
	for _, tc := range idempotencyTests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.run(t, open(t))
		})
	}
}

// key is a fresh in-flight record of owner, for a new tenant.
func key(owner string) *askonce.IdempotencyRecord {
	return &askonce.IdempotencyRecord{TenantID: NewTenant(), Key: "k", Fingerprint: "POST /jobs abc", Owner: owner, JobID: "job-1", BaseVersion: 3}
}

// claim claims rec, failing the test on error.
func claim(t *testing.T, s askonce.IdempotencyStore, rec *askonce.IdempotencyRecord) (*askonce.IdempotencyRecord, bool) {
	t.Helper()
	got, tookOver, err := s.ClaimIdempotencyKey(t.Context(), rec)
	if err != nil {
		t.Fatalf("claim %s for %s: %v", rec.Key, rec.Owner, err)
	}
	return got, tookOver
}

// live gives owner a lease that outlasts the test.
func live(t *testing.T, s askonce.IdempotencyStore, owner string) {
	t.Helper()
	if err := s.RenewIdempotencyLease(t.Context(), owner, time.Hour); err != nil {
		t.Fatalf("renew lease of %s: %v", owner, err)
	}
}

// retry is rec as another process's retry sends it: the same key and
// fingerprint, its own owner and a job id of its own.
func retry(rec *askonce.IdempotencyRecord, owner string) *askonce.IdempotencyRecord {
	return &askonce.IdempotencyRecord{TenantID: rec.TenantID, Key: rec.Key, Fingerprint: rec.Fingerprint, Owner: owner, JobID: "job-2"}
}

var idempotencyTests = []idempotencyTest{
	{"FirstClaimStoresTheKeyInFlight", func(t *testing.T, s askonce.IdempotencyStore) {
		live(t, s, "a")
		rec := key("a")
		if got, tookOver := claim(t, s, rec); got != nil || tookOver {
			t.Fatalf("first claim = %+v, %v; want nil, false", got, tookOver)
		}
		live(t, s, "b")
		got, tookOver := claim(t, s, &askonce.IdempotencyRecord{TenantID: rec.TenantID, Key: "k", Fingerprint: "other", Owner: "b"})
		if tookOver || got == nil || got.Status != 0 || got.Fingerprint != rec.Fingerprint || got.Owner != "a" || got.JobID != "job-1" || got.BaseVersion != 3 {
			t.Fatalf("second claim = %+v, %v; want a's in-flight record", got, tookOver)
		}
	}},
	{"TheSameKeyInAnotherTenantIsAKeyOfItsOwn", func(t *testing.T, s askonce.IdempotencyStore) {
		live(t, s, "a")
		rec := key("a")
		claim(t, s, rec)
		rec.Status, rec.Body = 201, []byte(`{"jobId":"a"}`)
		if err := s.CompleteIdempotencyKey(t.Context(), rec); err != nil {
			t.Fatal(err)
		}
		other := key("a") // the same key "k", of a new tenant
		if got, tookOver := claim(t, s, other); got != nil || tookOver {
			t.Fatalf("the other tenant's first claim of the key = %+v, %v; want nil, false (a key of its own)", got, tookOver)
		}
		other.Status, other.Body = 201, []byte(`{"jobId":"b"}`)
		if err := s.CompleteIdempotencyKey(t.Context(), other); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			rec  *askonce.IdempotencyRecord
			want string
		}{{rec, `{"jobId":"a"}`}, {other, `{"jobId":"b"}`}} {
			if got, _ := claim(t, s, retry(c.rec, "b")); got == nil || string(got.Body) != c.want {
				t.Errorf("a retry in tenant %s = %+v; want its own response %s", c.rec.TenantID, got, c.want)
			}
		}
	}},
	{"LiveOwnersClaimIsNotTakenOver", func(t *testing.T, s askonce.IdempotencyStore) {
		live(t, s, "a")
		rec := key("a")
		claim(t, s, rec)
		live(t, s, "b")
		got, tookOver := claim(t, s, retry(rec, "b"))
		if tookOver || got == nil || got.Owner != "a" || got.Status != 0 {
			t.Fatalf("retry while a lives = %+v, %v; want a's claim, not taken over", got, tookOver)
		}
	}},
	{"CompletedKeyReturnsTheFirstResponse", func(t *testing.T, s askonce.IdempotencyStore) {
		live(t, s, "a")
		rec := key("a")
		claim(t, s, rec)
		rec.Status, rec.Body = 201, []byte(`{"jobId":"x"}`)
		if err := s.CompleteIdempotencyKey(t.Context(), rec); err != nil {
			t.Fatal(err)
		}
		got, tookOver := claim(t, s, retry(rec, "b"))
		if tookOver || got == nil || got.Status != 201 || string(got.Body) != `{"jobId":"x"}` {
			t.Fatalf("claim after completion = %+v, %v", got, tookOver)
		}
	}},
	{"DeadOwnersClaimIsTakenOverKeepingItsJob", func(t *testing.T, s askonce.IdempotencyStore) {
		live(t, s, "a")
		rec := key("a")
		claim(t, s, rec)
		if err := s.EndIdempotencyLease(t.Context(), "a"); err != nil {
			t.Fatal(err)
		}
		live(t, s, "b")
		got, tookOver := claim(t, s, retry(rec, "b"))
		if !tookOver || got == nil || got.Owner != "b" || got.JobID != "job-1" || got.BaseVersion != 3 || got.Status != 0 {
			t.Fatalf("retry after a died = %+v, %v; want b's claim of a's job-1 at version 3", got, tookOver)
		}
		// It is b's now: b completes it, a can no longer.
		rec.Status, rec.Body = 200, []byte("{}")
		if err := s.CompleteIdempotencyKey(t.Context(), rec); askonce.ErrorCode(err) != askonce.ECONFLICT {
			t.Fatalf("the dead owner completed a key taken over: %v", err)
		}
		got.Status, got.Body = 201, []byte(`{"by":"b"}`)
		if err := s.CompleteIdempotencyKey(t.Context(), got); err != nil {
			t.Fatal(err)
		}
		if got, _ := claim(t, s, retry(rec, "c")); got == nil || string(got.Body) != `{"by":"b"}` {
			t.Fatalf("after b completed: %+v", got)
		}
	}},
	{"LapsedLeaseIsDead", func(t *testing.T, s askonce.IdempotencyStore) {
		if err := s.RenewIdempotencyLease(t.Context(), "a", time.Millisecond); err != nil {
			t.Fatal(err)
		}
		rec := key("a")
		claim(t, s, rec)
		time.Sleep(5 * time.Millisecond)
		live(t, s, "b")
		if _, tookOver := claim(t, s, retry(rec, "b")); !tookOver {
			t.Fatal("the claim of an owner whose lease lapsed was not taken over")
		}
	}},
	{"OwnerWithoutALeaseIsDead", func(t *testing.T, s askonce.IdempotencyStore) {
		rec := key("never-renewed")
		claim(t, s, rec)
		if _, tookOver := claim(t, s, retry(rec, "b")); !tookOver {
			t.Fatal("the claim of an owner that never held a lease was not taken over")
		}
	}},
	{"RenewedLeaseKeepsTheClaim", func(t *testing.T, s askonce.IdempotencyStore) {
		if err := s.RenewIdempotencyLease(t.Context(), "a", time.Millisecond); err != nil {
			t.Fatal(err)
		}
		rec := key("a")
		claim(t, s, rec)
		live(t, s, "a")
		time.Sleep(5 * time.Millisecond)
		if got, tookOver := claim(t, s, retry(rec, "b")); tookOver || got.Owner != "a" {
			t.Fatalf("a renewed its lease, yet its claim was taken: %+v", got)
		}
	}},
	{"OnlyOneOfRacingRetriesTakesOver", func(t *testing.T, s askonce.IdempotencyStore) {
		racingRetriesHaveOneTaker(t, s)
	}},
	{"TakeOverNeedsTheSameFingerprint", func(t *testing.T, s askonce.IdempotencyStore) {
		rec := key("dead")
		claim(t, s, rec)
		other := retry(rec, "b")
		other.Fingerprint = "POST /jobs other"
		live(t, s, "b")
		got, tookOver := claim(t, s, other)
		if tookOver || got == nil || got.Owner != "dead" || got.Fingerprint != rec.Fingerprint {
			t.Fatalf("another request's claim = %+v, %v; want the record unchanged", got, tookOver)
		}
	}},
	{"CompletedKeyIsNeverTakenOver", func(t *testing.T, s askonce.IdempotencyStore) {
		rec := key("a")
		claim(t, s, rec)
		rec.Status, rec.Body = 422, []byte(`{"code":"invalid"}`)
		if err := s.CompleteIdempotencyKey(t.Context(), rec); err != nil {
			t.Fatal(err)
		}
		live(t, s, "b")
		if got, tookOver := claim(t, s, retry(rec, "b")); tookOver || got.Status != 422 {
			t.Fatalf("a completed key of a dead owner = %+v, %v; want its response", got, tookOver)
		}
	}},
	{"AbandonedKeyIsTakenOverAtOnce", func(t *testing.T, s askonce.IdempotencyStore) {
		live(t, s, "a")
		rec := key("a")
		claim(t, s, rec)
		if err := s.AbandonIdempotencyKey(t.Context(), rec); err != nil {
			t.Fatal(err)
		}
		live(t, s, "b")
		got, tookOver := claim(t, s, retry(rec, "b"))
		if !tookOver || got.JobID != "job-1" || got.BaseVersion != 3 || got.Owner != "b" {
			t.Fatalf("retry after a abandoned = %+v, %v; want b's claim of job-1", got, tookOver)
		}
	}},
	{"AbandonLeavesACompletedOrOthersKey", func(t *testing.T, s askonce.IdempotencyStore) {
		live(t, s, "a")
		rec := key("a")
		claim(t, s, rec)
		if err := s.AbandonIdempotencyKey(t.Context(), retry(rec, "b")); err != nil {
			t.Fatal(err)
		}
		live(t, s, "c")
		if got, tookOver := claim(t, s, retry(rec, "c")); tookOver || got.Owner != "a" {
			t.Fatalf("b abandoned a's claim: %+v", got)
		}
		rec.Status, rec.Body = 200, []byte("{}")
		if err := s.CompleteIdempotencyKey(t.Context(), rec); err != nil {
			t.Fatal(err)
		}
		if err := s.AbandonIdempotencyKey(t.Context(), rec); err != nil {
			t.Fatal(err)
		}
		if got, _ := claim(t, s, retry(rec, "c")); got == nil || got.Status != 200 {
			t.Fatalf("a completed response was abandoned: %+v", got)
		}
	}},
	{"KeysAreScopedByTenant", func(t *testing.T, s askonce.IdempotencyStore) {
		live(t, s, "a")
		rec := key("a")
		claim(t, s, rec)
		other := retry(rec, "a")
		other.TenantID = NewTenant()
		if got, tookOver := claim(t, s, other); got != nil || tookOver {
			t.Fatalf("another tenant saw the key: %+v, %v", got, tookOver)
		}
	}},
}

// racingRetriesHaveOneTaker races eight retries, each of a live owner of
// its own and made through the stores in turn, to take over a claim
// whose owner died: exactly one may take it over.
func racingRetriesHaveOneTaker(t *testing.T, stores ...askonce.IdempotencyStore) {
	rec := key("dead")
	claim(t, stores[0], rec)
	const n = 8
	var wg sync.WaitGroup
	won := make([]bool, n)
	for i := range n {
		s := stores[i%len(stores)]
		owner := string(rune('a' + i))
		live(t, s, owner)
		wg.Go(func() {
			_, tookOver, err := s.ClaimIdempotencyKey(t.Context(), retry(rec, owner))
			if err != nil {
				t.Error(err)
			}
			won[i] = tookOver
		})
	}
	wg.Wait()
	winners := 0
	for _, w := range won {
		if w {
			winners++
		}
	}
	if winners != 1 {
		t.Fatalf("%d retries took the dead claim over, want exactly 1", winners)
	}
}
