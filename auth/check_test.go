package auth_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/askonce/askonce/auth"
	"github.com/askonce/askonce/internal/ratelimit"
)

func newGuard(t *testing.T, limit int) *auth.Guard {
	t.Helper()
	keys, err := auth.LoadKeys(strings.NewReader("acme " + auth.HashKey("key-a") + " name=ci\n"))
	if err != nil {
		t.Fatal(err)
	}
	return &auth.Guard{Lookup: keys.Caller, Fails: &ratelimit.Limiter{Limit: limit, Window: time.Minute}}
}

// Every channel refuses a key for the same reasons with the same words:
// none sent, a header that is no bearer token, a key that is not valid
// (each 401 with WWW-Authenticate), and a valid key is the caller of its
// keys file line.
func TestGuard_RefusesWhatIsNoValidKeyAndNamesTheCallerOfOne(t *testing.T) {
	t.Parallel()
	g := newGuard(t, 10)
	for _, c := range []struct {
		name, header, value, want string
	}{
		{"NoKey", "", "", auth.MsgKeyRequired},
		{"NotBearer", "Authorization", "Basic a2V5LWE=", auth.MsgBadHeader},
		{"WrongBearer", "Authorization", "Bearer key-b", auth.MsgKeyInvalid},
		{"WrongXAPIKey", "X-API-Key", "key-b", auth.MsgKeyInvalid},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/", nil)
			if c.header != "" {
				r.Header.Set(c.header, c.value)
			}
			w := httptest.NewRecorder()
			_, refused := g.Check(w, r)
			if refused == nil || refused.Status != http.StatusUnauthorized || refused.Code != "unauthorized" || refused.Message != c.want {
				t.Fatalf("refusal %+v; want 401 unauthorized %q", refused, c.want)
			}
			if w.Header().Get("WWW-Authenticate") == "" {
				t.Error("a 401 without WWW-Authenticate")
			}
		})
	}
	for _, h := range []string{"Authorization", "X-API-Key"} {
		r := httptest.NewRequest("GET", "/", nil)
		v := "key-a"
		if h == "Authorization" {
			v = "Bearer key-a"
		}
		r.Header.Set(h, v)
		c, refused := g.Check(httptest.NewRecorder(), r)
		if refused != nil || c.Tenant != "acme" || c.Name != "ci" {
			t.Errorf("%s: caller %+v, refusal %v; want tenant acme, name ci", h, c, refused)
		}
	}
}

// Over its limit of wrong keys an address gets 429 with Retry-After for
// a wrong key, while a valid key from it is still served.
func TestGuard_AddressOverItsLimitIs429ButAValidKeyIsServed(t *testing.T) {
	t.Parallel()
	g := newGuard(t, 2)
	wrong := func() (*httptest.ResponseRecorder, *auth.Refusal) {
		r := httptest.NewRequest("GET", "/", nil)
		r.Header.Set("X-API-Key", "key-b")
		w := httptest.NewRecorder()
		_, refused := g.Check(w, r)
		return w, refused
	}
	for range 2 {
		if _, refused := wrong(); refused == nil || refused.Status != http.StatusUnauthorized {
			t.Fatalf("a wrong key within the limit: %+v; want 401", refused)
		}
	}
	w, refused := wrong()
	if refused == nil || refused.Status != http.StatusTooManyRequests || refused.Code != "too_many_requests" || w.Header().Get("Retry-After") == "" {
		t.Fatalf("a wrong key over the limit: %+v, Retry-After %q; want 429 with Retry-After", refused, w.Header().Get("Retry-After"))
	}
	r := httptest.NewRequest("GET", "/", nil)
	if _, refused := g.CheckKey(httptest.NewRecorder(), r, "key-a"); refused != nil {
		t.Errorf("a valid key from an address over its limit: %+v; want served", refused)
	}
}
