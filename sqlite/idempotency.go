package sqlite

import (
	"context"
	"database/sql"
	"errors"

	"github.com/askonce/askonce"
)

// The HTTP API's Idempotency-Key records live in the same file as the
// jobs, in the tables idempotency and idempotency_leases; the store's
// clock (Options.Now) decides whether a lease has lapsed.

// ClaimIdempotencyKey implements askonce.IdempotencyStore: the insert, the
// takeover and the read of the record that stays are one transaction.
func (s *Store) ClaimIdempotencyKey(ctx context.Context, rec *askonce.IdempotencyRecord) (*askonce.IdempotencyRecord, bool, error) {
	now := s.now()
	var (
		stored   *askonce.IdempotencyRecord
		tookOver bool
	)
	err := s.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		stored, tookOver = nil, false
		res, err := tx.StmtContext(ctx, s.w.claimKey).ExecContext(ctx,
			rec.TenantID, rec.Key, rec.Fingerprint, rec.Owner, rec.JobID, rec.BaseVersion, now.UnixNano())
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 1 {
			return err
		}
		got := &askonce.IdempotencyRecord{TenantID: rec.TenantID, Key: rec.Key}
		var at int64
		err = tx.StmtContext(ctx, s.w.takeOverKey).QueryRowContext(ctx,
			rec.Owner, rec.TenantID, rec.Key, rec.Fingerprint, now.UnixNano()).Scan(&got.JobID, &got.BaseVersion, &at)
		switch {
		case err == nil:
			got.Fingerprint, got.Owner, got.CreatedAt = rec.Fingerprint, rec.Owner, fromNanos(at)
			stored, tookOver = got, true
			return nil
		case !errors.Is(err, sql.ErrNoRows):
			return err
		}
		err = tx.StmtContext(ctx, s.w.readKey).QueryRowContext(ctx, rec.TenantID, rec.Key).
			Scan(&got.Fingerprint, &got.Owner, &got.JobID, &got.BaseVersion, &got.Status, &got.Body, &at)
		if err != nil {
			return err
		}
		got.CreatedAt = fromNanos(at)
		stored = got
		return nil
	})
	if err != nil {
		return nil, false, wrap(err, "claim idempotency key")
	}
	if stored == nil {
		rec.Status, rec.Body, rec.CreatedAt = 0, nil, fromNanos(now.UnixNano())
	}
	return stored, tookOver, nil
}

var _ askonce.IdempotencyStore = (*Store)(nil)
