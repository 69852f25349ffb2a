package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/askonce/askonce"
)

// PutMessage records m unless the job has a message on m.Channel
// already, and returns the one stored (see askonce.MessageStore).
func (s *Store) PutMessage(ctx context.Context, m askonce.Message) (askonce.Message, error) {
	out := m
	// A put that lost the race sees the winner's row only in a
	// statement of its own (the insert's snapshot predates it).
	err := s.pool.QueryRow(ctx, `INSERT INTO notify_messages (tenant_id, job_id, channel, ref) VALUES ($1, $2, $3, $4)
		ON CONFLICT DO NOTHING RETURNING ref`, m.TenantID, m.JobID, m.Channel, m.Ref).Scan(&out.Ref)
	if errors.Is(err, pgx.ErrNoRows) {
		out, err = s.Message(ctx, m.TenantID, m.JobID, m.Channel)
	}
	if err != nil {
		return askonce.Message{}, fmt.Errorf("put %s message of job %s: %w", m.Channel, m.JobID, err)
	}
	return out, nil
}

// AppendEvent appends ev to its job's events without changing the job
// (see askonce.EventAppender). A job that does not exist is ENOTFOUND.
func (s *Store) AppendEvent(ctx context.Context, ev askonce.Event) error {
	q := &batch{}
	exists := q.row(func(row pgx.Row) error { return row.Scan(new(int)) },
		`SELECT 1 FROM jobs WHERE tenant_id = $1 AND id = $2`, ev.TenantID, ev.JobID)
	j := &askonce.Job{TenantID: ev.TenantID, ID: ev.JobID}
	c := &askonce.Change{Events: []askonce.Event{ev}}
	s.queueChange(q, j, c, s.stamp())
	err := s.commit(ctx, q, j, c)
	if failedAt(err) == exists && errors.Is(err, pgx.ErrNoRows) {
		return askonce.Errorf(askonce.ENOTFOUND, "job %s not found", ev.JobID)
	}
	return wrap(err, "append %s event to job %s", ev.Type, ev.JobID)
}
