package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/askonce/askonce/internal/sqlstore"
	msqlite "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// A write on the driver's connection scans what database/sql's Scan
// would: every value SQLite returns (integer, real, text, blob, NULL)
// into every kind of destination the store reads into, with the same
// value or, where database/sql refuses, an error too.
func TestRawRowScansAsDatabaseSQLDoes(t *testing.T) {
	s := openTest(t, Options{})
	type named string
	columns := []string{"42", "-7", "1.5", "'text'", "'1'", "x'0102'", "x''", "NULL", "0", "1", "2",
		"9223372036854775807", "-9223372036854775808", "0.1", "-0.0", "1e300", "5e-324", "1e999"}
	dests := []func() any{
		func() any { return new(int64) },
		func() any { return new(int) },
		func() any { return new(float64) },
		func() any { return new(bool) },
		func() any { return new(string) },
		func() any { return new(named) },
		func() any { return new([]byte) },
		func() any { return new(any) },
		func() any { return new(sql.NullString) },
		func() any { return new(sql.NullInt64) },
		func() any { return new(sqlstore.Time) },
	}
	for _, col := range columns {
		st, err := s.wstmts.add(t.Context(), nil, "SELECT "+col)
		if err != nil {
			t.Fatal(err)
		}
		for _, dest := range dests {
			want, got := dest(), dest()
			werr := s.writer.QueryRowContext(t.Context(), st.query).Scan(want)
			var gerr error
			if err := s.write(t.Context(), func(ctx context.Context, tx wtx) error {
				if _, ok := tx.(*rawConn); !ok {
					return fmt.Errorf("the write ran in %T", tx)
				}
				gerr = tx.queryRow(ctx, st, nil...).Scan(got)
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			switch {
			case (werr == nil) != (gerr == nil):
				t.Errorf("SELECT %s into %T: error %v, database/sql's %v", col, got, gerr, werr)
			case werr == nil && !reflect.DeepEqual(got, want):
				t.Errorf("SELECT %s into %T: %#v, database/sql's %#v", col, got, reflect.ValueOf(got).Elem(), reflect.ValueOf(want).Elem())
			}
		}
	}
}

// A statement that returns no row scans as sql.ErrNoRows, and one that
// fails (a constraint) as its error, on the driver's connection as in
// database/sql's transaction.
func TestRawQueryRowErrors(t *testing.T) {
	s := openTest(t, Options{})
	none, err := s.wstmts.add(t.Context(), nil, "SELECT 1 WHERE 0")
	if err != nil {
		t.Fatal(err)
	}
	dup, err := s.wstmts.add(t.Context(), nil, "INSERT INTO leaders (name, owner, until) VALUES ('x', 'a', 1), ('x', 'b', 1) RETURNING owner")
	if err != nil {
		t.Fatal(err)
	}
	var v int64
	if err := s.write(t.Context(), func(ctx context.Context, tx wtx) error {
		if err := tx.queryRow(ctx, none).Scan(&v); err != sql.ErrNoRows {
			t.Errorf("no row: %v, want sql.ErrNoRows", err)
		}
		var owner string
		if err := tx.queryRow(ctx, dup).Scan(&owner); err == nil || !isConstraint(err, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY, sqlite3.SQLITE_CONSTRAINT_UNIQUE) {
			t.Errorf("a second row of one key: %v, want a constraint error", err)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// A write transaction on the driver's connection takes the write lock at
// BEGIN, before its first statement (BEGIN IMMEDIATE, as the driver's
// transaction with the writer's _txlock did); a write that fails is
// rolled back, and the next write begins and commits.
func TestRawWriteTakesTheWriteLockAtBeginAndRollsBack(t *testing.T) {
	path := filepath.Join(t.TempDir(), "askonce.db")
	s, err := Options{}.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	other, err := sql.Open("sqlite", dsn(path, 0, false, defaultCheckpointSize))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	insert := func(name string) *wstmt {
		st, err := s.wstmts.add(t.Context(), nil, "INSERT INTO leaders (name, owner, until) VALUES ('"+name+"', 'o', 1)")
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	failed, kept := insert("failed"), insert("kept")
	boom := errors.New("boom")
	err = s.write(t.Context(), func(ctx context.Context, tx wtx) error {
		if _, ok := tx.(*rawConn); !ok {
			return fmt.Errorf("the write ran in %T", tx)
		}
		_, err := other.ExecContext(ctx, `INSERT INTO leaders (name, owner, until) VALUES ('other', 'o', 1)`)
		var e *msqlite.Error
		if !errors.As(err, &e) || e.Code()&0xff != sqlite3.SQLITE_BUSY {
			t.Errorf("another connection's write inside a transaction before its first statement: %v, want SQLITE_BUSY", err)
		}
		if _, err := tx.exec(ctx, failed); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("the failing write: %v, want its error", err)
	}
	if err := s.write(t.Context(), func(ctx context.Context, tx wtx) error {
		_, err := tx.exec(ctx, kept)
		return err
	}); err != nil {
		t.Fatalf("the write after a rollback: %v", err)
	}
	var names []string
	rows, err := s.reader.QueryContext(t.Context(), `SELECT name FROM leaders ORDER BY name`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var n string
		rows.Scan(&n)
		names = append(names, n)
	}
	rows.Close()
	if !slices.Equal(names, []string{"kept"}) {
		t.Errorf("leaders %q, want only the write that committed: [kept]", names)
	}
}
