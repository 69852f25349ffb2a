package mcp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sync"

	"github.com/askonce/askonce/internal/ratelimit"
	"github.com/askonce/askonce/metrics"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// CodeOverLimit is the JSON-RPC error code of a request refused because its
// API key already has HTTPOptions.MaxSessions sessions or MaxCalls calls in
// flight. It is in the range JSON-RPC leaves to servers; the request may be
// retried once a session is closed or a call has ended.
const CodeOverLimit = ratelimit.CodeJSONRPC

// CodeUnavailable is the JSON-RPC error code of a request that failed
// because askonce's store cannot be reached now (askonce.EUNAVAILABLE): the
// same request may be retried. Tool calls report it as a tool error whose
// text starts "unavailable (retryable)"; only resource reads use the code.
const CodeUnavailable = -32030

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
	live     map[*sdk.ServerSession]*liveSession
	clock    int64 // orders uses of sessions

	streams sync.Map // streamHeader value -> context.Context of its request
}

// liveSession is a session counted against its key's cap: when it was last
// used, and how many of its requests are in flight (a session with none is
// idle, and may be closed to make way for a new one).
type liveSession struct {
	key      string
	lastUsed int64
	busy     int
}

func newLimits(maxSessions, maxCalls int, obs *metrics.Observer) *limits {
	return &limits{maxSessions: maxSessions, maxCalls: maxCalls, obs: obs, sessions: map[string]int{}, calls: map[string]int{}, live: map[*sdk.ServerSession]*liveSession{}}
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

// use marks ss in use until the returned function is called.
func (l *limits) use(ss *sdk.ServerSession) func() {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.live[ss]
	if s == nil {
		return func() {}
	}
	l.clock++
	s.lastUsed, s.busy = l.clock, s.busy+1
	return l.done(s)
}

// done is the end of a use of s.
func (l *limits) done(s *liveSession) func() {
	return func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.clock++
		s.lastUsed, s.busy = l.clock, s.busy-1
	}
}

// admit counts ss, in use by its initialize until done, against key's
// cap. At the cap, the least recently used idle session of key is dropped
// from the count and returned, for the caller to close; when every
// session of key is busy, admit refuses.
func (l *limits) admit(ss *sdk.ServerSession, key string) (evict *sdk.ServerSession, done func(), ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.maxSessions >= 0 && l.sessions[key] >= l.maxSessions {
		var oldest *liveSession
		for s, ls := range l.live {
			if ls.key == key && ls.busy == 0 && (oldest == nil || ls.lastUsed < oldest.lastUsed) {
				evict, oldest = s, ls
			}
		}
		if evict == nil {
			return nil, nil, false
		}
		delete(l.live, evict)
		l.sessions[key]--
		l.obs.AddMCPSessions(-1)
	}
	l.clock++
	s := &liveSession{key: key, lastUsed: l.clock, busy: 1}
	l.live[ss] = s
	l.sessions[key]++
	l.obs.AddMCPSessions(1)
	return evict, l.done(s), true
}

// release uncounts ss, unless it was already (closed to make way).
func (l *limits) release(ss *sdk.ServerSession) {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.live[ss]
	if s == nil {
		return
	}
	delete(l.live, ss)
	if l.sessions[s.key]--; l.sessions[s.key] <= 0 {
		delete(l.sessions, s.key)
	}
	l.obs.AddMCPSessions(-1)
}

// middleware counts and caps the sessions (at initialize; released when the
// session closes) and the tool calls of each API key, and ends a call when
// the HTTP request that carries it is gone.
func (l *limits) middleware(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		if ss, ok := req.GetSession().(*sdk.ServerSession); ok {
			defer l.use(ss)()
		}
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

// session admits a new session of the request's API key, closing the
// key's least recently used idle session when the key is at its cap, and
// releases its slot when the session closes (deleted, reclaimed when idle,
// closed to make way, or failed to initialize).
func (l *limits) session(ctx context.Context, ss *sdk.ServerSession, method string, req sdk.Request, next sdk.MethodHandler) (sdk.Result, error) {
	key := keyOf(req)
	evict, done, ok := l.admit(ss, key)
	if !ok {
		l.obs.ObserveMCPRefused("sessions")
		return nil, overLimit("sessions with a call in flight", l.maxSessions)
	}
	defer done()
	if evict != nil {
		evict.Close() // its client gets 404 and may initialize again
	}
	res, err := next(ctx, method, req)
	if err != nil {
		l.release(ss) // the SDK closes a session that did not initialize
		return res, err
	}
	go func() {
		ss.Wait()
		l.release(ss)
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
