package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/askonce/askonce/internal/sqlstore"
)

// base is what the store runs as SQLite's does (sqlstore.Store), through
// conn.
type base = sqlstore.Store

// newBase is s's sqlstore.Store.
func newBase(s *Store) base {
	return sqlstore.New(sqlstore.Config{
		Read: conn{s.pool},
		Write: func(ctx context.Context, fn func(ctx context.Context, tx sqlstore.Conn) error) error {
			return s.write(ctx, func(ctx context.Context, tx pgx.Tx) error { return fn(ctx, conn{tx}) })
		},
		Own:         own,
		Table:       jobTable,
		Encoding:    encoding{},
		Now:         s.now,
		Wrap:        wrap,
		ScanAttempt: scanAttempt,
		Round:       micro,
		TakeOver:    takeOver,
	})
}

// own are sqlstore's statements in PostgreSQL's dialect.
var own = func() sqlstore.Own {
	o := sqlstore.Own{
		GetJob: sqlstore.NewStmt(selectJobSQL),
		JobByLink: sqlstore.NewStmt("SELECT " + jobColumns + ` FROM answer_links l
		JOIN jobs j ON j.id = l.job_id AND ` + ofTenant("j.tenant_id", "l.tenant_id") + `
		JOIN jobs_static s ON s.id = j.id
		WHERE l.token_hash = $1`),
		JobExists: sqlstore.NewStmt(jobExistsSQL),
		Attempts: sqlstore.NewStmt(`SELECT n, reason, started_at, duration_ns, outcome, raw, error,
		prompt_tokens, completion_tokens, cost_usd
		FROM attempts WHERE job_id = $1 AND tenant_id = $2 ORDER BY n`),
		Events: sqlstore.NewStmt(`SELECT id, tenant_id, job_id, type, at, data
		FROM events WHERE job_id = $1 AND tenant_id = $2 AND id > $3 ORDER BY id LIMIT $4`),
		LapsedLeases: sqlstore.NewStmt(`SELECT tenant_id, id FROM jobs
		WHERE status = 'planning' AND mode = 'managed'
		AND (lease_until <= $1 OR ($2 <> '' AND lease_owner = $2))
		ORDER BY lease_until, id LIMIT $3`),
	}
	for bits := range o.List {
		o.List[bits] = sqlstore.NewStmt(sqlstore.ListQuery(sqlstore.Dollar, "SELECT "+jobColumns+jobFrom, bits))
	}
	return o
}()

// conn runs sqlstore's statements on the pool, or in a transaction; pgx
// prepares each on its first use on a connection (its statement cache).
type conn struct {
	q interface {
		QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
		Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
		Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	}
}

func (c conn) QueryRow(ctx context.Context, q *sqlstore.Stmt, args ...any) sqlstore.Scanner {
	return c.q.QueryRow(ctx, q.String(), args...)
}

func (c conn) Query(ctx context.Context, q *sqlstore.Stmt, each func(sqlstore.Scanner) error, args ...any) error {
	rows, err := c.q.Query(ctx, q.String(), args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := each(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

func (c conn) Exec(ctx context.Context, q *sqlstore.Stmt, args ...any) (int64, error) {
	tag, err := c.q.Exec(ctx, q.String(), args...)
	return tag.RowsAffected(), err
}
