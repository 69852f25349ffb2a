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
			return s.write(ctx, func(ctx context.Context, tx wtx) error { return fn(ctx, txConn{s, tx}) })
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

// all returns every statement prepared so far, for Close.
func (p *prepared) all() []*sql.Stmt {
	var out []*sql.Stmt
	p.m.Range(func(_, st any) bool {
		out = append(out, st.(*sql.Stmt))
		return true
	})
	return out
}

// readConn runs sqlstore's reads: a row by its key on the writer's
// connection when the writer is idle (readOnWriter), else, and every
// query of many rows, on the reader pool.
type readConn struct{ s *Store }

func (c readConn) QueryRow(ctx context.Context, q *sqlstore.Stmt, args ...any) sqlstore.Scanner {
	if row, ok := c.s.readOnWriter(ctx, q, args); ok {
		return row
	}
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

// sharedWrites are sqlstore's statements on the writer: those of
// sqlstore.Shared prepared on its pool at open (for the writes with
// hooks), any other as its text.
type sharedWrites struct {
	s *Store
	m sync.Map // *sqlstore.Stmt to *wstmt
}

// prepareAll prepares qs now.
func (p *sharedWrites) prepareAll(ctx context.Context, qs []*sqlstore.Stmt) error {
	for _, q := range qs {
		st, err := p.s.wstmts.add(ctx, p.s.writer, q.In(sqlstore.Question))
		if err != nil {
			return err
		}
		p.m.Store(q, st)
	}
	return nil
}

// get returns q as a statement of the writer. One not prepared at open
// is not prepared on the pool now, inside a transaction that holds its
// one connection: a sqlTx runs its text.
func (p *sharedWrites) get(q *sqlstore.Stmt) *wstmt {
	if st, ok := p.m.Load(q); ok {
		return st.(*wstmt)
	}
	st, _ := p.s.wstmts.add(context.Background(), nil, q.In(sqlstore.Question))
	actual, _ := p.m.LoadOrStore(q, st)
	return actual.(*wstmt)
}

// all returns every statement of the writer's pool, for Close.
func (p *sharedWrites) all() []*wstmt {
	var out []*wstmt
	p.m.Range(func(_, st any) bool {
		out = append(out, st.(*wstmt))
		return true
	})
	return out
}

// txConn runs sqlstore's statements in a write transaction.
type txConn struct {
	s  *Store
	tx wtx
}

func (c txConn) QueryRow(ctx context.Context, q *sqlstore.Stmt, args ...any) sqlstore.Scanner {
	return c.tx.queryRow(ctx, c.s.writeShared.get(q), args...)
}

// Query is no write's: a write reads a row at a time (QueryRow).
func (txConn) Query(context.Context, *sqlstore.Stmt, func(sqlstore.Scanner) error, ...any) error {
	return errors.New("a query of many rows in a write transaction")
}

func (c txConn) Exec(ctx context.Context, q *sqlstore.Stmt, args ...any) (int64, error) {
	return c.tx.exec(ctx, c.s.writeShared.get(q), args...)
}
