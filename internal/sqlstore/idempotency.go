package sqlstore

import (
	"context"
	"time"

	"github.com/askonce/askonce"
)

// The HTTP API's Idempotency-Key records live in the same database as the
// jobs, in the tables idempotency and idempotency_leases; the store's
// clock (Config.Now) decides whether a lease has lapsed. The claim is each
// store's own: see their ClaimIdempotencyKey.

// RenewIdempotencyLease implements askonce.IdempotencyStore. It also
// drops the leases that have lapsed: no lease and a lapsed one mean the
// same.
func (s *Store) RenewIdempotencyLease(ctx context.Context, owner string, ttl time.Duration) error {
	if owner == "" {
		return askonce.Errorf(askonce.EINVALID, "renew idempotency lease: no owner")
	}
	now := s.c.Now()
	return s.c.Wrap(s.c.Write(ctx, func(ctx context.Context, tx Conn) error {
		if _, err := tx.Exec(ctx, DropKeyLeases, s.c.Encoding.Time(now)); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, RenewKeyLease, owner, s.c.Encoding.Time(now.Add(ttl)))
		return err
	}), "renew idempotency lease")
}

// EndIdempotencyLease implements askonce.IdempotencyStore.
func (s *Store) EndIdempotencyLease(ctx context.Context, owner string) error {
	return s.c.Wrap(s.c.Write(ctx, func(ctx context.Context, tx Conn) error {
		_, err := tx.Exec(ctx, EndKeyLease, owner)
		return err
	}), "end idempotency lease")
}

// CompleteIdempotencyKey implements askonce.IdempotencyStore.
func (s *Store) CompleteIdempotencyKey(ctx context.Context, rec *askonce.IdempotencyRecord) error {
	return s.c.Wrap(s.c.Write(ctx, func(ctx context.Context, tx Conn) error {
		n, err := tx.Exec(ctx, CompleteKey, rec.Status, rec.Body, rec.TenantID, rec.Key, rec.Owner)
		if err != nil || n == 1 {
			return err
		}
		return askonce.Errorf(askonce.ECONFLICT, "idempotency key %q is not held by %s", rec.Key, rec.Owner)
	}), "complete idempotency key")
}

// AbandonIdempotencyKey implements askonce.IdempotencyStore.
func (s *Store) AbandonIdempotencyKey(ctx context.Context, rec *askonce.IdempotencyRecord) error {
	return s.c.Wrap(s.c.Write(ctx, func(ctx context.Context, tx Conn) error {
		_, err := tx.Exec(ctx, AbandonKey, rec.TenantID, rec.Key, rec.Owner)
		return err
	}), "abandon idempotency key")
}
