// Package server is askonce's HTTP API (docs/protocol.md "HTTP"), for managed
// and gate mode, over an *askonce.Engine.
//
// # Routes
//
//	POST /jobs                        create (201; 202 while planning; needsClarification only here)
//	GET  /jobs                        list: ?status=&sessionId=&cursor=&limit=
//	GET  /jobs/{id}                   the job, its attempts and usage
//	POST /jobs/{id}/clarification     {answer}: 200 (202 while planning), 409 not awaiting, 422 invalid
//	POST /jobs/{id}/cancel            cancel a planning or pending job
//	POST /jobs/{id}/decline           decline the question (default or fallback)
//	POST /jobs/{id}/report            gate mode: the agent's outcome -> action
//	GET  /jobs/{id}/events            audit trail; ?after=; SSE with Accept: text/event-stream
//	GET  /sessions/{id}/history       the session's answered questions
//	GET  /healthz                     {"ok":true} when the store answers (public)
//	GET  /livez                       {"ok":true} while the process serves (public)
//	GET  /metrics                     Prometheus: askonce_*, go_* and process_* (public)
//	GET  /openapi.json                OpenAPI 3.1, generated from the routes (public):
//	                                  per-operation security, enums from the
//	                                  exported lists, 404 and 405 documented
//
// # Errors
//
// Every error is {"success": false, "error": "<message>", "code": "<code>"},
// plus "allowed" for an invalid answer and "job" (the current state) on a
// conflict. Codes and statuses (api.ErrorCodes lists the codes):
//
//	400 bad_request             malformed JSON, unknown field, wrong type, non-UTF-8
//	                            body, bad query parameter or Idempotency-Key
//	401 unauthorized            missing or unknown API key
//	404 not_found               no such job (or another tenant's), no such route
//	405 method_not_allowed      the path exists with other methods (Allow header)
//	409 conflict                the job is not in a state that allows this (job
//	                            included), or a request with the same
//	                            Idempotency-Key is still in progress in a
//	                            live process (Retry-After)
//	413 too_large               body over Config.MaxBody
//	415 unsupported_media_type  a Content-Type other than JSON
//	422 invalid                 semantic validation: empty goal, unknown profile,
//	                            invalid answer (allowed included), invalid plan
//	422 idempotency_mismatch    an Idempotency-Key reused with another request
//	429 too_many_requests       too many wrong API keys from the client's
//	                            address (Retry-After); see Authentication
//	500 internal                the server's fault; the log has the cause
//	503 unavailable             the request was cancelled or timed out
//
// A request never gets a 500 for bad input.
//
// # Idempotency
//
// Every POST takes an Idempotency-Key header (at most 255 visible ASCII
// characters). The request's fingerprint is its method, path and the
// SHA-256 of its body. The first request with a key claims it and runs;
// its response (any status below 500, a 202 with a job still planning
// included) is stored, and a retry with the same key and fingerprint gets
// the same status and body again, with the header Idempotent-Replayed:
// true. The same key with another fingerprint is 422
// idempotency_mismatch. Keys are scoped by tenant. A stored response
// holds no answer token: its answerUrl is kept blank and derived again
// when the response is replayed, so a copy of the database opens no
// pending question.
//
// A claim belongs to the process that made it, which holds a lease in
// the IdempotencyStore (Config.Idempotency) and renews it every third of
// Config.OwnerLease while it has requests in flight. Before a claim, the
// record names the job the request is about (the path's job and its
// version; for POST /jobs, the id the new job will take) so that a retry
// can tell what the first request did:
//
//   - while the claim's owner is alive, a retry is 409 conflict ("in
//     progress") with Retry-After;
//   - when the owner died (its lease lapsed: after a crash, within
//     OwnerLease), or its request ended in a 5xx, the first retry takes
//     the claim over atomically (of two racing retries one takes it, the
//     other is 409 or gets its response). If the first request had
//     already created or changed its job, the retry gets that job in its
//     current state as the route's success response (201 for POST /jobs,
//     200 otherwise), marked Idempotent-Replayed, and that response is
//     stored. Otherwise the request runs again, for POST /jobs with the
//     job id the claim recorded. A report (POST /jobs/{id}/report) always
//     runs again: its answer, the agent's next action, is not in the job,
//     and the engine answers a repeated report from the job's state.
//
// So no retry waits on work that no process is doing, for longer than
// OwnerLease. A 5xx response is never stored. A server without
// Config.Idempotency keeps its keys in memory (MemoryIdempotency): a
// retry is safe while the process lives, and runs again after a restart.
//
// # Authentication
//
// With Config.Keys set, every route but /healthz, /livez, /metrics and
// /openapi.json needs "Authorization: Bearer <key>" or "X-API-Key: <key>",
// and sees only its tenant's jobs and sessions: another tenant's job is
// 404. /metrics is public because it holds no tenant data (its labels are
// statuses, routes and builder names); restrict it at the network if
// aggregate counts are sensitive. Without Keys every request is
// askonce.DefaultTenant.
//
// Wrong keys are counted per client address (Config.TrustedProxies says
// when X-Forwarded-For or Forwarded name it): after Config.FailedAuth in a
// minute, the address's wrong keys are answered 429 too_many_requests
// with Retry-After instead of 401. A valid key is always served: keys
// carry 128 bits or more, so the limit sheds floods of failures rather
// than guarding the keys. A missing key is not counted.
//
// # Event streams
//
// GET /jobs/{id}/events with "Accept: text/event-stream" first sends the
// events after Last-Event-ID (or ?after=), then reads the store again
// whenever it says the job changed (askonce.Watcher: on PostgreSQL, a
// change any replica commits) and at least every Config.PollInterval, and
// pushes new ones: "id:" is the event id, "event:"
// its type, "data:" the event as JSON. A comment line is sent every
// Config.Heartbeat. The stream ends when the client disconnects, when the
// job is terminal and every event was sent (with Config.AwaitDelivery, a
// successful job's stream waits for its delivered or delivery_failed
// outcome), after Config.StreamTimeout, or when CloseStreams is called (at
// shutdown); a client reconnects with Last-Event-ID. Each write extends the connection's write deadline, so the
// http.Server's WriteTimeout does not cut a live stream.
//
// # Planning outlives the request
//
// POST /jobs, /jobs/{id}/clarification and /jobs/{id}/decline start
// planning (Engine.Start, and Engine.Act in the background), which goes on in the
// background whatever happens to the request. With "Prefer:
// respond-async" (RFC 7240) they answer 202 Accepted at once with the job
// as committed (status planning) and "Location: /jobs/{id}"; "Prefer:
// wait=N" waits at most N seconds; without either they wait at most
// Config.SyncWait. Planning that ends within the wait is answered as
// before (201 for create, 200 otherwise); planning that does not is
// answered 202, so no connection is held past the server's write timeout.
// A 202 from create carries no needsClarification: it is not known yet.
// Preferences the server does not know, and junk values, are ignored;
// wait=0 means respond-async. Preference-Applied names a preference that
// was honoured. respond-async is declined (RFC 7240) when planning has
// already ended, as it has at commit with an interpreter that plans inside
// it (askonce.Fast): the outcome is answered, 201 or 200. Answering a job
// that is still planning is 409 with its state. A process that dies while a job plans leaves it to crash recovery
// (docs/protocol.md rule 13).
//
// # Answer links and mounted handlers
//
// With an Engine that has a LinkSecret, the view of a pending job carries
// answerUrl, Config.PublicURL + "/a/" + its token (see
// askonce.Engine.AnswerToken). The token is a credential: the access log
// shows every path under /a/ as "/a/{token}". The answer page and inbox
// are not this package's: Config.Mount adds them to this server's mux,
// under its access log, metrics and panic recovery.
//
// Engine calls that change a job run with a context that is not cancelled
// when the client disconnects, so a started interpretation is finished and
// persisted rather than left to crash recovery.
package server

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/api"
	"github.com/askonce/askonce/auth"
	"github.com/askonce/askonce/internal/ratelimit"
	"github.com/askonce/askonce/metrics"
	"github.com/google/uuid"
	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// Defaults of Config's zero values.
