package dispatch

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/internal/tracing"
)

// Question notifications tell someone that a job asks a human (so that a
// person sees the question and its answer link where they are) and that it
// stopped asking. They travel like builder deliveries: the store calls its
// OnNotify hook inside the transaction that moves the job into or out of
// pending, [Dispatcher.Notify] inserts a River job there (unique per job
// and event), and a worker POSTs the event to Config.Notify with Standard
// Webhooks headers, retried with Config.Backoff up to Config.MaxAttempts.
// The webhook-id is "<jobId>:<event type>", the same on every retry; a
// receiver that remembers the ids it accepted gets each event exactly
// once.

// notifyQueue and notifyKind name question notifications in River's
// tables.
const (
	notifyQueue = "askonce_notify"
	notifyKind  = "askonce_question_notify"
)

// AskedEvent is the body of a question.asked notification: a job went
// pending with a question for a human.
type AskedEvent struct {
	// Type is "question.asked".
	Type      string `json:"type"`
	JobID     string `json:"jobId"`
	TenantID  string `json:"tenantId"`
	SessionID string `json:"sessionId"`
	Title     string `json:"title"`
	// Question is the job's one question.
	Question NotifiedQuestion `json:"question"`
	// AnswerURL opens the answer page, with no API key: treat it as a
	// password. Absent when the server has no link secret, or when the
	// question was resolved before this notification went out.
	AnswerURL string `json:"answerUrl,omitempty"`
	// At is when the job asked.
	At time.Time `json:"at"`
}

// NotifiedQuestion is the question in an AskedEvent.
type NotifiedQuestion struct {
	Text       string               `json:"text"`
	Type       askonce.QuestionType `json:"type"`
	Options    []string             `json:"options,omitempty"`
	Default    string               `json:"default,omitempty"`
	AllowOther bool                 `json:"allowOther,omitempty"`
	ExpiresAt  *time.Time           `json:"expiresAt,omitempty"`
}

// ResolvedEvent is the body of a question.resolved notification: the job
// stopped pending. Status, ClarificationStatus and Source are the job's
// right after that change (an answered managed job is planning again; a
// cancelled or expired one has no source).
type ResolvedEvent struct {
	// Type is "question.resolved".
	Type                string                      `json:"type"`
	JobID               string                      `json:"jobId"`
	Status              askonce.Status              `json:"status"`
	ClarificationStatus askonce.ClarificationStatus `json:"clarificationStatus"`
	Source              askonce.Source              `json:"source,omitempty"`
	At                  time.Time                   `json:"at"`
	// AnsweredVia and AnsweredBy are who answered or declined
	// (askonce.Job.AnsweredVia, AnsweredBy), when a person did.
	AnsweredVia string `json:"answeredVia,omitempty"`
	AnsweredBy  string `json:"answeredBy,omitempty"`
	// ExpiryNote says plainly that nobody answered in time and whether
	// the default was used or the job expired (askonce.Job.ExpiryNote).
	ExpiryNote string `json:"expiryNote,omitempty"`
}

// notifyArgs is a River job: one question notification. Only the tenant,
// job and event make it unique; the rest is the job's state at the change,
// for question.resolved. It never holds an answer token.
type notifyArgs struct {
	TenantID            string                      `json:"tenantId" river:"unique"`
	JobID               string                      `json:"jobId" river:"unique"`
	Event               askonce.QuestionEvent       `json:"event" river:"unique"`
	Status              askonce.Status              `json:"status"`
	ClarificationStatus askonce.ClarificationStatus `json:"clarificationStatus"`
	Source              askonce.Source              `json:"source,omitempty"`
	At                  time.Time                   `json:"at"`
	// SessionID, Title and Question are question.asked's, as the job
	// asked: the payload is made from them on every try, so that every
	// try sends the same bytes. Question is nil in notifications queued
	// by an askonce that did not keep them; those read the job.
	SessionID string            `json:"sessionId,omitempty"`
	Title     string            `json:"title,omitempty"`
	Question  *NotifiedQuestion `json:"question,omitempty"`
	// Trace is the W3C trace context of the transaction that queued
	// the notification (see args.Trace).
	Trace map[string]string `json:"trace,omitempty"`
	// Step, Reach and AskedAt are question.reminded's: the step of the
	// reach policy (from 1), what it did ("reminder", "escalation") and
	// when the job asked.
	Step    int        `json:"step,omitempty" river:"unique"`
	Reach   string     `json:"reach,omitempty"`
	AskedAt *time.Time `json:"askedAt,omitempty"`

	// AnsweredVia and AnsweredBy are the job's, for question.resolved.
	AnsweredVia string `json:"answeredVia,omitempty"`
	AnsweredBy  string `json:"answeredBy,omitempty"`
	// ExpiryNote is the job's (askonce.Job.ExpiryNote), for
	// question.resolved.
	ExpiryNote string `json:"expiryNote,omitempty"`
}

