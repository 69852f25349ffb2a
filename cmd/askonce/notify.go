package main

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/email"
	"github.com/askonce/askonce/internal/cli"
	"github.com/askonce/askonce/metrics"
	"github.com/askonce/askonce/slack"
)

// notifyConfig is what `askonce serve` is told about the Slack and email
// channels (docs/notifications.md).
type notifyConfig struct {
	SlackChannel       string
	EmailTo            string
	SlackBotToken      string
	SlackSigningSecret string
	SlackAPIURL        string
	SMTPURL            string
	SMTPRequireTLS     bool
	EmailFrom          string
	// Reach is the reach policy of jobs that name no recipients, as the
	// JSON of notify.steps; ReachMinInterval the least time between steps.
	Reach            string
	ReachMinInterval time.Duration
}

func (c *notifyConfig) flags(s *cli.Settings) {
	s.String(&c.SlackChannel, "slack-channel", "", "Slack channel (C…) or user (U…) id asked the question of a job that names no recipients")
	s.String(&c.EmailTo, "email-to", "", "comma-separated addresses asked the question of a job that names no recipients")
	s.String(&c.Reach, "reach", "", `reach policy of jobs that name no recipients: the JSON of notify.steps, such as '[{"after":"30m"},{"after":"2h","email":["oncall@example.com"]}]' (docs/notifications.md)`)
	s.Duration(&c.ReachMinInterval, "reach-min-interval", askonce.DefaultReachMinInterval, "least time between a question's ask and its first reach step, and between two steps; lower it for tests and demos")
	s.String(&c.SlackBotToken, "slack-bot-token", "", "Slack bot token (xoxb-…) that posts questions; empty: no Slack channel. Prefer the environment variable")
	s.String(&c.SlackSigningSecret, "slack-signing-secret", "", "Slack app signing secret that POST /slack/interactions verifies; required with --slack-bot-token. Prefer the environment variable")
	s.String(&c.SlackAPIURL, "slack-api-url", "", "Slack Web API base URL; empty: https://slack.com/api/ (tests and Slack-compatible servers set it)")
	s.String(&c.SMTPURL, "smtp-url", "", "SMTP server that emails questions, smtp://user:pass@host:port (STARTTLS when offered) or smtps:// (implicit TLS); empty: no email channel. Prefer the environment variable")
	s.Bool(&c.SMTPRequireTLS, "smtp-require-tls", false, "refuse an smtp:// server that does not offer STARTTLS")
	s.String(&c.EmailFrom, "email-from", "", "From address of question emails; required with --smtp-url")
}

// defaults are the recipients of jobs that name none, with the --reach
// policy.
func (c *notifyConfig) defaults() *askonce.Recipients {
	r := cli.Recipients(c.SlackChannel, c.EmailTo)
	if steps, err := c.steps(); err == nil && len(steps) > 0 && r != nil {
		r.Steps = steps
	}
	return r
}

// steps reads --reach.
func (c *notifyConfig) steps() ([]askonce.ReachStep, error) {
	if strings.TrimSpace(c.Reach) == "" {
		return nil, nil
	}
	var steps []askonce.ReachStep
	dec := json.NewDecoder(strings.NewReader(c.Reach))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&steps); err != nil {
		return nil, fmt.Errorf("--reach is not a JSON list of steps such as '[{\"after\":\"30m\"}]': %v", err)
	}
	return steps, nil
}

// checkReach refuses a --reach policy that jobs asking questions of ttl
// could not run.
func (c *notifyConfig) checkReach(ttl time.Duration) error {
	steps, err := c.steps()
	if err != nil {
		return cli.UsageError{Msg: err.Error()}
	}
	if c.ReachMinInterval <= 0 {
		return cli.UsageError{Msg: "--reach-min-interval must be positive"}
	}
	if len(steps) == 0 {
		return nil
	}
	if cli.Recipients(c.SlackChannel, c.EmailTo) == nil {
		return cli.UsageError{Msg: "--reach needs --slack-channel or --email-to: it is the policy of the default recipients"}
	}
	r := &askonce.Recipients{Steps: steps}
	if err := r.Validate(); err != nil {
		return cli.UsageError{Msg: "--reach: " + askonce.ErrorMessage(err)}
	}
	if ttl == 0 {
		ttl = askonce.DefaultQuestionTTL
	}
	if err := r.ValidateReach(ttl, c.ReachMinInterval); err != nil {
		return cli.UsageError{Msg: "--reach: " + askonce.ErrorMessage(err)}
	}
	return nil
}

// enabled reports whether a channel that reaches people is configured.
func (c *notifyConfig) enabled() bool { return c.SlackBotToken != "" || c.SMTPURL != "" }

// check refuses a half-configured channel and malformed defaults.
func (c *notifyConfig) check() error {
	switch {
	case c.SlackBotToken != "" && c.SlackSigningSecret == "":
		return cli.UsageError{Msg: "--slack-bot-token needs --slack-signing-secret (or ASKONCE_SLACK_SIGNING_SECRET): without it Slack's clicks cannot be verified"}
	case c.SlackBotToken == "" && (c.SlackSigningSecret != "" || c.SlackAPIURL != ""):
		return cli.UsageError{Msg: "--slack-signing-secret and --slack-api-url need --slack-bot-token"}
	case c.SMTPURL != "" && c.EmailFrom == "":
		return cli.UsageError{Msg: "--smtp-url needs --email-from"}
	}
	if err := c.defaults().Validate(); err != nil {
		return cli.UsageError{Msg: "--slack-channel / --email-to: " + askonce.ErrorMessage(err)}
	}
	return nil
}

// servedChannels are the channels serve runs, and the handlers they
// mount.
type servedChannels struct {
	list  []askonce.Channel
	slack *slack.Channel
}

// channels builds the configured channels on engine.
func (c *notifyConfig) channels(engine *askonce.Engine, answerURL func(*askonce.Job) string, backoff func(int) time.Duration, reg *metrics.Registry, log *slog.Logger) (*servedChannels, error) {
	out := &servedChannels{}
	if !c.enabled() {
		return out, nil
	}
	sends := reg.ChannelSends()
	if c.SlackBotToken != "" {
		sc, err := slack.New(slack.Config{
			Engine: engine, Token: c.SlackBotToken, SigningSecret: c.SlackSigningSecret, APIURL: c.SlackAPIURL,
			AnswerURL: answerURL, Backoff: backoff, Logger: log,
			OnSend: func(kind string, err error) { sends("slack", kind, err) },
		})
		if err != nil {
			return nil, err
		}
		out.slack = sc
		out.list = append(out.list, sc)
	}
	if c.SMTPURL != "" {
		ec, err := email.New(email.Config{
			Engine: engine, SMTP: c.SMTPURL, RequireTLS: c.SMTPRequireTLS, From: c.EmailFrom,
			AnswerURL: answerURL, Backoff: backoff, Logger: log,
			OnSend: func(kind string, err error) { sends("email", kind, err) },
		})
		if err != nil {
			return nil, err
		}
		out.list = append(out.list, ec)
	}
	return out, nil
}

// mount adds the channels' endpoints to the server's mux.
func (s *servedChannels) mount(mux *http.ServeMux) {
	if s.slack != nil {
		mux.Handle("POST "+slack.InteractionsPath, s.slack.Handler())
	}
}
