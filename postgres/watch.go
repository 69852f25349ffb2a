package postgres

import (
	"context"
	"sync"
	"time"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/internal/wake"
	"github.com/jackc/pgx/v5"
)

// Every write to a job sends a notification on jobsChannel with the job's
// id, in its transaction, so that PostgreSQL delivers it at commit and
// never for a change rolled back. A Store that is watched holds one
// connection of its own listening on the channel and wakes the waiters
// of the job named (askonce.Watcher), whichever process committed.
const (
	jobsChannel = "askonce_jobs"
	notifySQL   = "SELECT pg_notify('" + jobsChannel + "', $1)"
)

// listener is the store's LISTEN connection, started by the first Watch.
type listener struct {
	once sync.Once
	hub  wake.Hub
	stop context.CancelFunc
	done chan struct{}
}

// Watch is askonce.Watcher: it wakes on the commits of every process
// sharing the database. While the listening connection is down (it is
// reconnected), wake-ups are missed, and then every waiter is woken once
// it is back.
func (s *Store) Watch(tenant, jobID string) (<-chan struct{}, func()) {
	s.listen.once.Do(func() {
		ctx, cancel := context.WithCancel(context.Background())
		s.listen.stop, s.listen.done = cancel, make(chan struct{})
		go s.listenLoop(ctx)
	})
	return s.listen.hub.Watch(jobID)
}

// listenLoop keeps a connection listening until ctx ends.
func (s *Store) listenLoop(ctx context.Context) {
	defer close(s.listen.done)
	for ctx.Err() == nil {
		err := s.listenOnce(ctx)
		if ctx.Err() != nil {
			return
		}
		s.log("listen for job changes: reconnecting", err)
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Second):
		}
	}
}

// listenOnce connects, listens, and wakes waiters until the connection
// fails or ctx ends.
func (s *Store) listenOnce(ctx context.Context) error {
	// A connection of its own, outside the pool: it is held for as long
	// as the store is watched.
	conn, err := pgx.ConnectConfig(ctx, s.pool.Config().ConnConfig.Copy())
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "LISTEN "+jobsChannel); err != nil {
		return err
	}
	// Changes committed while no connection listened went unannounced.
	s.listen.hub.WakeAll()
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		s.listen.hub.Wake(n.Payload)
	}
}

// stopListening ends the listening connection, if any.
func (s *Store) stopListening() {
	s.listen.once.Do(func() {}) // no listener from now on
	if s.listen.stop != nil {
		s.listen.stop()
		<-s.listen.done
	}
}

var _ askonce.Watcher = (*Store)(nil)