const (
	DefaultMaxBody       = 1 << 20
	DefaultPollInterval  = 250 * time.Millisecond
	DefaultHeartbeat     = 15 * time.Second
	DefaultStreamTimeout = 30 * time.Minute
	// DefaultFailedAuth is Config.FailedAuth's default: wrong API keys
	// per client address per minute.
	DefaultFailedAuth = ratelimit.DefaultLimit
)

// Config configures the API. Engine is required; every other zero value
// works.
type Config struct {
	Engine *askonce.Engine
	// Version is reported by /healthz (askonce version). Empty: none.
	Version string
	// AnsweredVia is the channel answers through this server are
	// recorded as (Job.AnsweredVia). Default askonce.ViaHTTP; the
	// terminal's embedded server says askonce.ViaTerminal.
	AnsweredVia string
	// Keys authenticates requests and maps them to tenants. Nil means no
	// authentication: every request is askonce.DefaultTenant.
	Keys *auth.Keys
	// Metrics is served at /metrics, and receives the HTTP request
	// metrics and job creations through metrics.NewObserver. Nil: a
	// private registry.
	Metrics *metrics.Registry
	// Logger gets one line per request. Nil discards.
	Logger *slog.Logger
	// MaxBody limits request bodies. Default 1 MiB.
	MaxBody int64
	// PollInterval is how often an event stream polls the store when no
	// wake-up came (see askonce.Watcher). Default 250ms.
	PollInterval time.Duration
	// Heartbeat is how often an idle event stream sends a comment.
	// Default 15s.
	Heartbeat time.Duration
	// StreamTimeout ends an event stream after this long; the client
	// reconnects with Last-Event-ID. Default 30 minutes.
	StreamTimeout time.Duration
	// AwaitDelivery keeps the event stream of a successful job open until
	// its builder delivery is recorded (delivered or failed). Set it when a
	// dispatcher runs; without one a success stays queued and its stream
	// ends at once.
	AwaitDelivery bool
	// SyncWait is how long POST /jobs, /clarification and /decline wait
	// for planning to end before they answer 202 with the job still
	// planning (Prefer: wait=N asks for less, Prefer: respond-async for
	// none). Keep it below the http.Server's WriteTimeout. Default 30s;
	// negative: never wait.
	SyncWait time.Duration
	// Idempotency keeps Idempotency-Key claims and responses (sqlite.Store
	// implements it). Nil: a MemoryIdempotency, so that retries are safe
	// while the process lives but not across a restart.
	Idempotency askonce.IdempotencyStore
	// OwnerLease is how long this process's Idempotency-Key claims
	// outlive its last heartbeat: a retry of a request whose process died
	// is answered 409 for at most this long. Default DefaultOwnerLease.
	OwnerLease time.Duration
	// PublicURL is the scheme, host and optional path prefix under which
	// clients reach this server, such as "https://askonce.example.com";
	// a job view's answerUrl is PublicURL + "/a/" + token. Empty: answer
	// links are relative ("/a/{token}"). The links exist only when the
	// Engine has a LinkSecret.
	PublicURL string
	// FailedAuth is how many wrong API keys one client address may
	// present per minute before its wrong keys are answered 429
	// too_many_requests with Retry-After (a valid key is always
	// served). Default DefaultFailedAuth.
	FailedAuth int
	// TrustedProxies are the networks of the proxies in front of the
	// server, whose X-Forwarded-For and Forwarded headers name the client
	// address that FailedAuth counts by. Empty: the TCP peer is the
	// client.
	TrustedProxies []netip.Prefix
	// Mount, when set, is called once by New with the server's own mux,
	// after the API routes are on it, to add handlers that share the
	// server: the answer page (/a/) and the inbox (/ui) of package web.
	// They then get what every request gets from ServeHTTP: the access
	// log (its route is the pattern they registered, and any path under
	// /a/ is logged as "/a/{token}"), the latency metric and panic
	// recovery. They get no API-key check and no JSON error mapping:
	// a mounted handler authenticates and renders its own responses.
	// Register method-and-path patterns ("GET /a/{token}"); a pattern
	// that conflicts with an API route panics in New, as ServeMux does.
	Mount func(mux *http.ServeMux)
}

