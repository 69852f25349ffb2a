// Package storecount is a SQLite store that counts its reads of jobs,
// for the tests that pin how often a flow reads its job.
package storecount

import (
	"context"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/sqlite"
)

// Store is a SQLite store (with every optional part of it) that counts
// the calls that read a job: GetJob and JobByAnswerLink (Jobs), and the
// reads of a job's channel message (Messages).
type Store struct {
	*sqlite.Store
	jobs, messages atomic.Int64
}

// Open opens a new SQLite store in t's temporary directory, closed when
// t ends.
func Open(t testing.TB) *Store {
	t.Helper()
	inner, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "askonce.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { inner.Close() })
	return &Store{Store: inner}
}

// GetJob counts a read and reads the job.
func (s *Store) GetJob(ctx context.Context, tenant, id string) (*askonce.Job, error) {
	s.jobs.Add(1)
	return s.Store.GetJob(ctx, tenant, id)
}

// JobByAnswerLink counts a read and reads the job an answer link names.
func (s *Store) JobByAnswerLink(ctx context.Context, hash []byte) (*askonce.Job, error) {
	s.jobs.Add(1)
	return s.Store.JobByAnswerLink(ctx, hash)
}

// Message counts a read and reads the job's channel message.
func (s *Store) Message(ctx context.Context, tenant, id, channel string) (askonce.Message, error) {
	s.messages.Add(1)
	return s.Store.Message(ctx, tenant, id, channel)
}

// Jobs returns the number of job reads since the last Reset.
func (s *Store) Jobs() int64 { return s.jobs.Load() }

// Messages returns the number of message reads since the last Reset.
func (s *Store) Messages() int64 { return s.messages.Load() }

// Reset sets the counts to zero.
func (s *Store) Reset() {
	s.jobs.Store(0)
	s.messages.Store(0)
}
