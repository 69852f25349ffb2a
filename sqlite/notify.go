package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/askonce/askonce"
)

func notifyArg(j *askonce.Job) (any, error) { return askonce.EncodeRecipients(j.Notify) }

// PutMessage records m unless the job has a message on m.Channel
// already, and returns the one stored (see askonce.MessageStore).
func (s *Store) PutMessage(ctx context.Context, m askonce.Message) (askonce.Message, error) {
	out := m
	err := s.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO notify_messages (tenant_id, job_id, channel, ref)
			VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING`, m.TenantID, m.JobID, m.Channel, m.Ref); err != nil {
			return err
		}
		return tx.QueryRowContext(ctx, `SELECT ref FROM notify_messages WHERE tenant_id = ? AND job_id = ? AND channel = ?`,
			m.TenantID, m.JobID, m.Channel).Scan(&out.Ref)
	})
	if err != nil {
		return askonce.Message{}, fmt.Errorf("put %s message of job %s: %w", m.Channel, m.JobID, err)
	}
	return out, nil
}

// Message returns the job's message on channel, or ENOTFOUND.
func (s *Store) Message(ctx context.Context, tenant, jobID, channel string) (askonce.Message, error) {
	m := askonce.Message{TenantID: tenant, JobID: jobID, Channel: channel}
	err := s.reader.QueryRowContext(ctx, `SELECT ref FROM notify_messages WHERE tenant_id = ? AND job_id = ? AND channel = ?`,
		tenant, jobID, channel).Scan(&m.Ref)
	if errors.Is(err, sql.ErrNoRows) {
		return m, askonce.Errorf(askonce.ENOTFOUND, "job %s has no %s message", jobID, channel)
	}
	if err != nil {
		return m, fmt.Errorf("read %s message of job %s: %w", channel, jobID, err)
	}
	return m, nil
}
