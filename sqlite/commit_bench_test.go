package sqlite_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/askonce/askonce/sqlite"
)

// BenchmarkOneRowCommit is the floor's commit (internal/walmeter): one
// transaction inserting one row on a file of its own opened with
// WriterDSN. "tx" commits through database/sql's Tx, as the floor and the
// store do; "conn" sends BEGIN IMMEDIATE and COMMIT on a Conn, which
// spares the goroutine database/sql starts for every Tx.
func BenchmarkOneRowCommit(b *testing.B) {
	open := func(b *testing.B) *sql.DB {
		db, err := sql.Open("sqlite", sqlite.WriterDSN(filepath.Join(b.TempDir(), "floor.db")))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { db.Close() })
		db.SetMaxOpenConns(1)
		if _, err := db.Exec(`CREATE TABLE floor (id INTEGER PRIMARY KEY, v TEXT NOT NULL) STRICT`); err != nil {
			b.Fatal(err)
		}
		return db
	}
	const insert = `INSERT INTO floor (v) VALUES ('floor')`
	ctx := context.Background()
	b.Run("tx", func(b *testing.B) {
		db := open(b)
		for b.Loop() {
			tx, err := db.BeginTx(ctx, nil)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := tx.ExecContext(ctx, insert); err != nil {
				b.Fatal(err)
			}
			if err := tx.Commit(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("conn", func(b *testing.B) {
		c, err := open(b).Conn(ctx)
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		for b.Loop() {
			for _, q := range []string{"BEGIN IMMEDIATE", insert, "COMMIT"} {
				if _, err := c.ExecContext(ctx, q); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