// Server is the HTTP API. It is an http.Handler; create it with New.
type Server struct {
	answeredVia   string
	engine        *askonce.Engine
	keys          *auth.Keys
	registry      *metrics.Registry
	obs           *metrics.Observer
	log           *slog.Logger
	maxBody       int64
	poll          time.Duration
	heartbeat     time.Duration
	streamTimeout time.Duration
	awaitDelivery bool
	syncWait      time.Duration
	publicURL     string
	version       string
	idem          askonce.IdempotencyStore
	lease         *lease
	guard         *auth.Guard

	closing   chan struct{} // closed by CloseStreams
	closeOnce sync.Once

	routes  []*route
	mux     *http.ServeMux
	openapi []byte
	traced  http.Handler // serve inside an otelhttp server span
}

// New returns the API over cfg.Engine. It panics if cfg.Engine is nil.
func New(cfg Config) *Server {
	if cfg.Engine == nil {
		panic("server: Config.Engine is required")
	}
	s := &Server{
		answeredVia:   cmp.Or(cfg.AnsweredVia, askonce.ViaHTTP),
		engine:        cfg.Engine,
		keys:          cfg.Keys,
		registry:      cfg.Metrics,
		log:           cfg.Logger,
		maxBody:       cfg.MaxBody,
		poll:          cfg.PollInterval,
		heartbeat:     cfg.Heartbeat,
		streamTimeout: cfg.StreamTimeout,
		awaitDelivery: cfg.AwaitDelivery,
		syncWait:      cfg.SyncWait,
		publicURL:     strings.TrimSuffix(cfg.PublicURL, "/"),
		version:       cfg.Version,
		closing:       make(chan struct{}),
	}
	s.guard = &auth.Guard{Lookup: cfg.Keys.Caller, Proxies: ratelimit.Proxies(cfg.TrustedProxies),
		Fails: &ratelimit.Limiter{Limit: cmp.Or(max(cfg.FailedAuth, 0), DefaultFailedAuth), Window: time.Minute}}
	s.traced = otelhttp.NewHandler(http.HandlerFunc(s.serve), "askonce")
	if s.registry == nil {
		s.registry = metrics.NewRegistry()
	}
	s.obs = metrics.NewObserver(s.registry)
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.maxBody <= 0 {
		s.maxBody = DefaultMaxBody
	}
	if s.poll <= 0 {
		s.poll = DefaultPollInterval
	}
	if s.heartbeat <= 0 {
		s.heartbeat = DefaultHeartbeat
	}
	switch {
	case s.syncWait == 0:
		s.syncWait = DefaultSyncWait
	case s.syncWait < 0:
		s.syncWait = 0
	}
	if s.streamTimeout <= 0 {
		s.streamTimeout = DefaultStreamTimeout
	}
	s.idem = cfg.Idempotency
	if s.idem == nil {
		s.idem = NewMemoryIdempotency()
	}
	s.lease = &lease{store: s.idem, owner: uuid.Must(uuid.NewV7()).String(), ttl: cfg.OwnerLease,
		log: func(err error) { s.log.Error("renew idempotency lease", "err", err) }}
	if s.lease.ttl <= 0 {
		s.lease.ttl = DefaultOwnerLease
	}
	s.routes = s.routeTable()
	s.mux = http.NewServeMux()
	for _, rt := range s.routes {
		s.mux.Handle(rt.pattern(), s.wrap(rt))
	}
	s.mux.HandleFunc("/", s.noRoute)
	if cfg.Mount != nil {
		cfg.Mount(s.mux)
	}
	s.openapi = mustJSON(s.openAPI())
	return s
}

