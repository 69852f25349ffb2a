// Package email asks a job's question by email (docs/notifications.md):
// when a job that names addresses (askonce.Job.Notify) asks, each address
// gets one message with the question, its options and the job's answer
// link, in a text and an HTML part; for SELECT_ONE and CONFIRM each
// option links to the answer page with that option preselected (a GET
// never answers: the page's button does). When the job ends, each
// address gets the outcome as a reply (In-Reply-To the question's
// Message-ID, one per job).
//
// Sends run on the dispatch package's queue (Channel implements
// askonce.Channel), queued in the transaction that asks or resolves, one
// send per address, unique;
// a sent message is recorded (Engine.PutMessage) and not sent again by a
// retry. One window remains: a process that dies after the server took a
// message and before it was recorded sends it again, with the same
// Message-ID, since SMTP cannot be asked afterwards what it took (Slack's
// channel can, and closes its window). An SMTP outage delays the mail
// and never the job. The SMTP URL's password never reaches a log.
package email

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strconv"
	"strings"
	"time"

	mail "github.com/wneessen/go-mail"

	"github.com/askonce/askonce"
)

// Names of the channel and its sends.
const (
	name      = "email"
	askKind   = "question"
	replyKind = "outcome"
)

// Config configures a Channel.
type Config struct {
	// Engine is where jobs are read. Required.
	Engine *askonce.Engine
	// SMTP is the server: smtp://[user:pass@]host[:port] (STARTTLS
	// whenever the server offers it; port 587 by default) or smtps://
	// (implicit TLS; port 465). Required. A user and password are sent
	// with AUTH PLAIN, which go-mail refuses over an unencrypted
	// connection to any host but localhost.
	SMTP string
	// RequireTLS refuses an smtp:// server that does not offer STARTTLS.
	RequireTLS bool
	// From is the sender address. Required.
	From string
	// AnswerURL returns the answer link of a pending job; nil or "": the
	// mail has no links and says to answer with askonce.
	AnswerURL func(*askonce.Job) string
	// Backoff is the wait after the attempt-th failed send. Default: 1s
	// doubling to 5m.
	Backoff func(attempt int) time.Duration
	// OnSend, when set, is told of every send: its kind (question,
	// outcome) and error; for a metric.
	OnSend func(kind string, err error)
	// Logger receives the channel's logs; never a password or a link.
	Logger *slog.Logger
	// Timeout bounds one SMTP conversation. Default 30s.
	Timeout time.Duration
}

// Channel is the email channel, an askonce.Channel.
type Channel struct {
	cfg     Config
	log     *slog.Logger
	host    string
	options []mail.Option
	domain  string // of From, for Message-IDs
	// settledPoll is how soon an outcome job looks again at a job that
	// is still planning.
	settledPoll time.Duration
}

