package askonce_test

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"testing"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/internal/walmeter"
)

// A clarification round trip on SQLite writes pages of these b-trees
// only, each for a query of the API (docs/benchmarks.md, "What bounds
// the round trip"): every other b-tree would cost each transaction that
// touches it a WAL frame. sqlite_schema is the file's header page, which
// a transaction that grows the file rewrites.
func TestClarificationRoundTripWritesItsBtreesOnly(t *testing.T) {
	t.Parallel()
	st := openStore(t, filepath.Join(t.TempDir(), "askonce.db"))
	e := &askonce.Engine{Store: st, Interpreter: rulesInterpreter(t)}
	db := st.WriteDB()
	if _, err := db.Exec(`PRAGMA wal_autocheckpoint = 0`); err != nil {
		t.Fatal(err)
	}
	for i := range 40 {
		if i == 20 {
			walmeter.Checkpoint(t, db)
		}
		clarificationRoundTrip(t, e, fmt.Sprint("s-", i))
	}
	want := []string{"history", "job_log", "jobs", "jobs_active", "jobs_by_tenant", "jobs_by_tenant_session", "sqlite_schema"}
	got := walmeter.FramesByBtree(t, db)
	if extra := slices.DeleteFunc(slices.Sorted(maps.Keys(got)), func(name string) bool { return slices.Contains(want, name) }); len(extra) > 0 {
		t.Errorf("20 round trips wrote pages of %v besides %v (frames %v)", extra, want, got)
	}
	for _, name := range want[:6] {
		if got[name] < 20 {
			t.Errorf("20 round trips wrote %d frames of %s, want at least one a round trip (frames %v)", got[name], name, got)
		}
	}
}
