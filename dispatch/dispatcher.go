package dispatch

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/riverqueue/river/rivertype"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/internal/tracing"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// Builder hands a successful job to whatever builds its plan. Deliver
// makes one try: nil means the builder has the job; an error is a failed
// try, retried with backoff. It must respect ctx. Deliver may be called
// again for a job it already accepted (see the package doc), so a builder
// should deduplicate by job id.
type Builder interface {
	Deliver(ctx context.Context, job *askonce.Job) error
	// Name is the builder's kind ("webhook", "command"), for events, logs
	// and metrics.
	Name() string
}

// Defaults of Config.
const (
	DefaultMaxAttempts = 8
	DefaultMaxBackoff  = 5 * time.Minute
	DefaultJobTimeout  = 5 * time.Minute
	DefaultConcurrency = 4
	// DefaultPollInterval is how often River looks for due deliveries
	// (retries, and deliveries left by a stopped process). New deliveries
	// are noticed sooner, through River's notification table.
	DefaultPollInterval = time.Second
)

// queueName and jobKind name askonce's deliveries in River's tables.
const (
	queueName = "askonce_dispatch"
	jobKind   = "askonce_dispatch"
)

// maxDeliveryError caps the DeliveryError stored on a job.
const maxDeliveryError = 4 << 10

// Config configures a Dispatcher.
type Config struct {
	// DB is the pool River keeps its tables in and works from: the
	// store's write pool, sqlite.Store.WriteDB(). That pool has a single
	// connection, so River's statements and transactions queue behind the
	// store's writes (and the reverse) inside database/sql instead of
	// contending for SQLite's file lock: neither side ever sees
	// SQLITE_BUSY. A separate pool on the same file works too, if its DSN
	// has busy_timeout and _txlock=immediate, but then the two sides wait
	// for each other in SQLite's busy handler. With a PostgreSQL store,
	// set Pool instead. One of DB and Pool is required unless Builder
	// and Notify are nil.
	DB *sql.DB
	// Pool is the PostgreSQL pool River keeps its tables in and works
	// from (riverpgxv5): the store's, postgres.Store.Pool(). The store
	// then queues through EnqueuePgx and NotifyPgx
	// (postgres.Options.OnDispatch and OnNotify), in its own
	// transactions.
	Pool *pgxpool.Pool
	// Store is where deliveries read jobs from and record their outcome.
	// Required unless Builder is nil.
	Store askonce.Store
	// Builder receives the jobs. Nil is the "none" builder: Enqueue queues
	// nothing, and builders poll GET /jobs?status=success instead. Set
	// askonce.Engine.NoBuilder with it, so that a success says its
	// DispatchStatus is none rather than a queued that never moves.
	Builder Builder
	// MaxAttempts is the number of tries of one delivery, the first
	// included, before the job's DispatchStatus becomes failed. Zero means
	// DefaultMaxAttempts. It applies to deliveries queued from then on.
	MaxAttempts int
	// Backoff is the wait after the attempt-th failed try (attempt counts
	// from 1). Nil means exponential: 1s, 2s, 4s... capped at
	// DefaultMaxBackoff.
	Backoff func(attempt int) time.Duration
	// PollInterval is how often River looks for due deliveries. Zero means
	// DefaultPollInterval.
	PollInterval time.Duration
	// Concurrency is how many deliveries run at once. Zero means
	// DefaultConcurrency.
	Concurrency int
	// JobTimeout bounds one try, its recording included; the builder's
	// own timeout should be shorter. A try of a process that died is
	// retried JobTimeout plus a minute after it began. Zero means
	// DefaultJobTimeout.
	JobTimeout time.Duration
	// RescueAfter is how long after it began a try of a process that died
	// is given up and retried. It must exceed JobTimeout. Zero means
	// JobTimeout plus a minute.
	RescueAfter time.Duration
	// Logger receives the dispatcher's and River's logs. Nil discards
	// them.
	Logger *slog.Logger
	// OnDelivery, when set, is called after every try with the builder's
	// name, whether the builder accepted the job, and how long the try
	// took: the hook for delivery and failure counters.
	OnDelivery func(builder string, ok bool, d time.Duration)
	// Notify, when set, receives question notifications (question.asked
	// and question.resolved, see [Dispatcher.Notify]) on the same River
	// client, retried like builder deliveries (MaxAttempts, Backoff). Nil:
	// Notify queues nothing.
	Notify *Webhook
	// AnswerURL returns the answer link of the question a job asked, for
	// the question.asked payload, from the job's tenant and id alone
	// (askonce.Engine.QuestionURL): the same on every try, whether or not
	// the question still takes an answer. It is computed when the
	// notification is sent so that no token is ever stored. Nil or "": no
	// answerUrl.
	AnswerURL func(*askonce.Job) string
	// Channels reach the people a job names (askonce.Job.Notify) on
	// the same River client: their sends are queued with question
	// notifications, in the transaction that asks or resolves, even
	// when Notify is nil (see channel.go).
	Channels []askonce.Channel
	// OnReach, when set, is told of every step of a reach policy that
	// ran: "reminder" or "escalation"; the hook for their counters.
	OnReach func(kind string)

	// testOnly makes River skip its production start-up jitter.
	testOnly bool
}

