// Package ratelimit limits failures per client address: after Limit
// failures within Window, an address is refused until the oldest of them
// is Window old. The answer page uses it for failed answer-token lookups,
// so that guessing tokens is throttled per address (answer 429 with
// Retry-After while Allow is false).
//
//	if !lim.Allow(addr) {
//		w.Header().Set("Retry-After", ratelimit.Seconds(lim.RetryAfter(addr)))
//		http.Error(w, "too many failed attempts", http.StatusTooManyRequests)
//		return
//	}
//	if _, err := engine.JobByAnswerToken(ctx, token); askonce.ErrorCode(err) == askonce.ENOTFOUND {
//		lim.Fail(addr)
//	}
package ratelimit

import (
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// Defaults of a Limiter's zero fields.
const (
	DefaultLimit  = 10
	DefaultWindow = time.Minute
	// DefaultMaxAddrs bounds the addresses remembered at once.
	DefaultMaxAddrs = 100_000
)

// Limiter counts failures per address in a sliding window. The zero value
// is ready to use (10 failures per minute); it is safe for concurrent
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

// Fail records a failure of addr.
func (l *Limiter) Fail(addr string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	if l.addrs == nil {
		l.addrs = map[string]*failures{}
	}
	f := l.addrs[addr]
	if f == nil {
		l.makeRoom(now)
		f = &failures{}
		l.addrs[addr] = f
	}
	f.last = now
	if len(f.at) < l.limit() {
		f.at = append(f.at, now)
		return
	}
	f.at[f.next] = now
	f.next = (f.next + 1) % len(f.at)
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

// Addr returns the client address of r to limit by: the IP of its
// RemoteAddr, without the port. Headers such as X-Forwarded-For are not
// trusted; behind a proxy every client shares the proxy's address.
func Addr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// Seconds renders a wait as a Retry-After value: whole seconds, rounded
// up, at least 1.
func Seconds(d time.Duration) string {
	s := int64((d + time.Second - 1) / time.Second)
	return strconv.FormatInt(max(s, 1), 10)
}
