// Package slack asks a job's question in Slack (docs/notifications.md):
// when a job that names a Slack recipient (askonce.Job.Notify) asks, one
// Block Kit message per job is posted with the control of the question's
// type; POST /slack/interactions (Handler) takes the clicks and modal
// answers, verifies Slack's signature and answers through the Engine, so
// the one-winner rule and validation are those of every channel; when
// the job stops pending anywhere, the message is updated with how it
// ended and no controls, and the outcome goes in its thread.
//
// Sends run on the dispatch package's queue (Channel implements
// askonce.Channel), queued in the transaction that asks or resolves.
// The posted message's channel and ts are stored (Engine.PutMessage), and
// a post that finds one stored sends nothing, so retries and restarts do
// not post twice. A process can die after Slack took the message and
// before its ts was stored: every try records when it began posting, the
// message carries the job in its metadata, and a try that finds an
// earlier try recorded without a ts looks for that message in the
// conversation's history first and adopts it (find.go). A 429 (or
// "ratelimited" in a 200 with Retry-After) is retried after its
// Retry-After. Slack being down delays the message and never
// the job: the question stands, and its answer link works.
package slack

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	slackapi "github.com/slack-go/slack"

	"github.com/askonce/askonce"
)

// Names of the channel and its sends, and of the stored messages.
const (
	name        = "slack"
	postKind    = "post"
	settleKind  = "settle"
	outcomeKind = "outcome"

	// msgQuestion is the question message ("<channel> <ts>"), msgOutcome
	// the outcome in its thread.
	msgQuestion = "slack"
	msgOutcome  = "slack-outcome"
)

// DefaultAPIURL is Slack's Web API.
const DefaultAPIURL = "https://slack.com/api/"

// Config configures a Channel.
type Config struct {
	// Engine is where jobs are read and answered. Required.
	Engine *askonce.Engine
	// Token is the bot token (xoxb-…), with the chat:write scope (and
	// im:write for direct messages), and the history scopes of the
	// conversations posted to (channels:history, groups:history,
	// im:history), read only to find a message a dead try posted.
	// Required.
	Token string
	// SigningSecret verifies the requests of POST /slack/interactions.
	// Required.
	SigningSecret string
	// APIURL is the Web API's base URL. Default DefaultAPIURL.
	APIURL string
	// AnswerURL returns the answer link of a pending job for the
	// message's "Open answer page" button; nil: no button.
	AnswerURL func(*askonce.Job) string
	// Backoff is the wait after the attempt-th failed send (not a 429,
	// which waits for its Retry-After). Default: 1s doubling to 5m.
	Backoff func(attempt int) time.Duration
	// OnSend, when set, is told of every send: its kind (post, update,
	// outcome; find, the look for a dead try's message, only when it
	// fails) and error (nil for success); for a metric.
	OnSend func(kind string, err error)
	// Logger receives the channel's logs; never a token. Nil discards.
	Logger *slog.Logger
}

// Channel is the Slack channel: an askonce.Channel and, through Handler,
// the interactions endpoint.
type Channel struct {
	cfg Config
	api *slackapi.Client
	log *slog.Logger
	// settledPoll is how soon a settle job looks again at a job that is
	// still planning, for its outcome.
	settledPoll time.Duration
}

