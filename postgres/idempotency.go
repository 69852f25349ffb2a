package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/internal/sqlstore"
)

// The HTTP API's Idempotency-Key records live in the same database as the
// jobs (sqlstore.Store), so that a retry finds the claim whichever replica
// it lands on; the clock of the process that reads a lease (Options.Now)
// decides whether it has lapsed.

// takeOver is the takeover of sqlstore.Store.ClaimIdempotencyKey. Of
// retries racing for a dead owner's claim, the row lock lets one through;
// the others then see the winner's live owner. The row is locked first
// and the lease read by a statement of its own: under READ COMMITTED, a
// single UPDATE whose WHERE reads the leases re-checks only the locked row
// after waiting for a racing takeover, not the owner's lease it now names,
// so two retries could both take the claim over.
func takeOver(ctx context.Context, tx sqlstore.Conn, rec *askonce.IdempotencyRecord, now any) sqlstore.Scanner {
	q := tx.(conn).q
	var owner string
	err := q.QueryRow(ctx, `SELECT owner FROM idempotency
		WHERE tenant_id = $1 AND key = $2 AND status = 0 AND fingerprint = $3
		FOR UPDATE`, rec.TenantID, rec.Key, rec.Fingerprint).Scan(&owner)
	if err != nil {
		return sqlstore.ErrRow{Err: err}
	}
	var live bool
	if err := q.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM idempotency_leases
		WHERE owner = $1 AND expires_at > $2)`, owner, now).Scan(&live); err != nil {
		return sqlstore.ErrRow{Err: err}
	}
	if live {
		return sqlstore.ErrRow{Err: pgx.ErrNoRows}
	}
	return q.QueryRow(ctx, `UPDATE idempotency SET owner = $1
		WHERE tenant_id = $2 AND key = $3
		RETURNING job_id, base_version, created_at`, rec.Owner, rec.TenantID, rec.Key)
}

// The store has every optional part of askonce.Store.
var _ askonce.FullStore = (*Store)(nil)
