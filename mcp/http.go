package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/auth"
	"github.com/askonce/askonce/internal/maxbody"
	"github.com/askonce/askonce/internal/ratelimit"
	"github.com/askonce/askonce/internal/refusal"
	"github.com/askonce/askonce/metrics"
	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// HTTPOptions configures Handler.
type HTTPOptions struct {
	// Caller maps an API key to who it authenticates (auth.Keys.Caller):
	// its tenant scopes every tool, its allowed recipients bound the
	// tools' notify, its name is the answeredBy of its answers. Nil: see
	// Tenant.
	Caller func(key string) (askonce.Caller, bool)
	// Tenant maps an API key to its tenant, when Caller is nil. Both nil:
	// no keys; every request is Config.Tenant.
	Tenant func(key string) (string, bool)
	// FailedAuth is how many wrong API keys one client address may
	// present per minute before its wrong keys are answered 429 with
	// Retry-After and a JSON-RPC error (a valid key is always served), as
	// on the HTTP API. Default
	// ratelimit.DefaultLimit (20).
	FailedAuth int
	// TrustedProxies are the proxies whose X-Forwarded-For and Forwarded
	// headers name the client address FailedAuth counts by (as
	// server.Config.TrustedProxies). Empty: the TCP peer is the client.
	TrustedProxies []netip.Prefix
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
	// everyone) may hold; an initialize beyond it closes the key's least
	// recently used idle session (no request in flight), whose client
	// gets 404 and may initialize again, or is the JSON-RPC error
	// CodeOverLimit when every session is busy. Default
	// DefaultMaxSessions; negative: no limit.
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

// callerKey carries the Caller of a request's accepted key from Handler's
// throttled lookup to the SDK's token check.
type callerKey struct{}

// tooManyKeys answers a request from an address over its limit of wrong
// keys (refused, whose Retry-After is set): 429 and a JSON-RPC error a
// client can show.
func tooManyKeys(w http.ResponseWriter, refused *auth.Refusal) {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": CodeOverLimit, "message": refused.Message}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(refused.Status)
	w.Write(append(b, '\n'))
}

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
	lookup := o.Caller
	if lookup == nil && o.Tenant != nil {
		lookup = func(key string) (askonce.Caller, bool) {
			t, ok := o.Tenant(key)
			return askonce.Caller{Tenant: t}, ok
		}
	}
	var guard *auth.Guard
	if lookup != nil {
		guard = &auth.Guard{Lookup: lookup, Fails: &ratelimit.Limiter{Limit: o.FailedAuth, Window: time.Minute}, Proxies: o.TrustedProxies}
	}
	if lookup != nil {
		// The key was looked up (and throttled) below; the SDK's check
		// finds the outcome on the request.
		verify := func(_ context.Context, key string, r *http.Request) (*sdkauth.TokenInfo, error) {
			c, ok := r.Context().Value(callerKey{}).(askonce.Caller)
			if !ok {
				return nil, fmt.Errorf("%w: unknown API key", sdkauth.ErrInvalidToken)
			}
			return &sdkauth.TokenInfo{UserID: c.Tenant, Extra: map[string]any{"key": keyID(key), "caller": c}}, nil
		}
		h = sdkauth.RequireBearerToken(verify, &sdkauth.RequireBearerTokenOptions{AllowMissingExpiration: true})(h)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r = r.Clone(r.Context())
		if r.Header.Get("Authorization") == "" {
			if key := strings.TrimSpace(r.Header.Get("X-API-Key")); key != "" {
				r.Header.Set("Authorization", "Bearer "+key)
			}
		}
		if guard != nil {
			// A 401 is the SDK's bearer-token check's, in the form MCP
			// clients read; a 429 is written here.
			c, refused := guard.Check(w, r)
			if refused != nil && refused.Status == http.StatusTooManyRequests {
				tooManyKeys(w, refused)
				return
			}
			if refused == nil {
				r = r.WithContext(context.WithValue(r.Context(), callerKey{}, c))
			}
		}
		token := randomID()
		r.Header.Set(streamHeader, token)
		lim.streams.Store(token, r.Context())
		defer lim.streams.Delete(token)
		jw := &jsonErrors{Writer: refusal.Writer{ResponseWriter: w}}
		defer jw.finish()
		if r.Body != nil {
			r.Body = maxbody.Reader(w, r, maxBody)
		}
		if r.Method == http.MethodPost {
			body, err := io.ReadAll(r.Body)
			if err != nil {
				var tooBig *http.MaxBytesError
				if errors.As(err, &tooBig) {
					writeRPCError(w, http.StatusRequestEntityTooLarge, nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("the request body is larger than %d bytes", tooBig.Limit))
					return
				}
				writeRPCError(w, http.StatusBadRequest, nil, jsonrpc.CodeParseError, "the request body could not be read: "+err.Error())
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			jw.notJSON = !json.Valid(body)
			var call struct {
				ID json.RawMessage `json:"id"`
			}
			if json.Unmarshal(body, &call) == nil && len(call.ID) > 0 && string(call.ID) != "null" {
				jw.id = call.ID
			}
		}
		// Not an error where the writer cannot set deadlines (tests).
		http.NewResponseController(w).SetWriteDeadline(time.Now().Add(callTimeout))
		h.ServeHTTP(jw, r)
	})
}

// writeRPCError answers a JSON-RPC error of code with msg, as status;
// id nil is JSON null (a request not read, or without an id).
func writeRPCError(w http.ResponseWriter, status int, id json.RawMessage, code int64, msg string) {
	if id == nil {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": msg}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

// jsonErrors turns the SDK's plain-text refusals (http.Error: an unknown
// method, a malformed payload, a missing session, a missing key) into
// JSON-RPC errors as application/json, keeping their HTTP status; a call
// of a method the server does not have is -32601 for its id, as on stdio
// and the sessionless path. Everything else passes through.
type jsonErrors struct {
	refusal.Writer
	id      json.RawMessage // of the request, when it is one call
	notJSON bool            // the request's body is not JSON
}

// finish sends the refusal held back, if any, as a JSON-RPC error.
func (w *jsonErrors) finish() {
	status, msg := w.Held()
	if status == 0 {
		return
	}
	code, id := int64(jsonrpc.CodeInvalidRequest), json.RawMessage(nil)
	switch {
	case strings.Contains(msg, "JSON RPC not handled") && w.id != nil:
		status, code, id = http.StatusOK, jsonrpc.CodeMethodNotFound, w.id
	case w.notJSON:
		code = jsonrpc.CodeParseError
	case status >= 500:
		code = jsonrpc.CodeInternalError
	}
	writeRPCError(w.ResponseWriter, status, id, code, msg)
}
