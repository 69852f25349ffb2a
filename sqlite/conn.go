package sqlite

import (
	"context"
	"database/sql"
	"errors"

	"github.com/askonce/askonce/internal/sqlstore"
)

// base is what the store runs as PostgreSQL's does (sqlstore.Store),
// through readConn and txConn.
type base = sqlstore.Store

// newBase is s's sqlstore.Store.
func newBase(s *Store) base {
	return sqlstore.New(sqlstore.Config{
		Read: readConn{s},
		Write: func(ctx context.Context, fn func(ctx context.Context, tx sqlstore.Conn) error) error {
			return s.write(ctx, func(ctx context.Context, tx *sql.Tx) error { return fn(ctx, txConn{s, tx}) })
		},
		Table:       jobTable,
		Encoding:    encoding{},
		NoLimit:     -1,
		Now:         s.now,
		Wrap:        wrap,
		ScanAttempt: scanAttempt,
		// The ids job_log can hold (logID).
		EventsAfter: func(after int64) int64 { return min(max(after, 0), logMaxN) },
		Round:       toNanos,
		TakeOver:    takeOver,
	})
}

// queries are the prepared statements of sqlstore's queries: those of the
// reader pool, and those of the writer its transactions use.
type queries struct {
	read, write [sqlstore.List]*sql.Stmt
}

func (s *Store) queries() queries {
	return queries{
		read: [sqlstore.List]*sql.Stmt{
			sqlstore.GetJob:        s.r.getJob,
			sqlstore.JobByLink:     s.r.jobByLink,
			sqlstore.JobExists:     s.r.jobExists,
			sqlstore.Attempts:      s.r.attempts,
			sqlstore.Events:        s.r.events,
			sqlstore.LookupHistory: s.r.lookupHistory,
			sqlstore.LookupMemory:  s.r.lookupMemory,
			sqlstore.History:       s.r.history,
			sqlstore.Memory:        s.r.memory,
			sqlstore.DueQuestions:  s.r.dueQuestions,
			sqlstore.LapsedLeases:  s.r.lapsedLeases,
			sqlstore.Message:       s.r.message,
		},
		write: [sqlstore.List]*sql.Stmt{
			sqlstore.Lead:          s.w.lead,
			sqlstore.RenewKeyLease: s.w.renewLease,
			sqlstore.DropKeyLeases: s.w.dropLeases,
			sqlstore.EndKeyLease:   s.w.endLease,
			sqlstore.CompleteKey:   s.w.completeKey,
			sqlstore.AbandonKey:    s.w.abandonKey,
			sqlstore.ClaimKey:      s.w.claimKey,
			sqlstore.ReadKey:       s.w.readKey,
		},
	}
}

// readConn runs sqlstore's reads on the reader pool.
type readConn struct{ s *Store }

func (c readConn) QueryRow(ctx context.Context, q sqlstore.Query, args ...any) sqlstore.Scanner {
	if st := c.s.q.read[q]; st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return c.s.reader.QueryRowContext(ctx, shared.Text(q), args...)
}

func (c readConn) Query(ctx context.Context, q sqlstore.Query, each func(sqlstore.Scanner) error, args ...any) error {
	st := c.s.q.read[min(q, sqlstore.List-1)]
	if q >= sqlstore.List {
		var err error
		if st, err = c.s.listStmt(ctx, int(q-sqlstore.List)); err != nil {
			return err
		}
	}
	if st == nil {
		// A rare read, not prepared: its text on the reader pool.
		rows, err := c.s.reader.QueryContext(ctx, shared.Text(q), args...)
		if err != nil {
			return err
		}
		return eachRow(rows, each)
	}
	rows, err := st.QueryContext(ctx, args...)
	if err != nil {
		return err
	}
	return eachRow(rows, each)
}

func (readConn) Exec(context.Context, sqlstore.Query, ...any) (int64, error) {
	return 0, errors.New("a write on the read-only connections")
}

// eachRow calls each for every row of rows and closes them.
func eachRow(rows *sql.Rows, each func(sqlstore.Scanner) error) error {
	defer rows.Close()
	for rows.Next() {
		if err := each(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// txConn runs sqlstore's statements in a write transaction: the writer's
// prepared statement, or the statement's text when it has none.
type txConn struct {
	s  *Store
	tx *sql.Tx
}

func (c txConn) QueryRow(ctx context.Context, q sqlstore.Query, args ...any) sqlstore.Scanner {
	if st := c.s.q.write[q]; st != nil {
		return c.tx.StmtContext(ctx, st).QueryRowContext(ctx, args...)
	}
	return c.tx.QueryRowContext(ctx, shared.Text(q), args...)
}

func (c txConn) Query(ctx context.Context, q sqlstore.Query, each func(sqlstore.Scanner) error, args ...any) error {
	rows, err := c.tx.QueryContext(ctx, shared.Text(q), args...)
	if err != nil {
		return err
	}
	return eachRow(rows, each)
}

func (c txConn) Exec(ctx context.Context, q sqlstore.Query, args ...any) (int64, error) {
	var res sql.Result
	var err error
	if st := c.s.q.write[q]; st != nil {
		res, err = c.tx.StmtContext(ctx, st).ExecContext(ctx, args...)
	} else {
		res, err = c.tx.ExecContext(ctx, shared.Text(q), args...)
	}
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}
