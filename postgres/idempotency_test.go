package postgres

import (
	"context"
	"testing"
	"time"

	"github.com/askonce/askonce"
)

// Of two retries taking over a dead owner's Idempotency-Key claim, one
// wins even when both reach the record at the same moment: the retries
// are held at the record by a row lock from another transaction until
// both wait there, then let go together. The takeover locks the row
// before it reads the owner (FOR UPDATE), so the second retry reads the
// winner as the owner; a takeover that read the owner without the lock
// would let both through, on every run.
func TestRacingTakeoversOfAnIdempotencyKeyHeldAtTheRowHaveOneWinner(t *testing.T) {
	t.Parallel()
	s := openTest(t, Options{})
	ctx := t.Context()
	rec := &askonce.IdempotencyRecord{TenantID: "t", Key: "k", Fingerprint: "POST /jobs abc", Owner: "dead", JobID: "job-1"}
	if _, _, err := s.ClaimIdempotencyKey(ctx, rec); err != nil {
		t.Fatal(err)
	}
	for _, owner := range []string{"b", "c"} {
		if err := s.RenewIdempotencyLease(ctx, owner, time.Hour); err != nil {
			t.Fatal(err)
		}
	}

	holder, err := s.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Rollback(context.Background())
	var holderPID int
	if err := holder.QueryRow(ctx, `SELECT pg_backend_pid()`).Scan(&holderPID); err != nil {
		t.Fatal(err)
	}
	if _, err := holder.Exec(ctx, `SELECT 1 FROM idempotency WHERE tenant_id = 't' AND key = 'k' FOR UPDATE`); err != nil {
		t.Fatal(err)
	}

	type result struct {
		owner    string
		tookOver bool
		err      error
	}
	results := make(chan result, 2)
	for _, owner := range []string{"b", "c"} {
		go func() {
			r := &askonce.IdempotencyRecord{TenantID: "t", Key: "k", Fingerprint: rec.Fingerprint, Owner: owner, JobID: "job-" + owner}
			_, tookOver, err := s.ClaimIdempotencyKey(ctx, r)
			results <- result{owner, tookOver, err}
		}()
	}
	// Both retries wait behind the holder's lock, directly or behind each
	// other, before it lets go.
	deadline := time.Now().Add(20 * time.Second)
	for waiting := 0; waiting < 2; {
		if time.Now().After(deadline) {
			t.Fatalf("%d retries wait at the locked record after 20 s, want 2", waiting)
		}
		if err := s.pool.QueryRow(ctx, `WITH RECURSIVE w (pid) AS (
				SELECT pid FROM pg_stat_activity WHERE $1::int = ANY (pg_blocking_pids(pid))
				UNION SELECT a.pid FROM pg_stat_activity a JOIN w ON w.pid = ANY (pg_blocking_pids(a.pid)))
			SELECT count(*) FROM w`, holderPID).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := holder.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	var winners []string
	for range 2 {
		r := <-results
		if r.err != nil {
			t.Fatalf("retry of %s: %v", r.owner, r.err)
		}
		if r.tookOver {
			winners = append(winners, r.owner)
		}
	}
	if len(winners) != 1 {
		t.Fatalf("retries that took the dead owner's claim over: %v, want exactly one", winners)
	}
	var owner string
	if err := s.pool.QueryRow(ctx, `SELECT owner FROM idempotency WHERE tenant_id = 't' AND key = 'k'`).Scan(&owner); err != nil {
		t.Fatal(err)
	}
	if owner != winners[0] {
		t.Errorf("stored owner %q, want the winner %q", owner, winners[0])
	}
}
