package askonce_test

import (
	"strings"
	"testing"

	"github.com/askonce/askonce"
)

func TestRecipientsValidate(t *testing.T) {
	t.Parallel()
	slack := func(channel, user string) *askonce.Recipients {
		return &askonce.Recipients{Slack: &askonce.SlackRecipient{Channel: channel, User: user}}
	}
	email := func(a ...string) *askonce.Recipients { return &askonce.Recipients{Email: a} }
	for _, tc := range []struct {
		name string
		r    *askonce.Recipients
		want string // "" when valid, else a part of the message
	}{
		{"NoneIsValid", nil, ""},
		{"ChannelIsValid", slack("C0123ABCD", ""), ""},
		{"PrivateChannelIsValid", slack("G0123ABCD", ""), ""},
		{"UserIsValid", slack("", "U0123ABCD"), ""},
		{"BareAddressesAreValid", email("a@example.com", "b.c+d@example.org"), ""},
		{"ChannelNameIsNotAnID", slack("#general", ""), `notify.slack.channel "#general" is not a Slack channel id`},
		{"LowerCaseChannelIsNotAnID", slack("c0123abcd", ""), "is not a Slack channel id"},
		{"UserIDMustStartWithU", slack("", "C0123ABCD"), `notify.slack.user "C0123ABCD" is not a Slack user id`},
		{"UserIDWithTrailingCharactersIsInvalid", slack("", "U0123ABCD> <!channel>"), "is not a Slack user id"},
		{"ChannelIDWithTrailingCharactersIsInvalid", slack("C0123ABCD\n", ""), "is not a Slack channel id"},
		{"BothChannelAndUserIsInvalid", slack("C0123ABCD", "U0123ABCD"), "exactly one of"},
		{"NeitherChannelNorUserIsInvalid", slack("", ""), "exactly one of"},
		{"AddressWithoutDomainIsInvalid", email("a@example.com", "nobody"), `notify.email[1] "nobody" is not an email address`},
		{"DisplayNameIsInvalid", email("Ann <a@example.com>"), "is not an email address"},
		{"HeaderInjectionIsInvalid", email("a@example.com\r\nBcc: x@example.com"), "is not an email address"},
		{"DuplicateAddressIsInvalid", email("a@example.com", "a@example.com"), "listed twice"},
		{"TooManyAddressesIsInvalid", email(strings.Split(strings.Repeat("a@example.com,", askonce.MaxEmailRecipients+1), ",")[:askonce.MaxEmailRecipients+1]...), "the limit is 20"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := tc.r.Validate()
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Validate = %v; want nil", err)
				}
				return
			}
			if askonce.ErrorCode(err) != askonce.EINVALID || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Validate = %v; want EINVALID containing %q", err, tc.want)
			}
		})
	}
}

func TestCreateStoresTheRequestRecipientsOrTheEngineDefault(t *testing.T) {
	t.Parallel()
	def := &askonce.Recipients{Email: []string{"ops@example.com"}}
	e := newEngine(t, nil)
	e.DefaultRecipients = def
	own := &askonce.Recipients{Slack: &askonce.SlackRecipient{User: "U0123ABCD"}}
	j, err := e.Create(t.Context(), askonce.CreateRequest{Goal: "copper ore", Mode: askonce.ModeGate, Notify: own})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := e.Get(t.Context(), "", j.ID); got.Notify == nil || got.Notify.Slack.Conversation() != "U0123ABCD" || len(got.Notify.Email) != 0 {
		t.Fatalf("stored notify = %+v; want the request's", got.Notify)
	}
	j, err = e.Create(t.Context(), askonce.CreateRequest{Goal: "copper ore", Mode: askonce.ModeGate})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := e.Get(t.Context(), "", j.ID); got.Notify == nil || len(got.Notify.Email) != 1 || got.Notify.Email[0] != "ops@example.com" {
		t.Fatalf("stored notify = %+v; want the default", got.Notify)
	}
	_, err = e.Create(t.Context(), askonce.CreateRequest{Goal: "copper ore", Mode: askonce.ModeGate, Notify: &askonce.Recipients{Email: []string{"x"}}})
	if askonce.ErrorCode(err) != askonce.EINVALID {
		t.Fatalf("create with a bad address = %v; want EINVALID", err)
	}
}
