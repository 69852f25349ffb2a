package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/askonce/askonce/auth"
)

func TestCreateStoresNotifyAndShowsItInTheJobView(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	notify := map[string]any{"slack": map[string]any{"channel": "C0123ABCD"}, "email": []string{"ops@example.com"}}
	created := e.create(map[string]any{"goal": "copper ore", "notify": notify})
	got := e.do("GET", "/jobs/"+str(created, "jobId"), nil)
	n := obj(got.body, "notify")
	if str(obj(n, "slack"), "channel") != "C0123ABCD" || strings.Join(strs(n["email"]), ",") != "ops@example.com" {
		t.Fatalf("GET /jobs/{id} notify = %v; want the request's", n)
	}
}

func TestCreateWithMalformedRecipientIs422(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	for _, tc := range []struct {
		name   string
		notify map[string]any
		msg    string
	}{
		{"ChannelName", map[string]any{"slack": map[string]any{"channel": "#general"}}, `notify.slack.channel "#general" is not a Slack channel id`},
		{"Address", map[string]any{"email": []string{"ops@example.com", "not an address"}}, `notify.email[1] "not an address" is not an email address`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := e.do("POST", "/jobs", map[string]any{"goal": "copper ore", "notify": tc.notify})
			wantError(t, r, http.StatusUnprocessableEntity, "invalid", tc.msg)
		})
	}
}

func TestKeyRestrictsTheRecipientsItsJobsMayName(t *testing.T) {
	t.Parallel()
	keys, err := auth.LoadKeys(strings.NewReader(
		"acme " + auth.HashKey("limited") + " notify=slack:C0123*,email:*@acme.example\n" +
			"acme " + auth.HashKey("open") + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, envOptions{keys: keys})
	limited, open := []string{"Authorization", "Bearer limited"}, []string{"Authorization", "Bearer open"}
	allowed := map[string]any{"slack": map[string]any{"channel": "C0123ABCD"}, "email": []string{"Ann@ACME.example"}}
	e.create(map[string]any{"goal": "copper ore", "notify": allowed}, limited...)
	r := e.do("POST", "/jobs", map[string]any{"goal": "copper ore", "notify": map[string]any{"email": []string{"ann@acme.example", "eve@evil.example"}}}, limited...)
	wantError(t, r, http.StatusUnprocessableEntity, "invalid", `notify.email[1] "eve@evil.example" is not among the recipients this API key may use`)
	r = e.do("POST", "/jobs", map[string]any{"goal": "copper ore", "notify": map[string]any{"slack": map[string]any{"user": "U0999ZZZZ"}}}, limited...)
	wantError(t, r, http.StatusUnprocessableEntity, "invalid", `notify.slack "U0999ZZZZ" is not among the recipients`)
	e.create(map[string]any{"goal": "copper ore", "notify": map[string]any{"email": []string{"eve@evil.example"}}}, open...)
}

// A key whose patterns name only email addresses may name no Slack
// recipient, and a notify=none key no recipient at all; a job naming none
// is created for either.
func TestKeyRefusesRecipientsOfAKindItHasNoPatternFor(t *testing.T) {
	t.Parallel()
	keys, err := auth.LoadKeys(strings.NewReader(
		"acme " + auth.HashKey("emails") + " notify=email:*@acme.example\n" +
			"acme " + auth.HashKey("none") + " notify=none\n"))
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, envOptions{keys: keys})
	emails, none := []string{"Authorization", "Bearer emails"}, []string{"Authorization", "Bearer none"}
	slack := map[string]any{"slack": map[string]any{"channel": "C0123ABCD"}}
	r := e.do("POST", "/jobs", map[string]any{"goal": "copper ore", "notify": slack}, emails...)
	wantError(t, r, http.StatusUnprocessableEntity, "invalid", `notify.slack "C0123ABCD" is not among the recipients`)
	for _, notify := range []map[string]any{slack, {"email": []string{"ann@acme.example"}}, {"slack": map[string]any{"user": "U0123ABCD"}}} {
		r := e.do("POST", "/jobs", map[string]any{"goal": "copper ore", "notify": notify}, none...)
		wantError(t, r, http.StatusUnprocessableEntity, "invalid", "is not among the recipients this API key may use")
	}
	e.create(map[string]any{"goal": "copper ore"}, none...)
	e.create(map[string]any{"goal": "copper ore"}, emails...)
}
