package askonce

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"slices"
	"strings"
	"time"
)

// The limits of a reach policy (Recipients.Steps).
const (
	// MaxReachSteps bounds Recipients.Steps.
	MaxReachSteps = 8
	// DefaultReachMinInterval is the least time between two steps, and
	// between the ask and the first step, unless
	// Engine.ReachMinInterval says otherwise.
	DefaultReachMinInterval = time.Minute
)

// ReachStep is one step of a job's reach policy: at a time after the
// question was asked (After) or before it expires (BeforeExpiry), it
// reminds the people reached so far, or escalates to people not reached
// yet. A step that names no one reminds everyone reached before it (the
// job's own recipients and earlier steps'); a step that names someone
// reminds them if an earlier step or the job reached them, and sends
// them the question, whole, if not (an escalation). Every copy on every
// channel can answer it; the first answer wins as always.
type ReachStep struct {
	// After is how long after the ask the step runs, as a Go duration
	// ("30m", "2h"). Exactly one of After and BeforeExpiry is set.
	After string `json:"after,omitempty"`
	// BeforeExpiry is how long before the question expires the step
	// runs ("1h").
	BeforeExpiry string `json:"beforeExpiry,omitempty"`
	// Slack and Email are who the step reaches, as in Recipients.
	Slack *SlackRecipient `json:"slack,omitempty"`
	Email []string        `json:"email,omitempty"`
}

// Answerers name the people allowed to answer a job's question on Slack
// and by email. Anyone else's answer there is refused, recorded
// (EventAnswerRefused) and does not spend the question. The answer link,
// the HTTP API and the other channels are not restricted: a link is a
// credential, and an API key is its holder's.
type Answerers struct {
	// Slack lists Slack user ids (U0123ABCD).
	Slack []string `json:"slack,omitempty"`
	// Email lists bare addresses.
	Email []string `json:"email,omitempty"`
}

// Reach is who a step reaches, by channel: several Slack conversations
// (the job's and earlier escalations') and addresses.
type Reach struct {
	Slack []SlackRecipient
	Email []string
}

// Empty reports whether r names no one.
func (r Reach) Empty() bool { return len(r.Slack) == 0 && len(r.Email) == 0 }

func (r *Reach) add(s *SlackRecipient, email []string) {
	if s != nil && !slices.Contains(r.Slack, *s) {
		r.Slack = append(r.Slack, *s)
	}
	for _, a := range email {
		if !slices.ContainsFunc(r.Email, func(b string) bool { return strings.EqualFold(a, b) }) {
			r.Email = append(r.Email, a)
		}
	}
}

func (r Reach) has(s SlackRecipient) bool { return slices.Contains(r.Slack, s) }

func (r Reach) hasEmail(a string) bool {
	return slices.ContainsFunc(r.Email, func(b string) bool { return strings.EqualFold(a, b) })
}

// Reached returns who the job's recipients and its first n steps reach;
// Reached(len(Steps)) is everyone the question may go to.
func (r *Recipients) Reached(n int) Reach {
	var out Reach
	if r == nil {
		return out
	}
	out.add(r.Slack, r.Email)
	for _, s := range r.Steps[:min(n, len(r.Steps))] {
		out.add(s.Slack, s.Email)
	}
	return out
}

// Everyone is Reached of every step: whoever the question may go to.
func (r *Recipients) Everyone() Reach {
	if r == nil {
		return Reach{}
	}
	return r.Reached(len(r.Steps))
}

// The Send.Kind of a reach step's sends, on every channel that reaches
// people.
const (
	SendRemind   = "remind"
	SendEscalate = "escalate"
)

// StepSends are the sends of step n of j's reach policy on one channel,
// whose recipients of the step are remind and escalate (addresses or
// conversations, as the channel names them): a reminder to each of
// remind, the question, whole, to each of escalate.
func StepSends(j *Job, n int, remind, escalate []string) []Send {
	var out []Send
	for _, to := range remind {
		out = append(out, Send{Kind: SendRemind, TenantID: j.TenantID, JobID: j.ID, To: to, Step: n})
	}
	for _, to := range escalate {
		out = append(out, Send{Kind: SendEscalate, TenantID: j.TenantID, JobID: j.ID, To: to, Step: n})
	}
	return out
}

// Step returns what step n (counted from 1) does: whom it reminds, and
// to whom it escalates (sends the question for the first time).
func (r *Recipients) Step(n int) (remind, escalate Reach) {
	if r == nil || n < 1 || n > len(r.Steps) {
		return
	}
	before := r.Reached(n - 1)
	s := r.Steps[n-1]
	if s.Slack == nil && len(s.Email) == 0 {
		return before, Reach{}
	}
	if s.Slack != nil {
		if before.has(*s.Slack) {
			remind.add(s.Slack, nil)
		} else {
			escalate.add(s.Slack, nil)
		}
	}
	for _, a := range s.Email {
		if before.hasEmail(a) {
			remind.add(nil, []string{a})
		} else {
			escalate.add(nil, []string{a})
		}
	}
	return remind, escalate
}

