package walmeter

import (
	"bytes"
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"slices"
	"strings"
	"testing"

	msqlite "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// A Row is one row a write transaction inserted or updated, as SQLite's
// preupdate hook saw it: every column's value, in the table's column
// order (a rowid table's INTEGER PRIMARY KEY holds the rowid).
type Row struct {
	Table    string
	Update   bool  // an UPDATE (Old and New); else an INSERT (New)
	Old, New []any // string, int64, float64, []byte or nil
}

// A Capture is what a write path stored: the schema of its database and
// the rows of each write transaction it committed.
type Capture struct {
	Schema []string // CREATE statements: tables, then indexes, then triggers
	Txs    [][]Row
}

// Captured runs fn and returns the rows every transaction that db's one
// connection committed while fn ran wrote, with db's schema. db must be
// a pool of one connection (a store's writer), idle when Captured is
// called; a delete or a rolled-back transaction fails the benchmark.
func Captured(b testing.TB, db *sql.DB, fn func()) *Capture {
	b.Helper()
	ctx := context.Background()
	c := &Capture{}
	for _, kind := range []string{"table", "index", "trigger"} {
		rows, err := db.QueryContext(ctx, `SELECT sql FROM sqlite_schema WHERE type = ? AND sql IS NOT NULL AND name NOT LIKE 'sqlite\_%' ESCAPE '\' ORDER BY rowid`, kind)
		if err != nil {
			b.Fatal(err)
		}
		for rows.Next() {
			var q string
			if err := rows.Scan(&q); err != nil {
				b.Fatal(err)
			}
			c.Schema = append(c.Schema, q)
		}
		if err := rows.Close(); err != nil {
			b.Fatal(err)
		}
	}
	var (
		tx    []Row
		fault error
	)
	hooks := func(on bool) {
		conn, err := db.Conn(ctx)
		if err != nil {
			b.Fatal(err)
		}
		defer conn.Close()
		if err := conn.Raw(func(dc any) error {
			h, ok := dc.(msqlite.HookRegisterer)
			if !ok {
				return fmt.Errorf("driver connection %T has no hooks", dc)
			}
			if !on {
				h.RegisterPreUpdateHook(nil)
				h.RegisterCommitHook(nil)
				h.RegisterRollbackHook(nil)
				return nil
			}
			h.RegisterPreUpdateHook(func(d msqlite.SQLitePreUpdateData) {
				r := Row{Table: d.TableName, Update: d.Op == sqlite3.SQLITE_UPDATE, New: make([]any, d.Count())}
				switch d.Op {
				case sqlite3.SQLITE_INSERT:
				case sqlite3.SQLITE_UPDATE:
					r.Old = make([]any, d.Count())
					if err := d.Old(r.Old...); err != nil {
						fault = err
					}
				default:
					fault = fmt.Errorf("a delete from %s", d.TableName)
					return
				}
				if err := d.New(r.New...); err != nil {
					fault = err
				}
				tx = append(tx, r)
			})
			h.RegisterCommitHook(func() int32 {
				if len(tx) > 0 {
					c.Txs = append(c.Txs, tx)
				}
				tx = nil
				return 0
			})
			h.RegisterRollbackHook(func() { fault = fmt.Errorf("a rollback after %d rows", len(tx)) })
			return nil
		}); err != nil {
			b.Fatal(err)
		}
	}
	hooks(true)
	fn()
	hooks(false)
	if fault != nil {
		b.Fatalf("capture: %v", fault)
	}
	return c
}

// Fresh tells, for a value of a captured row, how to make a new one of
// the same size and order for the i-th replay (i from 0): nil when the
// value stays as captured.
type Fresh func(v any) func(i int64) any

// NewStoredFloor is a floor whose unit stores what c captured once more:
// the same rows, with the same sizes, into the same b-trees of the same
// schema, on a file opened with dsn. Each captured transaction is one
// transaction of prepared statements: the rows a transaction inserts into
// a table are one INSERT, and an update sets the columns whose values it
// changed, found by its primary key. fresh gives the keys, times and
// other values that differ from one round trip to the next new values.
// Tables or indexes named in without are left out: no rows for a table,
// no CREATE for an index. A write path costs at least its unit, whatever
// code runs around its statements.
func NewStoredFloor(b testing.TB, dsn func(path string) string, c *Capture, fresh Fresh, without ...string) *Floor {
	b.Helper()
	return newStoredFloor(b, dsn, c, fresh, false, without)
}

// newStoredFloor is NewStoredFloor, or with driverOnly
// NewStoredDriverFloor.
func newStoredFloor(b testing.TB, dsn func(path string) string, c *Capture, fresh Fresh, driverOnly bool, without []string) *Floor {
	db := openOne(b, dsn, "stored.db")
	dropped := map[string]bool{}
	for _, name := range without {
		dropped[name] = true
	}
	for _, q := range c.Schema {
		if f := strings.Fields(q); len(f) > 3 && (f[1] == "INDEX" && dropped[strings.Trim(f[2], `"`)] ||
			f[2] == "INDEX" && dropped[strings.Trim(f[3], `"`)]) {
			continue
		}
		if _, err := db.Exec(q); err != nil {
			b.Fatalf("%s: %v", q, err)
		}
	}
	if _, err := db.Exec(`PRAGMA wal_autocheckpoint = 0`); err != nil {
		b.Fatal(err)
	}
	var txs [][]*replayStmt
	for _, rows := range c.Txs {
		var tx []*replayStmt
		for _, r := range rows {
			if dropped[r.Table] {
				continue
			}
			cols, pk := columns(b, db, r.Table)
			if !r.Update {
				if i := slices.IndexFunc(tx, func(s *replayStmt) bool { return s.table == r.Table && s.insert }); i >= 0 {
					tx[i].addValues(r.New, fresh)
					continue
				}
				s := &replayStmt{table: r.Table, insert: true, cols: cols}
				s.addValues(r.New, fresh)
				tx = append(tx, s)
				continue
			}
			if len(pk) == 0 {
				b.Fatalf("table %s: an update of a table without a primary key", r.Table)
			}
			s := &replayStmt{table: r.Table}
			var set, where []string
			var vals []any
			for k := range cols {
				if !same(r.Old[k], r.New[k]) {
					set = append(set, cols[k]+" = ?")
					vals = append(vals, r.New[k])
				}
			}
			for _, k := range pk {
				where = append(where, cols[k]+" = ?")
				vals = append(vals, r.Old[k])
			}
			s.query = fmt.Sprintf("UPDATE %s SET %s WHERE %s", r.Table, strings.Join(set, ", "), strings.Join(where, " AND "))
			s.addValues(vals, fresh)
			tx = append(tx, s)
		}
		for _, s := range tx {
			if s.insert {
				row := "(" + strings.TrimSuffix(strings.Repeat("?, ", len(s.cols)), ", ") + ")"
				s.query = fmt.Sprintf("INSERT INTO %s (%s) VALUES %s", s.table, strings.Join(s.cols, ", "),
					strings.TrimSuffix(strings.Repeat(row+", ", len(s.args)/len(s.cols)), ", "))
			}
			var err error
			if s.st, err = db.Prepare(s.query); err != nil {
				b.Fatalf("%s: %v", s.query, err)
			}
			b.Cleanup(func() { s.st.Close() })
		}
		txs = append(txs, tx)
	}
	p := &Floor{db: db, dir: b.TempDir()}
	var n int64
	p.unit = func(ctx context.Context) error {
		for _, stmts := range txs {
			tx, err := db.BeginTx(ctx, nil)
			if err != nil {
				return err
			}
			for _, s := range stmts {
				s.refresh(n)
				if _, err := tx.StmtContext(ctx, s.st).ExecContext(ctx, s.args...); err != nil {
					tx.Rollback()
					return fmt.Errorf("%s: %w", s.query, err)
				}
			}
			if err := tx.Commit(); err != nil {
				return err
			}
			p.commits++
		}
		n++
		return nil
	}
	if driverOnly {
		b.Cleanup(func() { closeDriverStmts(db, txs) })
		p.unit = func(ctx context.Context) error {
			if err := driverUnit(ctx, db, txs, n); err != nil {
				return err
			}
			p.commits += int64(len(txs))
			n++
			return nil
		}
	}
	p.warm(b)
	return p
}

// NewStoredDriverFloor is NewStoredFloor with its statements run on the
// driver's connection itself (database/sql's Conn.Raw), without
// database/sql's transactions and statements: the least the same
// writes cost through this driver. Its statements are prepared on the
// pool's one connection, which a Floor never closes.
func NewStoredDriverFloor(b testing.TB, dsn func(path string) string, c *Capture, fresh Fresh, without ...string) *Floor {
	b.Helper()
	return newStoredFloor(b, dsn, c, fresh, true, without)
}

// closeDriverStmts closes the statements driverUnit prepared.
func closeDriverStmts(db *sql.DB, txs [][]*replayStmt) {
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		return
	}
	defer conn.Close()
	conn.Raw(func(dc any) error {
		for _, stmts := range txs {
			for _, s := range stmts {
				if s.conn == dc {
					s.driverStmt.(driver.Stmt).Close()
				}
			}
		}
		return nil
	})
}

