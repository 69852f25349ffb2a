package sqlite_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/askonce/askonce/internal/walmeter"
	"github.com/askonce/askonce/sqlite"
)

// BenchmarkOneRowCommit is the floor's commit: one transaction inserting
// one row on a file of its own opened with WriterDSN. "tx" is the floor's
// unit itself (walmeter.OneRowCommit: database/sql's Tx, as the store
// commits); "conn" sends BEGIN IMMEDIATE and COMMIT on a Conn around the
// same prepared insert, which spares the goroutine database/sql starts
// for every Tx.
func BenchmarkOneRowCommit(b *testing.B) {
	ctx := context.Background()
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
	const insert = `INSERT INTO floor (v) VALUES (?)`
	b.Run("tx", func(b *testing.B) {
		db := open(b)
		ins, err := db.Prepare(insert)
		if err != nil {
			b.Fatal(err)
		}
		defer ins.Close()
		for b.Loop() {
			if err := walmeter.OneRowCommit(ctx, db, ins); err != nil {
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
		ins, err := c.PrepareContext(ctx, insert)
		if err != nil {
			b.Fatal(err)
		}
		defer ins.Close()
		for b.Loop() {
			if _, err := c.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
				b.Fatal(err)
			}
			if _, err := ins.ExecContext(ctx, "floor"); err != nil {
				b.Fatal(err)
			}
			if _, err := c.ExecContext(ctx, "COMMIT"); err != nil {
				b.Fatal(err)
			}
		}
	})
}