// DefaultBackoff is the default Config.Backoff: 1s after the first failed
// try, doubling after each, capped at DefaultMaxBackoff.
func DefaultBackoff(attempt int) time.Duration {
	if attempt < 1 {
		attempt = 1
	}
	if attempt > 20 {
		return DefaultMaxBackoff
	}
	return min(time.Second<<(attempt-1), DefaultMaxBackoff)
}

// Dispatcher queues the deliveries of successful jobs and runs them. Its
// methods are safe for concurrent use.
type Dispatcher struct {
	cfg    Config
	client riverClient // nil with the none builder
	// One of these is client, by the database's kind.
	sqlClient *river.Client[*sql.Tx]
	pgClient  *river.Client[pgx.Tx]
	log       *slog.Logger
	// stmts holds the SQLite statements of gated channels' reads
	// (txReader), by query.
	stmts sync.Map
}

// riverClient is what the Dispatcher does with its River client whatever
// the database.
type riverClient interface {
	Start(ctx context.Context) error
	Stop(ctx context.Context) error
	StopAndCancel(ctx context.Context) error
}

// New returns a Dispatcher for cfg. Unless cfg.Builder is nil (none), it
// first creates or updates River's tables in cfg.DB (rivermigrate up). It
// does not start working deliveries: Enqueue works from New on, deliveries
// run between Start and Stop.
func New(ctx context.Context, cfg Config) (*Dispatcher, error) {
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	d := &Dispatcher{cfg: cfg, log: log}
	if cfg.Builder == nil && cfg.Notify == nil && len(cfg.Channels) == 0 {
		return d, nil
	}
	if (cfg.DB == nil) == (cfg.Pool == nil) {
		return nil, errors.New("dispatch: one of Config.DB and Config.Pool is required")
	}
	if cfg.Store == nil {
		return nil, errors.New("dispatch: Config.Store is required")
	}
	if cfg.MaxAttempts < 0 || cfg.PollInterval < 0 || cfg.Concurrency < 0 || cfg.JobTimeout < 0 {
		return nil, errors.New("dispatch: negative Config value")
	}
	d.cfg.MaxAttempts = cmpOr(cfg.MaxAttempts, DefaultMaxAttempts)
	d.cfg.PollInterval = cmpOr(cfg.PollInterval, DefaultPollInterval)
	d.cfg.Concurrency = cmpOr(cfg.Concurrency, DefaultConcurrency)
	d.cfg.JobTimeout = cmpOr(cfg.JobTimeout, DefaultJobTimeout)
	if d.cfg.Backoff == nil {
		d.cfg.Backoff = DefaultBackoff
	}

	workers := river.NewWorkers()
	queues := map[string]river.QueueConfig{}
	if cfg.Builder != nil {
		if err := river.AddWorkerSafely(workers, &worker{d: d}); err != nil {
			return nil, fmt.Errorf("dispatch: %w", err)
		}
		queues[queueName] = river.QueueConfig{MaxWorkers: d.cfg.Concurrency}
	}
	if cfg.Notify != nil {
		if err := river.AddWorkerSafely(workers, &notifyWorker{d: d}); err != nil {
			return nil, fmt.Errorf("dispatch: %w", err)
		}
		queues[notifyQueue] = river.QueueConfig{MaxWorkers: d.cfg.Concurrency}
	}
	if err := registerChannels(d, workers, queues, cfg.Channels, d.cfg.Concurrency); err != nil {
		return nil, err
	}
	if d.reaches() {
		if err := river.AddWorkerSafely(workers, &reachWorker{d: d}); err != nil {
			return nil, fmt.Errorf("dispatch: %w", err)
		}
		queues[reachQueue] = river.QueueConfig{MaxWorkers: d.cfg.Concurrency}
	}
	cooldown := min(river.FetchCooldownDefault, d.cfg.PollInterval)
	rc := &river.Config{
		Queues:               queues,
		Workers:              workers,
		MaxAttempts:          d.cfg.MaxAttempts,
		FetchPollInterval:    d.cfg.PollInterval,
		FetchCooldown:        cooldown,
		JobTimeout:           d.cfg.JobTimeout,
		RescueStuckJobsAfter: cmpOr(cfg.RescueAfter, d.cfg.JobTimeout+time.Minute),
		Logger:               log,
		TestOnly:             cfg.testOnly,
	}
	var err error
	if cfg.Pool != nil {
		d.pgClient, err = newClient(ctx, riverpgxv5.New(cfg.Pool), rc, log)
		d.client = d.pgClient
	} else {
		d.sqlClient, err = newClient(ctx, riversqlite.New(cfg.DB), rc, log)
		d.client = d.sqlClient
	}
	if err != nil {
		return nil, err
	}
	return d, nil
}

