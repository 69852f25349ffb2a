package web

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/internal/ratelimit"
)

// The inbox's sign-in and CSRF protection.
//
// With Config.Keys the inbox asks for an API key once (the login form),
// checks it with Keys.Tenant and keeps a server-side session: a random
// 256-bit id in the cookie askonce_session, mapped in memory to the tenant
// until it expires. The key itself is never stored or put in a cookie.
// Sessions live in this process: a restart signs everyone out.
// With Config.OIDC the inbox signs people in at an OpenID provider
// instead, and the session is signed into the cookie itself (oidc.go).
//
// Every form post must come from the inbox itself: its Origin (or, when a
// browser sends none, its Referer) must name the request's Host, and it
// must carry the CSRF token in the hidden field csrf — the session's token
// when signed in, otherwise (the open inbox, the login form) the value of
// the askonce_csrf cookie (double submit).

const (
	sessionCookie = "askonce_session"
	csrfCookie    = "askonce_csrf"
	csrfField     = "csrf"
	// SessionTTL is how long an inbox session lasts after sign-in.
	SessionTTL = 12 * time.Hour
	// DefaultFailedLogins is how many wrong API keys one client address
	// may present to the sign-in form per minute before its wrong keys
	// are answered 429 with Retry-After. A valid key always signs in.
	DefaultFailedLogins = ratelimit.DefaultLimit
)

// session is one signed-in browser.
type session struct {
	id     string
	tenant string
	// name is the name of the key signed in with ("" for none), or the
	// person of an OpenID sign-in (oidc.go): the answeredBy of answers
	// given on the answer page while signed in.
	name string
	// who is shown beside the Sign out button: the address or subject
	// of an OpenID sign-in, "" for a key.
	who string
	// oidc marks an OpenID sign-in; email is the address its provider
	// verified ("" for none), what a job's answerers are checked against.
	oidc    bool
	email   string
	csrf    string
	expires time.Time
}

// sessions maps session ids to tenants. Safe for concurrent use.
type sessions struct {
	mu  sync.Mutex
	m   map[string]*session
	now func() time.Time
}

func newSessions() *sessions {
	return &sessions{m: map[string]*session{}, now: time.Now}
}

// create starts a session for c's tenant, dropping expired ones on the
// way.
func (s *sessions) create(c askonce.Caller) *session {
	ss := &session{id: randomToken(), tenant: c.Tenant, name: c.Name, csrf: randomToken(), expires: s.now().Add(SessionTTL)}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	for id, o := range s.m {
		if now.After(o.expires) {
			delete(s.m, id)
		}
	}
	s.m[ss.id] = ss
	return ss
}

// get returns the live session with id, or nil.
func (s *sessions) get(id string) *session {
	if id == "" {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ss := s.m[id]
	if ss == nil {
		return nil
	}
	if s.now().After(ss.expires) {
		delete(s.m, id)
		return nil
	}
	return ss
}

func (s *sessions) remove(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, id)
}

// randomToken returns 256 random bits, base64url without padding.
func randomToken() string {
	b := make([]byte, 32)
	rand.Read(b) // never fails (crypto/rand panics instead)
	return base64.RawURLEncoding.EncodeToString(b)
}

// viewer is who is looking at the inbox: the tenant shown and the CSRF
// token its forms carry.
type viewer struct {
	Tenant string
	// Session is nil in the open inbox (no keys).
	Session *session
	CSRF    string
}

// SignedIn reports whether the viewer has a session (and so a logout
// button).
func (v *viewer) SignedIn() bool { return v.Session != nil }

// Who is who signed in with an OpenID provider, "" otherwise.
func (v *viewer) Who() string {
	if v.Session == nil {
		return ""
	}
	return v.Session.who
}

// open reports whether the inbox has no sign-in at all (no keys, no
// provider).
func (h *Handler) open() bool { return h.keys == nil && h.oidc == nil }

// liveSession returns the live session r's cookie holds, or nil: kept in
// memory after an API-key sign-in, signed into the cookie itself after an
// OpenID one (oidc.go).
func (h *Handler) liveSession(r *http.Request) *session {
	c, err := r.Cookie(sessionCookie)
	if err != nil {
		return nil
	}
	if h.oidc != nil {
		return h.oidc.session(c.Value, h.answerNow())
	}
	return h.sessions.get(c.Value)
}

// sessionPaths are where the session cookie is sent: the inbox, and the
// answer page (see personSession).
var sessionPaths = []string{"/ui", "/a/"}

// personSession is the inbox session r carries when it is signed in to
// j's tenant, or nil: who an answer to j given on the answer page is
// recorded as given by (its name) and, for an OpenID sign-in, checked
// against j's answerers (its email). Without one, the answer link alone
// is what lets anyone answer.
func (h *Handler) personSession(r *http.Request, j *askonce.Job) *session {
	if h.open() || j == nil {
		return nil
	}
	if ss := h.liveSession(r); ss != nil && ss.tenant == j.TenantID {
		return ss
	}
	return nil
}

