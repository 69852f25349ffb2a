package main

import (
	"strings"

	"github.com/askonce/askonce"
)

// recipients builds a job's recipients from a Slack id (a user id, U… or
// W…, is a direct message; anything else a channel) and a comma-separated
// list of addresses; nil when both are empty. The engine validates them.
func recipients(slack, emails string) *askonce.Recipients {
	r := &askonce.Recipients{Email: splitList(emails)}
	switch slack = strings.TrimSpace(slack); {
	case slack == "":
	case strings.HasPrefix(slack, "U") || strings.HasPrefix(slack, "W"):
		r.Slack = &askonce.SlackRecipient{User: slack}
	default:
		r.Slack = &askonce.SlackRecipient{Channel: slack}
	}
	if r.Empty() {
		return nil
	}
	return r
}

// recipientsLine shows r in one line for jobs show.
func recipientsLine(r *askonce.Recipients) string {
	if r.Empty() {
		return ""
	}
	var parts []string
	if r.Slack != nil {
		parts = append(parts, "slack "+r.Slack.Conversation())
	}
	if len(r.Email) > 0 {
		parts = append(parts, "email "+strings.Join(r.Email, ", "))
	}
	return strings.Join(parts, "; ")
}

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
}

func (c *notifyConfig) flags(s *settings) {
	s.String(&c.SlackChannel, "slack-channel", "", "Slack channel (C…) or user (U…) id asked the question of a job that names no recipients")
	s.String(&c.EmailTo, "email-to", "", "comma-separated addresses asked the question of a job that names no recipients")
	s.String(&c.SlackBotToken, "slack-bot-token", "", "Slack bot token (xoxb-…) that posts questions; empty: no Slack channel. Prefer the environment variable")
	s.String(&c.SlackSigningSecret, "slack-signing-secret", "", "Slack app signing secret that POST /slack/interactions verifies; required with --slack-bot-token. Prefer the environment variable")
	s.String(&c.SlackAPIURL, "slack-api-url", "", "Slack Web API base URL; empty: https://slack.com/api/ (tests and Slack-compatible servers set it)")
	s.String(&c.SMTPURL, "smtp-url", "", "SMTP server that emails questions, smtp://user:pass@host:port (STARTTLS when offered) or smtps:// (implicit TLS); empty: no email channel. Prefer the environment variable")
	s.Bool(&c.SMTPRequireTLS, "smtp-require-tls", false, "refuse an smtp:// server that does not offer STARTTLS")
	s.String(&c.EmailFrom, "email-from", "", "From address of question emails; required with --smtp-url")
}

// defaults are the recipients of jobs that name none.
func (c *notifyConfig) defaults() *askonce.Recipients {
	return recipients(c.SlackChannel, c.EmailTo)
}