// newClient creates or updates River's tables (rivermigrate up) and
// returns a client on driver.
func newClient[TTx any](ctx context.Context, driver riverdriver.Driver[TTx], rc *river.Config, log *slog.Logger) (*river.Client[TTx], error) {
	migrator, err := rivermigrate.New(driver, &rivermigrate.Config{Logger: log})
	if err != nil {
		return nil, fmt.Errorf("dispatch: migrate river: %w", err)
	}
	if _, err := migrator.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return nil, fmt.Errorf("dispatch: migrate river: %w", err)
	}
	client, err := river.NewClient(driver, rc)
	if err != nil {
		return nil, fmt.Errorf("dispatch: river client: %w", err)
	}
	return client, nil
}

// insertTx inserts a River job in tx, a *sql.Tx (SQLite) or a pgx.Tx
// (PostgreSQL): the kind of the Dispatcher's database.
func (d *Dispatcher) insertTx(ctx context.Context, tx any, a river.JobArgs, opts *river.InsertOpts) (*rivertype.JobInsertResult, error) {
	switch tx := tx.(type) {
	case *sql.Tx:
		if d.sqlClient != nil {
			return d.sqlClient.InsertTx(ctx, tx, a, opts)
		}
	case pgx.Tx:
		if d.pgClient != nil {
			return d.pgClient.InsertTx(ctx, tx, a, opts)
		}
	}
	return nil, fmt.Errorf("a %T is not a transaction of the dispatcher's database", tx)
}

// sqlTx returns tx as a transaction of the dispatcher's SQLite
// database.
func (d *Dispatcher) sqlTx(tx any) (*sql.Tx, error) {
	stx, ok := tx.(*sql.Tx)
	if !ok || d.sqlClient == nil {
		return nil, fmt.Errorf("a %T is not a transaction of the dispatcher's database", tx)
	}
	return stx, nil
}

func cmpOr[T int | time.Duration](v, def T) T {
	if v == 0 {
		return def
	}
	return v
}

