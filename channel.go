package askonce

import (
	"context"
	"fmt"
	"time"
)

// Channel reaches the people a job names (Job.Notify) when the job asks
// and when it settles: packages slack and email implement it, package
// dispatch runs it. Its sends are queued in the transaction that moves
// the job into or out of pending, each at most once, so a question is
// never stored without them, and each is tried until it succeeds or
// runs out of tries.
type Channel interface {
	// Name names the channel ("slack", "email"), as in
	// Notification.Channel.
	Name() string
	// Kinds lists every Send.Kind the channel makes, so that sends an
	// earlier process queued find their sender.
	Kinds() []string
	// Sends returns the sends that tell job's recipients of ev: none
	// when the job names no one on this channel.
	Sends(job *Job, ev QuestionEvent) []Send
	// Send makes one try of s. An error is a failed try, tried again
	// after Backoff(s.Attempt), unless it is a *SendSnoozeError (tried
	// again after its wait, the try not counted) or a
	// *SendCancelError (never tried again).
	Send(ctx context.Context, s Send) error
	// Backoff is the wait after the attempt-th failed try (attempt
	// counts from 1).
	Backoff(attempt int) time.Duration
}

// GatedChannel is a Channel whose sends of a change depend on what the
// store holds when the change is written: A2A push queues a task's POSTs
// only when the task has a push config. Package dispatch calls SendsTx
// in place of Sends, in the change's transaction, so that a channel
// nobody uses on a job queues nothing for it.
type GatedChannel interface {
	Channel
	// SendsTx returns Sends(job, ev), or none when what r reads in the
	// change's transaction says there is nobody to tell.
	SendsTx(ctx context.Context, r TxReader, job *Job, ev QuestionEvent) ([]Send, error)
}

// TxReader reads what a gated channel decides on, in the transaction
// of a job's change (see GatedChannel), on SQLite and PostgreSQL alike.
type TxReader interface {
	// HasPushConfig reports whether the job has an A2A push config.
	HasPushConfig(ctx context.Context, tenantID, jobID string) (bool, error)
}

// Send is one message a Channel sends about a job: what the queue keeps.
type Send struct {
	// Kind is what is sent, in the channel's words ("post",
	// "question", "outcome"): one of its Kinds.
	Kind     string
	TenantID string
	JobID    string
	// To is the recipient, for a channel that sends to each of several;
	// "" for one that sends once per job.
	To string
	// Step, when set, is the step of the job's reach policy (from 1)
	// that made the send: a reminder or an escalation (see Reacher).
	Step int
	// Attempt counts the tries of this send, from 1.
	Attempt int
}

// SendSnoozeError is returned by Channel.Send for a send to be tried
// again after Wait without counting the try: Slack's Retry-After, or an
// outcome whose job is still planning.
type SendSnoozeError struct{ Wait time.Duration }

func (e *SendSnoozeError) Error() string { return fmt.Sprintf("send again in %s", e.Wait) }

// SnoozeSend returns the *SendSnoozeError of wait.
func SnoozeSend(wait time.Duration) error { return &SendSnoozeError{Wait: wait} }

// SendCancelError is returned by Channel.Send for a send no later try
// can make: its job no longer exists, or its message cannot be built.
type SendCancelError struct{ Err error }

func (e *SendCancelError) Error() string { return "send cancelled: " + e.Err.Error() }
func (e *SendCancelError) Unwrap() error { return e.Err }

// CancelSend returns the *SendCancelError of err.
func CancelSend(err error) error { return &SendCancelError{Err: err} }

// Message is what a channel (slack, email) sent about a job's question:
// Ref is the channel's own reference to it (the Slack channel and ts, the
// email Message-ID), for the edit or the reply once the job settles.
type Message struct {
	TenantID string
	JobID    string
	// Channel names the channel: "slack", "email".
	Channel string
	Ref     string
}

// Notification is one send of a channel that reaches people, for the
// job's events: notified when it went out, notify_failed when it did not
// (it is retried).
type Notification struct {
	TenantID string
	JobID    string
	// Channel is "slack" or "email"; Kind what was sent ("post",
	// "update", "outcome", "question"), or "find": Slack's look for the
	// message of a try that died.
	Channel, Kind string
	// To is the recipient, when the channel has several.
	To string
	// Err is the send's error; nil when it went out.
	Err error
	// Skipped, when set, says why the send was not made (and will not
	// be): the event is notify_skipped.
	Skipped string
	// Attempt counts the tries of this send, from 1.
	Attempt int
}
