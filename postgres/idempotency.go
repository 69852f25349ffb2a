package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/askonce/askonce"
	"github.com/jackc/pgx/v5"
)

// The HTTP API's Idempotency-Key records live in the same database as the
// jobs, in the tables idempotency and idempotency_leases, so that a retry
// finds the claim whichever replica it lands on; the clock of the process
// that reads a lease (Options.Now) decides whether it has lapsed.

// ClaimIdempotencyKey implements askonce.IdempotencyStore: the insert, the
// takeover and the read of the record that stays are one transaction. Of
// retries racing for a dead owner's claim, the takeover's row lock lets
// one through; the others then see the winner's live owner.
func (s *Store) ClaimIdempotencyKey(ctx context.Context, rec *askonce.IdempotencyRecord) (*askonce.IdempotencyRecord, bool, error) {
	now := s.now()
	var (
		stored   *askonce.IdempotencyRecord
		tookOver bool
	)
	err := s.write(ctx, func(ctx context.Context, tx pgx.Tx) error {
		stored, tookOver = nil, false
		tag, err := tx.Exec(ctx, shared.ClaimKey, rec.TenantID, rec.Key, rec.Fingerprint, rec.Owner, rec.JobID, rec.BaseVersion, micro(now))
		if err != nil || tag.RowsAffected() == 1 {
			return err
		}
		got := &askonce.IdempotencyRecord{TenantID: rec.TenantID, Key: rec.Key}
		var at time.Time
		// An in-flight claim whose owner holds no live lease is taken over.
		// The row is locked first and the lease read by a statement of its
		// own: under READ COMMITTED, a single UPDATE whose WHERE reads the
		// leases re-checks only the locked row after waiting for a racing
		// takeover, not the owner's lease it now names, so two retries
		// could both take the claim over.
		var owner string
		err = tx.QueryRow(ctx, `SELECT owner FROM idempotency
			WHERE tenant_id = $1 AND key = $2 AND status = 0 AND fingerprint = $3
			FOR UPDATE`, rec.TenantID, rec.Key, rec.Fingerprint).Scan(&owner)
		switch {
		case err == nil:
			var live bool
			if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM idempotency_leases
				WHERE owner = $1 AND expires_at > $2)`, owner, now).Scan(&live); err != nil {
				return err
			}
			if live {
				break
			}
			err = tx.QueryRow(ctx, `UPDATE idempotency SET owner = $1
				WHERE tenant_id = $2 AND key = $3
				RETURNING job_id, base_version, created_at`,
				rec.Owner, rec.TenantID, rec.Key).Scan(&got.JobID, &got.BaseVersion, &at)
			if err != nil {
				return err
			}
			got.Fingerprint, got.Owner, got.CreatedAt = rec.Fingerprint, rec.Owner, at.UTC()
			stored, tookOver = got, true
			return nil
		case !errors.Is(err, pgx.ErrNoRows):
			return err
		}
		err = tx.QueryRow(ctx, shared.ReadKey, rec.TenantID, rec.Key).
			Scan(&got.Fingerprint, &got.Owner, &got.JobID, &got.BaseVersion, &got.Status, &got.Body, &at)
		if err != nil {
			return err
		}
		got.CreatedAt = at.UTC()
		stored = got
		return nil
	})
	if err != nil {
		return nil, false, wrap(err, "claim idempotency key")
	}
	if stored == nil {
		rec.Status, rec.Body, rec.CreatedAt = 0, nil, micro(now)
	}
	return stored, tookOver, nil
}

var _ askonce.IdempotencyStore = (*Store)(nil)