// CloseStreams ends every open event stream (clients reconnect with
// Last-Event-ID) and makes new ones end at once. http.Server.Shutdown waits
// for active requests, so register it with http.Server.RegisterOnShutdown.
func (s *Server) CloseStreams() {
	s.closeOnce.Do(func() { close(s.closing) })
}

// Handler returns s as an http.Handler.
func (s *Server) Handler() http.Handler { return s }

// OpenAPI returns the OpenAPI 3.1 document served at /openapi.json.
func (s *Server) OpenAPI() []byte { return append([]byte(nil), s.openapi...) }

// requestInfo is what a request's handler tells the access log.
type requestInfo struct {
	route  string
	jobID  string
	tenant string
	code   string // the error code of an error response
	err    error  // the underlying error of a 5xx
}

type infoKey struct{}

func infoOf(ctx context.Context) *requestInfo {
	if i, ok := ctx.Value(infoKey{}).(*requestInfo); ok {
		return i
	}
	return &requestInfo{}
}

// ServeHTTP routes the request and writes one log line and one latency
// observation for it.
//
// Each request is an OpenTelemetry server span (otelhttp), named after its
// route, which the request's context carries into the engine, the store
// and the log line. With tracing off (no tracer provider installed, or a
// no-op one) the request skips otelhttp altogether: its span would be a
// no-op, and its wrappers and attributes cost allocations on every
// request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if tracingOn() {
		s.traced.ServeHTTP(w, r)
		return
	}
	s.serve(w, r)
}

