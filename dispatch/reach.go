package dispatch

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/internal/tracing"
)

// A job's reach policy (askonce.Recipients.Steps) runs on the same
// River client as its sends. The transaction that asks inserts one River
// job per step, scheduled for the step's time (askonce.ReachStep.At),
// unique per job and step in every state; a job without steps inserts
// none. When a step is due, River runs it once across every process
// on the database: it reads the job, and if the question still waits,
// queues the channels' sends of the step (askonce.Reacher), unique per
// job, step and recipient, and the question.reminded webhook, records a
// reminded or escalated event, and tells Config.OnReach. The
// transaction that stops the question pending (answered, declined,
// cancelled, expired) cancels the steps not yet run and the step sends
// not yet made, so none goes out after it; a send already under way
// reads the job before it sends and sends nothing to a settled job.

// reachQueue and reachKind name the steps in River's tables.
const (
	reachQueue = "askonce_reach"
	reachKind  = "askonce_reach_step"
)

// reachArgs is a River job: one step of one job's reach policy.
type reachArgs struct {
	TenantID string `json:"tenantId" river:"unique"`
	JobID    string `json:"jobId" river:"unique"`
	// Step counts from 1.
	Step int `json:"step" river:"unique"`
	// AskedAt is when the job asked, for how long it waited.
	AskedAt time.Time         `json:"askedAt"`
	Trace   map[string]string `json:"trace,omitempty"`
}

func (reachArgs) Kind() string { return reachKind }

// reaches reports whether the dispatcher runs reach policies: when it
// sends question webhooks or has channels, which a step would use. A
// dispatcher of a builder alone has no step queue to poll.
func (d *Dispatcher) reaches() bool { return d.cfg.Notify != nil || len(d.cfg.Channels) > 0 }

// hasSteps reports whether job has a reach policy the dispatcher can
// run.
func (d *Dispatcher) hasSteps(job *askonce.Job) bool {
	return d.client != nil && d.reaches() && job.Notify != nil && len(job.Notify.Steps) > 0
}

// scheduleReach inserts the steps of job, which just asked, in tx.
func (d *Dispatcher) scheduleReach(ctx context.Context, tx any, job *askonce.Job) error {
	if !d.hasSteps(job) {
		return nil
	}
	asked := job.UpdatedAt.UTC()
	if asked.IsZero() {
		asked = time.Now().UTC()
	}
	var expires *time.Time
	if job.Question != nil {
		expires = job.Question.ExpiresAt
	}
	var params []river.InsertManyParams
	for i, s := range job.Notify.Steps {
		at, ok := s.At(asked, expires)
		if !ok {
			continue // past this question's expiry: never run
		}
		params = append(params, river.InsertManyParams{
			Args:       reachArgs{TenantID: job.TenantID, JobID: job.ID, Step: i + 1, AskedAt: asked, Trace: tracing.Carrier(ctx)},
			InsertOpts: &river.InsertOpts{Queue: reachQueue, MaxAttempts: d.cfg.MaxAttempts, ScheduledAt: at, UniqueOpts: uniqueForever},
		})
	}
	if len(params) == 0 {
		return nil
	}
	var err error
	switch tx := tx.(type) {
	case pgx.Tx:
		_, err = d.pgClient.InsertManyTx(ctx, tx, params)
	default:
		var stx *sql.Tx
		if stx, err = d.sqlTx(tx); err == nil {
			_, err = d.sqlClient.InsertManyTx(ctx, stx, params)
		}
	}
	if err != nil {
		return fmt.Errorf("dispatch: schedule the steps of job %s: %w", job.ID, err)
	}
	return nil
}

// cancelReach cancels, in tx, the steps of job not yet run and the step
// sends not yet made.
func (d *Dispatcher) cancelReach(ctx context.Context, tx any, job *askonce.Job) error {
	if !d.hasSteps(job) {
		return nil
	}
	params := river.NewJobListParams().
		States(rivertype.JobStateAvailable, rivertype.JobStateScheduled, rivertype.JobStateRetryable, rivertype.JobStatePending).
		Where("args->>'jobId' = @job_id AND args->>'tenantId' = @tenant_id AND args->>'step' IS NOT NULL",
			river.NamedArgs{"job_id": job.ID, "tenant_id": job.TenantID}).
		First(10 * (askonce.MaxReachSteps + 1) * (askonce.MaxEmailRecipients + 2))
	var n int
	var err error
	switch tx := tx.(type) {
	case pgx.Tx:
		n, err = cancelJobs(ctx, d.pgClient, tx, params)
	default:
		var stx *sql.Tx
		if stx, err = d.sqlTx(tx); err == nil {
			n, err = cancelJobs(ctx, d.sqlClient, stx, params)
		}
	}
	if err != nil {
		return fmt.Errorf("dispatch: cancel the steps of job %s: %w", job.ID, err)
	}
	if n > 0 {
		d.log.InfoContext(ctx, "dispatch: reach steps cancelled", "job", job.ID, "n", n)
	}
	return nil
}

