package email

import (
	"context"
	"net/url"
	"strconv"
	"time"

	mail "github.com/wneessen/go-mail"

	"github.com/askonce/askonce"
)

// A job's reach policy (askonce.Recipients.Steps) reminds by a reply in
// the question mail's thread (same subject, In-Reply-To and References
// the question's Message-ID), with how long the question has waited,
// when it expires and the same links; it escalates by mailing the
// question, whole, to an address not asked before, which then gets the
// outcome like the others. Each is recorded per address and step and
// not sent twice by a retry.
const (
	remindKind   = askonce.SendRemind
	escalateKind = askonce.SendEscalate
)

// StepSends returns the sends of step n of j's reach policy: a reminder
// per address it reminds, the question per address it reaches first.
func (c *Channel) StepSends(j *askonce.Job, n int) []askonce.Send {
	remind, escalate := j.Notify.Step(n)
	return askonce.StepSends(j, n, remind.Email, escalate.Email)
}

// remind mails the reminder of step s.Step to s.To in the question's
// thread, once; an address the question never reached gets the
// question instead.
func (c *Channel) remind(ctx context.Context, s askonce.Send) error {
	j, err := c.job(ctx, s.TenantID, s.JobID)
	if err != nil || j.Status != askonce.StatusPending || j.Question == nil {
		return err // answered meanwhile: no reminder
	}
	if !c.sentBefore(ctx, j, "question", s.To) {
		return (&questionWorker{c: c}).Work(ctx, s)
	}
	kind := "remind" + strconv.Itoa(s.Step)
	if c.sentBefore(ctx, j, kind, s.To) {
		return nil
	}
	link := ""
	if c.cfg.AnswerURL != nil {
		link = c.cfg.AnswerURL(j)
	}
	m, err := c.message(s.To, "Question: "+oneLine(j.Title))
	if err != nil {
		return askonce.CancelSend(err)
	}
	m.SetMessageIDWithValue("askonce." + j.ID + "." + kind + "@" + c.domain)
	m.SetGenHeader(mail.HeaderInReplyTo, "<"+c.MessageID(j)+">")
	m.SetGenHeader(mail.HeaderReferences, "<"+c.MessageID(j)+">")
	text, html, err := c.personal(newReminderView(j, link, time.Now()), j, s.To).render()
	if err != nil {
		return err
	}
	m.SetBodyString(mail.TypeTextPlain, text)
	m.AddAlternativeString(mail.TypeTextHTML, html)
	return c.send(ctx, j, kind, s.To, s.Attempt, m)
}

// newReminderView is the question mail with how long it has waited at
// now.
func newReminderView(j *askonce.Job, link string, now time.Time) questionView {
	v := newQuestionView(j, link)
	v.Reminder = "this question has waited " + askonce.FormatWait(j.Waited(now))
	if v.Expires != "" {
		v.Reminder += " and expires at " + v.Expires
	}
	v.Reminder += "; no one has answered it yet."
	return v
}

// personal makes the view's links addr's own: each carries the address
// and its mark (askonce.Engine.RecipientMark), so that the answer page
// records which person answered and holds them to the job's answerers.
// Without a link secret the links stay as they are.
func (c *Channel) personal(v questionView, j *askonce.Job, addr string) questionView {
	mark := c.cfg.Engine.RecipientMark(j, addr)
	if mark == "" || v.Link == "" {
		return v
	}
	suffix := "&by=" + url.QueryEscape(addr) + "&mark=" + mark
	v.Link += suffix
	for i := range v.Options {
		if v.Options[i].Link != "" {
			v.Options[i].Link += suffix
		}
	}
	return v
}
