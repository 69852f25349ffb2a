package mcp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sync"

	"github.com/askonce/askonce/metrics"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// CodeOverLimit is the JSON-RPC error code of a request refused because its
// API key already has HTTPOptions.MaxSessions sessions or MaxCalls calls in
// flight. It is in the range JSON-RPC leaves to servers; the request may be
// retried once a session is closed or a call has ended.
const CodeOverLimit = -32029

// streamHeader carries, from Handler to the tool calls of one HTTP request,
// the key under which that request's context is kept: the SDK hands a
// call the request's header but runs it on a context of its own, which
// does not end when the client's stream is gone.
const streamHeader = "Askonce-Mcp-Stream"

// limits holds the sessions and calls in flight per API key, and the
// contexts of the HTTP requests that carry calls.
type limits struct {
	maxSessions, maxCalls int
	obs                   *metrics.Observer

	mu       sync.Mutex
	sessions map[string]int
	calls    map[string]int

	streams sync.Map // streamHeader value -> context.Context of its request
}

func newLimits(maxSessions, maxCalls int, obs *metrics.Observer) *limits {
	return &limits{maxSessions: maxSessions, maxCalls: maxCalls, obs: obs, sessions: map[string]int{}, calls: map[string]int{}}
}

// keyID identifies an API key in memory without keeping the key.
func keyID(key string) string {
	s := sha256.Sum256([]byte(key))
	return hex.EncodeToString(s[:8])
}

// keyOf is the API key (its keyID) of a request; "" without keys.
func keyOf(req sdk.Request) string {
	if x := req.GetExtra(); x != nil && x.TokenInfo != nil {
		k, _ := x.TokenInfo.Extra["key"].(string)
		return k
	}
	return ""
}

// take reserves one of key's slots in count, unless it already holds max
// (max < 0: no limit).
func (l *limits) take(count map[string]int, max int, key string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if max >= 0 && count[key] >= max {
		return false
	}
	count[key]++
	return true
}

func (l *limits) give(count map[string]int, key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if count[key]--; count[key] <= 0 {
		delete(count, key)
	}
}

func overLimit(what string, max int) error {
	return &jsonrpc.Error{Code: CodeOverLimit, Message: fmt.Sprintf("this API key already has %d MCP %s, the limit; close one (or wait for it to end) and retry", max, what)}
}

// middleware counts and caps the sessions (at initialize; released when the
// session closes) and the tool calls of each API key, and ends a call when
// the HTTP request that carries it is gone.
func (l *limits) middleware(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		switch method {
		case "initialize":
			ss, ok := req.GetSession().(*sdk.ServerSession)
			if !ok || ss.ID() == "" || ss.InitializeParams() != nil {
				return next(ctx, method, req) // sessionless, or the SDK refuses a second initialize
			}
			return l.session(ctx, ss, method, req, next)
		case "tools/call":
			key := keyOf(req)
			if !l.take(l.calls, l.maxCalls, key) {
				l.obs.ObserveMCPRefused("calls")
				return nil, overLimit("tool calls in flight", l.maxCalls)
			}
			l.obs.AddMCPCalls(1)
			defer func() { l.give(l.calls, key); l.obs.AddMCPCalls(-1) }()
			ctx, stop := l.bound(ctx, req)
			defer stop()
			return next(ctx, method, req)
		}
		return next(ctx, method, req)
	}
}

// session admits a new session of the request's API key, and releases its
// slot when the session closes (deleted, reclaimed when idle, or failed to
// initialize).
func (l *limits) session(ctx context.Context, ss *sdk.ServerSession, method string, req sdk.Request, next sdk.MethodHandler) (sdk.Result, error) {
	key := keyOf(req)
	if !l.take(l.sessions, l.maxSessions, key) {
		l.obs.ObserveMCPRefused("sessions")
		return nil, overLimit("sessions", l.maxSessions)
	}
	l.obs.AddMCPSessions(1)
	release := func() { l.give(l.sessions, key); l.obs.AddMCPSessions(-1) }
	res, err := next(ctx, method, req)
	if err != nil {
		release() // the SDK closes a session that did not initialize
		return res, err
	}
	go func() {
		ss.Wait()
		release()
	}()
	return res, nil
}

// bound is ctx, ended also when the HTTP request that carried req is gone:
// the client can no longer receive the call's result or answer its
// elicitation (no event store keeps the stream for a reconnect).
func (l *limits) bound(ctx context.Context, req sdk.Request) (context.Context, func()) {
	x := req.GetExtra()
	if x == nil || x.Header == nil {
		return ctx, func() {}
	}
	token := x.Header.Get(streamHeader)
	if token == "" {
		return ctx, func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	v, ok := l.streams.Load(token)
	if !ok { // Handler forgets a request once it has ended
		cancel()
		return ctx, cancel
	}
	stop := context.AfterFunc(v.(context.Context), cancel)
	return ctx, func() { stop(); cancel() }
}