// New returns the channel of cfg, or why cfg is unusable (without the
// URL's password).
func New(cfg Config) (*Channel, error) {
	if cfg.Engine == nil {
		return nil, errors.New("email: Config.Engine is required")
	}
	from, err := mailAddress(cfg.From)
	if err != nil {
		return nil, fmt.Errorf("email: from address %q: %w", cfg.From, err)
	}
	host, opts, err := smtpOptions(cfg.SMTP, cfg.RequireTLS)
	if err != nil {
		return nil, err
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 30 * time.Second
	}
	opts = append(opts, mail.WithTimeout(cfg.Timeout))
	if cfg.Backoff == nil {
		cfg.Backoff = func(attempt int) time.Duration {
			return min(time.Second<<min(max(attempt-1, 0), 20), 5*time.Minute)
		}
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	_, domain, _ := strings.Cut(from, "@")
	return &Channel{cfg: cfg, log: log.With("channel", "email"), host: host, options: opts, domain: domain, settledPoll: time.Second}, nil
}

func mailAddress(s string) (string, error) {
	r := askonce.Recipients{Email: []string{s}}
	if err := r.Validate(); err != nil {
		return "", errors.New("not a bare address such as askonce@example.com")
	}
	return s, nil
}

// smtpOptions reads an SMTP URL. Its errors never hold the password.
func smtpOptions(raw string, requireTLS bool) (host string, _ []mail.Option, _ error) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "smtp" && u.Scheme != "smtps") {
		return "", nil, errors.New("email: --smtp-url must be smtp://[user:pass@]host[:port] or smtps://[user:pass@]host[:port]")
	}
	host, port := u.Hostname(), u.Port()
	var opts []mail.Option
	if u.Scheme == "smtps" {
		opts = append(opts, mail.WithSSL())
		port = cmpOr(port, "465")
	} else {
		policy := mail.TLSOpportunistic
		if requireTLS {
			policy = mail.TLSMandatory
		}
		opts = append(opts, mail.WithTLSPolicy(policy))
		port = cmpOr(port, "587")
	}
	n, err := strconv.Atoi(port)
	if err != nil || n < 1 || n > 65535 {
		return "", nil, fmt.Errorf("email: SMTP port %q is not a port", port)
	}
	opts = append(opts, mail.WithPort(n))
	if u.User != nil {
		pass, _ := u.User.Password()
		opts = append(opts, mail.WithSMTPAuth(mail.SMTPAuthPlain), mail.WithUsername(u.User.Username()), mail.WithPassword(pass))
	}
	return host, opts, nil
}

