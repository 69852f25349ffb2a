// Package a2a is askonce's Agent2Agent endpoint, on the official Go SDK
// (github.com/a2aproject/a2a-go/v2): another agent sends a goal, askonce
// plans it, asking the user at most one question. It speaks A2A 1.0 over
// JSON-RPC (Path) and HTTP+JSON (RESTPath), and A2A 0.3 on the same
// endpoints through the SDK's a2av0 layer: a request's A2A-Version header
// picks the version ("1.0"; none or "0.3" is 0.3, as the spec says an
// empty version is), and an unknown version is the spec's
// VersionNotSupportedError. One Agent Card lists the 1.0 interfaces in
// supportedInterfaces and carries the fields 0.3 clients read.
//
// A task is a job, and its id is the job's id; a context is a session, so
// the repeat guard answers a question a context was already asked. The
// job's state is the task's:
//
//	planning                     TASK_STATE_WORKING
//	pending                      TASK_STATE_INPUT_REQUIRED, the question as a data part
//	success                      TASK_STATE_COMPLETED, the plan as an artifact
//	cancelled                    TASK_STATE_CANCELED
//	failed, validation_error,
//	expired                      TASK_STATE_FAILED
//
// The caller's next message on an input-required task answers its
// question (text, or a data part {"answer": ...}; {"decline": true}
// declines). A task is input-required at most once: the job's hard cap
// decides a second question (fallback or fail), exactly as on HTTP.
// SendStreamingMessage and SubscribeToTask send a status update per job
// event until the task is input-required or ends. Tasks persist with the
// job: GetTask and ListTasks work after a restart and from any replica.
// With a Pusher (Config.Pusher), a task's push-notification configs are
// kept with its job, and the task is POSTed to each when it becomes
// input-required and when it ends after that (push.go).
//
// Requests carry the tenant of their API key (Config.Caller), as the HTTP
// API's do; a task of another tenant does not exist. A message that
// starts a task may name its recipients in its metadata, as POST /jobs
// does: {"notify": {"slack": {...}, "email": [...]}}.
package a2a

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"strings"
	"time"

	sdk "github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/askonce/askonce"
	"github.com/askonce/askonce/auth"
	"github.com/askonce/askonce/internal/maxbody"
	"github.com/askonce/askonce/internal/ratelimit"
)

// Where the endpoint is served, and what it speaks.
const (
	// Path is the JSON-RPC endpoint, of both versions.
	Path = "/a2a"
	// RESTPath is the HTTP+JSON endpoint's base: A2A 1.0's routes under
	// it, 0.3's under RESTPath + "/v1".
	RESTPath = "/a2a/rest"
	// CardPath is the Agent Card's well-known path.
	CardPath = a2asrv.WellKnownAgentCardPath
	// ProtocolVersion is the A2A version spoken.
	ProtocolVersion = string(sdk.Version)
	// LegacyProtocolVersion is the older version still spoken, to
	// requests without an A2A-Version header.
	LegacyProtocolVersion = string(a2av0.Version)
)

// Defaults of Config's zero values.
const (
	DefaultWait          = 30 * time.Second
	DefaultPollInterval  = 100 * time.Millisecond
	DefaultStreamTimeout = 30 * time.Minute
	DefaultMaxBody       = 1<<20 + 64<<10
)

// Config configures the endpoint. Engine is required.
type Config struct {
	Engine *askonce.Engine
	// PublicURL is the base URL clients reach askonce at: the card's
	// endpoint is PublicURL + Path, and answer links are under it.
	PublicURL string
	// Caller maps an API key to who it authenticates (auth.Keys.Caller):
	// its tenant scopes every task, its allowed recipients bound the
	// notify metadata, its name is the answeredBy of its answers. Nil:
	// see Tenant.
	Caller func(key string) (askonce.Caller, bool)
	// Tenant maps an API key to its tenant, when Caller is nil. Both nil:
	// no keys; every request is askonce.DefaultTenant.
	Tenant func(key string) (string, bool)
	// FailedAuth is how many wrong API keys one client address may
	// present per minute before its wrong keys are answered 429 with
	// Retry-After (a valid key is always served), as on the HTTP API. Default ratelimit.DefaultLimit (20).
	FailedAuth int
	// TrustedProxies are the proxies whose X-Forwarded-For and Forwarded
	// headers name the client address FailedAuth counts by. Empty: the
	// TCP peer is the client.
	TrustedProxies []netip.Prefix
	// Version is the card's agent version. Default "dev".
	Version string
	// Wait bounds how long a blocking message/send waits for planning;
	// then the task is returned working, to poll with tasks/get.
	Wait time.Duration
	// PollInterval is how often a stream reads its job's new events when
	// its store cannot wake it on a change (askonce.Watcher).
	PollInterval time.Duration
	// StreamTimeout bounds one stream (and its HTTP write deadline): an
	// input-required task ends its stream, but planning may be slow.
	StreamTimeout time.Duration
	// MaxBody limits request bodies. Default 1 MiB plus the envelope.
	MaxBody int64
	// Logger receives diagnostics. Nil discards.
	Logger *slog.Logger
	// Pusher sends push notifications; it must also run on the
	// dispatcher (dispatch.Config.Channels). Nil: push notifications are
	// not offered (the card says so, and the push-config methods answer
	// PushNotificationNotSupported).
	Pusher *Pusher
}

