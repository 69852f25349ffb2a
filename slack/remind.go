package slack

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	slackapi "github.com/slack-go/slack"

	"github.com/askonce/askonce"
)

// A job's reach policy (askonce.Recipients.Steps) reminds in the thread
// of the question message, and escalates by posting the question, whole
// and with its controls, to a conversation not asked before. Each
// escalated message is stored under "slack:<conversation>", each
// reminder under "slack-remind<step>:<conversation>", so a retried send
// posts nothing twice; every message that carries the question is
// settled when the job stops pending.
const (
	remindKind   = askonce.SendRemind
	escalateKind = askonce.SendEscalate
)

// StepSends returns the sends of step n of j's reach policy: a reminder
// per Slack conversation it reminds, an escalation per one it reaches
// first.
func (c *Channel) StepSends(j *askonce.Job, n int) []askonce.Send {
	remind, escalate := j.Notify.Step(n)
	return askonce.StepSends(j, n, conversations(remind.Slack), conversations(escalate.Slack))
}

// conversations are the conversations of rs.
func conversations(rs []askonce.SlackRecipient) []string {
	out := make([]string, 0, len(rs))
	for _, r := range rs {
		out = append(out, r.Conversation())
	}
	return out
}

// msgName is the name the question message posted to conversation to is
// stored under: the job's own recipient's is msgQuestion.
func msgName(j *askonce.Job, to string) string {
	if j.Notify != nil && j.Notify.Slack != nil && j.Notify.Slack.Conversation() == to {
		return msgQuestion
	}
	return "slack:" + to
}

// messageTo returns the question message of j in conversation to; ok
// false when none was posted there.
func (c *Channel) messageTo(ctx context.Context, j *askonce.Job, to string) (ref, bool, error) {
	m, err := c.cfg.Engine.Message(ctx, j.TenantID, j.ID, msgName(j, to))
	if askonce.ErrorCode(err) == askonce.ENOTFOUND {
		return ref{}, false, nil
	}
	if err != nil {
		return ref{}, false, err
	}
	r, ok := parseRef(m.Ref)
	if !ok {
		return ref{}, false, fmt.Errorf("stored slack message %q of job %s is not '<channel> <ts>'", m.Ref, j.ID)
	}
	return r, true, nil
}

// remind puts the reminder of step s.Step in the thread of the question
// message in s.To, once; a conversation the question never reached (its
// post failed for good) gets the question instead.
func (c *Channel) remind(ctx context.Context, s askonce.Send) error {
	j, err := c.job(ctx, s.TenantID, s.JobID)
	if err != nil || j.Status != askonce.StatusPending || j.Question == nil {
		return err // answered meanwhile: no reminder
	}
	r, posted, err := c.messageTo(ctx, j, s.To)
	if err != nil {
		return err
	}
	if !posted {
		return c.escalate(ctx, s)
	}
	record := "slack-remind" + strconv.Itoa(s.Step) + ":" + s.To
	if _, err := c.cfg.Engine.Message(ctx, j.TenantID, j.ID, record); err == nil {
		return nil // reminded already
	}
	url := ""
	if c.cfg.AnswerURL != nil {
		url = c.cfg.AnswerURL(j)
	}
	_, ts, err := c.api.PostMessageContext(ctx, r.channel, slackapi.MsgOptionTS(r.ts),
		slackapi.MsgOptionText(Reminder(j, time.Now(), url), false), slackapi.MsgOptionDisableLinkUnfurl())
	if err := c.sent(ctx, remindKind, j, s.Attempt, err); err != nil {
		return err
	}
	_, err = c.cfg.Engine.PutMessage(ctx, askonce.Message{TenantID: j.TenantID, JobID: j.ID, Channel: record, Ref: ts})
	return err
}

// escalate posts the question, whole, to s.To, once.
func (c *Channel) escalate(ctx context.Context, s askonce.Send) error {
	j, err := c.job(ctx, s.TenantID, s.JobID)
	if err != nil || j.Status != askonce.StatusPending || j.Question == nil {
		return err
	}
	if _, posted, err := c.messageTo(ctx, j, s.To); err != nil || posted {
		return err
	}
	url := ""
	if c.cfg.AnswerURL != nil {
		url = c.cfg.AnswerURL(j)
	}
	pctx, cancel := context.WithTimeout(ctx, postTimeout)
	channel, ts, err := c.api.PostMessageContext(pctx, s.To,
		slackapi.MsgOptionText(Escape(j.Title+": "+j.Question.Text), false),
		slackapi.MsgOptionBlocks(QuestionBlocks(j, url)...),
		slackapi.MsgOptionMetadata(questionMetadata(j)),
		slackapi.MsgOptionDisableLinkUnfurl())
	cancel()
	if err := c.sent(ctx, escalateKind, j, s.Attempt, err); err != nil {
		return err
	}
	if _, err := c.cfg.Engine.PutMessage(ctx, askonce.Message{TenantID: j.TenantID, JobID: j.ID, Channel: msgName(j, s.To), Ref: ref{channel, ts}.String()}); err != nil {
		return err
	}
	// Answered while this was posting: settle the new copy too.
	if j, err = c.cfg.Engine.Get(ctx, j.TenantID, j.ID); err == nil && j.Status != askonce.StatusPending {
		return c.update(ctx, j, ref{channel, ts}, s.Attempt)
	}
	return nil
}

// updateAll settles every message that carried j's question, in every
// conversation it reached; attempt is the send's try, 0 outside one.
func (c *Channel) updateAll(ctx context.Context, j *askonce.Job, attempt int) error {
	var first error
	for _, s := range j.Notify.Everyone().Slack {
		r, posted, err := c.messageTo(ctx, j, s.Conversation())
		if err == nil && posted {
			err = c.update(ctx, j, r, attempt)
		}
		if err != nil && first == nil {
			first = err
		}
	}
	return first
}

// Reminder is the thread reply of a reminder, in mrkdwn: how long the
// question has waited at now, when it expires, and the answer link.
func Reminder(j *askonce.Job, now time.Time, answerURL string) string {
	text := "⏰ Reminder: this question has waited " + askonce.FormatWait(j.Waited(now))
	if q := j.Question; q != nil && q.ExpiresAt != nil {
		text += fmt.Sprintf("; it expires <!date^%d^{date_short_pretty} at {time}|%s>", q.ExpiresAt.Unix(), q.ExpiresAt.UTC().Format(time.RFC3339))
	}
	text += "."
	if answerURL != "" {
		text += " <" + answerURL + "|Open the answer page>"
	}
	return text
}

// mayAnswer tells a person who may not answer j's question so, and
// records the refusal; it reports whether they may.
func (c *Channel) mayAnswer(ctx context.Context, cb slackapi.InteractionCallback, j *askonce.Job) bool {
	a := askonce.Answerer{Via: askonce.ViaSlack, By: cb.User.ID}
	if j.Notify.MayAnswer(a) {
		return true
	}
	if err := c.cfg.Engine.RefuseAnswer(ctx, j, a); err != nil {
		c.log.WarnContext(ctx, "slack: record a refused answer", "job", j.ID, "err", err)
	}
	c.ephemeral(ctx, cb, refusal(j))
	return false
}

// refusal is what a person not among the answerers is told: who may
// answer (user ids and addresses, both validated, so safe in mrkdwn).
func refusal(j *askonce.Job) string {
	var who []string
	for _, u := range j.Notify.Answerers.Slack {
		who = append(who, "<@"+u+">")
	}
	who = append(who, j.Notify.Answerers.Email...)
	return "Sorry, this question is for " + strings.Join(who, ", ") + " to answer; your answer was not taken and the question still waits."
}
