package sqlite

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/storetest"
)

// A file another process holds locked past the busy timeout is a store
// that cannot be reached now: EUNAVAILABLE (503 over HTTP), not an
// internal error; once the lock is gone the same write succeeds.
func TestLockedFileIsUnavailableThenWritesAgain(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "a.db")
	st, err := Options{BusyTimeout: 50 * time.Millisecond}.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	other, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	conn, err := other.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN EXCLUSIVE"); err != nil {
		t.Fatal(err)
	}
	j := storetest.NewJob(storetest.NewTenant())
	err = st.CreateJob(ctx, &askonce.Change{Job: j})
	if askonce.ErrorCode(err) != askonce.EUNAVAILABLE {
		t.Fatalf("create while the file is locked: %v; want unavailable", err)
	}
	if _, err := conn.ExecContext(ctx, "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	if err := st.CreateJob(ctx, &askonce.Change{Job: j}); err != nil {
		t.Fatalf("create once the lock is gone: %v", err)
	}
}
