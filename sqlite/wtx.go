package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"sync"
	"time"

	"github.com/askonce/askonce/internal/sqlstore"
)

// A write transaction runs on the writer's driver connection itself
// (database/sql's Conn.Raw): BEGIN IMMEDIATE, the writer's statements,
// prepared once on that connection, and COMMIT go to modernc.org/sqlite
// directly. database/sql's Tx starts a goroutine for every transaction,
// and for every query inside one, to watch their contexts, and locks,
// converts and checks on each call: about a tenth of a round trip's CPU
// (docs/benchmarks.md, "What bounds the round trip"). The statements,
// the connection and its pragmas are the same, so what is written and
// how durably are too.
//
// A write that calls a hook (Options.OnDispatch, Options.OnNotify) runs
// in a *sql.Tx as before, since River inserts its jobs in one; so does
// every write committed together with it. The write functions see both
// as a wtx.

// wtx runs the statements of a write inside its transaction: the
// writer's driver connection (*rawConn) or database/sql's transaction
// (sqlTx).
type wtx interface {
	// exec runs st and returns how many rows it changed.
	exec(ctx context.Context, st *wstmt, args ...any) (int64, error)
	// queryRow runs st and returns its first row; none is sql.ErrNoRows
	// when scanned.
	queryRow(ctx context.Context, st *wstmt, args ...any) sqlstore.Scanner
}

// A wstmt is a statement of the writer: prepared on database/sql's pool
// for a sqlTx (db; nil runs its text), and on the driver's connection,
// on first use, for a rawConn (where id says).
type wstmt struct {
	query string
	db    *sql.Stmt
	id    int
}

// wstmts numbers the writer's statements (wstmt.id).
type wstmts struct {
	mu sync.Mutex
	n  int
}

// add returns query as a statement of the writer, prepared on db's pool
// when db is not nil.
func (w *wstmts) add(ctx context.Context, db *sql.DB, query string) (*wstmt, error) {
	st := &wstmt{query: query}
	if db != nil {
		var err error
		if st.db, err = db.PrepareContext(ctx, query); err != nil {
			return nil, fmt.Errorf("prepare %q: %w", query, err)
		}
	}
	w.mu.Lock()
	st.id = w.n
	w.n++
	w.mu.Unlock()
	return st, nil
}

// sqlTx is a wtx on database/sql's transaction, for the hooks.
type sqlTx struct{ tx *sql.Tx }