func (notifyArgs) Kind() string { return notifyKind }

// Notify queues the question notification ev of job inside tx, the
// transaction that moves job into (question.asked) or out of
// (question.resolved) pending; it has the signature of
// sqlite.Options.OnNotify. Each event is queued at most once per job.
// Without Config.Notify it does nothing. An error rolls back the caller's
// transaction.
func (d *Dispatcher) Notify(ctx context.Context, tx *sql.Tx, job *askonce.Job, ev askonce.QuestionEvent) error {
	return d.notify(ctx, tx, job, ev)
}

// NotifyPgx is Notify in a PostgreSQL transaction; it has the signature of
// postgres.Options.OnNotify.
func (d *Dispatcher) NotifyPgx(ctx context.Context, tx pgx.Tx, job *askonce.Job, ev askonce.QuestionEvent) error {
	return d.notify(ctx, tx, job, ev)
}

func (d *Dispatcher) notify(ctx context.Context, tx any, job *askonce.Job, ev askonce.QuestionEvent) error {
	if d == nil {
		return errors.New("dispatch: no dispatcher yet")
	}
	if err := d.queueChannels(ctx, tx, job, ev); err != nil {
		return err
	}
	switch ev {
	case askonce.QuestionAsked:
		if err := d.scheduleReach(ctx, tx, job); err != nil {
			return err
		}
	case askonce.QuestionResolved:
		if err := d.cancelReach(ctx, tx, job); err != nil {
			return err
		}
	}
	if d.cfg.Notify == nil {
		return nil
	}
	a := notifyArgs{
		TenantID: job.TenantID, JobID: job.ID, Event: ev,
		Status: job.Status, ClarificationStatus: job.ClarificationStatus, Source: job.AnswerSource,
		At: job.UpdatedAt.UTC(), Trace: tracing.Carrier(ctx),
		AnsweredVia: job.AnsweredVia, AnsweredBy: job.AnsweredBy, ExpiryNote: job.ExpiryNote(),
	}
	if q := job.Question; ev == askonce.QuestionAsked && q != nil {
		a.SessionID, a.Title = job.SessionID, job.Title
		a.Question = &NotifiedQuestion{Text: q.Text, Type: q.Type, Options: q.Options,
			Default: q.Default, AllowOther: q.AllowOther, ExpiresAt: q.ExpiresAt}
	}
	_, err := d.insertTx(ctx, tx, a, &river.InsertOpts{
		Queue: notifyQueue, MaxAttempts: d.cfg.MaxAttempts, UniqueOpts: uniqueForever,
	})
	if err != nil {
		return fmt.Errorf("dispatch: queue %s of job %s: %w", ev, job.ID, err)
	}
	return nil
}

// notifyWorker sends question notifications.
type notifyWorker struct {
	river.WorkerDefaults[notifyArgs]
	d *Dispatcher
}

// NextRetry applies Config.Backoff, as for builder deliveries.
func (w *notifyWorker) NextRetry(rj *river.Job[notifyArgs]) time.Time {
	return time.Now().Add(w.d.cfg.Backoff(rj.Attempt))
}

