// Package ratelimit limits failures per client address: after Limit
// failures within Window, an address is over its limit until the oldest
// of them is Window old. Proxies.Addr is the one function that names a
// request's client address, for every limiter.
//
// A credential is always checked, so a valid one is served whatever
// others behind the same address (an office's NAT, a proxy) got wrong:
// the limit sheds floods of failures, answering a failure from an address
// over its limit 429 with Retry-After instead of 401 or 404. It does not
// guard the credentials; they are long enough that guessing is hopeless
// at any rate (answer tokens 256 bits, API keys at least 128, which
// `askonce hash-key` enforces). The answer page counts unknown answer
// tokens; the API, MCP, A2A and the inbox's sign-in count wrong API keys
// through Authenticate.
//
//	ok, wait := lim.Authenticate(proxies.Addr(r), key, keys.Valid)
//	switch {
//	case wait > 0:
//		w.Header().Set("Retry-After", ratelimit.Seconds(wait))
//		http.Error(w, "too many failed attempts", http.StatusTooManyRequests)
//	case !ok:
//		http.Error(w, "unauthorized", http.StatusUnauthorized)
//	}
package ratelimit

import (
	"net/http"
	"strconv"
	"sync"
	"time"
)

// CodeJSONRPC is the JSON-RPC error code of a request refused for a
// limit (MCP's and A2A's wrong keys over the limit, MCP's sessions and
// calls in flight): not malformed, and worth retrying later. It is in the
// range JSON-RPC leaves to servers; one code for both protocols.
const CodeJSONRPC = -32029

// Defaults of a Limiter's zero fields.
const (
	DefaultLimit  = 20
	DefaultWindow = time.Minute
	// DefaultMaxAddrs bounds the addresses remembered at once.
	DefaultMaxAddrs = 100_000
)

// Limiter counts failures per address in a sliding window. The zero value
// is ready to use (20 failures per minute); it is safe for concurrent
// use. Memory is bounded: an address keeps at most Limit timestamps, and
// addresses whose failures are all older than Window are forgotten.
type Limiter struct {
	// Limit is how many failures an address may have within Window.
	Limit int
	// Window is how far back failures count.
	Window time.Duration
	// MaxAddrs bounds how many addresses are remembered; when it is
	// reached, addresses with no recent failure are dropped first, then
	// the least recently failed.
	MaxAddrs int
	// Now is the clock; nil means time.Now.
	Now func() time.Time

	mu    sync.Mutex
	addrs map[string]*failures
}

// failures is a ring of an address's most recent failure times.
type failures struct {
	at   []time.Time // at most Limit, oldest at next once full
	next int
	last time.Time
}

func (l *Limiter) limit() int {
	if l.Limit <= 0 {
		return DefaultLimit
	}
	return l.Limit
}

func (l *Limiter) window() time.Duration {
	if l.Window <= 0 {
		return DefaultWindow
	}
	return l.Window
}

func (l *Limiter) now() time.Time {
	if l.Now != nil {
		return l.Now()
	}
	return time.Now()
}

// Allow reports whether addr may try again: it has had fewer than Limit
// failures within the last Window.
func (l *Limiter) Allow(addr string) bool {
	return l.RetryAfter(addr) == 0
}

// RetryAfter returns how long addr must wait before Allow is true again;
// 0 when it is true now.
func (l *Limiter) RetryAfter(addr string) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	f := l.addrs[addr]
	if f == nil || len(f.at) < l.limit() {
		return 0
	}
	oldest := f.at[f.next]
	if wait := oldest.Add(l.window()).Sub(l.now()); wait > 0 {
		return wait
	}
	return 0
}

// entry returns addr's record, made (room made for it) if it has none.
// The caller holds l.mu.
func (l *Limiter) entry(addr string, now time.Time) *failures {
	if l.addrs == nil {
		l.addrs = map[string]*failures{}
	}
	f := l.addrs[addr]
	if f == nil {
		l.makeRoom(now)
		f = &failures{}
		l.addrs[addr] = f
	}
	return f
}

// Fail records a failure of addr.
func (l *Limiter) Fail(addr string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	f := l.entry(addr, now)
	f.last = now
	if len(f.at) < l.limit() {
		f.at = append(f.at, now)
		return
	}
	f.at[f.next] = now
	f.next = (f.next + 1) % len(f.at)
}

// Authenticate applies the policy of failed API keys to key, presented
// from addr: lookup always decides, so a valid key is served from any
// address; a refusal counts as a failure (Fail), and a refusal from an
// address already over its limit comes with the wait before Retry-After
// (answer 429 then, 401 otherwise). The API, MCP, A2A and the inbox's
// sign-in authenticate through it.
func (l *Limiter) Authenticate(addr, key string, lookup func(key string) bool) (ok bool, wait time.Duration) {
	if lookup(key) {
		return true, 0
	}
	over := !l.Allow(addr)
	l.Fail(addr)
	if over {
		return false, max(l.RetryAfter(addr), time.Second)
	}
	return false, 0
}

// makeRoom keeps the map under MaxAddrs before a new address is added.
func (l *Limiter) makeRoom(now time.Time) {
	max := l.MaxAddrs
	if max <= 0 {
		max = DefaultMaxAddrs
	}
	if len(l.addrs) < max {
		return
	}
	var oldest string
	for a, f := range l.addrs {
		if now.Sub(f.last) >= l.window() {
			delete(l.addrs, a)
		} else if oldest == "" || f.last.Before(l.addrs[oldest].last) {
			oldest = a
		}
	}
	if len(l.addrs) >= max && oldest != "" {
		delete(l.addrs, oldest)
	}
}

// Addr returns the client address of r when no proxy is trusted: the IP
// of its TCP peer, without the port. Proxies.Addr is the same with
// forwarding headers believed from trusted proxies.
func Addr(r *http.Request) string {
	return Proxies(nil).Addr(r)
}

// Seconds renders a wait as a Retry-After value: whole seconds, rounded
// up, at least 1.
func Seconds(d time.Duration) string {
	s := int64((d + time.Second - 1) / time.Second)
	return strconv.FormatInt(max(s, 1), 10)
}