func cmpOr(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

// Name names the channel: "email".
func (c *Channel) Name() string { return name }

// Kinds lists the channel's sends: the question to one address, and the
// outcome, as a reply, to one address.
func (c *Channel) Kinds() []string { return []string{askKind, replyKind, remindKind, escalateKind} }

// Sends returns a send per address the job names.
func (c *Channel) Sends(j *askonce.Job, ev askonce.QuestionEvent) []askonce.Send {
	if j.Notify == nil {
		return nil
	}
	var out []askonce.Send
	for _, to := range j.Notify.Email {
		if ev == askonce.QuestionAsked {
			out = append(out, askonce.Send{Kind: askKind, TenantID: j.TenantID, JobID: j.ID, To: to})
		}
	}
	// The outcome goes to every address the question may have reached,
	// those of its reach policy's escalations too; one it never reached
	// gets nothing.
	for _, to := range j.Notify.Everyone().Email {
		if ev == askonce.QuestionResolved {
			out = append(out, askonce.Send{Kind: replyKind, TenantID: j.TenantID, JobID: j.ID, To: to})
		}
	}
	return out
}

// Send makes one try of s.
func (c *Channel) Send(ctx context.Context, s askonce.Send) error {
	switch s.Kind {
	case askKind:
		return (&questionWorker{c: c}).Work(ctx, s)
	case replyKind:
		return (&outcomeWorker{c: c}).Work(ctx, s)
	case remindKind:
		return c.remind(ctx, s)
	case escalateKind:
		return (&questionWorker{c: c}).Work(ctx, s)
	}
	return askonce.CancelSend(fmt.Errorf("email: no send of kind %q", s.Kind))
}

// Backoff is Config.Backoff.
func (c *Channel) Backoff(attempt int) time.Duration { return c.cfg.Backoff(attempt) }

// MessageID is the Message-ID (without angle brackets) of a job's
// question mail; the outcome replies to it.
func (c *Channel) MessageID(j *askonce.Job) string {
	return "askonce." + j.ID + "@" + c.domain
}

// record names, per address, the stored sends.
func record(kind, to string) string { return "email-" + kind + ":" + strings.ToLower(to) }

// sent reports whether the send of kind to to was recorded.
func (c *Channel) sentBefore(ctx context.Context, j *askonce.Job, kind, to string) bool {
	_, err := c.cfg.Engine.Message(ctx, j.TenantID, j.ID, record(kind, to))
	return err == nil
}

// send sends m and records it, telling OnSend, the job's events and the
// log; attempt is the send's try.
func (c *Channel) send(ctx context.Context, j *askonce.Job, kind, to string, attempt int, m *mail.Msg) error {
	client, err := mail.NewClient(c.host, c.options...)
	if err == nil {
		err = client.DialAndSendWithContext(ctx, m)
	}
	if c.cfg.OnSend != nil {
		c.cfg.OnSend(kind, err)
	}
	if nerr := c.cfg.Engine.Notified(ctx, askonce.Notification{TenantID: j.TenantID, JobID: j.ID, Channel: "email", Kind: kind, To: to, Err: err, Attempt: attempt}); nerr != nil {
		c.log.WarnContext(ctx, "email: record the send in the job's events", "job", j.ID, "err", nerr)
	}
	if err != nil {
		// go-mail's errors name the server and the SMTP reply, never
		// the password.
		c.log.WarnContext(ctx, "email: send failed", "kind", kind, "job", j.ID, "err", err)
		return fmt.Errorf("email %s of job %s: %w", kind, j.ID, err)
	}
	c.log.InfoContext(ctx, "email: sent", "kind", kind, "job", j.ID)
	_, err = c.cfg.Engine.PutMessage(ctx, askonce.Message{TenantID: j.TenantID, JobID: j.ID, Channel: record(kind, to), Ref: c.MessageID(j)})
	return err
}

// message starts a mail from From to to.
func (c *Channel) message(to, subject string) (*mail.Msg, error) {
	m := mail.NewMsg()
	if err := m.From(c.cfg.From); err != nil {
		return nil, err
	}
	if err := m.To(to); err != nil {
		return nil, err
	}
	m.Subject(subject)
	m.SetDate()
	m.SetGenHeader("Auto-Submitted", "auto-generated")
	return m, nil
}

type questionWorker struct {
	c *Channel
}

// Work mails the question, unless it was mailed already or the job
// stopped pending first.
func (w *questionWorker) Work(ctx context.Context, s askonce.Send) error {
	c, a := w.c, s
	j, err := c.job(ctx, a.TenantID, a.JobID)
	if err != nil {
		return err
	}
	if j.Status != askonce.StatusPending || j.Question == nil || c.sentBefore(ctx, j, "question", a.To) {
		return nil
	}
	link := ""
	if c.cfg.AnswerURL != nil {
		link = c.cfg.AnswerURL(j)
	}
	v := c.personal(newQuestionView(j, link), j, a.To)
	m, err := c.message(a.To, "Question: "+oneLine(j.Title))
	if err != nil {
		return askonce.CancelSend(err)
	}
	m.SetMessageIDWithValue(c.MessageID(j))
	text, html, err := v.render()
	if err != nil {
		return err
	}
	m.SetBodyString(mail.TypeTextPlain, text)
	m.AddAlternativeString(mail.TypeTextHTML, html)
	return c.send(ctx, j, "question", a.To, s.Attempt, m)
}

type outcomeWorker struct {
	c *Channel
}

// Work mails the outcome once the job ended, as a reply to the question
// mail, if the question was mailed.
func (w *outcomeWorker) Work(ctx context.Context, s askonce.Send) error {
	c, a := w.c, s
	j, err := c.job(ctx, a.TenantID, a.JobID)
	if err != nil {
		return err
	}
	if !c.sentBefore(ctx, j, "question", a.To) || c.sentBefore(ctx, j, "outcome", a.To) {
		return nil
	}
	if !j.Status.Terminal() {
		return askonce.SnoozeSend(c.settledPoll)
	}
	m, err := c.message(a.To, "Re: Question: "+oneLine(j.Title))
	if err != nil {
		return askonce.CancelSend(err)
	}
	m.SetMessageIDWithValue("askonce." + j.ID + ".outcome@" + c.domain)
	m.SetGenHeader(mail.HeaderInReplyTo, "<"+c.MessageID(j)+">")
	m.SetGenHeader(mail.HeaderReferences, "<"+c.MessageID(j)+">")
	text, html, err := newOutcomeView(j).render()
	if err != nil {
		return err
	}
	m.SetBodyString(mail.TypeTextPlain, text)
	m.AddAlternativeString(mail.TypeTextHTML, html)
	return c.send(ctx, j, "outcome", a.To, s.Attempt, m)
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