// Start starts working deliveries, those left queued by an earlier process
// included. ctx only carries values: cancelling it does not stop the
// dispatcher, Stop does. With the none builder it does nothing.
func (d *Dispatcher) Start(ctx context.Context) error {
	if d.client == nil {
		return nil
	}
	if err := d.client.Start(context.WithoutCancel(ctx)); err != nil {
		return fmt.Errorf("dispatch: start: %w", err)
	}
	return nil
}

// Stop stops taking new deliveries and waits for those in flight to
// finish and be recorded. If ctx ends first, the deliveries in flight are
// cancelled (a cancelled try is neither counted nor recorded; it runs
// again after a restart) and Stop returns ctx's error once they returned.
// Deliveries still queued stay in the database for the next Start.
func (d *Dispatcher) Stop(ctx context.Context) error {
	if d.client == nil {
		return nil
	}
	err := d.client.Stop(ctx)
	if err == nil || ctx.Err() == nil {
		return err
	}
	hard, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	return errors.Join(err, d.client.StopAndCancel(hard))
}

// Enqueue queues the delivery of job inside tx, the transaction that moves
// job to success; it has the signature of sqlite.Options.OnDispatch. The
// River job is unique per askonce job in every state, so a job is queued
// at most once even if Enqueue runs twice for it. With the none builder it
// does nothing. An error rolls back the caller's transaction.
func (d *Dispatcher) Enqueue(ctx context.Context, tx *sql.Tx, job *askonce.Job) error {
	return d.enqueue(ctx, tx, job)
}

// EnqueuePgx is Enqueue in a PostgreSQL transaction; it has the signature
// of postgres.Options.OnDispatch.
func (d *Dispatcher) EnqueuePgx(ctx context.Context, tx pgx.Tx, job *askonce.Job) error {
	return d.enqueue(ctx, tx, job)
}

func (d *Dispatcher) enqueue(ctx context.Context, tx any, job *askonce.Job) error {
	if d == nil {
		return errors.New("dispatch: no dispatcher yet")
	}
	if d.cfg.Builder == nil {
		return nil
	}
	res, err := d.insertTx(ctx, tx, args{TenantID: job.TenantID, JobID: job.ID, Trace: tracing.Carrier(ctx)}, &river.InsertOpts{
		Queue:       queueName,
		MaxAttempts: d.cfg.MaxAttempts,
		UniqueOpts:  uniqueForever,
	})
	if err != nil {
		return fmt.Errorf("dispatch: queue job %s: %w", job.ID, err)
	}
	if res.UniqueSkippedAsDuplicate {
		d.log.WarnContext(ctx, "dispatch: job already queued", "job", job.ID)
	}
	return nil
}

// uniqueForever makes a River job unique by its args in every state,
// discarded and cancelled included: a delivery that gave up is not queued
// again.
var uniqueForever = river.UniqueOpts{
	ByArgs: true,
	ByState: []rivertype.JobState{
		rivertype.JobStateAvailable, rivertype.JobStateCancelled, rivertype.JobStateCompleted,
		rivertype.JobStateDiscarded, rivertype.JobStatePending, rivertype.JobStateRetryable,
		rivertype.JobStateRunning, rivertype.JobStateScheduled,
	},
}

// Hook joins a store, whose OnDispatch hook is fixed when it opens, to the
// Dispatcher made after it from the store's write pool. Until Set, its
// Enqueue fails, which rolls back the success that called it. The zero
// value is ready to use.
type Hook struct {
	d atomic.Pointer[Dispatcher]
}

// Set makes h forward to d.
func (h *Hook) Set(d *Dispatcher) { h.d.Store(d) }

// Enqueue forwards to the Dispatcher given to Set; it is the function to
// give sqlite.Options.OnDispatch.
func (h *Hook) Enqueue(ctx context.Context, tx *sql.Tx, job *askonce.Job) error {
	return h.d.Load().Enqueue(ctx, tx, job)
}

