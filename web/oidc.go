package web

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"

	"github.com/askonce/askonce/auth"
)

// Signing in with OpenID Connect (Config.OIDC).
//
// /ui/login sends the browser to the provider with an authorization-code
// request carrying a random state, a nonce and a PKCE challenge (S256);
// the three, with the PKCE verifier, travel in a signed, HttpOnly cookie
// (askonce_oidc, path /ui/auth, ten minutes) instead of server memory, so
// that any replica may take the callback. /ui/auth/callback checks the
// state against the cookie, deletes the cookie (a callback replayed finds
// none), exchanges the code with the verifier, verifies the ID token
// (signature by the provider's keys, issuer, audience = the client id,
// expiry) and its nonce, and asks the keys file's signin lines which
// tenant the person sees (auth.Keys.SignIn). The session is then a
// signed cookie too: askonce_session holds the tenant, who signed in,
// the CSRF token of the inbox's forms and the expiry, with an HMAC-SHA256
// over them. Checking it is the whole cost of a page view: no store, no
// provider. Sign-out deletes the cookie; a copy of it taken before stays
// valid until it expires (SessionTTL), as with any self-contained
// session.
//
// The provider is discovered on the first sign-in, not at start: a
// provider that is down keeps nobody out of the API (programs use keys),
// and the sign-in page says it is not answering until it answers.

const (
	oidcCookie     = "askonce_oidc"
	oidcCookiePath = "/ui/auth"
	callbackPath   = "/ui/auth/callback"
	// oidcFlowTTL is how long a sign-in at the provider may take.
	oidcFlowTTL = 10 * time.Minute
	// providerTimeout bounds one call to the provider.
	providerTimeout = 10 * time.Second
)

// OIDC configures signing in to the inbox with an OpenID provider.
type OIDC struct {
	// Issuer is the provider's issuer URL (its discovery document is
	// Issuer + "/.well-known/openid-configuration").
	Issuer string
	// ClientID and ClientSecret are this server's registration at the
	// provider. The ID token's audience must be ClientID.
	ClientID, ClientSecret string
	// PublicURL is where browsers reach this server; the provider sends
	// them back to PublicURL + "/ui/auth/callback", which must be
	// registered at the provider as a redirect URI.
	PublicURL string
	// Scopes are asked for besides openid. Nil: email and profile, and
	// groups when a signin line names a group.
	Scopes []string
	// SessionKey signs the session and sign-in cookies: at least 32
	// bytes, the same in every replica (serve derives it from the link
	// secret, which the database shares).
	SessionKey []byte
	// Client makes the calls to the provider. Nil: a client with a
	// ten-second timeout.
	Client *http.Client
}

// oidcSignIn is the sign-in of a Handler with Config.OIDC.
type oidcSignIn struct {
	cfg  OIDC
	keys *auth.Keys
	mac  []byte // the key of the cookies' HMAC

	mu       sync.Mutex
	provider *oidc.Provider // nil until discovered
}

func newOIDCSignIn(cfg OIDC, keys *auth.Keys) *oidcSignIn {
	if len(cfg.SessionKey) < 32 {
		panic("web: OIDC.SessionKey must be at least 32 bytes")
	}
	if keys == nil {
		panic("web: OIDC needs Config.Keys: its signin lines say who may enter")
	}
	if cfg.Client == nil {
		cfg.Client = &http.Client{Timeout: providerTimeout}
	}
	if cfg.Scopes == nil {
		cfg.Scopes = []string{"email", "profile"}
		if keys.SignInGroups() {
			cfg.Scopes = append(cfg.Scopes, "groups")
		}
	}
	cfg.PublicURL = strings.TrimSuffix(cfg.PublicURL, "/")
	m := hmac.New(sha256.New, cfg.SessionKey)
	m.Write([]byte("askonce inbox cookies"))
	return &oidcSignIn{cfg: cfg, keys: keys, mac: m.Sum(nil)}
}

// secure reports whether the cookies get the Secure attribute: when the
// public URL is https (a proxy in front ends TLS) or the request came
// over TLS.
func (o *oidcSignIn) secure(r *http.Request) bool {
	return r.TLS != nil || strings.HasPrefix(o.cfg.PublicURL, "https://")
}

