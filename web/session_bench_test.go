package web

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/auth"
	"github.com/askonce/askonce/rules"
	"github.com/askonce/askonce/sqlite"
)

// BenchmarkInboxPage serves /ui to a signed-in browser: with the session
// of today's API-key sign-in (a lookup in the process's map) and with an
// OpenID sign-in's (the cookie's HMAC checked), over the same tenant with
// ten pending jobs. BenchmarkSessionCheck is the check alone. Run both in
// one process, so that their ratio is of the same minutes:
//
//	go test -run '^$' -bench 'InboxPage|SessionCheck' -benchtime 2s ./web
func BenchmarkInboxPage(b *testing.B) {
	benchSessions(b, func(b *testing.B, h *Handler, req *http.Request) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatalf("/ui: %d %s", rec.Code, rec.Body)
		}
	})
}

func BenchmarkSessionCheck(b *testing.B) {
	benchSessions(b, func(b *testing.B, h *Handler, req *http.Request) {
		if h.liveSession(req) == nil {
			b.Fatal("no session")
		}
	})
}

// benchSessions runs one sub-benchmark per kind of session, each calling
// view with a request for /ui that carries the session.
func benchSessions(b *testing.B, view func(*testing.B, *Handler, *http.Request)) {
	key, signed := benchHandlers(b)
	for _, c := range []struct {
		name string
		site benchSite
	}{{"api-key-session", key}, {"oidc-session", signed}} {
		b.Run(c.name, func(b *testing.B) {
			req := httptest.NewRequest("GET", "/ui", nil)
			req.AddCookie(&http.Cookie{Name: sessionCookie, Value: c.site.cookie})
			for b.Loop() {
				view(b, c.site.h, req)
			}
		})
	}
}

// engineFor returns an engine on a new SQLite file with the rules
// interpreter.
func engineFor(tb testing.TB) *askonce.Engine {
	tb.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(tb.TempDir(), "a.db"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	r, err := rules.New(rules.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	return &askonce.Engine{Store: st, Interpreter: r}
}

type benchSite struct {
	h      *Handler
	cookie string
}

// benchHandlers returns an engine's pages twice, signing in with keys
// and with a provider, each with a live session of tenant alpha.
func benchHandlers(b *testing.B) (benchSite, benchSite) {
	b.Helper()
	eng := engineFor(b)
	for range 10 {
		if _, err := eng.Create(context.Background(), askonce.CreateRequest{TenantID: "alpha", Goal: "hot frozen cheese"}); err != nil {
			b.Fatal(err)
		}
	}
	keys, err := auth.LoadKeys(strings.NewReader("alpha " + auth.HashKey("key-alpha-0123456789") + "\nalpha signin domain=alpha.test\n"))
	if err != nil {
		b.Fatal(err)
	}
	kh := New(Config{Engine: eng, Keys: keys})
	ks := kh.sessions.create(askonce.Caller{Tenant: "alpha"})
	oh := New(Config{Engine: eng, Keys: keys, OIDC: &OIDC{Issuer: "http://127.0.0.1:1/unused", ClientID: "c", ClientSecret: "s", SessionKey: make([]byte, 32)}})
	ov := oh.oidc.sign(signedSession{Tenant: "alpha", Name: "ann@alpha.test (oidc s)", Who: "ann@alpha.test", CSRF: randomToken(), Expires: oh.answerNow().Add(SessionTTL).Unix()})
	return benchSite{kh, ks.id}, benchSite{oh, ov}
}
