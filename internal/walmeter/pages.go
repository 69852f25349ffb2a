package walmeter

import (
	"database/sql"
	"encoding/binary"
	"os"
	"testing"
)

// FramesByBtree reads the WAL of db (checkpoints off, so that it holds
// every frame written since the last Checkpoint) and returns how many
// frames each b-tree (table or index, as dbstat names it) has in it;
// pages that are in no b-tree count as "free".
func FramesByBtree(b testing.TB, db *sql.DB) map[string]int {
	b.Helper()
	names := map[uint32]string{}
	rows, err := db.Query(`SELECT name, pageno FROM dbstat`)
	if err != nil {
		b.Fatal(err)
	}
	for rows.Next() {
		var name string
		var page uint32
		if err := rows.Scan(&name, &page); err != nil {
			b.Fatal(err)
		}
		names[page] = name
	}
	rows.Close()
	var path string
	if err := db.QueryRow(`SELECT file FROM pragma_database_list WHERE name = 'main'`).Scan(&path); err != nil {
		b.Fatal(err)
	}
	wal, err := os.ReadFile(path + "-wal")
	if err != nil {
		b.Fatal(err)
	}
	if len(wal) < 32 {
		b.Fatalf("WAL of %d bytes", len(wal))
	}
	// https://www.sqlite.org/fileformat.html#the_write_ahead_log: a
	// 32-byte header, then frames of a 24-byte header (page number
	// first) and a page.
	pageSize := int(binary.BigEndian.Uint32(wal[8:12]))
	frames := map[string]int{}
	for off := 32; off+24+pageSize <= len(wal); off += 24 + pageSize {
		name := names[binary.BigEndian.Uint32(wal[off:])]
		if name == "" {
			name = "free"
		}
		frames[name]++
	}
	return frames
}

// ReportFrames reports frames (from FramesByBtree) per iteration of n,
// one metric per b-tree.
func ReportFrames(b *testing.B, frames map[string]int, n int) {
	for name, c := range frames {
		b.ReportMetric(float64(c)/float64(n), "frames:"+name+"/op")
	}
}
