package dispatch

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/internal/sqlstore"
)

// A channel (askonce.Channel: packages slack and email) reaches the
// people a job names when it asks and when it settles. Its sends are
// River jobs on the channel's queue, askonce_<name>, of kind
// askonce_<name>_<send kind>, queued by [Dispatcher.Notify] in the
// transaction that moves the job into or out of pending, unique by
// their args in every state, so that a change queues each at most once
// and a question is never stored without them.

// channelQueue is the River queue of ch's sends.
func channelQueue(ch askonce.Channel) string { return "askonce_" + ch.Name() }

// channelKind is the River kind of ch's sends of kind.
func channelKind(ch askonce.Channel, kind string) string {
	return "askonce_" + ch.Name() + "_" + kind
}

// sendArgs is a River job: one askonce.Send. Its JSON is the args every
// channel send has had in River's table; To is absent for a channel
// that sends once per job.
type sendArgs struct {
	kind     string
	TenantID string `json:"tenantId" river:"unique"`
	JobID    string `json:"jobId" river:"unique"`
	To       string `json:"to,omitempty" river:"unique"`
	// Step is the reach step that made the send (reach.go); absent
	// for the sends of the ask and the resolution.
	Step int `json:"step,omitempty" river:"unique"`
}

func (a sendArgs) Kind() string { return a.kind }

// sendWorker makes the sends of one kind of one channel.
type sendWorker struct {
	river.WorkerDefaults[sendArgs]
	ch   askonce.Channel
	kind string
	d    *Dispatcher
}

// NextRetry applies the channel's Backoff after the job's Attempt-th
// failed try.
func (w *sendWorker) NextRetry(rj *river.Job[sendArgs]) time.Time {
	return time.Now().Add(w.ch.Backoff(rj.Attempt))
}

// Work makes one try of the send, and turns the channel's snooze and
// cancel into River's.
func (w *sendWorker) Work(ctx context.Context, rj *river.Job[sendArgs]) error {
	err := w.ch.Send(ctx, askonce.Send{Kind: w.kind, TenantID: rj.Args.TenantID, JobID: rj.Args.JobID, To: rj.Args.To, Step: rj.Args.Step, Attempt: rj.Attempt})
	var snooze *askonce.SendSnoozeError
	if errors.As(err, &snooze) {
		return river.JobSnooze(snooze.Wait)
	}
	var cancel *askonce.SendCancelError
	if errors.As(err, &cancel) {
		if rj.Args.Step > 0 && w.d != nil {
			w.d.reachFailed(ctx, w.ch, rj.Args, w.kind, cancel.Err)
		}
		return river.JobCancel(cancel.Err)
	}
	if err != nil && rj.Args.Step > 0 && rj.Attempt >= rj.MaxAttempts && ctx.Err() == nil && w.d != nil {
		w.d.reachFailed(ctx, w.ch, rj.Args, w.kind, err)
	}
	return err
}

// registerChannels adds a worker per kind of send of every channel, and
// their queues.
func registerChannels(d *Dispatcher, workers *river.Workers, queues map[string]river.QueueConfig, channels []askonce.Channel, concurrency int) error {
	seen := map[string]bool{jobKind: true, notifyKind: true, reachKind: true}
	for _, ch := range channels {
		for _, k := range ch.Kinds() {
			kind := channelKind(ch, k)
			if seen[kind] {
				return fmt.Errorf("dispatch: channel %s sends %s, a kind taken already", ch.Name(), kind)
			}
			seen[kind] = true
			river.AddWorkerArgs(workers, sendArgs{kind: kind}, &sendWorker{ch: ch, kind: k, d: d})
		}
		queues[channelQueue(ch)] = river.QueueConfig{MaxWorkers: concurrency}
	}
	return nil
}

// queueChannels inserts the sends of every channel for ev in tx; a
// gated channel (askonce.GatedChannel) decides on what tx reads.
func (d *Dispatcher) queueChannels(ctx context.Context, tx any, job *askonce.Job, ev askonce.QuestionEvent) error {
	for _, ch := range d.cfg.Channels {
		var sends []askonce.Send
		if g, ok := ch.(askonce.GatedChannel); ok {
			var err error
			if sends, err = g.SendsTx(ctx, txReader{d: d, tx: tx}, job, ev); err != nil {
				return fmt.Errorf("dispatch: %s sends of job %s: %w", ch.Name(), job.ID, err)
			}
		} else {
			sends = ch.Sends(job, ev)
		}
		for _, s := range sends {
			a := sendArgs{kind: channelKind(ch, s.Kind), TenantID: s.TenantID, JobID: s.JobID, To: s.To}
			_, err := d.insertTx(ctx, tx, a, &river.InsertOpts{
				Queue: channelQueue(ch), MaxAttempts: d.cfg.MaxAttempts, UniqueOpts: uniqueForever,
			})
			if err != nil {
				return fmt.Errorf("dispatch: queue %s of job %s: %w", a.Kind(), job.ID, err)
			}
		}
	}
	return nil
}

// txReader is an askonce.TxReader on the transaction of a change: a
// *sql.Tx of the dispatcher's SQLite database or a pgx.Tx.
type txReader struct {
	d  *Dispatcher
	tx any
}

// HasPushConfig implements askonce.TxReader with the SQL layer's query.
func (r txReader) HasPushConfig(ctx context.Context, tenantID, jobID string) (bool, error) {
	return r.exists(ctx, sqlstore.HasPushConfig, tenantID, jobID)
}

// exists reports whether query (placeholders $1, $2, ...; no other '$')
// returns a row. It reads on the transaction's own connection: a SQLite
// database has one connection to write, which the transaction holds.
func (r txReader) exists(ctx context.Context, query string, args ...any) (bool, error) {
	var one int
	var err error
	switch tx := r.tx.(type) {
	case pgx.Tx:
		// pgx prepares and keeps the statement on each connection.
		err = tx.QueryRow(ctx, query, args...).Scan(&one)
		if errors.Is(err, pgx.ErrNoRows) {
			return false, nil
		}
	case *sql.Tx:
		if stmt := r.d.stmt(query); stmt != nil {
			err = tx.StmtContext(ctx, stmt).QueryRowContext(ctx, args...).Scan(&one)
		} else {
			err = tx.QueryRowContext(ctx, sqlstore.Question.Rebind(query), args...).Scan(&one)
		}
		if errors.Is(err, sql.ErrNoRows) {
			return false, nil
		}
	default:
		return false, fmt.Errorf("a %T is not a transaction of the dispatcher's database", r.tx)
	}
	return err == nil, err
}

// stmt returns query prepared on the dispatcher's SQLite database, for
// every transaction to reuse; nil the first time (and until it is
// prepared). Preparing takes the database's one connection to write,
// which the caller's transaction holds: it is done once, after it.
func (d *Dispatcher) stmt(query string) *sql.Stmt {
	if s, ok := d.stmts.Load(query); ok {
		return s.(*sql.Stmt) // nil while it is being prepared
	}
	if _, loaded := d.stmts.LoadOrStore(query, (*sql.Stmt)(nil)); loaded || d.cfg.DB == nil {
		return nil
	}
	go func() {
		s, err := d.cfg.DB.PrepareContext(context.Background(), sqlstore.Question.Rebind(query))
		if err != nil {
			d.log.Warn("dispatch: prepare a channel's read; it is prepared in each transaction", "err", err)
			return
		}
		d.stmts.Store(query, s)
	}()
	return nil
}