// discover returns the provider, fetching its discovery document the
// first time it answers.
func (o *oidcSignIn) discover(ctx context.Context) (*oidc.Provider, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.provider != nil {
		return o.provider, nil
	}
	// The provider keeps the client (not ctx) for the key set it
	// fetches later.
	p, err := oidc.NewProvider(oidc.ClientContext(ctx, o.cfg.Client), o.cfg.Issuer)
	if err != nil {
		return nil, err
	}
	o.provider = p
	return p, nil
}

// CheckSignIn fetches the OpenID provider's discovery document now
// rather than at the first sign-in, so that a provider that is down or
// misconfigured shows in the log at start. An error changes nothing: the
// sign-in asks again. Nil without Config.OIDC.
func (h *Handler) CheckSignIn(ctx context.Context) error {
	if h.oidc == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, providerTimeout)
	defer cancel()
	_, err := h.oidc.discover(ctx)
	return err
}

func (o *oidcSignIn) oauth(p *oidc.Provider) *oauth2.Config {
	return &oauth2.Config{
		ClientID: o.cfg.ClientID, ClientSecret: o.cfg.ClientSecret,
		Endpoint: p.Endpoint(), RedirectURL: o.cfg.PublicURL + callbackPath,
		Scopes: append([]string{oidc.ScopeOpenID}, o.cfg.Scopes...),
	}
}

// sign returns v as JSON, base64url, a dot and its HMAC.
func (o *oidcSignIn) sign(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // the cookie types always marshal
	}
	p := base64.RawURLEncoding.EncodeToString(b)
	return p + "." + base64.RawURLEncoding.EncodeToString(o.sum(p))
}

func (o *oidcSignIn) sum(payload string) []byte {
	m := hmac.New(sha256.New, o.mac)
	m.Write([]byte(payload))
	return m.Sum(nil)
}

// open checks s's HMAC and decodes its payload into v.
func (o *oidcSignIn) open(s string, v any) bool {
	p, sig, ok := strings.Cut(s, ".")
	if !ok {
		return false
	}
	got, err := base64.RawURLEncoding.DecodeString(sig)
	if err != nil || !hmac.Equal(got, o.sum(p)) {
		return false
	}
	b, err := base64.RawURLEncoding.DecodeString(p)
	return err == nil && json.Unmarshal(b, v) == nil
}

// signedSession is the payload of the session cookie.
type signedSession struct {
	Tenant  string `json:"t"`
	Name    string `json:"n"` // answeredBy
	Who     string `json:"w"` // shown beside Sign out
	Email   string `json:"e"` // the address the provider verified, "" for none
	CSRF    string `json:"c"`
	Expires int64  `json:"x"` // Unix seconds
}

// session returns the live session a cookie value holds, or nil.
func (o *oidcSignIn) session(value string, now time.Time) *session {
	var s signedSession
	if !o.open(value, &s) || s.Tenant == "" || s.CSRF == "" || now.Unix() >= s.Expires {
		return nil
	}
	return &session{tenant: s.Tenant, name: s.Name, who: s.Who, email: s.Email, oidc: true, csrf: s.CSRF, expires: time.Unix(s.Expires, 0)}
}

// flow is the payload of the sign-in cookie.
type flow struct {
	State    string `json:"s"`
	Nonce    string `json:"n"`
	Verifier string `json:"v"`
	Expires  int64  `json:"x"`
}

// oidcRoutes registers the callback; /ui/login and /ui/logout (session.go)
// turn to oidcLogin and oidcSignedOut.
func (h *Handler) oidcRoutes() {
	h.mux.HandleFunc("GET "+callbackPath, h.oidcCallback)
}