// New returns the channel of cfg.
func New(cfg Config) (*Channel, error) {
	switch {
	case cfg.Engine == nil:
		return nil, errors.New("slack: Config.Engine is required")
	case cfg.Token == "":
		return nil, errors.New("slack: a bot token is required")
	case cfg.SigningSecret == "":
		return nil, errors.New("slack: a signing secret is required: without it interactions cannot be verified")
	}
	if cfg.APIURL == "" {
		cfg.APIURL = DefaultAPIURL
	}
	if !strings.HasSuffix(cfg.APIURL, "/") {
		cfg.APIURL += "/"
	}
	if cfg.Backoff == nil {
		cfg.Backoff = func(attempt int) time.Duration {
			return min(time.Second<<min(max(attempt-1, 0), 20), 5*time.Minute)
		}
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Channel{
		cfg: cfg, log: log.With("channel", "slack"), settledPoll: time.Second,
		api: slackapi.New(cfg.Token, slackapi.OptionAPIURL(cfg.APIURL),
			slackapi.OptionHTTPClient(&http.Client{Transport: rateLimitIn200{http.DefaultTransport}})),
	}, nil
}

// Name names the channel: "slack".
func (c *Channel) Name() string { return name }

// Kinds lists the channel's sends: post the question message of a job
// that asked, update (settle) it when the job stopped pending, and put
// the outcome in its thread once the job ended.
func (c *Channel) Kinds() []string {
	return []string{postKind, settleKind, outcomeKind, remindKind, escalateKind}
}

// Sends returns the sends for ev of a job that names a Slack recipient.
func (c *Channel) Sends(j *askonce.Job, ev askonce.QuestionEvent) []askonce.Send {
	if len(j.Notify.Everyone().Slack) == 0 {
		return nil
	}
	switch ev {
	case askonce.QuestionAsked:
		if j.Notify.Slack == nil {
			return nil // only a step reaches Slack
		}
		return []askonce.Send{{Kind: postKind, TenantID: j.TenantID, JobID: j.ID}}
	case askonce.QuestionResolved:
		return []askonce.Send{{Kind: settleKind, TenantID: j.TenantID, JobID: j.ID}, {Kind: outcomeKind, TenantID: j.TenantID, JobID: j.ID}}
	}
	return nil
}

// Send makes one try of s.
func (c *Channel) Send(ctx context.Context, s askonce.Send) error {
	switch s.Kind {
	case postKind:
		return (&postWorker{c: c}).Work(ctx, s)
	case settleKind:
		return (&settleWorker{c: c}).Work(ctx, s)
	case outcomeKind:
		return (&outcomeWorker{c: c}).Work(ctx, s)
	case remindKind:
		return c.remind(ctx, s)
	case escalateKind:
		return c.escalate(ctx, s)
	}
	return askonce.CancelSend(fmt.Errorf("slack: no send of kind %q", s.Kind))
}

// Backoff is Config.Backoff.
func (c *Channel) Backoff(attempt int) time.Duration { return c.cfg.Backoff(attempt) }

// ref is a stored question message: "<channel> <ts>".
type ref struct{ channel, ts string }

func (r ref) String() string { return r.channel + " " + r.ts }

func parseRef(s string) (ref, bool) {
	ch, ts, ok := strings.Cut(s, " ")
	return ref{ch, ts}, ok
}

// message returns the job's stored question message; ok false when none
// was posted.
func (c *Channel) message(ctx context.Context, tenant, id string) (ref, bool, error) {
	m, err := c.cfg.Engine.Message(ctx, tenant, id, msgQuestion)
	if askonce.ErrorCode(err) == askonce.ENOTFOUND {
		return ref{}, false, nil
	}
	if err != nil {
		return ref{}, false, err
	}
	r, ok := parseRef(m.Ref)
	if !ok {
		return ref{}, false, fmt.Errorf("stored slack message %q of job %s is not '<channel> <ts>'", m.Ref, id)
	}
	return r, true, nil
}

// sent tells OnSend, the job's events (when j is set) and the log of a
// send's outcome, and turns a 429 into a snooze for its Retry-After.
func (c *Channel) sent(ctx context.Context, kind string, j *askonce.Job, attempt int, err error) error {
	if c.cfg.OnSend != nil {
		c.cfg.OnSend(kind, err)
	}
	jobID := ""
	if j != nil {
		jobID = j.ID
		if nerr := c.cfg.Engine.Notified(ctx, askonce.Notification{TenantID: j.TenantID, JobID: j.ID, Channel: "slack", Kind: kind, Err: err, Attempt: attempt}); nerr != nil {
			c.log.WarnContext(ctx, "slack: record the send in the job's events", "job", j.ID, "err", nerr)
		}
	}
	if err == nil {
		c.log.InfoContext(ctx, "slack: sent", "kind", kind, "job", jobID)
		return nil
	}
	var rl *slackapi.RateLimitedError
	if errors.As(err, &rl) {
		c.log.WarnContext(ctx, "slack: rate limited", "kind", kind, "job", jobID, "retryAfter", rl.RetryAfter)
		return askonce.SnoozeSend(max(rl.RetryAfter, time.Second))
	}
	c.log.WarnContext(ctx, "slack: send failed", "kind", kind, "job", jobID, "err", err)
	return fmt.Errorf("slack %s of job %s: %w", kind, jobID, err)
}

type postWorker struct {
	c *Channel
}

// Work posts the question message unless it was posted already, or the
// job stopped pending before it could be. A message an earlier try
// posted without storing its ts (the process died first) is found and
// adopted instead, and updated if the job has settled since.
func (w *postWorker) Work(ctx context.Context, s askonce.Send) error {
	c, a := w.c, s
	if _, posted, err := c.message(ctx, a.TenantID, a.JobID); err != nil || posted {
		return err
	}
	j, err := c.job(ctx, a.TenantID, a.JobID)
	if err != nil {
		return err
	}
	if j.Notify == nil || j.Notify.Slack == nil {
		return nil
	}
	last, err := c.lastTry(ctx, j)
	if err != nil {
		return err
	}
	if last.n > 0 {
		r, found, err := c.find(ctx, j, last.at)
		if err != nil {
			ferr := c.sent(ctx, "find", j, s.Attempt, err)
			if !cannotRead(err) {
				return ferr // retried: Slack may have the message
			}
			// The app may not read the conversation (no history
			// scope): asking again beats never asking.
			c.log.WarnContext(ctx, "slack: cannot look for the message of an earlier try, so it may be posted twice; give the app the history scopes (docs/notifications.md)", "job", j.ID)
		}
		if found {
			return c.posted(ctx, j, r, s.Attempt, nil)
		}
	}
	if j.Status != askonce.StatusPending {
		return nil // settled before anyone could be asked: nothing to ask
	}
	if err := c.startTry(ctx, j, last.n+1); err != nil {
		return err
	}
	url := ""
	if c.cfg.AnswerURL != nil {
		url = c.cfg.AnswerURL(j)
	}
	pctx, cancel := context.WithTimeout(ctx, postTimeout)
	channel, ts, err := c.api.PostMessageContext(pctx, j.Notify.Slack.Conversation(),
		slackapi.MsgOptionText(Escape(j.Title+": "+j.Question.Text), false),
		slackapi.MsgOptionBlocks(QuestionBlocks(j, url)...),
		slackapi.MsgOptionMetadata(questionMetadata(j)),
		slackapi.MsgOptionDisableLinkUnfurl())
	cancel()
	return c.posted(ctx, j, ref{channel, ts}, s.Attempt, err)
}

// posted records the question message r of j, posted by this try (err
// its error) or found from an earlier one, and updates it if j stopped
// pending meanwhile.
func (c *Channel) posted(ctx context.Context, j *askonce.Job, r ref, attempt int, err error) error {
	if err != nil {
		return c.sent(ctx, "post", j, attempt, err)
	}
	// The message is stored before the send is recorded in the job's
	// events, so that an event saying it was posted means a click on it
	// finds it.
	m, err := c.cfg.Engine.PutMessage(ctx, askonce.Message{TenantID: j.TenantID, JobID: j.ID, Channel: msgQuestion, Ref: r.String()})
	if err != nil {
		return err
	}
	c.sent(ctx, "post", j, attempt, nil) // a send that worked returns nil
	// Settled while this was posting: the settle job may have found no
	// message, so settle it here (settling twice is harmless).
	if j, err = c.cfg.Engine.Get(ctx, j.TenantID, j.ID); err == nil && j.Status != askonce.StatusPending {
		r, _ := parseRef(m.Ref)
		return c.update(ctx, j, r, attempt)
	}
	return nil
}

type settleWorker struct {
	c *Channel
}

// Work updates every message that carried the question (the job's, and
// those of escalations) to how the question ended.
func (w *settleWorker) Work(ctx context.Context, s askonce.Send) error {
	j, err := w.c.job(ctx, s.TenantID, s.JobID)
	if err != nil {
		return err
	}
	return w.c.updateAll(ctx, j, s.Attempt)
}

type outcomeWorker struct {
	c *Channel
}

// Work waits for the job to end, then puts its outcome in the thread.
func (w *outcomeWorker) Work(ctx context.Context, s askonce.Send) error {
	c, a := w.c, s
	r, posted, err := c.message(ctx, a.TenantID, a.JobID)
	if err != nil || !posted {
		return err
	}
	if _, err := c.cfg.Engine.Message(ctx, a.TenantID, a.JobID, msgOutcome); err == nil {
		return nil // in the thread already
	}
	j, err := c.job(ctx, a.TenantID, a.JobID)
	if err != nil {
		return err
	}
	if !j.Status.Terminal() {
		return askonce.SnoozeSend(c.settledPoll) // still planning
	}
	_, ts, err := c.api.PostMessageContext(ctx, r.channel, slackapi.MsgOptionTS(r.ts),
		slackapi.MsgOptionText(Outcome(j), false), slackapi.MsgOptionDisableLinkUnfurl())
	if err := c.sent(ctx, "outcome", j, s.Attempt, err); err != nil {
		return err
	}
	_, err = c.cfg.Engine.PutMessage(ctx, askonce.Message{TenantID: j.TenantID, JobID: j.ID, Channel: msgOutcome, Ref: ts})
	return err
}

// update rewrites the question message of j, which stopped pending, to
// say how it ended, with no controls left. attempt is the send's try,
// 0 outside one.
func (c *Channel) update(ctx context.Context, j *askonce.Job, r ref, attempt int) error {
	_, _, _, err := c.api.UpdateMessageContext(ctx, r.channel, r.ts,
		slackapi.MsgOptionText(Escape(j.Title)+": "+Settled(j), false),
		slackapi.MsgOptionBlocks(SettledBlocks(j)...))
	return c.sent(ctx, "update", j, attempt, err)
}

// job reads the job a queued send is about; a job that no longer exists
// cancels the send (askonce.CancelSend) instead of retrying it.
func (c *Channel) job(ctx context.Context, tenant, id string) (*askonce.Job, error) {
	j, err := c.cfg.Engine.Get(ctx, tenant, id)
	if askonce.ErrorCode(err) == askonce.ENOTFOUND {
		return nil, askonce.CancelSend(err)
	}
	return j, err
}
