package askonce_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/internal/walmeter"
)

// BenchmarkRoundTripClarificationPages tells where the WAL frames of
// BenchmarkRoundTripClarification go: after 200 round trips (a database
// that is not empty) it turns checkpoints off, runs the round trips and
// reports the frames per round trip of each b-tree. Run it with a fixed
// count (-benchtime 200x): the WAL keeps every frame.
func BenchmarkRoundTripClarificationPages(b *testing.B) {
	st := openStore(b, filepath.Join(b.TempDir(), "bench.db"))
	e := &askonce.Engine{Store: st, Interpreter: rulesInterpreter(b)}
	i := 0
	roundTrip := func() {
		i++
		clarificationRoundTrip(b, e, fmt.Sprint("bench-", i))
	}
	for range 200 {
		roundTrip()
	}
	db := st.WriteDB()
	if _, err := db.Exec(`PRAGMA wal_autocheckpoint = 0`); err != nil {
		b.Fatal(err)
	}
	walmeter.Checkpoint(b, db)
	n := 0
	for b.Loop() {
		roundTrip()
		n++
	}
	b.StopTimer()
	walmeter.ReportFrames(b, walmeter.FramesByBtree(b, db), n)
}