// oidcLogin sends the browser to the provider.
func (h *Handler) oidcLogin(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		h.inboxError(w, http.StatusMethodNotAllowed, "Sign in with your account", "This inbox signs people in with their own accounts, not with API keys. Open the inbox to sign in.")
		return
	}
	if h.viewer(w, r) != nil {
		http.Redirect(w, r, "/ui", http.StatusSeeOther)
		return
	}
	o := h.oidc
	p, err := o.discover(r.Context())
	if err != nil {
		h.providerDown(w, "discover", err)
		return
	}
	f := flow{State: randomToken(), Nonce: randomToken(), Verifier: oauth2.GenerateVerifier(), Expires: h.answerNow().Add(oidcFlowTTL).Unix()}
	http.SetCookie(w, &http.Cookie{
		Name: oidcCookie, Value: o.sign(f), Path: oidcCookiePath, MaxAge: int(oidcFlowTTL / time.Second),
		HttpOnly: true, Secure: h.oidc.secure(r), SameSite: http.SameSiteLaxMode,
	})
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, o.oauth(p).AuthCodeURL(f.State, oidc.Nonce(f.Nonce), oauth2.S256ChallengeOption(f.Verifier)), http.StatusFound)
}

// providerDown answers a sign-in the provider could not serve.
func (h *Handler) providerDown(w http.ResponseWriter, step string, err error) {
	h.log.Error("sign-in: the OpenID provider failed", "step", step, "issuer", h.oidc.cfg.Issuer, "err", err)
	h.inboxError(w, http.StatusBadGateway, "Sign-in is unavailable",
		"The sign-in provider did not answer as expected, so nobody can sign in to the inbox right now. Try again later; the server log says what went wrong. Programs with API keys are not affected.")
}

// oidcCallback finishes a sign-in.
func (h *Handler) oidcCallback(w http.ResponseWriter, r *http.Request) {
	o := h.oidc
	w.Header().Set("Cache-Control", "no-store")
	// The sign-in cookie is good for one callback, whatever it brings.
	http.SetCookie(w, &http.Cookie{Name: oidcCookie, Value: "", Path: oidcCookiePath, MaxAge: -1, HttpOnly: true, Secure: h.oidc.secure(r), SameSite: http.SameSiteLaxMode})
	q := r.URL.Query()
	var f flow
	c, err := r.Cookie(oidcCookie)
	if err != nil || !o.open(c.Value, &f) || h.answerNow().Unix() >= f.Expires {
		h.log.Warn("sign-in: a callback without a live sign-in (replayed, expired, or from another browser)")
		h.signInAgain(w, "This sign-in has expired or was already used.")
		return
	}
	if subtle.ConstantTimeCompare([]byte(q.Get("state")), []byte(f.State)) != 1 {
		h.log.Warn("sign-in: the callback's state does not match this browser's sign-in")
		h.signInAgain(w, "This sign-in did not start in this browser (its state does not match).")
		return
	}
	if e := q.Get("error"); e != "" {
		h.log.Warn("sign-in: the provider refused", "error", e, "description", q.Get("error_description"))
		h.inboxError(w, http.StatusForbidden, "Sign-in refused", "The sign-in provider refused: "+strings.TrimSpace(e+" "+q.Get("error_description")))
		return
	}
	p, err := o.discover(r.Context())
	if err != nil {
		h.providerDown(w, "discover", err)
		return
	}
	ctx, cancel := context.WithTimeout(oidc.ClientContext(r.Context(), o.cfg.Client), providerTimeout)
	defer cancel()
	tok, err := o.oauth(p).Exchange(ctx, q.Get("code"), oauth2.VerifierOption(f.Verifier))
	if err != nil {
		h.providerDown(w, "exchange the code", err)
		return
	}
	raw, _ := tok.Extra("id_token").(string)
	if raw == "" {
		h.providerDown(w, "read the ID token", errors.New("the token response has no id_token"))
		return
	}
	idt, err := p.Verifier(&oidc.Config{ClientID: o.cfg.ClientID, Now: h.answerNow}).Verify(ctx, raw)
	if err != nil {
		h.log.Warn("sign-in: the ID token is not valid", "err", err)
		h.signInAgain(w, "The sign-in provider's answer could not be verified ("+tokenProblem(err)+").")
		return
	}
	if subtle.ConstantTimeCompare([]byte(idt.Nonce), []byte(f.Nonce)) != 1 {
		h.log.Warn("sign-in: the ID token's nonce does not match this sign-in")
		h.signInAgain(w, "The sign-in provider's answer belongs to another sign-in (its nonce does not match).")
		return
	}
	var claims struct {
		Email         string   `json:"email"`
		EmailVerified *bool    `json:"email_verified"`
		Groups        []string `json:"groups"`
	}
	if err := idt.Claims(&claims); err != nil {
		h.log.Warn("sign-in: the ID token's claims do not decode", "err", err)
		h.signInAgain(w, "The sign-in provider's answer could not be read.")
		return
	}
	id := auth.Identity{Subject: idt.Subject, Email: claims.Email, EmailVerified: claims.EmailVerified != nil && *claims.EmailVerified, Groups: claims.Groups}
	tenant, ok := o.keys.SignIn(id)
	if !ok {
		h.log.Info("sign-in: not in the keys file's signin lines", "subject", id.Subject, "email", id.Email, "groups", id.Groups)
		h.inboxError(w, http.StatusForbidden, "Not allowed",
			"You signed in as "+displayName(id)+", but this inbox is not open to you: no signin line of its keys file names your address, its domain or one of your groups. Ask whoever runs askonce to add one.")
		return
	}
	ss := signedSession{Tenant: tenant, Name: answeredBy(id), Who: displayName(id), Email: verifiedEmail(id), CSRF: randomToken(), Expires: h.answerNow().Add(SessionTTL).Unix()}
	v := o.sign(ss)
	for _, path := range sessionPaths {
		http.SetCookie(w, &http.Cookie{
			Name: sessionCookie, Value: v, Path: path, MaxAge: int(SessionTTL / time.Second),
			HttpOnly: true, Secure: h.oidc.secure(r), SameSite: http.SameSiteLaxMode,
		})
	}
	h.log.Info("signed in", "subject", id.Subject, "email", id.Email, "tenant", tenant)
	http.Redirect(w, r, "/ui", http.StatusSeeOther)
}

