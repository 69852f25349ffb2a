package sqlite

import (
	"context"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/internal/sqlstore"
)

// The HTTP API's Idempotency-Key records live in the same file as the
// jobs (sqlstore.Store); the store's clock (Options.Now) decides whether a
// lease has lapsed.

// takeOver is the takeover of sqlstore.Store.ClaimIdempotencyKey: one
// UPDATE, which the writer runs alone.
func takeOver(ctx context.Context, tx sqlstore.Conn, rec *askonce.IdempotencyRecord, now any) sqlstore.Scanner {
	t := tx.(txConn)
	return t.tx.queryRow(ctx, t.s.w.takeOverKey, rec.Owner, rec.TenantID, rec.Key, rec.Fingerprint, now)
}

// The store has every optional part of askonce.Store.
var _ askonce.FullStore = (*Store)(nil)