// driverUnit runs the transactions txs on the driver's connection of db,
// with the values of the n-th replay.
func driverUnit(ctx context.Context, db *sql.DB, txs [][]*replayStmt, n int64) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return conn.Raw(func(dc any) error {
		for _, stmts := range txs {
			for _, s := range stmts {
				if s.conn != dc {
					st, err := dc.(driver.ConnPrepareContext).PrepareContext(ctx, s.query)
					if err != nil {
						return err
					}
					s.conn, s.driverStmt = dc, st.(driver.StmtExecContext)
					s.named = make([]driver.NamedValue, len(s.args))
				}
			}
			tx, err := dc.(driver.ConnBeginTx).BeginTx(ctx, driver.TxOptions{})
			if err != nil {
				return err
			}
			for _, s := range stmts {
				s.refresh(n)
				for i, v := range s.args {
					s.named[i] = driver.NamedValue{Ordinal: i + 1, Value: v}
				}
				if _, err := s.driverStmt.ExecContext(ctx, s.named); err != nil {
					tx.Rollback()
					return fmt.Errorf("%s: %w", s.query, err)
				}
			}
			if err := tx.Commit(); err != nil {
				return err
			}
		}
		return nil
	})
}

// A replayStmt is one statement of a stored floor's transaction, with
// its values: those at vary get fresh ones for each replay.
type replayStmt struct {
	table  string
	insert bool
	cols   []string // an insert's columns
	query  string
	st     *sql.Stmt
	args   []any
	vary   []varying

	// NewStoredDriverFloor's: the statement on the driver's connection
	// conn, and its values.
	conn       any
	driverStmt driver.StmtExecContext
	named      []driver.NamedValue
}

