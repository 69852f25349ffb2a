package a2a

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	sdk "github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/uuid"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/webhook"
)

// Push notifications: a client stores a push-notification config on a
// task (CreateTaskPushConfig, or the configuration of the SendMessage
// that starts it), and askonce POSTs the task to the config's URL when
// the task becomes input-required and when it ends (completed, failed,
// canceled) after that. The POSTs of a change are a River job (a Pusher
// is an askonce.GatedChannel that package dispatch runs), queued in the
// transaction that moves the job into or out of pending when the task
// has a push config then (SendsTx), signed and retried as builder
// webhooks are.

// TokenHeader carries a push config's token, as the A2A spec and its Go
// SDK send it.
const TokenHeader = "A2A-Notification-Token"

// MaxPushConfigs is how many push configs a task may have: one more is
// invalid params (a config of the same id replaces its namesake).
const MaxPushConfigs = 10

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
	// webhook.Sign); empty sends none. The webhook-id of a POST is
	// "<task id>:<kind>:<config id>", the same on every retry.
	Secret string
	// AllowPrivate lets configs name, and POSTs reach, loopback,
	// private, link-local, multicast and unspecified addresses (see
	// webhook.GuardedClient). Only for receivers the operator trusts.
	AllowPrivate bool
	// Timeout bounds one POST. Zero: webhook.DefaultTimeout.
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

var _ askonce.GatedChannel = (*Pusher)(nil)

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
		client: webhook.GuardedClient(c.AllowPrivate),
		log:    c.Logger,
	}
}

// Name is PushChannel.
func (p *Pusher) Name() string { return PushChannel }

// Kinds are the input-required POST and the one of the end.
func (p *Pusher) Kinds() []string { return []string{pushAsked, pushSettled} }

// Backoff is PusherConfig.Backoff.
func (p *Pusher) Backoff(attempt int) time.Duration { return p.cfg.Backoff(attempt) }

// Sends returns the job's one send of ev: the input-required POSTs when
// it asks, the end's when it stops pending. It reads nothing; package
// dispatch calls SendsTx, which queues them only for a task with a push
// config.
func (p *Pusher) Sends(j *askonce.Job, ev askonce.QuestionEvent) []askonce.Send {
	kind := pushAsked
	switch ev {
	case askonce.QuestionAsked:
	case askonce.QuestionResolved:
		kind = pushSettled
	default:
		return nil
	}
	return []askonce.Send{{Kind: kind, TenantID: j.TenantID, JobID: j.ID}}
}

// SendsTx returns Sends(j, ev) when the task has a push config in the
// transaction of the change, else none: a server with push on spends no
// River job on a task nobody asked to push. So a change is pushed to the
// task when the task had a config as the change was written; its POSTs
// go to the configs the task has when they go out (Send). A config
// stored after a change gets the task's later changes, and that one only
// if its POSTs, queued for an earlier config, were still to go out.
// On SQLite writes are serial, so "before" is exact: a config whose put
// returned before the change's transaction began is seen, and one put
// after it committed is not. On PostgreSQL (read committed) the change
// sees the configs committed when its read runs, after it updated the
// job: a put that commits in the few milliseconds between that read and
// the change's commit is treated as after the change.
func (p *Pusher) SendsTx(ctx context.Context, r askonce.TxReader, j *askonce.Job, ev askonce.QuestionEvent) ([]askonce.Send, error) {
	sends := p.Sends(j, ev)
	if len(sends) == 0 {
		return nil, nil
	}
	ok, err := r.HasPushConfig(ctx, j.TenantID, j.ID)
	if err != nil || !ok {
		return nil, err
	}
	return sends, nil
}

// Send makes one try of the POSTs of s: the task, as it is now, to each
// of the job's push configs that has not had it yet (by the job's
// notified events). The end waits while the job plans after its answer;
// a config deleted since is not sent to; an address the guard refuses
// is recorded and not tried again. Any other failed POST fails the try,
// and the next try sends to the configs that are left.
func (p *Pusher) Send(ctx context.Context, s askonce.Send) error {
	eng := p.cfg.Engine
	j, err := eng.Get(ctx, s.TenantID, s.JobID)
	if askonce.ErrorCode(err) == askonce.ENOTFOUND {
		return askonce.CancelSend(err)
	}
	if err != nil {
		return err
	}
	switch {
	case s.Kind == pushAsked && j.Status != askonce.StatusPending:
		// Answered before this went out: the end's POST tells. Each
		// config's events say so, as they would say it was sent.
		return p.skipped(ctx, s, j)
	case s.Kind == pushSettled && !j.Status.Terminal():
		return askonce.SnoozeSend(time.Second)
	}
	cs, err := eng.PushConfigs(ctx, s.TenantID, s.JobID)
	if err != nil || len(cs) == 0 {
		return err
	}
	done := map[string]bool{}
	if s.Attempt > 1 {
		if done, err = p.sent(ctx, s); err != nil {
			return err
		}
	}
	body, err := json.Marshal(sdk.StreamResponse{Event: p.h.taskOf(j, nil)})
	if err != nil {
		return askonce.CancelSend(fmt.Errorf("encode task %s: %w", j.ID, err))
	}
	var failed []error
	for _, c := range cs {
		if done[c.ID] {
			continue
		}
		err := p.post(ctx, s, c, body)
		if nerr := eng.Notified(ctx, askonce.Notification{TenantID: s.TenantID, JobID: s.JobID, Channel: PushChannel, Kind: s.Kind, To: c.ID, Err: err, Attempt: s.Attempt}); nerr != nil {
			p.log.WarnContext(ctx, "a2a push: record the POST in the job's events", "job", s.JobID, "err", nerr)
		}
		if err != nil && !errors.Is(err, webhook.ErrBlockedAddress) {
			failed = append(failed, fmt.Errorf("push config %s: %w", c.ID, err))
		}
	}
	return errors.Join(failed...)
}

