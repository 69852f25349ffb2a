package askonce

import (
	"encoding/json"
	"fmt"
	"net/mail"
	"regexp"
	"slices"
	"strings"
)

// MaxEmailRecipients bounds Recipients.Email.
const MaxEmailRecipients = 20

// Recipients name the people a job's question is sent to outside the API
// (the slack and email channels). It is stored with the job when the job
// is created and never changes after; a job created without any gets the
// engine's DefaultRecipients. A nil *Recipients, or one with no address,
// sends nothing (question webhooks still go out).
type Recipients struct {
	// Slack is where the Slack message goes: a channel or a user (a
	// direct message).
	Slack *SlackRecipient `json:"slack,omitempty"`
	// Email is up to MaxEmailRecipients bare addresses
	// ("a@example.com", no display name).
	Email []string `json:"email,omitempty"`
	// Steps is the job's reach policy: reminders and escalations after
	// the question was first sent, at most MaxReachSteps (see
	// ReachStep). None: the question is sent once, as it always was.
	Steps []ReachStep `json:"steps,omitempty"`
	// Answerers, when set, are the only people whose answers on Slack
	// and by email are taken (see Answerers).
	Answerers *Answerers `json:"answerers,omitempty"`
}

// SlackRecipient is one Slack conversation: exactly one of Channel (an id
// such as C0123ABCD or G0123ABCD) and User (U0123ABCD or W0123ABCD).
type SlackRecipient struct {
	Channel string `json:"channel,omitempty"`
	User    string `json:"user,omitempty"`
}

// Conversation is the id a Slack message is posted to: the channel, or
// the user (Slack opens the direct message).
func (s *SlackRecipient) Conversation() string {
	if s == nil {
		return ""
	}
	if s.Channel != "" {
		return s.Channel
	}
	return s.User
}

var (
	slackChannelID = regexp.MustCompile(`^[CG][A-Z0-9]{8,20}$`)
	slackUserID    = regexp.MustCompile(`^[UW][A-Z0-9]{8,20}$`)
)

// Empty reports whether r names no one and no policy.
func (r *Recipients) Empty() bool {
	return r == nil || (r.Slack == nil && len(r.Email) == 0 && len(r.Steps) == 0 && r.Answerers == nil)
}

// Validate checks r: a Slack recipient is exactly one well-formed channel
// or user id, an email address is a bare address (no name, no angle
// brackets) at most 254 bytes long, listed once. The error (EINVALID)
// names the bad entry as notify.slack.channel, notify.email[2] and so on.
func (r *Recipients) Validate() error {
	if r == nil {
		return nil
	}
	if err := validRecipients("notify", r.Slack, r.Email); err != nil {
		return err
	}
	return r.validateSteps()
}

// validRecipients checks one Slack recipient and a list of addresses,
// naming them under at (notify, notify.steps[1]).
func validRecipients(at string, s *SlackRecipient, email []string) error {
	if s != nil {
		switch {
		case (s.Channel == "") == (s.User == ""):
			return Errorf(EINVALID, `%s.slack: give exactly one of "channel" (C…) and "user" (U…)`, at)
		case s.Channel != "" && !slackChannelID.MatchString(s.Channel):
			return Errorf(EINVALID, "%s.slack.channel %q is not a Slack channel id (C or G followed by 8-20 capital letters or digits, such as C0123ABCD)", at, s.Channel)
		case s.User != "" && !slackUserID.MatchString(s.User):
			return Errorf(EINVALID, "%s.slack.user %q is not a Slack user id (U or W followed by 8-20 capital letters or digits, such as U0123ABCD)", at, s.User)
		}
	}
	return validEmails(at+".email", email)
}

// validEmails checks a list of bare addresses, named at[i].
func validEmails(at string, email []string) error {
	if len(email) > MaxEmailRecipients {
		return Errorf(EINVALID, "%s: %d addresses given; the limit is %d", at, len(email), MaxEmailRecipients)
	}
	for i, a := range email {
		if err := validEmail(a); err != "" {
			return Errorf(EINVALID, "%s[%d] %q %s", at, i, a, err)
		}
		if slices.Contains(email[:i], a) {
			return Errorf(EINVALID, "%s[%d] %q is listed twice", at, i, a)
		}
	}
	return nil
}

// validEmail returns why a is not a bare address, or "".
func validEmail(a string) string {
	if len(a) > 254 {
		return "is longer than 254 bytes"
	}
	p, err := mail.ParseAddress(a)
	if err != nil || p.Name != "" || p.Address != a || strings.ContainsAny(a, "<> \t\r\n") {
		return "is not an email address (want a bare address such as a@example.com)"
	}
	return ""
}

// Clone returns a deep copy of r.
func (r *Recipients) Clone() *Recipients {
	if r == nil {
		return nil
	}
	c := Recipients{Email: slices.Clone(r.Email)}
	if r.Slack != nil {
		s := *r.Slack
		c.Slack = &s
	}
	for _, st := range r.Steps {
		if st.Slack != nil {
			s := *st.Slack
			st.Slack = &s
		}
		st.Email = slices.Clone(st.Email)
		c.Steps = append(c.Steps, st)
	}
	if r.Answerers != nil {
		c.Answerers = &Answerers{Slack: slices.Clone(r.Answerers.Slack), Email: slices.Clone(r.Answerers.Email)}
	}
	return &c
}

// EncodeRecipients is how stores keep a job's recipients: JSON, or nil
// (NULL) for none.
func EncodeRecipients(r *Recipients) (any, error) {
	if r.Empty() {
		return nil, nil
	}
	b, err := json.Marshal(r)
	if err != nil {
		return nil, fmt.Errorf("encode recipients: %w", err)
	}
	return string(b), nil
}

// DecodeRecipients reads what EncodeRecipients wrote; "" is none.
func DecodeRecipients(s string) (*Recipients, error) {
	if s == "" {
		return nil, nil
	}
	r := new(Recipients)
	if err := json.Unmarshal([]byte(s), r); err != nil {
		return nil, err
	}
	return r, nil
}
