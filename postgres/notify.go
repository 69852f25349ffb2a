package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/askonce/askonce"
)

// AppendEvent appends ev to its job's events without changing the job
// (see askonce.EventAppender). A job that does not exist is ENOTFOUND.
func (s *Store) AppendEvent(ctx context.Context, ev askonce.Event) error {
	q := &batch{}
	exists := q.row(func(row pgx.Row) error { return row.Scan(new(int)) },
		jobExistsSQL, ev.TenantID, ev.JobID)
	j := &askonce.Job{TenantID: ev.TenantID, ID: ev.JobID}
	c := &askonce.Change{Events: []askonce.Event{ev}}
	s.queueChange(q, j, c, s.stamp())
	err := s.commit(ctx, q, j, c)
	if failedAt(err) == exists && errors.Is(err, pgx.ErrNoRows) {
		return askonce.Errorf(askonce.ENOTFOUND, "job %s not found", ev.JobID)
	}
	return wrap(err, "append %s event to job %s", ev.Type, ev.JobID)
}
