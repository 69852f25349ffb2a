package sqlite

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"slices"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// Writes are group-committed. Every write is a function run in a
// transaction of the one writer connection; a goroutine (writeLoop) takes
// them in arrival order and runs those that queued up while the previous
// transaction committed in one transaction, each inside a savepoint of
// its own. A write that fails is rolled back to its savepoint alone, so
// that each write stays atomic and isolated, and the others in the batch
// commit. Under concurrency this shares BEGIN, COMMIT and the WAL frames
// of the pages several writes touch (the newest events, attempts and
// jobs), which is most of a write's cost; a lone write runs in a
// transaction of its own as before.
//
// A write that finds the writer idle (no write queued, none committing)
// runs on its caller's goroutine instead of being handed to writeLoop and
// back: two goroutine switches fewer, which is a measurable part of a
// serial write (docs/benchmarks.md, "Tail latency and the writer").
// Whoever runs writes holds Store.writing, so that the writer connection
// serves one of them at a time.

// TracerName names the OpenTelemetry tracer of the store's spans: one
// sqlite.write span per write transaction (or savepoint of a group
// commit). The tracer comes from the global provider, a no-op unless
// tracing is set up.
const TracerName = "github.com/askonce/askonce/sqlite"

// dbSystem is the semantic-convention attribute of the store's spans.
var dbSystem = attribute.String("db.system.name", "sqlite")

// maxBatch bounds the writes committed together, and so the wait of the
// first of them.
const maxBatch = 64

// batchWindow is how long the writer waits for one more write before it
// commits a batch, when the previous batch held several writes (so other
// writers are active): a commit shared by more writes costs each of them
// less. A lone writer never waits. Measured with
// BenchmarkRoundTripClarificationParallel (docs/benchmarks.md): 100 µs
// took the commits per round trip from about 0.45 to 0.17 and the round
// trips/s up by about a fifth; 500 µs batched little more and was slower;
// maxBatch 8 or 256 instead of 64 made no gain.
const batchWindow = 100 * time.Microsecond

// errClosed is the error of a write to a closed store.
var errClosed = errors.New("sqlite store is closed")

type writeReq struct {
	ctx    context.Context
	fn     func(ctx context.Context, tx wtx) error // ctx is never cancelled
	hooked bool                                    // fn calls a hook: it runs in a sqlTx
	done   chan error
}

// write runs fn in a write transaction (BEGIN IMMEDIATE) and returns once
// that transaction committed or fn's changes were rolled back. fn may run
// together with other writes in one transaction, inside a savepoint; it
// must not commit or roll back itself, and must use the context it is
// given, not ctx: a statement interrupted by a cancelled context would
// roll back the whole transaction, the other writes in it too. ctx only
// decides whether fn runs at all.
//
// Inside a trace, each write is one span, sqlite.write, from queueing to
// commit; fn's context carries it, so work fn queues (a delivery) joins
// the trace.
func (s *Store) write(ctx context.Context, fn func(ctx context.Context, tx wtx) error) error {
	return s.writeIn(ctx, false, fn)
}

// writeIn is write; with useSQL, fn calls a hook, which takes a *sql.Tx
// (hookTx), and runs in database/sql's transaction (inTx).
func (s *Store) writeIn(ctx context.Context, useSQL bool, fn func(ctx context.Context, tx wtx) error) (err error) {
	if trace.SpanFromContext(ctx).IsRecording() {
		// Only inside a trace: a write of its own (a sweep) is not worth
		// a trace, and with tracing off this costs nothing.
		var span trace.Span
		ctx, span = otel.Tracer(TracerName).Start(ctx, "sqlite.write", trace.WithAttributes(dbSystem))
		defer func() {
			if err != nil {
				span.SetStatus(codes.Error, err.Error())
			}
			span.End()
		}()
	}
	req := &writeReq{ctx: ctx, fn: fn, hooked: useSQL}
	if s.queued.Load() == 0 && s.writing.TryLock() {
		return s.runHere(req)
	}
	req.done = make(chan error, 1)
	s.queued.Add(1)
	defer s.queued.Add(-1)
	select {
	case s.writes <- req:
	case <-s.closing:
		return errClosed
	case <-ctx.Done():
		return ctx.Err()
	}
	// Once queued, fn reads the caller's values: wait for it even when
	// ctx ends. writeLoop skips a write whose ctx ended before it began.
	return <-req.done
}

// runHere runs a write on the caller's goroutine, with s.writing held.
func (s *Store) runHere(r *writeReq) error {
	defer s.writing.Unlock()
	select {
	case <-s.closing:
		return errClosed
	default:
	}
	s.catchUpCheckpoint()
	return s.runAlone(r)
}