// unsetTracerProvider is the global tracer provider before anything
// installs one: OpenTelemetry's delegating no-op.
var unsetTracerProvider = otel.GetTracerProvider()

// tracingOn reports whether a tracer provider that records has been
// installed (internal/tracing.Setup, or a test's).
func tracingOn() bool {
	tp := otel.GetTracerProvider()
	if tp == unsetTracerProvider {
		return false
	}
	_, off := tp.(noop.TracerProvider)
	return !off
}

// serve is ServeHTTP inside the request's span.
func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	info := &requestInfo{route: "unmatched"}
	rec := &recorder{ResponseWriter: w}
	r = r.WithContext(context.WithValue(r.Context(), infoKey{}, info))
	defer func() {
		if info.route == "unmatched" && r.Pattern != "" && r.Pattern != "/" {
			// A mounted handler: its pattern, which the mux set on r
			// before calling it, is its route. (API routes set theirs
			// in wrap.)
			info.route = r.Pattern
		}
		nameSpan(r, info.route)
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler {
				panic(p)
			}
			info.err = fmt.Errorf("panic: %v", p)
			if !rec.wrote {
				s.writeError(rec, r, info.err)
			}
		}
		d := time.Since(start)
		status := rec.statusCode()
		s.obs.ObserveHTTP(info.route, status, d)
		level := slog.LevelInfo
		if info.err != nil {
			level = slog.LevelError
		}
		if !s.log.Enabled(r.Context(), level) {
			return
		}
		attrs := make([]slog.Attr, 0, 9)
		attrs = append(attrs,
			slog.String("method", r.Method),
			slog.String("route", info.route),
			slog.String("path", logPath(r.URL.Path)),
			slog.Int("status", status),
			slog.Duration("duration", d),
		)
		if info.jobID != "" {
			attrs = append(attrs, slog.String("job", info.jobID))
		}
		if info.tenant != "" {
			attrs = append(attrs, slog.String("tenant", info.tenant))
		}
		if info.code != "" {
			attrs = append(attrs, slog.String("code", info.code))
		}
		if info.err != nil {
			attrs = append(attrs, slog.String("err", info.err.Error()))
		}
		s.log.LogAttrs(r.Context(), level, "http request", attrs...)
	}()
	s.mux.ServeHTTP(rec, r)
}

// nameSpan names the request's span after its route, as the access log
// does, and replaces the path otelhttp recorded with the logged one, so
// that an answer link's token stays out of traces too.
func nameSpan(r *http.Request, route string) {
	span := trace.SpanFromContext(r.Context())
	if !span.IsRecording() {
		return
	}
	name := route
	if !strings.Contains(route, " ") {
		name = r.Method + " " + route
	}
	span.SetName(name)
	span.SetAttributes(attribute.String("http.route", route), attribute.String("url.path", logPath(r.URL.Path)))
}

// AnswerPathPrefix starts every answer-link path: /a/{token}.
const AnswerPathPrefix = "/a/"