func (t sqlTx) exec(ctx context.Context, st *wstmt, args ...any) (int64, error) {
	var res sql.Result
	var err error
	if st.db != nil {
		res, err = t.tx.StmtContext(ctx, st.db).ExecContext(ctx, args...)
	} else {
		res, err = t.tx.ExecContext(ctx, st.query, args...)
	}
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (t sqlTx) queryRow(ctx context.Context, st *wstmt, args ...any) sqlstore.Scanner {
	if st.db != nil {
		return t.tx.StmtContext(ctx, st.db).QueryRowContext(ctx, args...)
	}
	return t.tx.QueryRowContext(ctx, st.query, args...)
}

// hookTx is the *sql.Tx a hook takes: a write that calls one runs in
// database/sql's transaction (writeReq.hooked).
func hookTx(tx wtx) (*sql.Tx, error) {
	t, ok := tx.(sqlTx)
	if !ok {
		return nil, errors.New("sqlite: a hook called outside a database/sql transaction")
	}
	return t.tx, nil
}

// rawConn is a wtx on the writer's driver connection dc, with the
// writer's statements prepared on it. Whoever holds dc (Conn.Raw) uses
// it, one at a time.
type rawConn struct {
	dc    any
	stmts []driver.Stmt // by wstmt.id
	named []driver.NamedValue
}

// rawFor returns the rawConn of the driver connection dc: the one kept,
// unless the pool replaced its connection (it does after a connection
// broke), whose statements went with it.
func (s *Store) rawFor(dc any) *rawConn {
	if s.raw == nil || s.raw.dc != dc {
		s.raw = &rawConn{dc: dc}
	}
	return s.raw
}

// inTx begins a write transaction on the writer and calls fn with it;
// fn ends it with end. With useSQL the transaction is database/sql's,
// else it runs on the driver's connection. The error is BEGIN's.
func (s *Store) inTx(ctx context.Context, useSQL bool, fn func(tx wtx, end driver.Tx)) error {
	if useSQL {
		tx, err := s.writer.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		fn(sqlTx{tx}, tx)
		return nil
	}
	conn, err := s.writer.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return conn.Raw(func(dc any) error {
		c := s.rawFor(dc)
		if _, err := c.exec(ctx, s.w.begin); err != nil {
			return err
		}
		fn(c, rawTx{c, &s.w})
		return nil
	})
}

// rawTx ends a transaction begun on the writer's driver connection with
// the writer's prepared COMMIT or ROLLBACK. The driver's own transaction
// (BeginTx) runs the same statements, but parses each anew every time
// (sqlite3_exec): about a percent of a round trip's CPU.
type rawTx struct {
	c *rawConn
	w *writeStmts
}

func (t rawTx) Commit() error {
	_, err := t.c.exec(context.Background(), t.w.commit)
	if err != nil {
		// A COMMIT that failed (SQLITE_BUSY, say) can leave the
		// transaction open: it is rolled back, as the driver's
		// transaction does, and the error is COMMIT's.
		t.c.exec(context.Background(), t.w.rollback)
	}
	return err
}

func (t rawTx) Rollback() error {
	_, err := t.c.exec(context.Background(), t.w.rollback)
	return err
}

// readOnWriter runs q, a read of one row, on the writer's driver
// connection, as a statement of its own outside any transaction, if the
// writer is idle: no write running or queued, and its connection not
// lent out (WriteDB). It reports whether it ran q; a busy writer leaves
// the read to the reader pool, so a read never waits for a write.
//
// The writer's page cache holds the pages the last commits wrote, the
// jobs and history a change's next read looks up; a reader connection
// drops its cache whenever another connection committed and reads them
// again from the WAL file (a pread each), which was most of the repeat
// guard's read (docs/benchmarks.md, "What bounds the round trip"). The
// read sees what a reader would: the last commit.
func (s *Store) readOnWriter(ctx context.Context, q *sqlstore.Stmt, args []any) (sqlstore.Scanner, bool) {
	if ctx.Err() != nil || s.queued.Load() != 0 || !s.writing.TryLock() {
		return nil, false
	}
	defer s.writing.Unlock()
	select {
	case <-s.closing:
		return nil, false
	default:
	}
	if s.writer.Stats().InUse != 0 {
		return nil, false
	}
	conn, err := s.writer.Conn(ctx)
	if err != nil {
		return nil, false
	}
	defer conn.Close()
	var row sqlstore.Scanner
	conn.Raw(func(dc any) error {
		// A read of one row is short: it runs to the end, which spares
		// the driver a goroutine to watch ctx.
		row = s.rawFor(dc).queryRow(context.WithoutCancel(ctx), s.writeShared.get(q), args...)
		return nil
	})
	return row, true
}

// closeRaw closes the statements prepared on the writer's driver
// connection.
func (s *Store) closeRaw() error {
	if s.raw == nil {
		return nil
	}
	conn, err := s.writer.Conn(context.Background())
	if err != nil {
		return err
	}
	defer conn.Close()
	return conn.Raw(func(dc any) error {
		var errs []error
		if s.raw.dc == dc {
			for _, st := range s.raw.stmts {
				if st != nil {
					errs = append(errs, st.Close())
				}
			}
		}
		s.raw = nil
		return errors.Join(errs...)
	})
}

// stmt returns st prepared on c's connection.
func (c *rawConn) stmt(ctx context.Context, st *wstmt) (driver.Stmt, error) {
	if st.id < len(c.stmts) && c.stmts[st.id] != nil {
		return c.stmts[st.id], nil
	}
	p, ok := c.dc.(driver.ConnPrepareContext)
	if !ok {
		return nil, fmt.Errorf("sqlite: driver connection %T cannot prepare", c.dc)
	}
	ds, err := p.PrepareContext(ctx, st.query)
	if err != nil {
		return nil, err
	}
	for st.id >= len(c.stmts) {
		c.stmts = append(c.stmts, nil)
	}
	c.stmts[st.id] = ds
	return ds, nil
}

// bind returns args as the driver takes them, as database/sql converts
// them: a driver.Valuer's value, an int as int64, a named type as its
// kind.
func (c *rawConn) bind(args []any) ([]driver.NamedValue, error) {
	named := c.named[:0]
	for i, a := range args {
		var v driver.Value
		switch a := a.(type) {
		case nil, int64, float64, bool, string, []byte, time.Time:
			v = a
		case int:
			v = int64(a)
		default:
			var err error
			if v, err = driver.DefaultParameterConverter.ConvertValue(a); err != nil {
				return nil, fmt.Errorf("sql: converting argument $%d type: %w", i+1, err)
			}
		}
		named = append(named, driver.NamedValue{Ordinal: i + 1, Value: v})
	}
	c.named = named
	return named, nil
}

// unbind lets go of the last statement's arguments.
func (c *rawConn) unbind() { clear(c.named) }

func (c *rawConn) exec(ctx context.Context, st *wstmt, args ...any) (int64, error) {
	ds, err := c.stmt(ctx, st)
	if err != nil {
		return 0, err
	}
	named, err := c.bind(args)
	if err != nil {
		return 0, err
	}
	defer c.unbind()
	res, err := ds.(driver.StmtExecContext).ExecContext(ctx, named)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (c *rawConn) queryRow(ctx context.Context, st *wstmt, args ...any) sqlstore.Scanner {
	ds, err := c.stmt(ctx, st)
	if err != nil {
		return sqlstore.ErrRow{Err: err}
	}
	named, err := c.bind(args)
	if err != nil {
		return sqlstore.ErrRow{Err: err}
	}
	defer c.unbind()
	rows, err := ds.(driver.StmtQueryContext).QueryContext(ctx, named)
	if err != nil {
		return sqlstore.ErrRow{Err: err}
	}
	row := make(rawRow, len(rows.Columns()))
	err = rows.Next(row)
	if cerr := rows.Close(); err == nil {
		err = cerr
	}
	if err == io.EOF {
		err = sql.ErrNoRows
	}
	if err != nil {
		return sqlstore.ErrRow{Err: err}
	}
	return row
}

// rawRow is a row the driver returned, scanned as database/sql scans
// (convert).
type rawRow []driver.Value

func (r rawRow) Scan(dest ...any) error {
	if len(dest) != len(r) {
		return fmt.Errorf("sql: expected %d destination arguments in Scan, not %d", len(r), len(dest))
	}
	for i, d := range dest {
		if err := convert(d, r[i]); err != nil {
			return fmt.Errorf("sql: Scan error on column index %d: %w", i, err)
		}
	}
	return nil
}

// convert stores the driver's value src (int64, float64, bool, []byte,
// string, time.Time or nil) in dest as database/sql's Scan does: into a
// sql.Scanner, an any, or a pointer to a string, []byte, bool, integer
// or float (a number as text, text as a number). The store's scans take
// the first cases.
func convert(dest, src any) error {
	switch d := dest.(type) {
	case *sql.NullInt64:
		// Its Scan, without the conversions an integer needs none of.
		switch v := src.(type) {
		case nil:
			*d = sql.NullInt64{}
			return nil
		case int64:
			*d = sql.NullInt64{Int64: v, Valid: true}
			return nil
		}
		return d.Scan(src)
	case sql.Scanner:
		return d.Scan(src)
	case *int64:
		if v, ok := src.(int64); ok {
			*d = v
			return nil
		}
	case *int:
		// database/sql formats the integer and parses it back: the
		// same value.
		if v, ok := src.(int64); ok && int64(int(v)) == v {
			*d = int(v)
			return nil
		}
	case *float64:
		// Formatted as the shortest text that parses back to it, then
		// parsed: the same value.
		if v, ok := src.(float64); ok {
			*d = v
			return nil
		}
	case *string:
		switch v := src.(type) {
		case string:
			*d = v
			return nil
		case []byte:
			*d = string(v)
			return nil
		case int64, float64, bool:
			*d = asString(v)
			return nil
		}
	case *[]byte:
		switch v := src.(type) {
		case nil:
			*d = nil
			return nil
		case []byte:
			// The driver copied it out of SQLite: the row's own.
			*d = v
			return nil
		case string:
			*d = []byte(v)
			return nil
		case int64, float64, bool:
			*d = []byte(asString(v))
			return nil
		}
	case *any:
		if v, ok := src.([]byte); ok {
			src = bytes.Clone(v)
		}
		*d = src
		return nil
	case *bool:
		if v, ok := src.(int64); ok && (v == 0 || v == 1) {
			*d = v == 1
			return nil
		}
		if src != nil {
			v, err := driver.Bool.ConvertValue(src)
			if err != nil {
				return fmt.Errorf("converting driver.Value type %T (%q) to a bool: %w", src, asString(src), err)
			}
			*d = v.(bool)
			return nil
		}
	}
	dv := reflect.ValueOf(dest)
	if dv.Kind() != reflect.Pointer || dv.IsNil() {
		return errors.New("destination not a pointer")
	}
	e := dv.Elem()
	if src == nil {
		return fmt.Errorf("converting NULL to %s is unsupported", e.Kind())
	}
	switch e.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		i, err := strconv.ParseInt(asString(src), 10, e.Type().Bits())
		if err != nil {
			return fmt.Errorf("converting driver.Value type %T (%q) to a %s: %w", src, asString(src), e.Kind(), err)
		}
		e.SetInt(i)
		return nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		u, err := strconv.ParseUint(asString(src), 10, e.Type().Bits())
		if err != nil {
			return fmt.Errorf("converting driver.Value type %T (%q) to a %s: %w", src, asString(src), e.Kind(), err)
		}
		e.SetUint(u)
		return nil
	case reflect.Float32, reflect.Float64:
		f, err := strconv.ParseFloat(asString(src), e.Type().Bits())
		if err != nil {
			return fmt.Errorf("converting driver.Value type %T (%q) to a %s: %w", src, asString(src), e.Kind(), err)
		}
		e.SetFloat(f)
		return nil
	case reflect.String:
		switch v := src.(type) {
		case string:
			e.SetString(v)
			return nil
		case []byte:
			e.SetString(string(v))
			return nil
		}
	}
	return fmt.Errorf("unsupported Scan, storing driver.Value type %T into type %T", src, dest)
}

// asString is src as text, as database/sql writes a number into a
// string.
func asString(src any) string {
	switch v := src.(type) {
	case string:
		return v
	case []byte:
		return string(v)
	case int64:
		return strconv.FormatInt(v, 10)
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64)
	case bool:
		return strconv.FormatBool(v)
	}
	return fmt.Sprintf("%v", src)
}