// offset returns when step s runs after the ask, for a question that
// expires ttl after it (ttl <= 0: never).
func (s ReachStep) offset(ttl time.Duration) (time.Duration, error) {
	switch {
	case (s.After == "") == (s.BeforeExpiry == ""):
		return 0, fmt.Errorf(`give exactly one of "after" and "beforeExpiry"`)
	case s.After != "":
		d, err := time.ParseDuration(s.After)
		if err != nil || d <= 0 {
			return 0, fmt.Errorf("after %q is not a positive duration such as 30m or 2h", s.After)
		}
		return d, nil
	}
	d, err := time.ParseDuration(s.BeforeExpiry)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("beforeExpiry %q is not a positive duration such as 1h", s.BeforeExpiry)
	}
	if ttl <= 0 {
		return 0, fmt.Errorf("beforeExpiry %q: questions on this server never expire", s.BeforeExpiry)
	}
	return ttl - d, nil
}

// At returns when step s runs for a question asked at asked that
// expires at expires (nil: never), and false when it would run at or
// after the expiry, or cannot be placed: then it is not run.
func (s ReachStep) At(asked time.Time, expires *time.Time) (time.Time, bool) {
	var at time.Time
	switch {
	case s.After != "":
		d, err := time.ParseDuration(s.After)
		if err != nil {
			return time.Time{}, false
		}
		at = asked.Add(d)
	case s.BeforeExpiry != "" && expires != nil:
		d, err := time.ParseDuration(s.BeforeExpiry)
		if err != nil {
			return time.Time{}, false
		}
		at = expires.Add(-d)
	default:
		return time.Time{}, false
	}
	if at.Before(asked) || (expires != nil && !at.Before(*expires)) {
		return time.Time{}, false
	}
	return at, true
}

// validateSteps checks what Validate can of the steps: their number,
// each has one offset that parses, well-formed recipients.
func (r *Recipients) validateSteps() error {
	if len(r.Steps) > MaxReachSteps {
		return Errorf(EINVALID, "notify.steps: %d steps given; the limit is %d", len(r.Steps), MaxReachSteps)
	}
	for i, s := range r.Steps {
		at := fmt.Sprintf("notify.steps[%d]", i)
		if _, err := s.offset(time.Hour * 24 * 365 * 100); err != nil {
			return Errorf(EINVALID, "%s: %s", at, err)
		}
		if err := validRecipients(at, s.Slack, s.Email); err != nil {
			return err
		}
	}
	if a := r.Answerers; a != nil {
		for i, u := range a.Slack {
			if !slackUserID.MatchString(u) {
				return Errorf(EINVALID, "notify.answerers.slack[%d] %q is not a Slack user id (U or W followed by 8-20 capital letters or digits)", i, u)
			}
		}
		if err := validEmails("notify.answerers.email", a.Email); err != nil {
			return err
		}
	}
	return nil
}

// ValidateReach checks the timing of r's steps for questions that
// expire ttl after they are asked (ttl <= 0: never): each runs at least
// minInterval after the ask and after the step before it, in the order
// given, and before the expiry. The error (EINVALID) names the step.
func (r *Recipients) ValidateReach(ttl, minInterval time.Duration) error {
	if r == nil {
		return nil
	}
	prev := time.Duration(0)
	for i, s := range r.Steps {
		at := fmt.Sprintf("notify.steps[%d]", i)
		off, err := s.offset(ttl)
		if err != nil {
			return Errorf(EINVALID, "%s: %s", at, err)
		}
		switch {
		case ttl > 0 && off >= ttl:
			return Errorf(EINVALID, "%s runs %s after the ask, at or past the question's expiry (%s)", at, off, ttl)
		case off < 0:
			return Errorf(EINVALID, "%s runs before the ask: the question expires %s after it", at, ttl)
		case off < prev:
			return Errorf(EINVALID, "%s runs %s after the ask, before the step above it (%s): give the steps in order", at, off, prev)
		case off-prev < minInterval:
			return Errorf(EINVALID, "%s runs %s after the %s, less than the minimum interval of %s", at, off-prev, map[bool]string{true: "ask", false: "step above it"}[i == 0], minInterval)
		}
		prev = off
	}
	return nil
}

