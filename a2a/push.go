package a2a

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"

	sdk "github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/uuid"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/dispatch"
)

// Push notifications: a client stores a push-notification config on a
// task (CreateTaskPushConfig, or the configuration of the SendMessage
// that starts it), and askonce POSTs the task to the config's URL when
// the task becomes input-required and when it ends (completed, failed,
// canceled) after that. Each POST is a River job (a Pusher is an
// askonce.Channel that package dispatch runs), queued in the
// transaction that moves the job into or out of pending, one per config,
// signed and retried as builder webhooks are.

// TokenHeader carries a push config's token, as the A2A spec and its Go
// SDK send it.
const TokenHeader = "A2A-Notification-Token"

// PushChannel names the Pusher's sends, in the job's notified and
// notify_failed events.
const PushChannel = "a2a-push"

// The Pusher's kinds of send.
const (
	pushAsked   = "input-required"
	pushSettled = "settled"
)

// PusherConfig configures a Pusher. Engine is required.
type PusherConfig struct {
	Engine *askonce.Engine
	// PublicURL is the base of the answer links in the tasks sent (as
	// Config.PublicURL).
	PublicURL string
	// Secret signs every POST with Standard Webhooks headers (see
	// dispatch.Sign); empty sends none. The webhook-id of a POST is
	// "<task id>:<kind>:<config id>", the same on every retry.
	Secret string
	// AllowPrivate lets configs name, and POSTs reach, loopback,
	// private, link-local, multicast and unspecified addresses (see
	// dispatch.GuardedClient). Only for receivers the operator trusts.
	AllowPrivate bool
	// Timeout bounds one POST. Zero: dispatch.DefaultWebhookTimeout.
	Timeout time.Duration
	// Backoff is the wait after the attempt-th failed POST. Nil: one
	// second, doubling, at most five minutes.
	Backoff func(attempt int) time.Duration
	// Logger receives diagnostics. Nil discards.
	Logger *slog.Logger
}

// Pusher sends A2A push notifications: give it to the endpoint
// (Config.Pusher) and to the dispatcher (dispatch.Config.Channels).
type Pusher struct {
	cfg    PusherConfig
	h      *handler
	client *http.Client
	log    *slog.Logger
}

var _ askonce.Channel = (*Pusher)(nil)

// NewPusher returns the Pusher of c.
func NewPusher(c PusherConfig) *Pusher {
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.Backoff == nil {
		c.Backoff = func(attempt int) time.Duration {
			return min(time.Second<<min(attempt-1, 9), 5*time.Minute)
		}
	}
	return &Pusher{
		cfg:    c,
		h:      &handler{cfg: Config{Engine: c.Engine, PublicURL: c.PublicURL}, eng: c.Engine},
		client: dispatch.GuardedClient(c.AllowPrivate),
		log:    c.Logger,
	}
}

// Name is PushChannel.
func (p *Pusher) Name() string { return PushChannel }

// Kinds are the input-required POST and the one of the end.
func (p *Pusher) Kinds() []string { return []string{pushAsked, pushSettled} }

// Backoff is PusherConfig.Backoff.
func (p *Pusher) Backoff(attempt int) time.Duration { return p.cfg.Backoff(attempt) }

// Sends returns a POST per push config of the job: when it asks, of the
// input-required task; when it stops pending, of the task as it ends.
// It runs in the transaction of that change and reads the configs apart
// from it: a config stored after the change waits for the next one.
func (p *Pusher) Sends(j *askonce.Job, ev askonce.QuestionEvent) []askonce.Send {
	kind := pushAsked
	switch ev {
	case askonce.QuestionAsked:
	case askonce.QuestionResolved:
		kind = pushSettled
	default:
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	cs, err := p.cfg.Engine.PushConfigs(ctx, j.TenantID, j.ID)
	if err != nil {
		p.log.Warn("a2a push: read the task's push configs; no notification of this change", "job", j.ID, "event", ev, "err", err)
		return nil
	}
	out := make([]askonce.Send, 0, len(cs))
	for _, c := range cs {
		out = append(out, askonce.Send{Kind: kind, TenantID: j.TenantID, JobID: j.ID, To: c.ID})
	}
	return out
}

// Send makes one POST of the task to the config s.To names. A config
// deleted since is not sent to; the end waits while the job plans after
// its answer; an address the guard refuses is not tried again.
func (p *Pusher) Send(ctx context.Context, s askonce.Send) error {
	eng := p.cfg.Engine
	c, err := eng.PushConfig(ctx, askonce.PushConfigKey{TenantID: s.TenantID, JobID: s.JobID, ID: s.To})
	if askonce.ErrorCode(err) == askonce.ENOTFOUND {
		return askonce.CancelSend(err)
	}
	if err != nil {
		return err
	}
	j, err := eng.Get(ctx, s.TenantID, s.JobID)
	if askonce.ErrorCode(err) == askonce.ENOTFOUND {
		return askonce.CancelSend(err)
	}
	if err != nil {
		return err
	}
	switch {
	case s.Kind == pushAsked && j.Status != askonce.StatusPending:
		// Answered before this went out: the end's POST tells.
		return nil
	case s.Kind == pushSettled && !j.Status.Terminal():
		return askonce.SnoozeSend(time.Second)
	}
	body, err := json.Marshal(sdk.StreamResponse{Event: p.h.taskOf(j, nil)})
	if err != nil {
		return askonce.CancelSend(fmt.Errorf("encode task %s: %w", j.ID, err))
	}
	header := http.Header{}
	if c.Token != "" {
		header.Set(TokenHeader, c.Token)
	}
	if c.AuthCredentials != "" {
		switch strings.ToLower(c.AuthScheme) {
		case "bearer":
			header.Set("Authorization", "Bearer "+c.AuthCredentials)
		case "basic":
			header.Set("Authorization", "Basic "+c.AuthCredentials)
		}
	}
	w := &dispatch.Webhook{URL: c.URL, Secret: p.cfg.Secret, Client: p.client, Timeout: p.cfg.Timeout}
	err = w.Post(ctx, s.JobID+":"+s.Kind+":"+c.ID, body, header)
	if nerr := eng.Notified(ctx, askonce.Notification{TenantID: s.TenantID, JobID: s.JobID, Channel: PushChannel, Kind: s.Kind, To: c.ID, Err: err, Attempt: s.Attempt}); nerr != nil {
		p.log.WarnContext(ctx, "a2a push: record the POST in the job's events", "job", s.JobID, "err", nerr)
	}
	if errors.Is(err, dispatch.ErrBlockedAddress) {
		return askonce.CancelSend(err)
	}
	return err
}

// checkPushURL refuses a push URL that is not http(s) with a host, and,
// unless private addresses are allowed, one whose host is an address
// the guard refuses (a name that resolves to one is refused when the
// POST dials it).
func (p *Pusher) checkPushURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return fmt.Errorf("%w: push-notification url must be an http or https URL with a host and no user info, not %q", sdk.ErrInvalidParams, raw)
	}
	if p.cfg.AllowPrivate {
		return nil
	}
	host := u.Hostname()
	if a, err := netip.ParseAddr(host); err == nil && dispatch.Blocked(a) {
		return fmt.Errorf("%w: push-notification url %q names a loopback, private, link-local, multicast or unspecified address, which this server does not send to", sdk.ErrInvalidParams, raw)
	}
	return nil
}

