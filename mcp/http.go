package mcp

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/askonce/askonce/metrics"
	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// HTTPOptions configures Handler.
type HTTPOptions struct {
	// Tenant maps an API key to its tenant (server.Keys.Tenant). Nil: no
	// keys; every request is Config.Tenant.
	Tenant func(key string) (string, bool)
	// MaxBody limits request bodies, like the HTTP API's. Default
	// DefaultMaxArguments plus room for the JSON-RPC envelope.
	MaxBody int64
	// Logger receives the transport's diagnostics. Nil discards.
	Logger *slog.Logger
	// CallTimeout replaces the http.Server's write timeout for MCP
	// requests: a plan or ask_user call of a 2025-11-25 client holds its
	// request open while a person answers the elicitation, which takes
	// minutes, not the API's seconds. Default DefaultCallTimeout.
	CallTimeout time.Duration
	// SessionTimeout closes a session that has had no request for this
	// long (a request in progress, such as a call waiting on an
	// elicitation, keeps it open). Default DefaultSessionTimeout;
	// negative: never.
	SessionTimeout time.Duration
	// MaxSessions is how many live sessions one API key (or, without keys,
	// everyone) may hold; an initialize beyond it is the JSON-RPC error
	// CodeOverLimit. Default DefaultMaxSessions; negative: no limit.
	MaxSessions int
	// MaxCalls is how many tool calls one API key may have in flight; a
	// call beyond it is the JSON-RPC error CodeOverLimit. Default
	// DefaultMaxCalls; negative: no limit.
	MaxCalls int
	// Metrics receives the live sessions, the calls in flight and the
	// refusals (askonce_mcp_sessions, askonce_mcp_calls_in_flight,
	// askonce_mcp_refused_total). Nil: none.
	Metrics *metrics.Registry
}

// Defaults of HTTPOptions' zero values.
const (
	// DefaultCallTimeout is how long one MCP HTTP request may take.
	DefaultCallTimeout    = 30 * time.Minute
	DefaultSessionTimeout = 30 * time.Minute
	DefaultMaxSessions    = 100
	DefaultMaxCalls       = 50
)

// orDefault is v, or def when v is zero.
func orDefault[T int | time.Duration](v, def T) T {
	if v == 0 {
		return def
	}
	return v
}

// Handler serves server over MCP's streamable HTTP transport (mount it at
// /mcp). With Tenant set, every request needs "Authorization: Bearer
// <key>" or "X-API-Key: <key>", like the API; its tenant scopes every
// tool, and a session is bound to the key's tenant.
//
// Handler adds its limits (HTTPOptions.MaxSessions, MaxCalls) to server;
// call it once per server. A tool call ends when the HTTP request that
// carries it is gone, so a client that leaves holds no goroutine and no
// slot while its question waits.
func Handler(server *sdk.Server, o HTTPOptions) http.Handler {
	maxBody := o.MaxBody
	if maxBody <= 0 {
		maxBody = DefaultMaxArguments + 64<<10
	}
	callTimeout := o.CallTimeout
	if callTimeout <= 0 {
		callTimeout = DefaultCallTimeout
	}
	sessionTimeout := orDefault(o.SessionTimeout, DefaultSessionTimeout)
	if sessionTimeout < 0 {
		sessionTimeout = 0 // the SDK's "never"
	}
	lim := newLimits(orDefault(o.MaxSessions, DefaultMaxSessions), orDefault(o.MaxCalls, DefaultMaxCalls), metrics.NewObserver(o.Metrics))
	server.AddReceivingMiddleware(lim.middleware)
	get := func(*http.Request) *sdk.Server { return server }
	// The SDK serves 2026-07-28 (sessionless) only on a stateless handler,
	// and server-initiated elicitation for older clients only on a
	// stateful one: a request goes to the one its protocol version needs.
	stateful := sdk.NewStreamableHTTPHandler(get, &sdk.StreamableHTTPOptions{Logger: o.Logger, SessionTimeout: sessionTimeout})
	stateless := sdk.NewStreamableHTTPHandler(get, &sdk.StreamableHTTPOptions{Logger: o.Logger, Stateless: true})
	var h http.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Mcp-Protocol-Version") >= "2026-07-28" {
			stateless.ServeHTTP(w, r)
			return
		}
		stateful.ServeHTTP(w, r)
	})
	if o.Tenant != nil {
		verify := func(_ context.Context, key string, _ *http.Request) (*auth.TokenInfo, error) {
			tenant, ok := o.Tenant(key)
			if !ok {
				return nil, fmt.Errorf("%w: unknown API key", auth.ErrInvalidToken)
			}
			return &auth.TokenInfo{UserID: tenant, Extra: map[string]any{"key": keyID(key)}}, nil
		}
		h = auth.RequireBearerToken(verify, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(h)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r = r.Clone(r.Context())
		if r.Header.Get("Authorization") == "" {
			if key := strings.TrimSpace(r.Header.Get("X-API-Key")); key != "" {
				r.Header.Set("Authorization", "Bearer "+key)
			}
		}
		token := randomID()
		r.Header.Set(streamHeader, token)
		lim.streams.Store(token, r.Context())
		defer lim.streams.Delete(token)
		if r.Body != nil {
			r.Body = http.MaxBytesReader(w, r.Body, maxBody)
		}
		// Not an error where the writer cannot set deadlines (tests).
		http.NewResponseController(w).SetWriteDeadline(time.Now().Add(callTimeout))
		h.ServeHTTP(w, r)
	})
}
