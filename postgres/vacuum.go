package postgres

import (
	"context"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"
)

// churned are the tables whose rows askonce updates or deletes as jobs
// move on, leaving dead rows behind for VACUUM: without it they bloat,
// and every round trip slows down with them.
var churned = []string{"jobs", "jobs_static", "answer_links", "history", "memory",
	"dispatches", "notify_messages", "push_configs", "idempotency", "idempotency_leases", "leaders"}

// Unvacuumed returns the store's tables that PostgreSQL's autovacuum
// leaves alone: every one of them when the server's autovacuum (or
// track_counts, which it needs) is off, else those whose storage
// parameter autovacuum_enabled is off. Empty is as it should be.
//
// Measured on one database with autovacuum off (docs/benchmarks.md):
// 16 clients over HTTP went from 969 to 490 round trips/s in four
// minutes, as the jobs table filled with dead rows.
func (s *Store) Unvacuumed(ctx context.Context) ([]string, error) {
	var on bool
	if err := s.pool.QueryRow(ctx, `SELECT current_setting('autovacuum')::bool AND current_setting('track_counts')::bool`).Scan(&on); err != nil {
		return nil, fmt.Errorf("read autovacuum settings: %w", err)
	}
	if !on {
		return slices.Sorted(slices.Values(churned)), nil
	}
	return s.tablesWithAutovacuumOff(ctx)
}

// tablesWithAutovacuumOff are the churned tables whose storage parameter
// autovacuum_enabled is off, whatever the server's setting.
func (s *Store) tablesWithAutovacuumOff(ctx context.Context) ([]string, error) {
	rows, err := s.pool.Query(ctx, `SELECT c.relname FROM pg_class c
		WHERE c.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema()) AND c.relkind = 'r' AND c.relname = ANY($1)
		AND NOT coalesce((SELECT split_part(o, '=', 2)::bool FROM unnest(c.reloptions) AS o
			WHERE o LIKE 'autovacuum\_enabled=%'), true)
		ORDER BY c.relname`, churned)
	if err != nil {
		return nil, fmt.Errorf("read autovacuum settings: %w", err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("read autovacuum settings: %w", err)
	}
	return names, nil
}