// pushConfigOf is a stored config as A2A's.
func pushConfigOf(c askonce.PushConfig) *sdk.PushConfig {
	out := &sdk.PushConfig{TaskID: sdk.TaskID(c.JobID), ID: c.ID, URL: c.URL, Token: c.Token}
	if c.AuthScheme != "" || c.AuthCredentials != "" {
		out.Auth = &sdk.PushAuthInfo{Scheme: c.AuthScheme, Credentials: c.AuthCredentials}
	}
	return out
}

// putPushConfig checks and stores req as a config of the job id (which
// the caller has checked, or is about to create), naming it when the
// client did not.
func (h *handler) putPushConfig(ctx context.Context, id string, req *sdk.PushConfig) (*sdk.PushConfig, error) {
	if h.cfg.Pusher == nil {
		return nil, sdk.ErrPushNotificationNotSupported
	}
	if err := h.cfg.Pusher.checkPushURL(req.URL); err != nil {
		return nil, err
	}
	c := askonce.PushConfig{TenantID: tenantOf(ctx), JobID: id, ID: req.ID, URL: req.URL, Token: req.Token}
	if c.ID == "" {
		c.ID = uuid.NewString()
	}
	if req.Auth != nil {
		c.AuthScheme, c.AuthCredentials = req.Auth.Scheme, req.Auth.Credentials
	}
	if err := h.eng.PutPushConfig(ctx, c); err != nil {
		return nil, rpcError(err)
	}
	return pushConfigOf(c), nil
}

// CreateTaskPushConfig stores a push config of a task of the caller's.
func (h *handler) CreateTaskPushConfig(ctx context.Context, req *sdk.PushConfig) (*sdk.PushConfig, error) {
	if h.cfg.Pusher == nil {
		return nil, sdk.ErrPushNotificationNotSupported
	}
	if _, err := h.eng.Get(ctx, tenantOf(ctx), string(req.TaskID)); err != nil {
		return nil, rpcError(err)
	}
	return h.putPushConfig(ctx, string(req.TaskID), req)
}

// GetTaskPushConfig returns one push config of a task of the caller's.
func (h *handler) GetTaskPushConfig(ctx context.Context, req *sdk.GetTaskPushConfigRequest) (*sdk.PushConfig, error) {
	if h.cfg.Pusher == nil {
		return nil, sdk.ErrPushNotificationNotSupported
	}
	c, err := h.eng.PushConfig(ctx, askonce.PushConfigKey{TenantID: tenantOf(ctx), JobID: string(req.TaskID), ID: req.ID})
	if err != nil {
		return nil, rpcError(err)
	}
	return pushConfigOf(c), nil
}

// ListTaskPushConfigs returns every push config of a task of the
// caller's, oldest first, on one page.
func (h *handler) ListTaskPushConfigs(ctx context.Context, req *sdk.ListTaskPushConfigRequest) (*sdk.ListTaskPushConfigResponse, error) {
	if h.cfg.Pusher == nil {
		return nil, sdk.ErrPushNotificationNotSupported
	}
	tenant := tenantOf(ctx)
	if _, err := h.eng.Get(ctx, tenant, string(req.TaskID)); err != nil {
		return nil, rpcError(err)
	}
	cs, err := h.eng.PushConfigs(ctx, tenant, string(req.TaskID))
	if err != nil {
		return nil, rpcError(err)
	}
	out := &sdk.ListTaskPushConfigResponse{Configs: []*sdk.PushConfig{}}
	for _, c := range cs {
		out.Configs = append(out.Configs, pushConfigOf(c))
	}
	return out, nil
}

// DeleteTaskPushConfig removes a push config of a task of the caller's:
// no POST goes to it after, retries included.
func (h *handler) DeleteTaskPushConfig(ctx context.Context, req *sdk.DeleteTaskPushConfigRequest) error {
	if h.cfg.Pusher == nil {
		return sdk.ErrPushNotificationNotSupported
	}
	return rpcError(h.eng.DeletePushConfig(ctx, askonce.PushConfigKey{TenantID: tenantOf(ctx), JobID: string(req.TaskID), ID: req.ID}))
}
