package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"sync"

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
		Own:         own,
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

// own are sqlstore's statements in SQLite's dialect.
var own = func() sqlstore.Own {
	o := sqlstore.Own{
		GetJob: sqlstore.NewStmt(selectJobSQL),
		// One lookup by the primary key of answer_links, then of jobs.
		JobByLink: sqlstore.NewStmt("SELECT " + jobColumns + ` FROM answer_links l
			JOIN jobs j ON j.id = l.job_id AND j.tenant_id = l.tenant_id` + jobJoins + `
			WHERE l.token_hash = ?`),
		JobExists:    sqlstore.NewStmt(`SELECT 1 FROM jobs WHERE tenant_id = ? AND id = ?`),
		Attempts:     sqlstore.NewStmt(attemptsSQL),
		Events:       sqlstore.NewStmt(eventsSQL),
		LapsedLeases: sqlstore.NewStmt(lapsedLeasesSQL),
	}
	for bits := range o.List {
		o.List[bits] = sqlstore.NewStmt(listQuery(bits))
	}
	return o
}()

// prepared are the statements of sqlstore's queries prepared on one
// pool, each on its first use (or all at once: prepareAll).
type prepared struct {
	db *sql.DB
	mu sync.Mutex // held while preparing
	m  sync.Map   // *sqlstore.Stmt to *sql.Stmt
}

// stmt returns q prepared on p's pool.
func (p *prepared) stmt(ctx context.Context, q *sqlstore.Stmt) (*sql.Stmt, error) {
	if st, ok := p.m.Load(q); ok {
		return st.(*sql.Stmt), nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if st, ok := p.m.Load(q); ok {
		return st.(*sql.Stmt), nil
	}
	st, err := p.db.PrepareContext(ctx, q.In(sqlstore.Question))
	if err != nil {
		return nil, err
	}
	p.m.Store(q, st)
	return st, nil
}

// prepareAll prepares qs now.
func (p *prepared) prepareAll(ctx context.Context, qs []*sqlstore.Stmt) error {
	for _, q := range qs {
		if _, err := p.stmt(ctx, q); err != nil {
			return err
		}
	}
	return nil
}

// ready returns q if it is prepared already.
func (p *prepared) ready(q *sqlstore.Stmt) *sql.Stmt {
	if st, ok := p.m.Load(q); ok {
		return st.(*sql.Stmt)
	}
	return nil
}

// all returns every statement prepared so far, for Close.
func (p *prepared) all() []*sql.Stmt {
	var out []*sql.Stmt
	p.m.Range(func(_, st any) bool {
		out = append(out, st.(*sql.Stmt))
		return true
	})
	return out
}

// readConn runs sqlstore's reads on the reader pool.
type readConn struct{ s *Store }

func (c readConn) QueryRow(ctx context.Context, q *sqlstore.Stmt, args ...any) sqlstore.Scanner {
	st, err := c.s.readStmts.stmt(ctx, q)
	if err != nil {
		return sqlstore.ErrRow{Err: err}
	}
	return st.QueryRowContext(ctx, args...)
}

func (c readConn) Query(ctx context.Context, q *sqlstore.Stmt, each func(sqlstore.Scanner) error, args ...any) error {
	st, err := c.s.readStmts.stmt(ctx, q)
	if err != nil {
		return err
	}
	rows, err := st.QueryContext(ctx, args...)
	if err != nil {
		return err
	}
	return eachRow(rows, each)
}

func (readConn) Exec(context.Context, *sqlstore.Stmt, ...any) (int64, error) {
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
// prepared statement (every shared one is, from the start), or the
// statement's text when it has none.
type txConn struct {
	s  *Store
	tx *sql.Tx
}

func (c txConn) QueryRow(ctx context.Context, q *sqlstore.Stmt, args ...any) sqlstore.Scanner {
	if st := c.s.writeShared.ready(q); st != nil {
		return c.tx.StmtContext(ctx, st).QueryRowContext(ctx, args...)
	}
	return c.tx.QueryRowContext(ctx, q.In(sqlstore.Question), args...)
}

func (c txConn) Query(ctx context.Context, q *sqlstore.Stmt, each func(sqlstore.Scanner) error, args ...any) error {
	var rows *sql.Rows
	var err error
	if st := c.s.writeShared.ready(q); st != nil {
		rows, err = c.tx.StmtContext(ctx, st).QueryContext(ctx, args...)
	} else {
		rows, err = c.tx.QueryContext(ctx, q.In(sqlstore.Question), args...)
	}
	if err != nil {
		return err
	}
	return eachRow(rows, each)
}

func (c txConn) Exec(ctx context.Context, q *sqlstore.Stmt, args ...any) (int64, error) {
	var res sql.Result
	var err error
	if st := c.s.writeShared.ready(q); st != nil {
		res, err = c.tx.StmtContext(ctx, st).ExecContext(ctx, args...)
	} else {
		res, err = c.tx.ExecContext(ctx, q.In(sqlstore.Question), args...)
	}
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}
