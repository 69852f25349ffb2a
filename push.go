package askonce

import (
	"context"
	"time"
)

// PushConfig is where a client wants a job's changes POSTed: an A2A
// push-notification config of the task that is the job (package a2a
// makes them; package dispatch sends). A job may have several, told
// apart by ID; each belongs to the job's tenant.
type PushConfig struct {
	TenantID string
	JobID    string
	// ID names the config among the job's; the client's, or one made
	// for it.
	ID string
	// URL receives the POSTs.
	URL string
	// Token, when set, is sent with every POST (A2A's
	// A2A-Notification-Token header), for the receiver to check.
	Token string
	// AuthScheme ("Bearer", "Basic") and AuthCredentials, when set, make
	// the POSTs' Authorization header.
	AuthScheme      string
	AuthCredentials string
	CreatedAt       time.Time
}

// PushConfigKey names one PushConfig.
type PushConfigKey struct {
	TenantID string
	JobID    string
	ID       string
}

// pushConfigs is the Engine's store as a PushConfigStore.
func (e *Engine) pushConfigs() (PushConfigStore, error) {
	ps, ok := e.Store.(PushConfigStore)
	if !ok {
		return nil, Errorf(EINVALID, "this store keeps no push-notification configs")
	}
	return ps, nil
}

// PutPushConfig stores c (see PushConfigStore), stamped now.
func (e *Engine) PutPushConfig(ctx context.Context, c PushConfig) error {
	ps, err := e.pushConfigs()
	if err != nil {
		return err
	}
	c.TenantID = tenantOr(c.TenantID)
	c.CreatedAt = e.now()
	return ps.PutPushConfig(ctx, c)
}

// PushConfig returns the config k names, or ENOTFOUND.
func (e *Engine) PushConfig(ctx context.Context, k PushConfigKey) (PushConfig, error) {
	ps, err := e.pushConfigs()
	if err != nil {
		return PushConfig{}, Errorf(ENOTFOUND, "push-notification config %s not found", k.ID)
	}
	k.TenantID = tenantOr(k.TenantID)
	return ps.PushConfig(ctx, k)
}

// PushConfigs returns the job's configs, oldest first; none when the
// store keeps none.
func (e *Engine) PushConfigs(ctx context.Context, tenant, jobID string) ([]PushConfig, error) {
	ps, err := e.pushConfigs()
	if err != nil {
		return nil, nil
	}
	return ps.PushConfigs(ctx, tenantOr(tenant), jobID)
}

// DeletePushConfig removes the config k names; ENOTFOUND when there is
// none.
func (e *Engine) DeletePushConfig(ctx context.Context, k PushConfigKey) error {
	ps, err := e.pushConfigs()
	if err != nil {
		return Errorf(ENOTFOUND, "push-notification config %s not found", k.ID)
	}
	k.TenantID = tenantOr(k.TenantID)
	return ps.DeletePushConfig(ctx, k)
}
