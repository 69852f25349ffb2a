package openai

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// delay is how long to wait before retry number n+1 (n counts from 0),
// and why: the server's Retry-After (or retry-after-ms), else exponential
// backoff from RetryBaseDelay with jitter, at most MaxRetryDelay.
func (in *Interpreter) delay(ex *exchange, n int) (time.Duration, string) {
	if d, ok := retryAfter(ex.header, time.Now()); ok {
		return d, fmt.Sprintf("Retry-After %s", d)
	}
	d := in.cfg.RetryBaseDelay << min(n, 20)
	if d <= 0 || d > in.cfg.MaxRetryDelay {
		d = in.cfg.MaxRetryDelay
	}
	// Full jitter over the upper half, so that clients that failed
	// together do not retry together.
	d = d/2 + rand.N(d/2+1)
	return d, fmt.Sprintf("backoff %s", d)
}

// retryAfter reads how long the server asked to wait: retry-after-ms
// (milliseconds, sent by OpenAI), or Retry-After as delay-seconds or an
// HTTP date (RFC 9110). A date in the past means no wait.
func retryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	if h == nil {
		return 0, false
	}
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 && ms < 1e12 {
			return time.Duration(ms * float64(time.Millisecond)), true
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseInt(v, 10, 64); err == nil {
		if s < 0 {
			return 0, false
		}
		if s > 1<<31 {
			s = 1 << 31 // far beyond any limit; avoids overflow
		}
		return time.Duration(s) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}