// viewer returns who is looking, or nil when keys are configured and the
// request has no live session. In the open inbox it makes sure the
// double-submit CSRF cookie exists.
func (h *Handler) viewer(w http.ResponseWriter, r *http.Request) *viewer {
	if h.open() {
		return &viewer{Tenant: askonce.DefaultTenant, CSRF: h.csrfCookie(w, r)}
	}
	ss := h.liveSession(r)
	if ss == nil {
		return nil
	}
	return &viewer{Tenant: ss.tenant, Session: ss, CSRF: ss.csrf}
}

// csrfCookie returns the double-submit token, setting the cookie when the
// request has none.
func (h *Handler) csrfCookie(w http.ResponseWriter, r *http.Request) string {
	if c, err := r.Cookie(csrfCookie); err == nil && len(c.Value) >= 32 {
		return c.Value
	}
	tok := randomToken()
	http.SetCookie(w, &http.Cookie{Name: csrfCookie, Value: tok, Path: "/ui", HttpOnly: true, Secure: r.TLS != nil, SameSite: http.SameSiteStrictMode})
	return tok
}

// checkPost verifies a form post's origin and CSRF token against v (nil:
// the anonymous login form). It parses the form.
func (h *Handler) checkPost(r *http.Request, v *viewer) string {
	if !sameOrigin(r) {
		return "This form was not sent from this site (the Origin or Referer header does not match)."
	}
	if err := r.ParseForm(); err != nil {
		return "The form could not be read."
	}
	want := ""
	if v != nil && v.Session != nil {
		want = v.Session.csrf
	} else if c, err := r.Cookie(csrfCookie); err == nil {
		want = c.Value
	}
	got := r.PostForm.Get(csrfField)
	if want == "" || got == "" || subtle.ConstantTimeCompare([]byte(want), []byte(got)) != 1 {
		return "This form's security token is missing or stale. Reload the page and try again."
	}
	return ""
}

// sameOrigin reports whether the request's Origin, or without one its
// Referer, names the host the request was sent to. A post with neither is
// refused.
func sameOrigin(r *http.Request) bool {
	src := r.Header.Get("Origin")
	if src == "" {
		src = r.Header.Get("Referer")
	}
	if src == "" || src == "null" {
		return false
	}
	u, err := url.Parse(src)
	if err != nil || u.Host == "" {
		return false
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return false
	}
	return strings.EqualFold(u.Host, r.Host)
}

// login serves the sign-in form (GET) and checks a key (POST).
func (h *Handler) login(w http.ResponseWriter, r *http.Request) {
	if h.oidc != nil {
		h.oidcLogin(w, r)
		return
	}
	if h.keys == nil {
		http.Redirect(w, r, "/ui", http.StatusSeeOther)
		return
	}
	if r.Method == http.MethodGet {
		if h.viewer(w, r) != nil {
			http.Redirect(w, r, "/ui", http.StatusSeeOther)
			return
		}
		h.renderLogin(w, r, http.StatusOK, "")
		return
	}
	if msg := h.checkPost(r, nil); msg != "" {
		h.inboxError(w, http.StatusForbidden, "Forbidden", msg)
		return
	}
	key := strings.TrimSpace(r.PostForm.Get("key"))
	caller, refused := h.logins.CheckKey(w, r, key)
	switch {
	case refused != nil && refused.Status == http.StatusTooManyRequests:
		h.renderLogin(w, r, refused.Status, "Too many wrong API keys were tried from your address. Try again in "+ratelimit.Seconds(refused.RetryAfter)+" seconds.")
		return
	case refused != nil:
		h.renderLogin(w, r, refused.Status, "That API key is not valid.")
		return
	}
	ss := h.sessions.create(caller)
	// The answer page gets the session too (and only the inbox and it
	// do), so that an answer given there while signed in records the
	// key's name.
	for _, path := range sessionPaths {
		http.SetCookie(w, &http.Cookie{
			Name: sessionCookie, Value: ss.id, Path: path,
			Expires: ss.expires, MaxAge: int(SessionTTL / time.Second),
			HttpOnly: true, Secure: r.TLS != nil, SameSite: http.SameSiteStrictMode,
		})
	}
	http.Redirect(w, r, "/ui", http.StatusSeeOther)
}

func (h *Handler) renderLogin(w http.ResponseWriter, r *http.Request, status int, msg string) {
	data := struct {
		CSRF, Error string
	}{h.csrfCookie(w, r), msg}
	h.renderInbox(w, status, "login.html", page{Title: "Sign in", Data: data})
}

// logout ends the session.
func (h *Handler) logout(w http.ResponseWriter, r *http.Request) {
	v := h.viewer(w, r)
	if v == nil || v.Session == nil {
		http.Redirect(w, r, "/ui", http.StatusSeeOther)
		return
	}
	if msg := h.checkPost(r, v); msg != "" {
		h.inboxError(w, http.StatusForbidden, "Forbidden", msg)
		return
	}
	if h.oidc != nil {
		h.oidcSignedOut(w, r)
		return
	}
	h.sessions.remove(v.Session.id)
	for _, path := range sessionPaths {
		http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: "", Path: path, MaxAge: -1, HttpOnly: true, Secure: r.TLS != nil, SameSite: http.SameSiteStrictMode})
	}
	http.Redirect(w, r, "/ui/login", http.StatusSeeOther)
}
