// Package ratelimit limits failures per client address: after Limit
// failures within Window, an address is over its limit until the oldest
// of them is Window old. Proxies.Addr is the one function that names a
// request's client address, for every limiter.
//
// The answer page counts unknown answer tokens: a token is always looked
// up, so a valid link opens whatever others behind the same address
// guessed, and only an unknown token from an address over its limit is
// answered 429 with Retry-After. The API and the inbox's sign-in count
// wrong API keys: over the limit, an address's keys are not checked at
// all (so guessing stops), except those already accepted from it (Pass,
// Known), so that clients who were in stay in.
//
//	addr := proxies.Addr(r)
//	if !lim.Allow(addr) && !lim.Known(addr, key) {
//		w.Header().Set("Retry-After", ratelimit.Seconds(lim.RetryAfter(addr)))
//		http.Error(w, "too many failed attempts", http.StatusTooManyRequests)
//		return
//	}
//	if tenant, ok := keys.Tenant(key); ok {
//		lim.Pass(addr, key)
//	} else {
//		lim.Fail(addr)
//	}
package ratelimit

import (
	"crypto/sha256"
	"net/http"
	"strconv"
	"sync"
	"time"
)

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
	// Remember is how long a credential recorded with Pass stays known
	// at its address. Default DefaultRemember.
	Remember time.Duration

	mu    sync.Mutex
	addrs map[string]*failures
}

// failures is a ring of an address's most recent failure times, and the
// credentials that passed from it.
type failures struct {
	at   []time.Time // at most Limit, oldest at next once full
	next int
	last time.Time
	// passed are hashes of credentials accepted from the address, with
	// when they last were; at most maxPassed.
	passed map[[sha256.Size]byte]time.Time
}

// maxPassed bounds the credentials remembered per address.
const maxPassed = 16

// DefaultRemember is how long a credential accepted from an address stays
// known there (see Known).
const DefaultRemember = 24 * time.Hour

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

// Pass records that addr presented a credential that was accepted, so that
// Known lets it through while other credentials from addr are refused.
// Only its SHA-256 is kept.
func (l *Limiter) Pass(addr, credential string) {
	sum := sha256.Sum256([]byte(credential))
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	f := l.entry(addr, now)
	if f.passed == nil {
		f.passed = map[[sha256.Size]byte]time.Time{}
	}
	if _, ok := f.passed[sum]; !ok && len(f.passed) >= maxPassed {
		var oldest [sha256.Size]byte
		var at time.Time
		for k, t := range f.passed {
			if at.IsZero() || t.Before(at) {
				oldest, at = k, t
			}
		}
		delete(f.passed, oldest)
	}
	f.passed[sum] = now
}

// Known reports whether credential was accepted from addr (Pass) within
// Remember: a client that was in before an address went over its limit
// stays in, while a new guess from there waits.
func (l *Limiter) Known(addr, credential string) bool {
	sum := sha256.Sum256([]byte(credential))
	remember := l.Remember
	if remember <= 0 {
		remember = DefaultRemember
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	f := l.addrs[addr]
	if f == nil {
		return false
	}
	at, ok := f.passed[sum]
	return ok && l.now().Sub(at) < remember
}

// Authenticate applies the policy of failed API keys to key, presented
// from addr: over the limit, only a key accepted from addr before (Known)
// is looked up, and any other is refused unseen with the wait before
// Retry-After; otherwise lookup decides, a refusal counts as a failure
// (Fail) and an acceptance is remembered (Pass). The API, MCP and A2A all
// authenticate through it.
func (l *Limiter) Authenticate(addr, key string, lookup func(key string) bool) (ok bool, wait time.Duration) {
	if !l.Allow(addr) && !l.Known(addr, key) {
		return false, max(l.RetryAfter(addr), time.Second)
	}
	if !lookup(key) {
		l.Fail(addr)
		return false, 0
	}
	l.Pass(addr, key)
	return true, 0
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