// Notify forwards to the Dispatcher given to Set; it is the function to
// give sqlite.Options.OnNotify.
func (h *Hook) Notify(ctx context.Context, tx *sql.Tx, job *askonce.Job, ev askonce.QuestionEvent) error {
	return h.d.Load().Notify(ctx, tx, job, ev)
}

// EnqueuePgx forwards to the Dispatcher given to Set; it is the function
// to give postgres.Options.OnDispatch.
func (h *Hook) EnqueuePgx(ctx context.Context, tx pgx.Tx, job *askonce.Job) error {
	return h.d.Load().EnqueuePgx(ctx, tx, job)
}

// NotifyPgx forwards to the Dispatcher given to Set; it is the function
// to give postgres.Options.OnNotify.
func (h *Hook) NotifyPgx(ctx context.Context, tx pgx.Tx, job *askonce.Job, ev askonce.QuestionEvent) error {
	return h.d.Load().NotifyPgx(ctx, tx, job, ev)
}

// args is a River job: the delivery of one askonce job.
type args struct {
	TenantID string `json:"tenantId" river:"unique"`
	JobID    string `json:"jobId" river:"unique"`
	// Trace is the W3C trace context of the transaction that queued
	// the delivery, so that the delivery joins its trace. Not part of
	// the job's uniqueness.
	Trace map[string]string `json:"trace,omitempty"`
}

func (args) Kind() string { return jobKind }

// succeededAt is a builder whose delivery says when the job succeeded
// (the Webhook's payload timestamp).
type succeededAt interface {
	deliverAt(ctx context.Context, job *askonce.Job, at time.Time) error
}

// worker runs deliveries.
type worker struct {
	river.WorkerDefaults[args]
	d *Dispatcher
}

// NextRetry applies Config.Backoff after the job's Attempt-th failed try.
func (w *worker) NextRetry(rj *river.Job[args]) time.Time {
	return time.Now().Add(w.d.cfg.Backoff(rj.Attempt))
}

// Work makes one delivery try and records it.
//
// The try is a span, dispatch.deliver, in the trace that queued it; the
// builder's work (a webhook's traceparent) carries it on.
func (w *worker) Work(ctx context.Context, rj *river.Job[args]) (err error) {
	ctx, span := startSpan(ctx, "dispatch.deliver", rj.Args.Trace, rj.Args.JobID, rj.Attempt)
	defer func() { endSpan(span, err) }()
	d := w.d
	log := d.log.With("job", rj.Args.JobID, "attempt", rj.Attempt)
	j, err := d.cfg.Store.GetJob(ctx, rj.Args.TenantID, rj.Args.JobID)
	switch {
	case askonce.ErrorCode(err) == askonce.ENOTFOUND:
		return river.JobCancel(err)
	case err != nil:
		return w.infra(ctx, rj, fmt.Errorf("load job: %w", err))
	}
	switch {
	case j.Dispatch == askonce.DispatchDelivered || j.Dispatch == askonce.DispatchFailed:
		// Recorded by an earlier run (this one was re-run after a
		// crash before River heard of the outcome): nothing to do.
		return nil
	case j.Status != askonce.StatusSuccess:
		return river.JobCancel(fmt.Errorf("job %s is %s, not success", j.ID, j.Status))
	}

	start := time.Now()
	var derr error
	if at, ok := d.cfg.Builder.(succeededAt); ok {
		// Queued in the success transaction: when the job succeeded,
		// the same on every try.
		derr = at.deliverAt(ctx, j, rj.CreatedAt)
	} else {
		derr = d.cfg.Builder.Deliver(ctx, j)
	}
	took := time.Since(start)
	if derr != nil && errors.Is(ctx.Err(), context.Canceled) {
		// Interrupted by a stop: River makes the job available again
		// without counting the attempt, and so do we.
		log.InfoContext(ctx, "dispatch: delivery interrupted", "err", derr)
		return ctx.Err()
	}
	if d.cfg.OnDelivery != nil {
		d.cfg.OnDelivery(d.cfg.Builder.Name(), derr == nil, took)
	}
	final := derr != nil && rj.Attempt >= rj.MaxAttempts
	// The outcome is recorded even if the try's context ended (a
	// timeout): losing a delivered outcome would mean delivering again.
	if err := w.record(context.WithoutCancel(ctx), j, derr, final, took); err != nil {
		if derr == nil {
			log.ErrorContext(ctx, "dispatch: delivered, but recording it failed; it will be delivered again", "err", err)
		}
		return w.infra(ctx, rj, fmt.Errorf("record delivery: %w", err))
	}
	if derr != nil {
		log.InfoContext(ctx, "dispatch: delivery failed", "err", derr, "final", final)
		return derr
	}
	log.InfoContext(ctx, "dispatch: delivered", "took", took)
	return nil
}

