package sqlite

import (
	"context"
	"database/sql"
	"errors"

	"github.com/askonce/askonce"
)

// AppendEvent appends ev to its job's events without changing the job
// (see askonce.EventAppender). A job that does not exist is ENOTFOUND.
func (s *Store) AppendEvent(ctx context.Context, ev askonce.Event) error {
	now := s.stamp()
	err := s.write(ctx, func(ctx context.Context, tx wtx) error {
		var seq int64
		err := tx.queryRow(ctx, s.w.logSeq, ev.TenantID, ev.JobID).Scan(&seq)
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