// MayAnswer reports whether a may answer the question of a job whose
// recipients are r: yes unless r names answerers and a answers on Slack
// (or by email, or signed in to the inbox) as someone they do not list.
func (r *Recipients) MayAnswer(a Answerer) bool {
	if r == nil || r.Answerers == nil || (len(r.Answerers.Slack) == 0 && len(r.Answerers.Email) == 0) {
		return true
	}
	if a.SignedIn {
		// A signed-in person is who they signed in as, whatever link
		// they followed: an address the provider verified, or no one
		// the answerers list.
		return a.Email != "" && slices.ContainsFunc(r.Answerers.Email, func(b string) bool { return strings.EqualFold(a.Email, b) })
	}
	switch a.Via {
	case ViaSlack:
		return slices.Contains(r.Answerers.Slack, a.By)
	case ViaEmailLink:
		// By is an address only when the link was the one mailed to
		// that address (RecipientOf); a link without it is a
		// credential, as any answer link.
		if strings.Contains(a.By, "@") {
			return slices.ContainsFunc(r.Answerers.Email, func(b string) bool { return strings.EqualFold(a.By, b) })
		}
	}
	return true
}

// recipientContext separates recipient marks from any other use of the
// link secret.
const recipientContext = "askonce-recipient\x00"

// RecipientMark is what the email channel adds to the links it mails to
// addr for j's question, so that the answer page knows whose mail a link
// came from: an HMAC of the job and the address under LinkSecret; ""
// without a secret.
func (e *Engine) RecipientMark(j *Job, addr string) string {
	if len(e.LinkSecret) == 0 || j == nil {
		return ""
	}
	m := hmac.New(sha256.New, e.LinkSecret)
	m.Write([]byte(recipientContext))
	m.Write([]byte(j.TenantID + "\x00" + j.ID + "\x00" + strings.ToLower(addr)))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil)[:16])
}

// RecipientOf returns addr when mark is its RecipientMark for j, else "".
func (e *Engine) RecipientOf(j *Job, addr, mark string) string {
	want := e.RecipientMark(j, addr)
	if want == "" || addr == "" || !hmac.Equal([]byte(want), []byte(mark)) {
		return ""
	}
	return addr
}

// The events of a reach policy.
const (
	// EventReminded: a step reminded the people reached so far.
	EventReminded EventType = "reminded"
	// EventEscalated: a step sent the question to people not reached
	// before (and reminded any it names who were).
	EventEscalated EventType = "escalated"
	// EventReachFailed: a send of a step failed for good.
	EventReachFailed EventType = "reach_failed"
	// EventAnswerRefused: someone not among the job's answerers tried
	// to answer on Slack or by email; the question still waits.
	EventAnswerRefused EventType = "answer_refused"
)

// ReachData is the data of a reminded or escalated event.
type ReachData struct {
	Step     int      `json:"step"`
	Slack    []string `json:"slack,omitempty"`
	Email    []string `json:"email,omitempty"`
	NewSlack []string `json:"newSlack,omitempty"`
	NewEmail []string `json:"newEmail,omitempty"`
	// WaitedSeconds is how long the question had waited.
	WaitedSeconds int64 `json:"waitedSeconds"`
}

// Reacher is a Channel that reminds and escalates: it says what to send
// for step n of a job's reach policy (Recipients.Step). Its sends carry
// Send.Step.
type Reacher interface {
	StepSends(j *Job, step int) []Send
}

// RefuseAnswer records that a, not among the job's answerers, tried to
// answer its question (EventAnswerRefused); the job does not change.
func (e *Engine) RefuseAnswer(ctx context.Context, j *Job, a Answerer) error {
	ea, ok := e.Store.(EventAppender)
	if !ok {
		return nil
	}
	ev := Event{TenantID: j.TenantID, JobID: j.ID, Type: EventAnswerRefused, At: e.now()}
	ev.Data = eventData(struct {
		Via string `json:"via"`
		By  string `json:"by"`
	}{capString(a.Via, maxAnswerer), capString(a.By, maxAnswerer)})
	return ea.AppendEvent(ctx, ev)
}

// Waited returns how long j's pending question has waited at now: a
// pending job does not change until it stops pending, so its UpdatedAt
// is when it asked.
func (j *Job) Waited(now time.Time) time.Duration {
	if j.Status != StatusPending || j.UpdatedAt.IsZero() {
		return 0
	}
	return max(now.Sub(j.UpdatedAt), 0)
}

// FormatWait says a wait in words a person reads at a glance: "45s",
// "12m", "2h 5m", "3d 4h".
func FormatWait(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		h := int(d.Hours())
		if m := int(d.Minutes()) % 60; m != 0 {
			return fmt.Sprintf("%dh %dm", h, m)
		}
		return fmt.Sprintf("%dh", h)
	}
	days := int(d.Hours()) / 24
	if h := int(d.Hours()) % 24; h != 0 {
		return fmt.Sprintf("%dd %dh", days, h)
	}
	return fmt.Sprintf("%dd", days)
}