// Work sends one notification.
func (w *notifyWorker) Work(ctx context.Context, rj *river.Job[notifyArgs]) (err error) {
	ctx, span := startSpan(ctx, "dispatch.notify", rj.Args.Trace, rj.Args.JobID, rj.Attempt)
	defer func() { endSpan(span, err) }()
	d, a := w.d, rj.Args
	log := d.log.With("job", a.JobID, "event", a.Event, "attempt", rj.Attempt)
	if a.Event != askonce.QuestionAsked && a.Event != askonce.QuestionResolved && a.Event != askonce.QuestionReminded {
		return river.JobCancel(fmt.Errorf("unknown notification %q", a.Event))
	}
	body, err := w.body(ctx, a)
	switch {
	case askonce.ErrorCode(err) == askonce.ENOTFOUND:
		return river.JobCancel(err)
	case err != nil:
		if ctx.Err() != nil {
			return ctx.Err()
		}
		log.ErrorContext(ctx, "dispatch: notification: "+err.Error())
		return river.JobSnooze(d.cfg.Backoff(rj.Attempt))
	}
	if body == nil {
		return nil // a reminder of a question answered meanwhile
	}
	id := a.JobID + ":" + string(a.Event)
	if a.Step > 0 {
		id += ":" + strconv.Itoa(a.Step)
	}
	err = d.cfg.Notify.post(ctx, id, d.cfg.Notify.now(), body, nil)
	switch {
	case err != nil && errors.Is(ctx.Err(), context.Canceled):
		log.InfoContext(ctx, "dispatch: notification interrupted", "err", err)
		return ctx.Err()
	case err != nil:
		log.WarnContext(ctx, "dispatch: notification failed", "err", err, "final", rj.Attempt >= rj.MaxAttempts)
		return err
	}
	log.InfoContext(ctx, "dispatch: notification sent")
	return nil
}

// body renders the event from what was queued, the same bytes on every
// try: question.asked carries the question as asked and the answer link
// derived from the job's id (AnswerURL), live or not by the time it is
// sent.
func (w *notifyWorker) body(ctx context.Context, a notifyArgs) ([]byte, error) {
	if a.Event == askonce.QuestionReminded {
		return w.remindedBody(ctx, a)
	}
	if a.Event == askonce.QuestionResolved {
		return json.Marshal(ResolvedEvent{
			Type: string(a.Event), JobID: a.JobID, Status: a.Status,
			ClarificationStatus: a.ClarificationStatus, Source: a.Source, At: a.At,
			AnsweredVia: a.AnsweredVia, AnsweredBy: a.AnsweredBy, ExpiryNote: a.ExpiryNote,
		})
	}
	if a.Question != nil {
		ev := AskedEvent{
			Type: string(a.Event), JobID: a.JobID, TenantID: a.TenantID, SessionID: a.SessionID,
			Title: a.Title, Question: *a.Question, At: a.At,
		}
		if w.d.cfg.AnswerURL != nil {
			ev.AnswerURL = w.d.cfg.AnswerURL(&askonce.Job{TenantID: a.TenantID, ID: a.JobID})
		}
		return json.Marshal(ev)
	}
	// Queued without the question: the job tells it, and the link while
	// the question waits.
	j, err := w.d.cfg.Store.GetJob(ctx, a.TenantID, a.JobID)
	if err != nil {
		return nil, err
	}
	ev := AskedEvent{
		Type: string(a.Event), JobID: j.ID, TenantID: j.TenantID, SessionID: j.SessionID,
		Title: j.Title, At: a.At,
	}
	if q := j.Question; q != nil {
		ev.Question = NotifiedQuestion{Text: q.Text, Type: q.Type, Options: q.Options,
			Default: q.Default, AllowOther: q.AllowOther, ExpiresAt: q.ExpiresAt}
	}
	if w.d.cfg.AnswerURL != nil && j.Status == askonce.StatusPending {
		ev.AnswerURL = w.d.cfg.AnswerURL(j)
	}
	return json.Marshal(ev)
}
