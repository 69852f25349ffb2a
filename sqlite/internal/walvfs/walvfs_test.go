package walvfs

import (
	"context"
	"database/sql"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "modernc.org/sqlite"
)

// open opens path in WAL mode through vfsName ("" for SQLite's default),
// with checkpoints left to the test.
func open(t *testing.T, path, vfsName string, pragmas ...string) *sql.DB {
	t.Helper()
	if err := Register(); err != nil {
		t.Fatal(err)
	}
	q := "?_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=wal_autocheckpoint(0)&_pragma=busy_timeout(5000)"
	for _, p := range pragmas {
		q += "&_pragma=" + p
	}
	if vfsName != "" {
		q += "&vfs=" + vfsName
	}
	db, err := sql.Open("sqlite", "file:"+path+q)
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	return db
}

func exec(t *testing.T, db *sql.DB, query string, args ...any) {
	t.Helper()
	if _, err := db.Exec(query, args...); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}

func count(t *testing.T, db *sql.DB) int {
	t.Helper()
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM t`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// events records, until the test ends, the writes this package makes
// to WAL files ("write") and the releases of the WAL write lock
// ("release"), in order.
func events(t *testing.T) *[]string {
	var seen []string
	written = func(int32, int64) { seen = append(seen, "write") }
	released = func() { seen = append(seen, "release") }
	t.Cleanup(func() { written, released = nil, nil })
	return &seen
}

func walSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path + "-wal")
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// insert commits rows rows of 1,000 bytes each in one transaction.
func insert(t *testing.T, db *sql.DB, rows int) {
	t.Helper()
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	for range rows {
		if _, err := tx.Exec(`INSERT INTO t (body) VALUES (?)`, strings.Repeat("x", 1000)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

func TestACommitsFramesReachTheWALInOneWrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.db")
	db := open(t, path, Name)
	exec(t, db, `CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT NOT NULL)`)
	exec(t, db, `CREATE INDEX t_body ON t (body, id)`)
	insert(t, db, 1) // the WAL's header is written and synced apart
	seen := events(t)
	before := walSize(t, path)
	insert(t, db, 12)
	frames := (walSize(t, path) - before) / (4096 + frameHeader)
	if frames < 4 {
		t.Fatalf("the transaction wrote %d frames; the test needs several", frames)
	}
	// The commit writes its frames itself, before it ends: before SQLite
	// publishes it to readers, which is before the write lock goes.
	if got := strings.Join(*seen, " "); got != "write release" {
		t.Fatalf("%d frames took %q, want one write before the release", frames, got)
	}
}

// copyFiles copies the database and its WAL as a crash would leave them:
// whatever was not written to the files is lost.
func copyFiles(t *testing.T, path string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "copy.db")
	for _, suffix := range []string{"", "-wal"} {
		in, err := os.Open(path + suffix)
		if err != nil {
			t.Fatal(err)
		}
		out, err := os.Create(dst + suffix)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(out, in); err != nil {
			t.Fatal(err)
		}
		in.Close()
		if err := out.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// afterCrash opens the files as a crash would leave them (copyFiles)
// with SQLite's default VFS, which replays the WAL, checks the
// database's integrity and returns it.
func afterCrash(t *testing.T, path string) *sql.DB {
	t.Helper()
	db := open(t, copyFiles(t, path), "")
	integrity(t, db)
	return db
}

func integrity(t *testing.T, db *sql.DB) {
	t.Helper()
	var ok string
	if err := db.QueryRow(`PRAGMA integrity_check`).Scan(&ok); err != nil || ok != "ok" {
		t.Fatalf("integrity_check: %q, %v", ok, err)
	}
}

// Rule 13, no acknowledged change lost: each commit is in the files when
// Commit returns, for SQLite's default VFS to read, in another
// connection and after a crash: small ones, and one larger than this
// package gathers at most.
func TestRule13_EveryCommitIsInTheFilesWhenItReturns(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.db")
	db := open(t, path, Name)
	exec(t, db, `CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT NOT NULL)`)
	reader := open(t, path, "")
	want := 0
	for _, rows := range []int{1, 3, 40, 1, 1500, 2} {
		insert(t, db, rows)
		want += rows
		if got := count(t, reader); got != want {
			t.Fatalf("another connection reads %d rows after the commit, want %d", got, want)
		}
		if got := count(t, afterCrash(t, path)); got != want {
			t.Fatalf("the files hold %d rows after the commit, want %d", got, want)
		}
	}
}

// A transaction that spilled frames to the WAL and rolled back leaves
// nothing gathered behind the write lock: another connection's commit at
// the same place in the WAL survives this connection's next reads and
// writes.
func TestRule13_RolledBackSpillNeverOverwritesALaterCommit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.db")
	db := open(t, path, Name, "cache_size(10)")
	exec(t, db, `CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT NOT NULL)`)
	insert(t, db, 1)
	other := open(t, path, "")
	// An empty WAL: the rollback reads what it undoes from the database
	// file, so nothing else writes the spilled frames before the lock goes.
	exec(t, db, `PRAGMA wal_checkpoint(TRUNCATE)`)

	before := walSize(t, path)
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(context.Background(), `BEGIN IMMEDIATE`); err != nil {
		t.Fatal(err)
	}
	for range 30 {
		if _, err := conn.ExecContext(context.Background(), `INSERT INTO t (body) VALUES (?)`, strings.Repeat("s", 3000)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := conn.ExecContext(context.Background(), `ROLLBACK`); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	if walSize(t, path) == before {
		t.Fatal("the transaction spilled nothing to the WAL; the test needs a spill")
	}

	// Over the frames the rolled-back transaction spilled.
	insert(t, other, 100)
	if got := count(t, db); got != 101 {
		t.Fatalf("this connection reads %d rows, want 101", got)
	}
	insert(t, db, 1)
	if got := count(t, other); got != 102 {
		t.Fatalf("the other connection reads %d rows, want 102", got)
	}
	if got := count(t, afterCrash(t, path)); got != 102 {
		t.Fatalf("the files hold %d rows, want 102", got)
	}
}

// A transaction that spills frames to the WAL, changes spilled pages
// again (SQLite overwrites their frames and rewrites the checksums after
// them) and commits is whole in the files, for recovery to replay.
func TestRule13_ASpilledTransactionThatRewritesFramesCommitsWhole(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.db")
	db := open(t, path, Name, "cache_size(10)")
	exec(t, db, `CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT NOT NULL)`)
	insert(t, db, 1)
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx := context.Background()
	before := walSize(t, path)
	if _, err := conn.ExecContext(ctx, `BEGIN IMMEDIATE`); err != nil {
		t.Fatal(err)
	}
	for range 40 {
		if _, err := conn.ExecContext(ctx, `INSERT INTO t (body) VALUES (?)`, strings.Repeat("s", 3000)); err != nil {
			t.Fatal(err)
		}
	}
	spilled := walSize(t, path)
	if _, err := conn.ExecContext(ctx, `UPDATE t SET body = 'changed' WHERE id BETWEEN 2 AND 6`); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, `COMMIT`); err != nil {
		t.Fatal(err)
	}
	if spilled == before {
		t.Fatal("the transaction spilled nothing to the WAL; the test needs a spill")
	}
	var rows, changed int
	if err := afterCrash(t, path).QueryRow(`SELECT count(*), count(*) FILTER (WHERE body = 'changed') FROM t`).Scan(&rows, &changed); err != nil {
		t.Fatal(err)
	}
	if rows != 41 || changed != 5 {
		t.Fatalf("the files hold %d rows, %d of them changed; want 41 and 5", rows, changed)
	}
}

// A connection that leaves WAL mode and comes back opens its WAL again,
// and a commit still reaches it in one write, before the lock goes.
func TestAWALOpenedAgainIsWrittenInOneCallAgain(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.db")
	db := open(t, path, Name)
	exec(t, db, `CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT NOT NULL)`)
	insert(t, db, 3)
	var mode string
	for _, want := range []string{"delete", "wal"} {
		if err := db.QueryRow(`PRAGMA journal_mode = ` + want).Scan(&mode); err != nil || mode != want {
			t.Fatalf("journal_mode = %s: %q, %v", want, mode, err)
		}
	}
	insert(t, db, 1) // the WAL's header is written and synced apart
	seen := events(t)
	insert(t, db, 12)
	if got := strings.Join(*seen, " "); got != "write release" {
		t.Fatalf("the commit took %q, want one write before the release", got)
	}
	if got := count(t, afterCrash(t, path)); got != 16 {
		t.Fatalf("the files hold %d rows, want 16", got)
	}
}