// cancelJobs cancels, in tx, the River jobs params lists, and returns
// how many it found.
func cancelJobs[TTx any](ctx context.Context, c *river.Client[TTx], tx TTx, params *river.JobListParams) (int, error) {
	res, err := c.JobListTx(ctx, tx, params)
	if err != nil {
		return 0, err
	}
	for _, r := range res.Jobs {
		if _, err := c.JobCancelTx(ctx, tx, r.ID); err != nil && !errors.Is(err, river.ErrNotFound) {
			return 0, err
		}
	}
	return len(res.Jobs), nil
}

// reachWorker runs the steps.
type reachWorker struct {
	river.WorkerDefaults[reachArgs]
	d *Dispatcher
}

// NextRetry applies Config.Backoff.
func (w *reachWorker) NextRetry(rj *river.Job[reachArgs]) time.Time {
	return time.Now().Add(w.d.cfg.Backoff(rj.Attempt))
}

// Work runs one step: nothing when the question no longer waits.
func (w *reachWorker) Work(ctx context.Context, rj *river.Job[reachArgs]) (err error) {
	ctx, span := startSpan(ctx, "dispatch.reach", rj.Args.Trace, rj.Args.JobID, rj.Attempt)
	defer func() { endSpan(span, err) }()
	d, a := w.d, rj.Args
	j, err := d.cfg.Store.GetJob(ctx, a.TenantID, a.JobID)
	switch {
	case askonce.ErrorCode(err) == askonce.ENOTFOUND:
		return river.JobCancel(err)
	case err != nil:
		if ctx.Err() != nil {
			return ctx.Err()
		}
		d.log.ErrorContext(ctx, "dispatch: reach step: "+err.Error(), "job", a.JobID)
		return river.JobSnooze(d.cfg.Backoff(rj.Attempt))
	}
	if j.Status != askonce.StatusPending || j.Notify == nil || a.Step > len(j.Notify.Steps) {
		return nil // answered meanwhile: a job asks once (rule 3), so this step is void
	}
	remind, escalate := j.Notify.Step(a.Step)
	var params []river.InsertManyParams
	for _, ch := range d.cfg.Channels {
		r, ok := ch.(askonce.Reacher)
		if !ok {
			continue
		}
		for _, s := range r.StepSends(j, a.Step) {
			params = append(params, river.InsertManyParams{
				Args:       sendArgs{kind: channelKind(ch, s.Kind), TenantID: s.TenantID, JobID: s.JobID, To: s.To, Step: a.Step},
				InsertOpts: &river.InsertOpts{Queue: channelQueue(ch), MaxAttempts: d.cfg.MaxAttempts, UniqueOpts: uniqueForever},
			})
		}
	}
	kind := "reminder"
	if !escalate.Empty() {
		kind = "escalation"
	}
	if d.cfg.Notify != nil {
		params = append(params, river.InsertManyParams{
			Args: notifyArgs{TenantID: j.TenantID, JobID: j.ID, Event: askonce.QuestionReminded, Step: a.Step, Reach: kind,
				Status: j.Status, ClarificationStatus: j.ClarificationStatus, At: time.Now().UTC(), AskedAt: &a.AskedAt, Trace: tracing.Carrier(ctx)},
			InsertOpts: &river.InsertOpts{Queue: notifyQueue, MaxAttempts: d.cfg.MaxAttempts, UniqueOpts: uniqueForever},
		})
	}
	fresh := len(params) == 0
	if len(params) > 0 {
		res, err := d.insertMany(ctx, params)
		if err != nil {
			d.log.ErrorContext(ctx, "dispatch: reach step: "+err.Error(), "job", a.JobID)
			return river.JobSnooze(d.cfg.Backoff(rj.Attempt))
		}
		for _, r := range res {
			fresh = fresh || !r.UniqueSkippedAsDuplicate
		}
	}
	if !fresh {
		return nil // a run that died after queueing recorded it, or will not: its sends went
	}
	ev := askonce.Event{TenantID: j.TenantID, JobID: j.ID, Type: askonce.EventReminded, At: time.Now()}
	data := askonce.ReachData{Step: a.Step, WaitedSeconds: int64(time.Since(a.AskedAt).Seconds())}
	for _, s := range remind.Slack {
		data.Slack = append(data.Slack, s.Conversation())
	}
	data.Email = remind.Email
	for _, s := range escalate.Slack {
		data.NewSlack = append(data.NewSlack, s.Conversation())
	}
	data.NewEmail = escalate.Email
	if kind == "escalation" {
		ev.Type = askonce.EventEscalated
	}
	ev.Data, _ = json.Marshal(data)
	if ea, ok := d.cfg.Store.(askonce.EventAppender); ok {
		if err := ea.AppendEvent(ctx, ev); err != nil {
			d.log.WarnContext(ctx, "dispatch: record the reach step", "job", j.ID, "err", err)
		}
	}
	if d.cfg.OnReach != nil {
		d.cfg.OnReach(kind)
	}
	d.log.InfoContext(ctx, "dispatch: reach step", "job", j.ID, "step", a.Step, "kind", kind)
	return nil
}

