package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/askonce/askonce"
)

// The HTTP API's Idempotency-Key records live in the same database as the
// jobs, in the tables idempotency and idempotency_leases; the store's
// clock (Config.Now) decides whether a lease has lapsed.

// RenewIdempotencyLease implements askonce.IdempotencyStore. It also
// drops the leases that have lapsed: no lease and a lapsed one mean the
// same.
func (s *Store) RenewIdempotencyLease(ctx context.Context, owner string, ttl time.Duration) error {
	if owner == "" {
		return askonce.Errorf(askonce.EINVALID, "renew idempotency lease: no owner")
	}
	now := s.c.Now()
	return s.c.Wrap(s.c.Write(ctx, func(ctx context.Context, tx Conn) error {
		if _, err := tx.Exec(ctx, dropKeyLeases, s.c.Encoding.Time(now)); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, renewKeyLease, owner, s.c.Encoding.Time(now.Add(ttl)))
		return err
	}), "renew idempotency lease")
}

// EndIdempotencyLease implements askonce.IdempotencyStore.
func (s *Store) EndIdempotencyLease(ctx context.Context, owner string) error {
	return s.c.Wrap(s.c.Write(ctx, func(ctx context.Context, tx Conn) error {
		_, err := tx.Exec(ctx, endKeyLease, owner)
		return err
	}), "end idempotency lease")
}

// CompleteIdempotencyKey implements askonce.IdempotencyStore.
func (s *Store) CompleteIdempotencyKey(ctx context.Context, rec *askonce.IdempotencyRecord) error {
	return s.c.Wrap(s.c.Write(ctx, func(ctx context.Context, tx Conn) error {
		n, err := tx.Exec(ctx, completeKey, rec.Status, rec.Body, rec.TenantID, rec.Key, rec.Owner)
		if err != nil || n == 1 {
			return err
		}
		return askonce.Errorf(askonce.ECONFLICT, "idempotency key %q is not held by %s", rec.Key, rec.Owner)
	}), "complete idempotency key")
}

// AbandonIdempotencyKey implements askonce.IdempotencyStore.
func (s *Store) AbandonIdempotencyKey(ctx context.Context, rec *askonce.IdempotencyRecord) error {
	return s.c.Wrap(s.c.Write(ctx, func(ctx context.Context, tx Conn) error {
		_, err := tx.Exec(ctx, abandonKey, rec.TenantID, rec.Key, rec.Owner)
		return err
	}), "abandon idempotency key")
}

// ClaimIdempotencyKey implements askonce.IdempotencyStore: the insert, the
// takeover (Config.TakeOver) and the read of the record that stays are
// one transaction.
func (s *Store) ClaimIdempotencyKey(ctx context.Context, rec *askonce.IdempotencyRecord) (*askonce.IdempotencyRecord, bool, error) {
	now := s.c.Now()
	var (
		stored   *askonce.IdempotencyRecord
		tookOver bool
	)
	err := s.c.Write(ctx, func(ctx context.Context, tx Conn) error {
		stored, tookOver = nil, false
		n, err := tx.Exec(ctx, claimKey, rec.TenantID, rec.Key, rec.Fingerprint, rec.Owner, rec.JobID, rec.BaseVersion, s.c.Encoding.Time(s.c.Round(now)))
		if err != nil || n == 1 {
			return err
		}
		got := &askonce.IdempotencyRecord{TenantID: rec.TenantID, Key: rec.Key}
		var at Time
		err = s.c.TakeOver(ctx, tx, rec, s.c.Encoding.Time(now)).Scan(&got.JobID, &got.BaseVersion, &at)
		switch {
		case err == nil:
			got.Fingerprint, got.Owner, got.CreatedAt = rec.Fingerprint, rec.Owner, time.Time(at)
			stored, tookOver = got, true
			return nil
		case !errors.Is(err, sql.ErrNoRows):
			return err
		}
		err = tx.QueryRow(ctx, readKey, rec.TenantID, rec.Key).
			Scan(&got.Fingerprint, &got.Owner, &got.JobID, &got.BaseVersion, &got.Status, &got.Body, &at)
		if err != nil {
			return err
		}
		got.CreatedAt = time.Time(at)
		stored = got
		return nil
	})
	if err != nil {
		return nil, false, s.c.Wrap(err, "claim idempotency key")
	}
	if stored == nil {
		rec.Status, rec.Body, rec.CreatedAt = 0, nil, s.c.Round(now)
	}
	return stored, tookOver, nil
}
