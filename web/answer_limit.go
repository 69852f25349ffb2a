package web

import (
	"net"
	"net/http"
	"sync"
	"time"
)

// lookupLimiter counts the unknown answer tokens each client address
// presents, in fixed one-minute windows: past max failures in a window,
// the address is refused until the window ends. Guessing a 256-bit token
// is hopeless anyway; this keeps a scanner from costing a database query
// per try.
type lookupLimiter struct {
	mu     sync.Mutex
	max    int
	window time.Duration
	seen   map[string]*lookupWindow
}

type lookupWindow struct {
	start time.Time
	fails int
}

// maxTracked bounds the addresses remembered; past it, finished windows
// are dropped.
const maxTracked = 10000

func newLookupLimiter(max int) *lookupLimiter {
	if max <= 0 {
		max = DefaultFailedLookups
	}
	return &lookupLimiter{max: max, window: time.Minute, seen: map[string]*lookupWindow{}}
}

// retryAfter returns how long addr must wait, 0 when it may look up.
func (l *lookupLimiter) retryAfter(addr string, now time.Time) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	w := l.seen[addr]
	if w == nil || w.fails < l.max {
		return 0
	}
	left := w.start.Add(l.window).Sub(now)
	if left <= 0 {
		delete(l.seen, addr)
		return 0
	}
	return left
}

// fail counts one unknown token from addr.
func (l *lookupLimiter) fail(addr string, now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	w := l.seen[addr]
	if w == nil || !now.Before(w.start.Add(l.window)) {
		if len(l.seen) >= maxTracked {
			for a, o := range l.seen {
				if !now.Before(o.start.Add(l.window)) {
					delete(l.seen, a)
				}
			}
		}
		w = &lookupWindow{start: now}
		l.seen[addr] = w
	}
	w.fails++
}

// clientAddr is the address a request came from: the peer's IP, without
// its port. Behind a reverse proxy every client shares the proxy's.
func clientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