// skipped records, for each of the job's configs, that the
// input-required POST of s was not made: the task was answered (or
// ended) first.
func (p *Pusher) skipped(ctx context.Context, s askonce.Send, j *askonce.Job) error {
	cs, err := p.cfg.Engine.PushConfigs(ctx, s.TenantID, s.JobID)
	if err != nil {
		return err
	}
	why := fmt.Sprintf("the task was %s, no longer input-required, when this push went out; the push of its end tells", stateOf(j.Status))
	for _, c := range cs {
		if err := p.cfg.Engine.Notified(ctx, askonce.Notification{TenantID: s.TenantID, JobID: s.JobID, Channel: PushChannel, Kind: s.Kind, To: c.ID, Skipped: why, Attempt: s.Attempt}); err != nil {
			p.log.WarnContext(ctx, "a2a push: record the skipped POST in the job's events", "job", s.JobID, "err", err)
		}
	}
	return nil
}

// post makes one POST of body to c.
func (p *Pusher) post(ctx context.Context, s askonce.Send, c askonce.PushConfig, body []byte) error {
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
	w := &webhook.Sender{URL: c.URL, Secret: p.cfg.Secret, Client: p.client, Timeout: p.cfg.Timeout}
	return w.Post(ctx, s.JobID+":"+s.Kind+":"+c.ID, body, header)
}

// sent returns the configs an earlier try of s has POSTed to (or that
// the guard refused), by the job's events.
func (p *Pusher) sent(ctx context.Context, s askonce.Send) (map[string]bool, error) {
	evs, err := p.cfg.Engine.Events(ctx, s.TenantID, s.JobID, 0, 0)
	if err != nil {
		return nil, err
	}
	done := map[string]bool{}
	for _, ev := range evs {
		if ev.Type != askonce.EventNotified && ev.Type != askonce.EventNotifyFailed {
			continue
		}
		var d struct{ Channel, Kind, To, Error string }
		if json.Unmarshal(ev.Data, &d) != nil || d.Channel != PushChannel || d.Kind != s.Kind {
			continue
		}
		if ev.Type == askonce.EventNotified || strings.Contains(d.Error, webhook.ErrBlockedAddress.Error()) {
			done[d.To] = true
		}
	}
	return done, nil
}

// checkPushURL refuses a push URL that is not http(s) with a host, and,
// unless private addresses are allowed, one whose host is an address
// the guard refuses, in any form of IP literal, or a name under
// localhost (webhook.BlockedHost: no DNS lookup; a name that resolves
// to such an address is refused when the POST dials it). It returns the
// URL with an IP literal's host written as the address it means
// ("http://0x5db8d822/" is "http://93.184.216.34/"), which is where the
// POSTs go.
func (p *Pusher) checkPushURL(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return "", fmt.Errorf("%w: push-notification url must be an http or https URL with a host and no user info, not %q", sdk.ErrInvalidParams, raw)
	}
	host := u.Hostname()
	if !p.cfg.AllowPrivate && webhook.BlockedHost(host) {
		return "", fmt.Errorf("%w: push-notification url %q names a loopback, private, link-local, multicast or unspecified address, which this server does not send to", sdk.ErrInvalidParams, raw)
	}
	if a, ok := webhook.HostAddr(host); ok {
		if port := u.Port(); port != "" {
			u.Host = net.JoinHostPort(a.String(), port)
		} else if a.Is6() {
			u.Host = "[" + a.String() + "]"
		} else {
			u.Host = a.String()
		}
		return u.String(), nil
	}
	return raw, nil
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
	target, err := h.cfg.Pusher.checkPushURL(req.URL)
	if err != nil {
		return nil, err
	}
	c := askonce.PushConfig{TenantID: tenantOf(ctx), JobID: id, ID: req.ID, URL: target, Token: req.Token}
	if c.ID == "" {
		c.ID = uuid.NewString()
	}
	if req.Auth != nil {
		c.AuthScheme, c.AuthCredentials = req.Auth.Scheme, req.Auth.Credentials
	}
	cs, err := h.eng.PushConfigs(ctx, c.TenantID, id)
	if err != nil {
		return nil, rpcError(err)
	}
	if len(cs) >= MaxPushConfigs && !slices.ContainsFunc(cs, func(o askonce.PushConfig) bool { return o.ID == c.ID }) {
		return nil, fmt.Errorf("%w: task %s has %d push-notification configs, the most it may have: delete one first", sdk.ErrInvalidParams, id, len(cs))
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