// logPath is the request path as the access log (and error messages)
// show it: any path under /a/ carries an answer token, which is a
// credential, so it is shown as "/a/{token}". The cleaned path is
// checked too, so that "//a/x" or "/ui/../a/x" is redacted as well.
func logPath(p string) string {
	if strings.HasPrefix(p, AnswerPathPrefix) {
		return AnswerPathPrefix + "{token}"
	}
	// A rooted path with no "//" and no "/." cleans to itself (less a
	// trailing slash), so it is redacted above or not at all: the
	// common case needs no path.Clean, which allocates.
	if strings.HasPrefix(p, "/") && !strings.Contains(p, "//") && !strings.Contains(p, "/.") {
		return p
	}
	if strings.HasPrefix(path.Clean("/"+p), AnswerPathPrefix) {
		return AnswerPathPrefix + "{token}"
	}
	return p
}

// AnswerURL returns the absolute answer link of j (Config.PublicURL +
// "/a/" + its token), or "" when j has no live question or the engine no
// LinkSecret. It is the answerUrl of j's view.
func (s *Server) AnswerURL(j *askonce.Job) string {
	return s.engine.AnswerURL(s.publicURL, j)
}

// recorder remembers the status written through it. Unwrap lets
// http.ResponseController reach the connection (flush, deadlines).
type recorder struct {
	http.ResponseWriter
	status int
	wrote  bool
}

func (r *recorder) WriteHeader(code int) {
	if !r.wrote {
		r.status, r.wrote = code, true
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(b []byte) (int, error) {
	if !r.wrote {
		r.status, r.wrote = http.StatusOK, true
	}
	return r.ResponseWriter.Write(b)
}

func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

func (r *recorder) statusCode() int {
	if !r.wrote {
		return http.StatusOK
	}
	return r.status
}

// call is one API request as its handler sees it.
type call struct {
	r      *http.Request
	header http.Header // the response's headers
	tenant string
	body   []byte
	info   *requestInfo
	// caller is who the request's API key authenticates: its
	// Allow restricts the job recipients the key may name (nil: any).
	caller askonce.Caller
	// via is the channel of the answers it gives (Config.AnsweredVia).
	via string
	// by is the name of the caller's key ("" for none): who its answers
	// are recorded as given by.
	by string
	// newJobID is the id a created job takes, when the Idempotency-Key
	// claim chose it.
	newJobID string
}

// ctx is the context of the request's engine calls that change a job:
// not cancelled by a client disconnect, so that a started
// interpretation ends persisted.
func (c *call) ctx() context.Context {
	return askonce.WithAnswerer(context.WithoutCancel(c.r.Context()), askonce.Answerer{Via: c.via, By: c.by})
}

// apiFunc handles a JSON request: it returns the success status and body,
// or an error that errorResponse maps.
type apiFunc func(c *call) (int, any, error)

// rawFunc handles a request that writes its own response (metrics, the
// event stream, the OpenAPI document).
type rawFunc func(w http.ResponseWriter, c *call)

// wrap adapts a route to http.Handler: log info, authentication, body
// reading, idempotency and the JSON response.
func (s *Server) wrap(rt *route) http.Handler {
	pattern := rt.pattern()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		info := infoOf(r.Context())
		info.route = pattern
		if strings.HasPrefix(rt.Path, "/jobs/{id}") {
			info.jobID = r.PathValue("id")
		}
		c := &call{r: r, header: w.Header(), tenant: askonce.DefaultTenant, info: info, via: s.answeredVia}
		if !rt.Public && s.keys != nil {
			caller, refused := s.guard.Check(w, r)
			if refused != nil {
				s.writeError(w, r, reqErrorf(refused.Status, refused.Code, "%s", refused.Message))
				return
			}
			c.tenant, c.caller, c.by = caller.Tenant, caller, caller.Name
			info.tenant = c.tenant
		}
		if rt.raw != nil {
			rt.raw(w, c)
			return
		}
		if rt.Method == http.MethodPost {
			body, err := readBody(w, r, s.maxBody)
			if err != nil {
				s.writeError(w, r, err)
				return
			}
			c.body = body
		}
		if key := r.Header.Get("Idempotency-Key"); key != "" && rt.Method == http.MethodPost {
			s.idempotent(w, c, key, rt)
			return
		}
		status, body := s.respond(c, rt.api)
		writeJSON(w, status, body)
	})
}