// refresh gives s's varying values those of the n-th replay.
func (s *replayStmt) refresh(n int64) {
	for _, v := range s.vary {
		s.args[v.at] = v.fresh(n)
	}
}

type varying struct {
	at    int
	fresh func(i int64) any
}

// addValues appends vals to s's arguments, noting those fresh varies.
func (s *replayStmt) addValues(vals []any, fresh Fresh) {
	for _, v := range vals {
		if f := fresh(v); f != nil {
			s.vary = append(s.vary, varying{len(s.args), f})
		}
		s.args = append(s.args, v)
	}
}

// columns returns table's column names in order, and the positions of
// its primary key's (the rowid's for a rowid table without one).
func columns(b testing.TB, db *sql.DB, table string) (cols []string, pk []int) {
	rows, err := db.Query(`SELECT name, pk FROM pragma_table_info(?) ORDER BY cid`, table)
	if err != nil {
		b.Fatal(err)
	}
	defer rows.Close()
	pos := map[int]int{}
	for rows.Next() {
		var name string
		var k int
		if err := rows.Scan(&name, &k); err != nil {
			b.Fatal(err)
		}
		if k > 0 {
			pos[k] = len(cols)
		}
		cols = append(cols, name)
	}
	for k := 1; k <= len(pos); k++ {
		pk = append(pk, pos[k])
	}
	return cols, pk
}

// same reports whether two captured values are equal.
func same(a, b any) bool {
	if x, ok := a.([]byte); ok {
		y, ok := b.([]byte)
		return ok && bytes.Equal(x, y)
	}
	if _, ok := b.([]byte); ok {
		return false
	}
	return a == b
}

// DB is the floor's database, a pool of one connection.
func (p *Floor) DB() *sql.DB { return p.db }

// Commits returns the transactions a stored floor committed so far.
func (p *Floor) Commits() int64 { return p.commits }

// Unit runs the floor's unit once.
func (p *Floor) Unit(ctx context.Context) error { return p.unit(ctx) }