// infra handles a failure that is the store's, not the builder's: the try
// is snoozed instead of retried, so it uses none of the job's attempts.
func (w *worker) infra(ctx context.Context, rj *river.Job[args], err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	w.d.log.ErrorContext(ctx, "dispatch: "+err.Error(), "job", rj.Args.JobID)
	return river.JobSnooze(w.d.cfg.Backoff(rj.Attempt))
}

// record writes the outcome of one try on the job with a compare-and-set,
// re-reading the job when another write won.
func (w *worker) record(ctx context.Context, j *askonce.Job, derr error, final bool, took time.Duration) error {
	store := w.d.cfg.Store
	for range 20 {
		if j.Dispatch == askonce.DispatchDelivered || j.Dispatch == askonce.DispatchFailed {
			return nil // another run recorded an outcome
		}
		next := j.Clone()
		next.DeliveryAttempts++
		data := map[string]any{
			"builder":    w.d.cfg.Builder.Name(),
			"attempt":    next.DeliveryAttempts,
			"durationMs": took.Milliseconds(),
		}
		ev := askonce.Event{TenantID: j.TenantID, JobID: j.ID, Type: askonce.EventDelivered}
		if derr == nil {
			next.Dispatch = askonce.DispatchDelivered
			next.DeliveryError = ""
		} else {
			next.DeliveryError = capText(derr.Error(), maxDeliveryError)
			if final {
				next.Dispatch = askonce.DispatchFailed
			}
			ev.Type = askonce.EventDeliveryFailed
			data["error"] = next.DeliveryError
			data["final"] = final
		}
		ev.Data, _ = json.Marshal(data)
		err := store.UpdateJob(ctx, &askonce.Change{Job: next, Events: []askonce.Event{ev}})
		if askonce.ErrorCode(err) != askonce.ECONFLICT {
			return err
		}
		var ae *askonce.Error
		if errors.As(err, &ae) && ae.Job != nil {
			j = ae.Job
		} else if j, err = store.GetJob(ctx, j.TenantID, j.ID); err != nil {
			return err
		}
	}
	return fmt.Errorf("job %s kept changing", j.ID)
}

// TracerName names the OpenTelemetry tracer of the dispatcher's spans: one
// per delivery or notification try. The tracer comes from the global
// provider, a no-op unless tracing is set up.
const TracerName = "github.com/askonce/askonce/dispatch"

// startSpan starts the consumer span of one try of a queued job, a child
// of the span whose W3C trace context was stored in carrier when it was
// queued.
func startSpan(ctx context.Context, name string, carrier map[string]string, jobID string, attempt int) (context.Context, trace.Span) {
	return otel.Tracer(TracerName).Start(tracing.FromCarrier(ctx, carrier), name,
		trace.WithSpanKind(trace.SpanKindConsumer),
		trace.WithAttributes(attribute.String("askonce.job.id", jobID), attribute.Int("askonce.delivery.attempt", attempt)))
}

// endSpan marks a failed try's span and ends it.
func endSpan(span trace.Span, err error) {
	if err != nil {
		span.SetStatus(codes.Error, err.Error())
	}
	span.End()
}

func capText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") // the cut may split a UTF-8 sequence
}