// insertMany inserts params outside any transaction of the caller's.
func (d *Dispatcher) insertMany(ctx context.Context, params []river.InsertManyParams) ([]*rivertype.JobInsertResult, error) {
	if d.pgClient != nil {
		return d.pgClient.InsertMany(ctx, params)
	}
	return d.sqlClient.InsertMany(ctx, params)
}

// reachFailed records that a step's send failed for good.
func (d *Dispatcher) reachFailed(ctx context.Context, ch askonce.Channel, a sendArgs, kind string, err error) {
	ea, ok := d.cfg.Store.(askonce.EventAppender)
	if !ok {
		return
	}
	data, _ := json.Marshal(map[string]any{"step": a.Step, "channel": ch.Name(), "kind": kind, "to": a.To, "error": capText(err.Error(), 1<<10)})
	ev := askonce.Event{TenantID: a.TenantID, JobID: a.JobID, Type: askonce.EventReachFailed, At: time.Now(), Data: data}
	if aerr := ea.AppendEvent(context.WithoutCancel(ctx), ev); aerr != nil {
		d.log.WarnContext(ctx, "dispatch: record a failed reach send", "job", a.JobID, "err", aerr)
	}
}

// RemindedEvent is the body of a question.reminded notification: a step
// of the job's reach policy ran while the question waited.
type RemindedEvent struct {
	// Type is "question.reminded".
	Type     string `json:"type"`
	JobID    string `json:"jobId"`
	TenantID string `json:"tenantId"`
	Title    string `json:"title"`
	// Step is the step of the policy, from 1; Reach what it did:
	// "reminder" or "escalation".
	Step  int    `json:"step"`
	Reach string `json:"reach"`
	// Question is the job's question, with its expiry.
	Question NotifiedQuestion `json:"question"`
	// AskedAt is when the job asked; WaitedSeconds how long the
	// question had waited when the step ran (At).
	AskedAt       time.Time `json:"askedAt"`
	WaitedSeconds int64     `json:"waitedSeconds"`
	// AnswerURL is the question's answer link, as in question.asked.
	AnswerURL string    `json:"answerUrl,omitempty"`
	At        time.Time `json:"at"`
}

// remindedBody renders a question.reminded event, the same bytes on every
// try; nil when the question no longer waits (nothing is sent).
func (w *notifyWorker) remindedBody(ctx context.Context, a notifyArgs) ([]byte, error) {
	j, err := w.d.cfg.Store.GetJob(ctx, a.TenantID, a.JobID)
	if err != nil {
		return nil, err
	}
	if j.Status != askonce.StatusPending || j.Question == nil || a.AskedAt == nil {
		return nil, nil
	}
	q := j.Question
	ev := RemindedEvent{
		Type: string(a.Event), JobID: j.ID, TenantID: j.TenantID, Title: j.Title, Step: a.Step, Reach: a.Reach,
		Question: NotifiedQuestion{Text: q.Text, Type: q.Type, Options: q.Options, Default: q.Default, AllowOther: q.AllowOther, ExpiresAt: q.ExpiresAt},
		AskedAt:  a.AskedAt.UTC(), WaitedSeconds: int64(a.At.Sub(*a.AskedAt).Seconds()), At: a.At,
	}
	if w.d.cfg.AnswerURL != nil {
		ev.AnswerURL = w.d.cfg.AnswerURL(j)
	}
	return json.Marshal(ev)
}
