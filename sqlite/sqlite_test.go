package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/storetest"
	sqlite3 "modernc.org/sqlite/lib"
)

// openTest opens a store on a new file in the test's directory and closes
// it when the test ends.
func openTest(t testing.TB, o Options) *Store {
	t.Helper()
	s, err := o.Open(context.Background(), filepath.Join(t.TempDir(), "askonce.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestStore(t *testing.T) {
	storetest.Run(t, func(t *testing.T) askonce.Store {
		s, err := Open(t.Context(), filepath.Join(t.TempDir(), "askonce.db"))
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

func TestIdempotencyStore(t *testing.T) {
	storetest.RunIdempotency(t, func(t *testing.T) askonce.IdempotencyStore {
		s, err := Open(t.Context(), filepath.Join(t.TempDir(), "askonce.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if err := s.Close(); err != nil {
				t.Errorf("close store: %v", err)
			}
		})
		return s
	})
}

func pragma(t *testing.T, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, name string) string {
	t.Helper()
	var v string
	if err := q.QueryRowContext(context.Background(), "PRAGMA "+name).Scan(&v); err != nil {
		t.Fatalf("pragma %s: %v", name, err)
	}
	return v
}

func TestWALMode(t *testing.T) {
	s := openTest(t, Options{})
	for _, db := range []*sql.DB{s.writer, s.reader} {
		if got := pragma(t, db, "journal_mode"); got != "wal" {
			t.Errorf("journal_mode = %q, want wal", got)
		}
	}
}

// TestPragmasApplyToEveryConnection holds every reader connection at once,
// so that each one is a separately opened connection.
func TestPragmasApplyToEveryConnection(t *testing.T) {
	const readers = 4
	s := openTest(t, Options{Readers: readers, BusyTimeout: 1500 * time.Millisecond})
	want := map[string]string{"foreign_keys": "1", "busy_timeout": "1500", "synchronous": "1"}

	ctx := t.Context()
	w, err := s.writer.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for name, v := range want {
		if got := pragma(t, w, name); got != v {
			t.Errorf("writer: %s = %s, want %s", name, got, v)
		}
	}
	if got := pragma(t, w, "query_only"); got != "0" {
		t.Errorf("writer: query_only = %s, want 0", got)
	}

	var conns []*sql.Conn
	for range readers {
		c, err := s.reader.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		conns = append(conns, c)
	}
	for i, c := range conns {
		for name, v := range want {
			if got := pragma(t, c, name); got != v {
				t.Errorf("reader %d: %s = %s, want %s", i, name, got, v)
			}
		}
		if got := pragma(t, c, "query_only"); got != "1" {
			t.Errorf("reader %d: query_only = %s, want 1", i, got)
		}
	}
}

func TestReadersCannotWrite(t *testing.T) {
	s := openTest(t, Options{})
	_, err := s.reader.ExecContext(t.Context(), `INSERT INTO leaders (name, owner, until) VALUES ('x', 'y', 0)`)
	if err == nil {
		t.Fatal("a reader connection wrote a row")
	}
}

func TestMigrationsAreIdempotent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "askonce.db")
	ctx := t.Context()
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	j := storetest.NewJob(storetest.NewTenant())
	if err := s.CreateJob(ctx, &askonce.Change{Job: j}); err != nil {
		t.Fatal(err)
	}
	versions := func(s *Store) int {
		var n int
		if err := s.reader.QueryRowContext(ctx, `SELECT count(*) FROM goose_db_version`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := versions(s)
	s.Close()

	for range 2 {
		s, err = Open(ctx, path)
		if err != nil {
			t.Fatalf("open again: %v", err)
		}
		if got := versions(s); got != before {
			t.Errorf("%d rows in goose_db_version after reopening, want %d", got, before)
		}
		if _, err := s.GetJob(ctx, j.TenantID, j.ID); err != nil {
			t.Errorf("the job is gone after reopening: %v", err)
		}
		s.Close()
	}
}

func TestEventsAreAppendOnly(t *testing.T) {
	s := openTest(t, Options{})
	ctx := t.Context()
	j := storetest.NewJob(storetest.NewTenant())
	if err := s.CreateJob(ctx, &askonce.Change{Job: j, Events: []askonce.Event{{Type: askonce.EventCreated}}}); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`UPDATE job_log SET type = 'tampered' WHERE id >> 30 & 3 = ` + fmt.Sprint(logEvent),
		`DELETE FROM job_log WHERE id >> 30 & 3 = ` + fmt.Sprint(logEvent),
	} {
		_, err := s.writer.ExecContext(ctx, q)
		if err == nil || !strings.Contains(err.Error(), "append-only") {
			t.Errorf("%s: %v, want the append-only error", q, err)
		}
	}
	evs, err := s.Events(ctx, askonce.EventQuery{TenantID: j.TenantID, JobID: j.ID})
	if err != nil || len(evs) != 1 || evs[0].Type != askonce.EventCreated {
		t.Errorf("events after the attempts: %v, %v", evs, err)
	}
}

func TestOpenRejectsNonFilePaths(t *testing.T) {
	for _, p := range []string{"", ":memory:", "file::memory:?cache=shared"} {
		if s, err := Open(t.Context(), p); err == nil {
			s.Close()
			t.Errorf("Open(%q) succeeded", p)
		}
	}
}

func TestPathsNeedNoEscaping(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a dir?#%", "askonce 1.db")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	s, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := os.Stat(path); err != nil {
		t.Errorf("no database file at %s: %v", path, err)
	}
}

func TestNowIsTheStoresClock(t *testing.T) {
	at := time.Date(2030, 1, 2, 3, 4, 5, 678901234, time.UTC)
	s := openTest(t, Options{Now: func() time.Time { return at }})
	ctx := t.Context()
	j := storetest.NewJob(storetest.NewTenant())
	evs := []askonce.Event{{Type: askonce.EventCreated}}
	if err := s.CreateJob(ctx, &askonce.Change{Job: j, Events: evs}); err != nil {
		t.Fatal(err)
	}
	if !j.CreatedAt.Equal(at) || !j.UpdatedAt.Equal(at) || !evs[0].At.Equal(at) {
		t.Errorf("times %v, %v, %v; want %v", j.CreatedAt, j.UpdatedAt, evs[0].At, at)
	}
}

// TestConcurrentReadsDuringWrites runs readers against a busy writer: WAL
// lets them proceed, and no reader sees a half-written change.
func TestConcurrentReadsDuringWrites(t *testing.T) {
	s := openTest(t, Options{})
	ctx := t.Context()
	j := storetest.NewJob(storetest.NewTenant())
	if err := s.CreateJob(ctx, &askonce.Change{Job: j}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	done := make(chan struct{})
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				got, err := s.GetJob(ctx, j.TenantID, j.ID)
				if err != nil {
					t.Error(err)
					return
				}
				// Every change adds one attempt: the count always matches
				// the version.
				if int64(got.AttemptCount) != got.Version-1 {
					t.Errorf("version %d with %d attempts", got.Version, got.AttemptCount)
					return
				}
			}
		})
	}
	for i := range 200 {
		c := &askonce.Change{Job: j, Attempts: []askonce.Attempt{{N: i + 1, Reason: askonce.ReasonRetryValidation, Outcome: askonce.AttemptInvalid}}}
		if err := s.UpdateJob(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	close(done)
	wg.Wait()
}

// batchFixture returns a store with one job, and a write that appends an
// event of type typ to it.
func batchFixture(t *testing.T) (*Store, *askonce.Job, func(typ string) func(context.Context, wtx) error) {
	s := openTest(t, Options{})
	j := storetest.NewJob(storetest.NewTenant())
	if err := s.CreateJob(t.Context(), &askonce.Change{Job: j}); err != nil {
		t.Fatal(err)
	}
	var seq int64
	if err := s.writer.QueryRowContext(t.Context(), `SELECT log_seq FROM jobs WHERE id = ?`, j.ID).Scan(&seq); err != nil {
		t.Fatal(err)
	}
	appendEvent := func(typ string) func(context.Context, wtx) error {
		return func(ctx context.Context, tx wtx) error {
			_, err := s.appendEvents(ctx, tx, j.TenantID, j.ID, seq, []askonce.Event{{Type: askonce.EventType(typ)}}, time.Unix(0, 1))
			return err
		}
	}
	return s, j, appendEvent
}

func eventTypesOf(t *testing.T, s *Store, j *askonce.Job) []string {
	t.Helper()
	evs, err := s.Events(t.Context(), askonce.EventQuery{TenantID: j.TenantID, JobID: j.ID})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range evs {
		out = append(out, string(e.Type))
	}
	return out
}

// TestBatchedWriteFailsAlone: in a group commit, a failed write is rolled
// back to its savepoint and the others commit; a write whose context
// ended before it began is skipped, and one whose context ends while it
// runs completes. On the driver's connection and, when one of the
// writes calls a hook, in database/sql's transaction alike.
func TestBatchedWriteFailsAlone(t *testing.T) {
	for _, hooked := range []bool{false, true} {
		t.Run(fmt.Sprint("hooked=", hooked), func(t *testing.T) {
			s, j, appendEvent := batchFixture(t)
			boom := errors.New("boom")
			cancelled, cancel := context.WithCancel(t.Context())
			cancel()
			cancelledLater, cancelLater := context.WithCancel(t.Context())
			var ran []string
			batch := []*writeReq{
				{ctx: t.Context(), fn: appendEvent("one")},
				{ctx: t.Context(), fn: func(ctx context.Context, tx wtx) error {
					if err := appendEvent("failed")(ctx, tx); err != nil {
						return err
					}
					return boom
				}},
				{ctx: cancelled, fn: appendEvent("cancelled")},
				{ctx: t.Context(), hooked: hooked, fn: func(ctx context.Context, tx wtx) error {
					ran = append(ran, fmt.Sprintf("%T", tx))
					return appendEvent("three")(ctx, tx)
				}},
				{ctx: cancelledLater, fn: func(ctx context.Context, tx wtx) error {
					cancelLater() // the caller gives up mid-write: too late
					return appendEvent("four")(ctx, tx)
				}},
			}
			errs := make([]error, len(batch))
			s.runBatch(batch, errs)
			if errs[0] != nil || !errors.Is(errs[1], boom) || !errors.Is(errs[2], context.Canceled) || errs[3] != nil || errs[4] != nil {
				t.Errorf("outcomes %v, want nil, boom, canceled, nil, nil", errs)
			}
			if got := eventTypesOf(t, s, j); !slices.Equal(got, []string{"one", "three", "four"}) {
				t.Errorf("events %v, want one, three and four", got)
			}
			want := "*sqlite.rawConn"
			if hooked {
				want = "sqlite.sqlTx"
			}
			if !slices.Equal(ran, []string{want}) {
				t.Errorf("the write ran in %v, want %s", ran, want)
			}
		})
	}
}

// TestBatchSurvivesALostTransaction: when a write's failure took the whole
// transaction with it, the writes before it fail and those after it run
// in a new transaction.
func TestBatchSurvivesALostTransaction(t *testing.T) {
	for _, hooked := range []bool{false, true} {
		t.Run(fmt.Sprint("hooked=", hooked), func(t *testing.T) {
			s, j, appendEvent := batchFixture(t)
			rollback, err := s.wstmts.add(t.Context(), nil, `ROLLBACK`)
			if err != nil {
				t.Fatal(err)
			}
			boom := errors.New("boom")
			batch := []*writeReq{
				{ctx: t.Context(), fn: appendEvent("lost")},
				{ctx: t.Context(), hooked: hooked, fn: func(ctx context.Context, tx wtx) error {
					if _, err := tx.exec(ctx, rollback); err != nil {
						t.Fatal(err)
					}
					return boom
				}},
				{ctx: t.Context(), fn: appendEvent("two")},
				{ctx: t.Context(), fn: appendEvent("three")},
			}
			errs := make([]error, len(batch))
			s.runBatch(batch, errs)
			if errs[0] == nil || errors.Is(errs[0], boom) || !errors.Is(errs[1], boom) || errs[2] != nil || errs[3] != nil {
				t.Errorf("outcomes %v, want rolled back, boom, nil, nil", errs)
			}
			if got := eventTypesOf(t, s, j); !slices.Equal(got, []string{"two", "three"}) {
				t.Errorf("events %v, want two and three", got)
			}
			// The writer is usable afterwards.
			if err := s.write(t.Context(), appendEvent("after")); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestWriteFailingMidStatementLeavesNothing: the statements of a change
// that fail on a constraint after writing part of their rows (a job_log
// insert whose second record is taken) keep what they wrote only until
// the write they belong to is rolled back, in a transaction of its own
// or to its savepoint in a group commit, where the other writes commit
// (see writeStmts).
func TestWriteFailingMidStatementLeavesNothing(t *testing.T) {
	t.Run("alone", func(t *testing.T) {
		ctx := t.Context()
		s := openTest(t, Options{})
		j := storetest.NewJob(storetest.NewTenant())
		first := askonce.Attempt{N: 1, Reason: askonce.ReasonInitial, Outcome: askonce.AttemptInvalid, Raw: "first"}
		if err := s.CreateJob(ctx, &askonce.Change{Job: j, Attempts: []askonce.Attempt{first}}); err != nil {
			t.Fatal(err)
		}
		again := *j
		again.Title = "changed"
		c := &askonce.Change{Job: &again, Attempts: []askonce.Attempt{
			{N: 2, Reason: askonce.ReasonClarificationAnswer, Outcome: askonce.AttemptInvalid, Raw: "second"},
			{N: 1, Reason: askonce.ReasonClarificationAnswer, Outcome: askonce.AttemptInvalid, Raw: "first again"},
		}, Events: []askonce.Event{{Type: askonce.EventAttempt}}}
		if err := s.UpdateJob(ctx, c); err == nil {
			t.Fatal("an update with an attempt number stored already succeeded")
		}
		as, err := s.Attempts(ctx, j.TenantID, j.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(as) != 1 || as[0].Raw != "first" {
			t.Errorf("attempts %+v after the failed update, want the first alone", as)
		}
		if got := eventTypesOf(t, s, j); len(got) != 0 {
			t.Errorf("events %v after the failed update, want none", got)
		}
		got, err := s.GetJob(ctx, j.TenantID, j.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Version != 1 || got.Title != j.Title || got.AttemptCount != 1 {
			t.Errorf("job at version %d, title %q, %d attempts after the failed update; want 1, %q, 1", got.Version, got.Title, got.AttemptCount, j.Title)
		}
	})
	for _, hooked := range []bool{false, true} {
		t.Run(fmt.Sprint("batched hooked=", hooked), func(t *testing.T) {
			s, j, appendEvent := batchFixture(t)
			var seq int64
			if err := s.writer.QueryRowContext(t.Context(), `SELECT log_seq FROM jobs WHERE id = ?`, j.ID).Scan(&seq); err != nil {
				t.Fatal(err)
			}
			batch := []*writeReq{
				{ctx: t.Context(), fn: appendEvent("one")},
				{ctx: t.Context(), hooked: hooked, fn: func(ctx context.Context, tx wtx) error {
					// Event 50 is new, event 1 is "one"'s.
					var rows logRows
					if err := eventRows(&rows, j.ID, seq, 49, []askonce.Event{{Type: "partial"}}, time.Unix(0, 1)); err != nil {
						return err
					}
					if err := eventRows(&rows, j.ID, seq, 0, []askonce.Event{{Type: "taken"}}, time.Unix(0, 1)); err != nil {
						return err
					}
					_, err := s.insertLog(ctx, tx, &rows)
					return err
				}},
				{ctx: t.Context(), fn: appendEvent("three")},
			}
			errs := make([]error, len(batch))
			s.runBatch(batch, errs)
			if errs[0] != nil || !isConstraint(errs[1], sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY) || errs[2] != nil {
				t.Errorf("outcomes %v, want nil, a primary key violation, nil", errs)
			}
			evs, err := s.Events(t.Context(), askonce.EventQuery{TenantID: j.TenantID, JobID: j.ID})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range evs {
				got = append(got, fmt.Sprint(e.ID, " ", e.Type))
			}
			if !slices.Equal(got, []string{"1 one", "2 three"}) {
				t.Errorf("events %v, want 1 one and 2 three", got)
			}
		})
	}
}

func TestWriteAfterCloseFails(t *testing.T) {
	s, _, appendEvent := batchFixture(t)
	s.Close()
	if err := s.write(t.Context(), appendEvent("late")); !errors.Is(err, errClosed) {
		t.Errorf("write after close: %v, want errClosed", err)
	}
}

// The builder queue's hook runs inside the transaction of the success it
// belongs to: an error there rolls the whole change back.
func TestOnDispatchRunsInTheSuccessTransaction(t *testing.T) {
	t.Parallel()
	var calls []string
	fail := true
	st, err := Options{OnDispatch: func(ctx context.Context, tx *sql.Tx, j *askonce.Job) error {
		calls = append(calls, j.ID)
		var status string
		if err := tx.QueryRowContext(ctx, "SELECT status FROM jobs WHERE id = ?", j.ID).Scan(&status); err != nil {
			return err
		}
		if status != string(askonce.StatusSuccess) || j.Dispatch != askonce.DispatchQueued {
			return fmt.Errorf("hook saw status %s dispatch %s", status, j.Dispatch)
		}
		if fail {
			return errors.New("queue is down")
		}
		return nil
	}}.Open(t.Context(), filepath.Join(t.TempDir(), "askonce.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	j := storetest.NewJob(storetest.NewTenant())
	if err := st.CreateJob(t.Context(), &askonce.Change{Job: j}); err != nil {
		t.Fatal(err)
	}
	next := j.Clone()
	next.Status = askonce.StatusSuccess
	if err := st.UpdateJob(t.Context(), &askonce.Change{Job: next, Dispatch: true}); err == nil || !strings.Contains(err.Error(), "queue is down") {
		t.Fatalf("update with a failing hook: %v", err)
	}
	if got, _ := st.GetJob(t.Context(), j.TenantID, j.ID); got.Status != askonce.StatusPlanning || got.Version != 1 {
		t.Fatalf("the failed hook did not roll back: %s v%d", got.Status, got.Version)
	}
	fail = false
	next = j.Clone()
	next.Status = askonce.StatusSuccess
	if err := st.UpdateJob(t.Context(), &askonce.Change{Job: next, Dispatch: true}); err != nil {
		t.Fatal(err)
	}
	if len(calls) != 2 || calls[1] != j.ID {
		t.Fatalf("hook calls %v", calls)
	}
}
