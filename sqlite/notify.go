package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/askonce/askonce"
)

// PutMessage records m unless the job has a message on m.Channel
// already, and returns the one stored (see askonce.MessageStore).
func (s *Store) PutMessage(ctx context.Context, m askonce.Message) (askonce.Message, error) {
	out := m
	err := s.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO notify_messages (tenant_id, job_id, channel, ref)
			VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING`, m.TenantID, m.JobID, m.Channel, m.Ref); err != nil {
			return err
		}
		return tx.QueryRowContext(ctx, shared.Message, m.TenantID, m.JobID, m.Channel).Scan(&out.Ref)
	})
	if err != nil {
		return askonce.Message{}, fmt.Errorf("put %s message of job %s: %w", m.Channel, m.JobID, err)
	}
	return out, nil
}

// AppendEvent appends ev to its job's events without changing the job
// (see askonce.EventAppender). A job that does not exist is ENOTFOUND.
func (s *Store) AppendEvent(ctx context.Context, ev askonce.Event) error {
	now := s.stamp()
	err := s.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var seq int64
		err := tx.QueryRowContext(ctx, `SELECT log_seq FROM jobs WHERE tenant_id = ? AND id = ?`, ev.TenantID, ev.JobID).Scan(&seq)
		if errors.Is(err, sql.ErrNoRows) {
			return askonce.Errorf(askonce.ENOTFOUND, "job %s not found", ev.JobID)
		}
		if err != nil {
			return err
		}
		_, err = s.appendEvents(ctx, tx, ev.TenantID, ev.JobID, seq, []askonce.Event{ev}, now)
		return err
	})
	if err == nil {
		s.watchers.Wake(ev.JobID)
	}
	return wrap(err, "append %s event to job %s", ev.Type, ev.JobID)
}