// writeLoop runs the queued writes until the store closes.
func (s *Store) writeLoop() {
	defer close(s.loopDone)
	batch := make([]*writeReq, 0, maxBatch)
	wait := time.NewTimer(batchWindow)
	wait.Stop()
	concurrent := false // the previous batch held several writes
	for {
		select {
		case <-s.closing:
			return
		case req := <-s.writes:
			batch = append(batch[:0], req)
		}
		// Writes that queue while a write runs on its caller's
		// goroutine join this batch.
		s.writing.Lock()
		s.catchUpCheckpoint()
	drain:
		for len(batch) < maxBatch {
			select {
			case req := <-s.writes:
				batch = append(batch, req)
				continue
			default:
			}
			if !concurrent {
				break
			}
			wait.Reset(batchWindow)
			select {
			case req := <-s.writes:
				batch = append(batch, req)
				wait.Stop()
			case <-wait.C:
				break drain
			}
		}
		concurrent = len(batch) > 1
		s.commit(batch)
		s.writing.Unlock()
		clear(batch)
	}
}

// commit runs a batch of writes and reports each one's outcome.
func (s *Store) commit(batch []*writeReq) {
	if len(batch) == 1 {
		r := batch[0]
		r.done <- s.runAlone(r)
		return
	}
	errs := make([]error, len(batch))
	s.runBatch(batch, errs)
	for i, r := range batch {
		r.done <- errs[i]
	}
}

// runAlone runs one write in a transaction of its own.
func (s *Store) runAlone(r *writeReq) error {
	if err := r.ctx.Err(); err != nil {
		return err
	}
	// Transactions are short: they run to the end once begun, which also
	// spares the driver a goroutine per statement to watch the context.
	ctx := context.WithoutCancel(r.ctx)
	var ferr error
	err := s.inTx(ctx, r.hooked, func(tx wtx, end driver.Tx) {
		if ferr = r.fn(ctx, tx); ferr != nil {
			end.Rollback()
			return
		}
		if err := end.Commit(); err != nil {
			ferr = fmt.Errorf("commit: %w", err)
			return
		}
		s.commits.Add(1)
	})
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	return ferr
}

// runBatch runs several writes in one transaction, each in a savepoint,
// and sets errs[i] to the outcome of batch[i]. A write that breaks the
// transaction ends it (runGroup); those after it start over in a new
// one.
func (s *Store) runBatch(batch []*writeReq, errs []error) {
	for len(batch) > 0 {
		n := s.runGroup(batch, errs)
		batch, errs = batch[n:], errs[n:]
	}
}

// runGroup runs batch's writes in one transaction, each in a savepoint,
// until one of them breaks the transaction, sets errs[i] to the outcome
// of batch[i] and returns how many writes it ran: all of them, or those
// up to the one that broke it.
func (s *Store) runGroup(batch []*writeReq, errs []error) int {
	// The transaction outlives every caller's context: an interrupted
	// statement would roll back the others' writes too. A write whose
	// context ended before it began is skipped instead.
	bg := context.Background()
	n := len(batch)
	useSQL := slices.ContainsFunc(batch, func(r *writeReq) bool { return r.hooked })
	err := s.inTx(bg, useSQL, func(tx wtx, end driver.Tx) {
		var done []int // the writes that succeeded so far
		// abort gives up the transaction after batch[i] failed with err
		// in a way that broke it (SQLite rolls a transaction back by
		// itself on an I/O error, say): the writes before are lost with
		// it.
		abort := func(i int, err error) {
			end.Rollback()
			errs[i] = err
			for _, j := range done {
				// Not %w: the other write's error (a conflict, say) is
				// not this one's.
				errs[j] = fmt.Errorf("rolled back with another write that failed: %v", err)
			}
			n = i + 1
		}
		for i, r := range batch {
			if err := r.ctx.Err(); err != nil {
				errs[i] = err
				continue
			}
			if _, err := tx.exec(bg, s.w.savepoint); err != nil {
				abort(i, fmt.Errorf("savepoint: %w", err))
				return
			}
			ferr := r.fn(context.WithoutCancel(r.ctx), tx)
			if ferr != nil {
				if _, err := tx.exec(bg, s.w.rollbackTo); err != nil {
					abort(i, ferr)
					return
				}
			}
			if _, err := tx.exec(bg, s.w.release); err != nil {
				abort(i, fmt.Errorf("release savepoint: %w", err))
				return
			}
			if ferr != nil {
				errs[i] = ferr
				continue
			}
			done = append(done, i)
		}
		if err := end.Commit(); err != nil {
			for _, j := range done {
				errs[j] = fmt.Errorf("commit: %w", err)
			}
			return
		}
		s.commits.Add(1)
	})
	if err != nil {
		for i := range errs {
			errs[i] = fmt.Errorf("begin: %w", err)
		}
	}
	return n
}

// Commits returns the number of write transactions the store committed
// since it was opened (a group commit counts once), so that benchmarks
// and metrics can tell how many durable transactions an operation costs.
func (s *Store) Commits() int64 { return s.commits.Load() }