// tokenProblem names what is wrong with an ID token, in words.
func tokenProblem(err error) string {
	var exp *oidc.TokenExpiredError
	switch {
	case errors.As(err, &exp):
		return "the token has expired"
	case strings.Contains(err.Error(), "audience"):
		return "the token was issued to another application"
	case strings.Contains(err.Error(), "different provider"), strings.Contains(err.Error(), "issuer"):
		return "the token comes from another issuer"
	}
	return "its signature or claims are not valid"
}

// answeredBy is who an answer given while signed in is recorded as given
// by: the verified address and the subject, which the provider never
// reuses.
func answeredBy(id auth.Identity) string {
	if id.Email != "" && id.EmailVerified {
		return fmt.Sprintf("%s (oidc %s)", id.Email, id.Subject)
	}
	return "oidc " + id.Subject
}

// verifiedEmail is the address the provider verified, "" for none.
func verifiedEmail(id auth.Identity) string {
	if id.EmailVerified {
		return id.Email
	}
	return ""
}

func displayName(id auth.Identity) string {
	if id.Email != "" {
		return id.Email
	}
	return id.Subject
}

// signInAgain answers a sign-in that cannot finish with a page offering
// a new one.
func (h *Handler) signInAgain(w http.ResponseWriter, why string) {
	h.renderInbox(w, http.StatusBadRequest, "signin_again.html", page{Title: "Sign in again", Data: struct{ Message string }{why}})
}

// oidcSignedOut ends an OIDC session: the cookie goes, and the page says
// so rather than sending the browser back to the provider, which may sign
// it straight in again.
func (h *Handler) oidcSignedOut(w http.ResponseWriter, r *http.Request) {
	for _, path := range sessionPaths {
		http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: "", Path: path, MaxAge: -1, HttpOnly: true, Secure: h.oidc.secure(r), SameSite: http.SameSiteLaxMode})
	}
	h.renderInbox(w, http.StatusOK, "signin_again.html", page{Title: "Signed out", Data: struct{ Message string }{""}})
}
