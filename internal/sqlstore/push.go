package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/askonce/askonce"
)

// A job's push-notification configs live in the table push_configs,
// keyed by tenant, job and config id.

// PutPushConfig implements askonce.PushConfigStore.
func (s *Store) PutPushConfig(ctx context.Context, c askonce.PushConfig) error {
	if c.JobID == "" || c.ID == "" || c.URL == "" {
		return askonce.Errorf(askonce.EINVALID, "push-notification config needs a task id, an id and a url")
	}
	return s.c.Wrap(s.c.Write(ctx, func(ctx context.Context, tx Conn) error {
		_, err := tx.Exec(ctx, putPushConfig, c.TenantID, c.JobID, c.ID, c.URL, c.Token,
			c.AuthScheme, c.AuthCredentials, s.c.Encoding.Time(s.c.Round(c.CreatedAt)))
		return err
	}), "put push-notification config %s of job %s", c.ID, c.JobID)
}

// PushConfig implements askonce.PushConfigStore.
func (s *Store) PushConfig(ctx context.Context, k askonce.PushConfigKey) (askonce.PushConfig, error) {
	c, err := scanPushConfig(s.c.Read.QueryRow(ctx, pushConfig, k.TenantID, k.JobID, k.ID))
	if errors.Is(err, sql.ErrNoRows) {
		return c, askonce.Errorf(askonce.ENOTFOUND, "push-notification config %s of task %s not found", k.ID, k.JobID)
	}
	return c, s.c.Wrap(err, "read push-notification config %s of job %s", k.ID, k.JobID)
}

// PushConfigs implements askonce.PushConfigStore.
func (s *Store) PushConfigs(ctx context.Context, tenant, jobID string) ([]askonce.PushConfig, error) {
	var out []askonce.PushConfig
	err := s.c.Read.Query(ctx, pushConfigs, func(row Scanner) error {
		c, err := scanPushConfig(row)
		out = append(out, c)
		return err
	}, tenant, jobID)
	if err != nil {
		return nil, s.c.Wrap(err, "list push-notification configs of job %s", jobID)
	}
	return out, nil
}

// DeletePushConfig implements askonce.PushConfigStore.
func (s *Store) DeletePushConfig(ctx context.Context, k askonce.PushConfigKey) error {
	return s.c.Wrap(s.c.Write(ctx, func(ctx context.Context, tx Conn) error {
		n, err := tx.Exec(ctx, deletePushConfig, k.TenantID, k.JobID, k.ID)
		if err != nil || n == 1 {
			return err
		}
		return askonce.Errorf(askonce.ENOTFOUND, "push-notification config %s of task %s not found", k.ID, k.JobID)
	}), "delete push-notification config %s of job %s", k.ID, k.JobID)
}

func scanPushConfig(row Scanner) (askonce.PushConfig, error) {
	var (
		c  askonce.PushConfig
		at Time
	)
	err := row.Scan(&c.TenantID, &c.JobID, &c.ID, &c.URL, &c.Token, &c.AuthScheme, &c.AuthCredentials, &at)
	c.CreatedAt = time.Time(at)
	return c, err
}

// HasPushConfig is the query that finds whether a job has a push config
// ($1 its tenant, $2 its id), for package dispatch to read in the
// transaction of a change (askonce.TxReader): the schema stays here.
const HasPushConfig = `SELECT 1 FROM push_configs WHERE tenant_id = $1 AND job_id = $2 LIMIT 1`
