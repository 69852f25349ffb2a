package ratelimit

import (
	"fmt"
	"net/http/httptest"
	"testing"
	"time"
)

type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func newLimiter(c *clock) *Limiter {
	return &Limiter{Limit: 10, Window: time.Minute, Now: c.now}
}

func TestTenFailuresPerMinuteThenRefusedUntilTheOldestAges(t *testing.T) {
	c := &clock{t: time.Unix(1_000_000, 0)}
	l := newLimiter(c)
	for i := range 10 {
		if !l.Allow("10.0.0.1") {
			t.Fatalf("refused after %d failures, want 10 allowed", i)
		}
		l.Fail("10.0.0.1")
		c.t = c.t.Add(time.Second)
	}
	// Ten failures at t0..t0+9s; now is t0+10s.
	if l.Allow("10.0.0.1") {
		t.Fatal("allowed after 10 failures within a minute")
	}
	if got := l.RetryAfter("10.0.0.1"); got != 50*time.Second {
		t.Errorf("RetryAfter = %s, want 50s (the oldest failure is 10s old)", got)
	}
	c.t = c.t.Add(50 * time.Second)
	if !l.Allow("10.0.0.1") {
		t.Fatal("still refused once the oldest failure is a minute old")
	}
	// One more failure fills the window again.
	l.Fail("10.0.0.1")
	if l.Allow("10.0.0.1") {
		t.Error("allowed with 10 failures in the last minute")
	}
}

func TestLimitIsPerAddress(t *testing.T) {
	c := &clock{t: time.Unix(1_000_000, 0)}
	l := newLimiter(c)
	for range 10 {
		l.Fail("10.0.0.1")
	}
	if l.Allow("10.0.0.1") || !l.Allow("10.0.0.2") {
		t.Errorf("Allow: 10.0.0.1 %v (want false), 10.0.0.2 %v (want true)", l.Allow("10.0.0.1"), l.Allow("10.0.0.2"))
	}
}

func TestZeroLimiterAllowsTenFailuresPerMinute(t *testing.T) {
	var l Limiter
	for range DefaultLimit {
		l.Fail("a")
	}
	if l.Allow("a") {
		t.Error("the zero Limiter allowed an 11th try within a minute")
	}
	if d := l.RetryAfter("a"); d <= 0 || d > time.Minute {
		t.Errorf("RetryAfter = %s, want within a minute", d)
	}
}

func TestMemoryIsBoundedByMaxAddrs(t *testing.T) {
	c := &clock{t: time.Unix(1_000_000, 0)}
	l := &Limiter{Limit: 2, Window: time.Minute, MaxAddrs: 100, Now: c.now}
	for i := range 1000 {
		l.Fail(fmt.Sprintf("10.0.%d.%d", i/256, i%256))
		c.t = c.t.Add(time.Millisecond)
	}
	if n := len(l.addrs); n > 100 {
		t.Errorf("%d addresses remembered, want at most 100", n)
	}
	// The most recent failures are kept.
	l.Fail("10.0.3.231")
	if l.Allow("10.0.3.231") {
		t.Error("the latest address lost its failures")
	}
}

func TestAddrIsTheRemoteIPWithoutPortAndIgnoresForwardedHeaders(t *testing.T) {
	r := httptest.NewRequest("GET", "/a/x", nil)
	r.RemoteAddr = "[2001:db8::1]:5555"
	r.Header.Set("X-Forwarded-For", "1.2.3.4")
	if got := Addr(r); got != "2001:db8::1" {
		t.Errorf("Addr = %q", got)
	}
}

func TestSecondsRoundsUpToAtLeastOne(t *testing.T) {
	for d, want := range map[time.Duration]string{time.Millisecond: "1", 1500 * time.Millisecond: "2", 50 * time.Second: "50", 0: "1"} {
		if got := Seconds(d); got != want {
			t.Errorf("Seconds(%s) = %s, want %s", d, got, want)
		}
	}
}
