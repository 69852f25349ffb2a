package postgres

import (
	"context"
	"errors"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Changes without hooks are group-committed. A change that finds fewer
// than maxInFlight groups being committed is sent at once, alone, as one
// batch (one round trip, one implicit transaction: see batch). One that
// arrives while they are in flight waits; when a group's commit ends, the
// changes that waited meanwhile are sent together as the next group: the
// statements of all of them in one batch, which PostgreSQL runs as one
// implicit transaction. N changes then share one network round trip, one
// commit and one WAL flush wait, and the replica and the server one
// exchange of messages instead of N.
//
// Each change stays atomic and isolated: a change is told it committed
// only once the transaction holding it did, and a statement that fails
// for what the change holds (a compare-and-set that lost, a job or
// dispatch that exists, text or JSON PostgreSQL refuses: SQLSTATE classes
// 22 and 23) fails that change alone with the error it would have had
// alone, and the others are sent again without it. A failure that says
// nothing was committed but is not one change's (a deadlock, a
// serialization failure, a cancelled statement, an argument pgx could not
// encode) sends every change of the group again alone, as if it had never
// been grouped; one whose outcome is unknown (the connection broke) is
// every change's error, as it would have been each change's alone.

// maxInFlight is how many groups are committed at once, each on a
// connection of its own. Two or three instead of one made no difference
// over HTTP with 16 clients (0.95-1.25 of one, docs/benchmarks.md), and
// one forms the largest groups.
const maxInFlight = 1

// maxGroup bounds the changes of one group.
const maxGroup = 64

// waiter is a change waiting for a group.
type waiter struct {
	q   *batch
	err error
	// wake says the change's turn came: true, lead its group (group
	// below); false, its group was committed and err is its outcome.
	wake  chan bool
	group []*waiter
}

// grouper forms the groups.
type grouper struct {
	mu      sync.Mutex
	busy    int       // groups in flight
	waiting []*waiter // changes waiting for the next group
	// queued, when set (tests), is called when a change starts to wait,
	// with how many wait.
	queued func(n int)
}

// send commits q, grouped with the changes that wait with it, and
// returns its outcome: nil once committed, or the error of its own
// statement as a *batchError, as q.send does alone.
func (s *Store) send(ctx context.Context, q *batch) error {
	g := &s.group
	g.mu.Lock()
	if g.busy < maxInFlight {
		g.busy++
		g.mu.Unlock()
		err := q.send(ctx, s.pool)
		s.next()
		return err
	}
	w := &waiter{q: q, wake: make(chan bool, 1)}
	g.waiting = append(g.waiting, w)
	if g.queued != nil {
		g.queued(len(g.waiting))
	}
	g.mu.Unlock()
	if <-w.wake {
		group := w.group
		s.commitGroup(ctx, group)
		s.next()
		for _, o := range group[1:] {
			o.wake <- false
		}
	}
	return w.err
}

// next hands the waiting changes, if any, to the first of them to send
// as a group; or else frees the slot of the group that ended.
func (s *Store) next() {
	g := &s.group
	g.mu.Lock()
	if len(g.waiting) == 0 {
		g.busy--
		g.mu.Unlock()
		return
	}
	n := min(len(g.waiting), maxGroup)
	group := make([]*waiter, n)
	copy(group, g.waiting)
	g.waiting = append(g.waiting[:0], g.waiting[n:]...)
	g.mu.Unlock()
	group[0].group = group
	group[0].wake <- true
}

// commitGroup sends the changes of group as one batch and sets each
// one's err.
func (s *Store) commitGroup(ctx context.Context, group []*waiter) {
	orig := group
	for len(group) > 0 {
		if len(group) == 1 {
			group[0].err = group[0].q.send(ctx, s.pool)
			return
		}
		var all pgx.Batch
		for _, w := range group {
			for _, qq := range w.q.b.QueuedQueries {
				all.Queue(qq.SQL, qq.Arguments...)
			}
		}
		res := s.pool.SendBatch(ctx, &all)
		failed, err := readGroup(res, group)
		cerr := res.Close()
		var pgErr *pgconn.PgError
		var pre pgx.ErrPreprocessingBatch
		switch {
		case errors.As(err, &pre) || errors.As(cerr, &pre):
			// Nothing was sent.
			s.eachAlone(ctx, orig)
			return
		case err != nil && errors.As(err, &pgErr):
			// The server rolled the group back at failed's statement.
			if !ownFailure(pgErr.Code) {
				s.eachAlone(ctx, orig)
				return
			}
			// failed has its own error: send the others again.
			rest := group[:0:0]
			for _, w := range group {
				if w != failed {
					rest = append(rest, w)
				}
			}
			group = rest
		case errors.As(cerr, &pgErr):
			// Rolled back by a later statement, or at commit.
			s.eachAlone(ctx, orig)
			return
		case cerr != nil:
			// Committed or not, nobody knows: as each would have been
			// told alone. Those that failed before are told so too:
			// their failure may have been against a change that did
			// not commit.
			for _, w := range orig {
				w.err = cerr
			}
			return
		default:
			// Committed. A change whose result could not be read (a
			// row it expected and did not get) has that error, as it
			// would have alone: its statements committed too.
			return
		}
	}
}

// eachAlone sends each change of group alone, as if it had never been
// grouped: after a failure that rolled the group back and is no one
// change's (a deadlock, a serialization failure, a cancelled statement,
// an argument pgx could not encode). Those that failed before are sent
// again too: their failure may have been against a change that did not
// commit.
func (s *Store) eachAlone(ctx context.Context, group []*waiter) {
	for _, w := range group {
		w.err = w.q.send(ctx, s.pool)
	}
}

// readGroup reads the results of each change of group in turn, as
// q.send does, until one fails: it returns that change, with its error
// set to a *batchError of its own statement's index, and the error.
func readGroup(res pgx.BatchResults, group []*waiter) (*waiter, error) {
	for _, w := range group {
		for i, r := range w.q.read {
			if err := r(res); err != nil {
				w.err = &batchError{i, err}
				return w, err
			}
		}
	}
	return nil, nil
}

// ownFailure reports whether a statement's SQLSTATE is a failure of what
// its change holds (class 22, data exception, or 23, integrity
// constraint violation: among them the lost compare-and-set's noRow),
// which the change would have met alone too.
func ownFailure(code string) bool {
	return len(code) == 5 && (code[:2] == "22" || code[:2] == "23")
}
