// Package web is askonce's pages for people: the answer page behind each
// pending question's link (/a/{token}) and the operators' inbox (/ui).
// Pages are rendered on the server with html/template from files embedded
// with go:embed; they work without JavaScript, and a small script adds
// live updates. There is no build step.
//
// Every response carries a Content-Security-Policy that allows no inline
// script and no framing, Referrer-Policy: no-referrer (an answer link is
// a credential and must not leak through Referer headers), and
// X-Content-Type-Options: nosniff; answer pages are also Cache-Control:
// no-store. Every piece of goal, question, answer and interpreter text is
// escaped by html/template.
//
// The handler talks to the askonce.Engine only.
package web

import (
	"cmp"
	"embed"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"net/netip"
	"time"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/auth"
	"github.com/askonce/askonce/internal/ratelimit"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed assets
var assetFS embed.FS

// Config configures the pages. Engine is required.
type Config struct {
	Engine *askonce.Engine
	// Logger gets errors the pages cannot show. Nil discards.
	Logger *slog.Logger
	// Keys, when set, closes the inbox: it asks for an API key once and
	// shows only that key's tenant (see session.go). Nil: the inbox is
	// open and shows askonce.DefaultTenant, like the API without keys.
	Keys *auth.Keys
	// FailedLookups is how many unknown answer-link tokens one client
	// address may present per minute before further unknown ones are
	// answered 429 (a valid token always opens). Default
	// DefaultFailedLookups.
	FailedLookups int
	// FailedLogins is how many wrong API keys one client address may
	// present to the sign-in form per minute before it is answered 429.
	// Default DefaultFailedLogins.
	FailedLogins int
	// TrustedProxies are the networks of the proxies in front of the
	// server, whose X-Forwarded-For and Forwarded headers name the client
	// address that the limits count by. Empty: the TCP peer is the client.
	TrustedProxies []netip.Prefix
	// OIDC, when set, signs people in to the inbox with an OpenID
	// provider instead of an API key (oidc.go); Keys is then required:
	// its signin lines say who may enter and which tenant they see. API
	// keys still authenticate programs.
	OIDC *OIDC
}

// Handler serves the answer page and the inbox. Create it with New.
type Handler struct {
	engine *askonce.Engine
	log    *slog.Logger
	pages  *template.Template
	mux    *http.ServeMux

	keys     *auth.Keys
	sessions *sessions
	oidc     *oidcSignIn // nil: no OpenID sign-in
	// lookups limits failed answer-link lookups per client address
	// (proxies names the address); logins checks the keys of the
	// sign-in form, wrong ones limited per address too.
	lookups *ratelimit.Limiter
	logins  *auth.Guard
	proxies ratelimit.Proxies
}

// New returns the pages over cfg.Engine. It panics if cfg.Engine is nil.
func New(cfg Config) *Handler {
	if cfg.Engine == nil {
		panic("web: Config.Engine is required")
	}
	h := &Handler{engine: cfg.Engine, log: cfg.Logger, keys: cfg.Keys, sessions: newSessions()}
	h.lookups = &ratelimit.Limiter{Limit: cfg.FailedLookups, Window: time.Minute, Now: h.answerNow}
	if h.lookups.Limit <= 0 {
		h.lookups.Limit = DefaultFailedLookups
	}
	h.proxies = ratelimit.Proxies(cfg.TrustedProxies)
	h.logins = &auth.Guard{Lookup: cfg.Keys.Caller, Proxies: h.proxies,
		Fails: &ratelimit.Limiter{Limit: cmp.Or(max(cfg.FailedLogins, 0), DefaultFailedLogins), Window: time.Minute, Now: h.answerNow}}
	if cfg.OIDC != nil {
		h.oidc = newOIDCSignIn(*cfg.OIDC, cfg.Keys)
	}
	// Sessions expire by the engine's clock, as the pages' other times.
	h.sessions.now = h.answerNow
	if h.log == nil {
		h.log = slog.New(slog.DiscardHandler)
	}
	h.pages = template.Must(template.New("").Funcs(funcs).ParseFS(templateFS, "templates/*.html"))
	assets, err := fs.Sub(assetFS, "assets")
	if err != nil {
		panic(err)
	}
	h.mux = http.NewServeMux()
	h.mux.Handle("GET /assets/", http.StripPrefix("/assets/", http.FileServerFS(assets)))
	h.routes()
	return h
}

// ServeHTTP serves a page with the security headers every page carries.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
	hd.Set("X-Frame-Options", "DENY")
	hd.Set("Referrer-Policy", "no-referrer")
	hd.Set("X-Content-Type-Options", "nosniff")
	h.mux.ServeHTTP(w, r)
}

// Patterns are the path prefixes the handler serves, for mounting it
// beside the API. "GET /{$}" is the site's root, which redirects to the
// inbox.
var Patterns = []string{"GET /{$}", "/a/", "/ui", "/ui/", "/assets/"}

// page is what every template gets: the page title, the scripts it adds
// (names under /assets/, each loaded with defer), and its content.
type page struct {
	Title   string
	Scripts []string
	Data    any
	// Referrer is the page's referrer policy; empty is no-referrer. The
	// inbox uses same-origin so that its form posts carry an Origin its
	// CSRF check can compare.
	Referrer string
}

// render writes one page. A template error after the first byte cannot
// change the status: it is logged.
func (h *Handler) render(w http.ResponseWriter, status int, name string, p page) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	if err := h.pages.ExecuteTemplate(w, name, p); err != nil {
		h.log.Error("render page", "page", name, "err", err)
	}
}

var funcs = template.FuncMap{}
