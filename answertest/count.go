package answertest

import (
	"context"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/rules"
	"github.com/askonce/askonce/sqlite"
)

// CountingStore is a SQLite store (with every optional part of it) that
// counts the calls that read a job: GetJob and JobByAnswerLink (Jobs),
// and the reads of a job's channel message (Messages). The tests that
// pin how often a flow reads its job run on it.
type CountingStore struct {
	*sqlite.Store
	jobs, messages atomic.Int64
}

// Counting opens a new CountingStore in t's temporary directory, closed
// when t ends.
func Counting(t testing.TB) *CountingStore {
	t.Helper()
	return &CountingStore{Store: openSQLite(t)}
}

// openSQLite opens a new SQLite store in t's temporary directory, closed
// when t ends.
func openSQLite(t testing.TB) *sqlite.Store {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "askonce.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// AskedElsewhere opens a CountingStore and creates a job for goal on it
// through an engine of its own (with the rules interpreter and the
// store's link secret), as another process on the same store would; the
// job must be left pending a question. It returns the store with its counts reset,
// the job, and a second engine like the first, which holds no copy of
// the job: what the second engine reads, the store counts.
func AskedElsewhere(t testing.TB, goal string) (*CountingStore, *askonce.Job, *askonce.Engine) {
	t.Helper()
	st := Counting(t)
	interp, err := rules.New(rules.Options{})
	if err != nil {
		t.Fatal(err)
	}
	engine := func() *askonce.Engine {
		return &askonce.Engine{Store: st, Interpreter: interp, LinkSecret: st.LinkSecret()}
	}
	j, err := engine().Create(context.Background(), askonce.CreateRequest{Goal: goal})
	if err != nil || j.Status != askonce.StatusPending {
		t.Fatalf("create %q: %v %v; want a job pending a question", goal, j, err)
	}
	st.Reset()
	return st, j, engine()
}

// GetJob counts a read and reads the job.
func (s *CountingStore) GetJob(ctx context.Context, tenant, id string) (*askonce.Job, error) {
	s.jobs.Add(1)
	return s.Store.GetJob(ctx, tenant, id)
}

// JobByAnswerLink counts a read and reads the job an answer link names.
func (s *CountingStore) JobByAnswerLink(ctx context.Context, hash []byte) (*askonce.Job, error) {
	s.jobs.Add(1)
	return s.Store.JobByAnswerLink(ctx, hash)
}

// Message counts a read and reads the job's channel message.
func (s *CountingStore) Message(ctx context.Context, tenant, id, channel string) (askonce.Message, error) {
	s.messages.Add(1)
	return s.Store.Message(ctx, tenant, id, channel)
}

// Jobs returns the number of job reads since the last Reset.
func (s *CountingStore) Jobs() int64 { return s.jobs.Load() }

// Messages returns the number of message reads since the last Reset.
func (s *CountingStore) Messages() int64 { return s.messages.Load() }

// Reset sets the counts to zero.
func (s *CountingStore) Reset() {
	s.jobs.Store(0)
	s.messages.Store(0)
}
