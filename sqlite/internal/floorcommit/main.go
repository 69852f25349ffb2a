// Command floorcommit measures the floor outside the system under test:
// in a fresh SQLite file, opened with the connection string of the
// store's writer (sqlite.WriterDSN: the same driver and pragmas), it runs
// a plain loop of one-row commits and prints how long the timed ones
// took:
//
//	128 commits in 3012345 ns (23534 ns/commit)
//
// walmeter's floor runs it between its own samples when
// ASKONCE_FLOOR_PROGRAM names it, so that the two are measured in the
// same seconds (see walmeter.Floor).
package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/askonce/askonce/internal/walmeter"
	"github.com/askonce/askonce/sqlite"
)

func main() {
	n := flag.Int("n", 1000, "timed one-row commits")
	warmup := flag.Int("warmup", 100, "one-row commits before the timed ones")
	dir := flag.String("dir", "", "directory of the temporary database file (default: the system's)")
	flag.Parse()
	if err := run(*dir, *n, *warmup); err != nil {
		fmt.Fprintln(os.Stderr, "floorcommit:", err)
		os.Exit(1)
	}
}

func run(parent string, n, warmup int) error {
	if n < 1 || warmup < 0 {
		return fmt.Errorf("-n %d -warmup %d: want at least one timed commit", n, warmup)
	}
	dir, err := os.MkdirTemp(parent, "floorcommit")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	db, err := sql.Open("sqlite", sqlite.WriterDSN(filepath.Join(dir, "floor.db")))
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	ctx := context.Background()
	if _, err := db.ExecContext(ctx, `CREATE TABLE floor (id INTEGER PRIMARY KEY, v TEXT NOT NULL) STRICT`); err != nil {
		return err
	}
	ins, err := db.PrepareContext(ctx, `INSERT INTO floor (v) VALUES (?)`)
	if err != nil {
		return err
	}
	defer ins.Close()
	commit := func() error { return walmeter.OneRowCommit(ctx, db, ins) }
	for range warmup {
		if err := commit(); err != nil {
			return err
		}
	}
	start := time.Now()
	for range n {
		if err := commit(); err != nil {
			return err
		}
	}
	d := time.Since(start)
	fmt.Printf("%d commits in %d ns (%d ns/commit)\n", n, d.Nanoseconds(), d.Nanoseconds()/int64(n))
	return nil
}