// respond runs an API handler and renders its result or error as JSON.
func (s *Server) respond(c *call, h apiFunc) (int, []byte) {
	status, v, err := h(c)
	if err != nil {
		return s.renderError(c.r, err)
	}
	b, err := encodeJSON(v)
	if err != nil {
		return s.renderError(c.r, fmt.Errorf("encode response: %w", err))
	}
	return status, b
}

// renderError maps err (in errorResponse, the one place) and notes an
// internal error for the access log.
func (s *Server) renderError(r *http.Request, err error) (int, []byte) {
	status, body, internal := s.errorResponse(err)
	info := infoOf(r.Context())
	info.code = body.Code
	if internal {
		info.err = err
	}
	b, encErr := encodeJSON(body)
	if encErr != nil {
		// Only the attached job can fail to encode; drop it.
		body.Job = nil
		b = mustJSON(body)
	}
	return status, b
}

// encodeJSON encodes v as one line of JSON, without HTML escaping.
func encodeJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func mustJSON(v any) []byte {
	b, err := encodeJSON(v)
	if err != nil {
		panic(fmt.Sprintf("server: encode %T: %v", v, err))
	}
	return b
}

func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	status, body := s.renderError(r, err)
	writeJSON(w, status, body)
}

// The values of the headers every JSON response carries, shared by all
// responses rather than allocated for each: their length equals their
// capacity, so that a Header.Add appends to a copy, and nothing writes
// into a header value in place.
var (
	jsonContentType = []string{"application/json; charset=utf-8"}
	noSniff         = []string{"nosniff"}
	noStore         = []string{"no-store"}
)

func writeJSON(w http.ResponseWriter, status int, body []byte) {
	h := w.Header()
	h["Content-Type"] = jsonContentType
	h["X-Content-Type-Options"] = noSniff
	h["Cache-Control"] = noStore
	if status == http.StatusServiceUnavailable {
		h.Set("Retry-After", strconv.Itoa(RetryAfter))
	}
	w.WriteHeader(status)
	w.Write(body)
}

// noRoute answers every request no route matched: 405 when the path is
// served for other methods (by the route table or a mounted handler), else
// 404, both as JSON errors.
func (s *Server) noRoute(w http.ResponseWriter, r *http.Request) {
	var allowed []string
	for _, rt := range s.routes {
		if pathMatches(rt.Path, r.URL.Path) {
			allowed = append(allowed, rt.Method)
			if rt.Method == http.MethodGet {
				allowed = append(allowed, http.MethodHead)
			}
		}
	}
	if len(allowed) == 0 {
		allowed = s.mountedMethods(r)
	}
	if len(allowed) > 0 {
		w.Header().Set("Allow", strings.Join(allowed, ", "))
		s.writeError(w, r, reqErrorf(http.StatusMethodNotAllowed, api.CodeMethodNotAllowed, "%s is not allowed on %s; allowed: %s", r.Method, r.URL.Path, strings.Join(allowed, ", ")))
		return
	}
	s.writeError(w, r, reqErrorf(http.StatusNotFound, askonce.ENOTFOUND, "no route for %s %s; GET /openapi.json lists the API", r.Method, logPath(r.URL.Path)))
}

// mountedMethods are the methods the mux serves r's path for, other than
// by its catch-all: the methods of the handlers Config.Mount added.
func (s *Server) mountedMethods(r *http.Request) []string {
	var allowed []string
	for _, m := range []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
		if m == r.Method {
			continue
		}
		if _, pattern := s.mux.Handler(&http.Request{Method: m, URL: r.URL, Host: r.Host}); pattern != "/" && pattern != "" {
			allowed = append(allowed, m)
		}
	}
	return allowed
}

// pathMatches reports whether path fits a route path with {name} segments.
func pathMatches(pattern, path string) bool {
	ps, xs := strings.Split(pattern, "/"), strings.Split(path, "/")
	if len(ps) != len(xs) {
		return false
	}
	for i, p := range ps {
		if strings.HasPrefix(p, "{") {
			if xs[i] == "" {
				return false
			}
			continue
		}
		if p != xs[i] {
			return false
		}
	}
	return true
}
