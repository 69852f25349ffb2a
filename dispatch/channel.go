package dispatch

import (
	"context"
	"fmt"

	"github.com/riverqueue/river"

	"github.com/askonce/askonce"
)

// Channel reaches the people a job names (askonce.Job.Notify) when it
// asks and when it settles: packages slack and email. Its River jobs are
// queued by [Dispatcher.Notify], in the transaction that moves the job
// into or out of pending, unique by their args in every state, so a
// change queues each at most once and a question is never stored
// without them.
type Channel interface {
	// Queue names the channel's River queue.
	Queue() string
	// Register adds the channel's workers.
	Register(w *river.Workers) error
	// Jobs returns the River jobs that tell job's recipients of ev:
	// none when the job names no one on this channel.
	Jobs(job *askonce.Job, ev askonce.QuestionEvent) []river.JobArgs
}

// queueChannels inserts the jobs of every channel for ev in tx.
func (d *Dispatcher) queueChannels(ctx context.Context, tx any, job *askonce.Job, ev askonce.QuestionEvent) error {
	for _, ch := range d.cfg.Channels {
		for _, a := range ch.Jobs(job, ev) {
			_, err := d.insertTx(ctx, tx, a, &river.InsertOpts{
				Queue: ch.Queue(), MaxAttempts: d.cfg.MaxAttempts, UniqueOpts: uniqueForever,
			})
			if err != nil {
				return fmt.Errorf("dispatch: queue %s of job %s: %w", a.Kind(), job.ID, err)
			}
		}
	}
	return nil
}