// Endpoint is the A2A endpoint: an http.Handler for Path, and the Agent
// Card for CardPath (CardHandler).
type Endpoint struct {
	cfg      Config
	versions versions
	card     *sdk.AgentCard
	guard    *auth.Guard // nil: no keys
}

// New returns the endpoint of c.
func New(c Config) *Endpoint {
	if c.Wait <= 0 {
		c.Wait = DefaultWait
	}
	if c.PollInterval <= 0 {
		c.PollInterval = DefaultPollInterval
	}
	if c.StreamTimeout <= 0 {
		c.StreamTimeout = DefaultStreamTimeout
	}
	if c.MaxBody <= 0 {
		c.MaxBody = DefaultMaxBody
	}
	if c.Version == "" {
		c.Version = "dev"
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	e := &Endpoint{cfg: c}
	lookup := c.Caller
	if lookup == nil && c.Tenant != nil {
		lookup = func(key string) (askonce.Caller, bool) {
			t, ok := c.Tenant(key)
			return askonce.Caller{Tenant: t}, ok
		}
	}
	if lookup != nil {
		e.guard = &auth.Guard{Lookup: lookup, Fails: &ratelimit.Limiter{Limit: c.FailedAuth, Window: time.Minute}, Proxies: c.TrustedProxies}
	}
	e.card = e.newCard()
	e.versions = newVersions(&handler{cfg: c, eng: c.Engine}, c.Logger)
	return e
}

// Mount serves the endpoint on mux: JSON-RPC at Path, HTTP+JSON under
// RESTPath, the Agent Card at CardPath.
func (e *Endpoint) Mount(mux *http.ServeMux) {
	mux.Handle("POST "+Path, e)
	mux.Handle(RESTPath+"/", e)
	mux.Handle("GET "+CardPath, e.CardHandler())
}

// callerKey carries a request's Caller to the handler.
type callerKey struct{}

// callerOf is who the request's key authenticates; without keys, the
// default tenant, unnamed and unrestricted.
func callerOf(ctx context.Context) askonce.Caller {
	if c, ok := ctx.Value(callerKey{}).(askonce.Caller); ok {
		return c
	}
	return askonce.Caller{Tenant: askonce.DefaultTenant}
}

func tenantOf(ctx context.Context) string { return callerOf(ctx).Tenant }

// ServeHTTP serves the JSON-RPC endpoint and, under RESTPath, the
// HTTP+JSON one. With keys (Config.Caller or
// Tenant), every request needs "Authorization: Bearer <key>" or
// "X-API-Key: <key>"; without a valid one it is 401 with a JSON-RPC
// error, and an address over its limit of wrong keys is 429.
func (e *Endpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c := askonce.Caller{Tenant: askonce.DefaultTenant}
	if e.guard != nil {
		var refused *auth.Refusal
		if c, refused = e.guard.Check(w, r); refused != nil {
			code, reason := -32600, "UNAUTHENTICATED"
			if refused.Status == http.StatusTooManyRequests {
				code, reason = CodeOverLimit, "RATE_LIMITED"
			}
			refuse(w, r, refused.Status, code, reason, refused.Message)
			return
		}
	}
	r = r.WithContext(context.WithValue(r.Context(), callerKey{}, c))
	r.Body = maxbody.Reader(w, r, e.cfg.MaxBody)
	// A stream outlives the API's write timeout; it ends by itself within
	// StreamTimeout. Not an error where the writer cannot set deadlines.
	http.NewResponseController(w).SetWriteDeadline(time.Now().Add(e.cfg.StreamTimeout + time.Minute))
	e.versions.ServeHTTP(flusher{w}, r)
}

// CodeOverLimit is the JSON-RPC error code of a request refused because
// its client address is over its limit of wrong API keys (HTTP 429, with
// Retry-After): the same code, in A2A 1.0 and 0.3, as MCP's
// (mcp.CodeOverLimit).
const CodeOverLimit = ratelimit.CodeJSONRPC

// refuse answers a request refused before it is read with status and
// msg: on JSON-RPC, an error of code (reason as A2A 1.0's ErrorInfo); on
// HTTP+JSON, the binding's error of status.
func refuse(w http.ResponseWriter, r *http.Request, status, code int, reason, msg string) {
	body := map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": code, "message": msg, "data": []any{errorInfo(reason)}}}
	if isREST(r) {
		body = map[string]any{"error": map[string]any{"code": status, "status": grpcStatus[status], "message": msg, "details": []any{errorInfo(reason)}}}
	}
	b, _ := json.Marshal(body)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

// flusher gives the SDK's event stream, which needs an http.Flusher, the
// flushing of a writer that a middleware wrapped (and only unwraps).
type flusher struct{ http.ResponseWriter }

func (f flusher) Flush() { http.NewResponseController(f.ResponseWriter).Flush() }

func (f flusher) Unwrap() http.ResponseWriter { return f.ResponseWriter }

// Card is the endpoint's Agent Card.
func (e *Endpoint) Card() *sdk.AgentCard { return e.card }

// CardHandler serves the Agent Card (public, as A2A wants it: it says
// which key the endpoint needs, not the key), with the 0.3 fields beside
// the 1.0 ones.
func (e *Endpoint) CardHandler() http.Handler {
	return a2asrv.NewAgentCardHandler(a2av0.NewStaticAgentCardProducer(e.card))
}

// Skill ids of the card.
const (
	SkillPlan = "plan"
	SkillAsk  = "ask_user_once"
)

func (e *Endpoint) newCard() *sdk.AgentCard {
	modes := []string{"text/plain", "application/json"}
	base := strings.TrimSuffix(e.cfg.PublicURL, "/")
	c := &sdk.AgentCard{
		Name:        "askonce",
		Description: "Turns a natural-language goal into a validated plan (a DAG of tasks), asking the user at most one typed question per task. A question is the task's one input-required state; a repeated question of the same context is answered from history.",
		// The first 0.3 interface is what 0.3 clients read as the
		// card's url and preferredTransport.
		SupportedInterfaces: []*sdk.AgentInterface{
			{URL: base + Path, ProtocolBinding: sdk.TransportProtocolJSONRPC, ProtocolVersion: sdk.Version},
			{URL: base + RESTPath, ProtocolBinding: sdk.TransportProtocolHTTPJSON, ProtocolVersion: sdk.Version},
			{URL: base + Path, ProtocolBinding: sdk.TransportProtocolJSONRPC, ProtocolVersion: a2av0.Version},
			{URL: base + RESTPath, ProtocolBinding: sdk.TransportProtocolHTTPJSON, ProtocolVersion: a2av0.Version},
		},
		Version:            e.cfg.Version,
		Capabilities:       sdk.AgentCapabilities{Streaming: true, PushNotifications: e.cfg.Pusher != nil},
		DefaultInputModes:  modes,
		DefaultOutputModes: modes,
		Skills: []sdk.AgentSkill{
			{
				ID:          SkillPlan,
				Name:        "Plan a goal",
				Description: fmt.Sprintf("Send a goal as text (or a data part {goal, profile, files, candidates, hardCap}; candidates: at most %d names of the things besides files the goal may refer to, each at most %d bytes); get a completed task whose artifact \"plan\" is the plan as data (title, tasks with dependsOn, assumptions, spec) and as readable text.", askonce.MaxCandidates, askonce.MaxCandidateBytes),
				Tags:        []string{"planning", "plan", "dag"},
				Examples:    []string{"hot frozen cheese", "rename the billing module"},
				InputModes:  modes,
				OutputModes: modes,
			},
			{
				ID:          SkillAsk,
				Name:        "Ask the user once",
				Description: "If the goal is ambiguous the task becomes input-required once, with the typed question as a data part (type, text, options, default, allowOther, answerUrl, schema). Send the answer as the next message on the same task: text, or data typed as the schema says ({answer: value}, or for a question with fields the field values, as an object or as {answer: {...}}); an answer the question does not take is an invalid-params error naming each bad field, and the task stays input-required; {decline: true} declines. The task never asks a second time.",
				Tags:        []string{"human-in-the-loop", "clarification", "input-required"},
				Examples:    []string{"hot"},
				InputModes:  modes,
				OutputModes: modes,
			},
		},
	}
	if e.guard != nil {
		c.SecuritySchemes = sdk.NamedSecuritySchemes{
			"bearer": sdk.HTTPAuthSecurityScheme{Scheme: "Bearer", Description: "an askonce API key"},
			"apiKey": sdk.APIKeySecurityScheme{Location: sdk.APIKeySecuritySchemeLocationHeader, Name: "X-API-Key", Description: "an askonce API key"},
		}
		c.SecurityRequirements = sdk.SecurityRequirementsOptions{{"bearer": {}}, {"apiKey": {}}}
	}
	return c
}
