package mcp

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

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
}

// DefaultCallTimeout is how long one MCP HTTP request may take by default.
const DefaultCallTimeout = 30 * time.Minute

// Handler serves server over MCP's streamable HTTP transport (mount it at
// /mcp). With Tenant set, every request needs "Authorization: Bearer
// <key>" or "X-API-Key: <key>", like the API; its tenant scopes every
// tool, and a session is bound to the key's tenant.
func Handler(server *sdk.Server, o HTTPOptions) http.Handler {
	maxBody := o.MaxBody
	if maxBody <= 0 {
		maxBody = DefaultMaxArguments + 64<<10
	}
	callTimeout := o.CallTimeout
	if callTimeout <= 0 {
		callTimeout = DefaultCallTimeout
	}
	get := func(*http.Request) *sdk.Server { return server }
	// The SDK serves 2026-07-28 (sessionless) only on a stateless handler,
	// and server-initiated elicitation for older clients only on a
	// stateful one: a request goes to the one its protocol version needs.
	stateful := sdk.NewStreamableHTTPHandler(get, &sdk.StreamableHTTPOptions{Logger: o.Logger})
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
			return &auth.TokenInfo{UserID: tenant}, nil
		}
		h = auth.RequireBearerToken(verify, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(h)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") == "" {
			if key := strings.TrimSpace(r.Header.Get("X-API-Key")); key != "" {
				r = r.Clone(r.Context())
				r.Header.Set("Authorization", "Bearer "+key)
			}
		}
		if r.Body != nil {
			r.Body = http.MaxBytesReader(w, r.Body, maxBody)
		}
		// Not an error where the writer cannot set deadlines (tests).
		http.NewResponseController(w).SetWriteDeadline(time.Now().Add(callTimeout))
		h.ServeHTTP(w, r)
	})
}
