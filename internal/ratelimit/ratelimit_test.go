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

func TestZeroLimiterAllowsDefaultLimitFailuresPerMinute(t *testing.T) {
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
	r.Header.Set("Forwarded", "for=1.2.3.4")
	if got := Addr(r); got != "2001:db8::1" {
		t.Errorf("Addr = %q", got)
	}
}

func TestProxiesAddrBelievesForwardingHeadersOnlyFromTrustedProxies(t *testing.T) {
	proxies, err := ParseProxies("10.0.0.0/8, 192.0.2.7,::1")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, peer string
		header     map[string][]string
		want       string
	}{
		{"untrusted peer: its headers are ignored", "203.0.113.9:1", map[string][]string{"X-Forwarded-For": {"1.2.3.4"}}, "203.0.113.9"},
		{"trusted peer without headers is the client", "10.1.2.3:1", nil, "10.1.2.3"},
		{"X-Forwarded-For: the nearest untrusted hop", "10.1.2.3:1", map[string][]string{"X-Forwarded-For": {"6.6.6.6, 198.51.100.4, 10.9.9.9"}}, "198.51.100.4"},
		{"X-Forwarded-For over several lines", "192.0.2.7:1", map[string][]string{"X-Forwarded-For": {"6.6.6.6", "198.51.100.4"}}, "198.51.100.4"},
		{"single trusted address, IPv6 loopback", "[::1]:1", map[string][]string{"X-Forwarded-For": {"2001:db8::5"}}, "2001:db8::5"},
		{"Forwarded with quoted IPv6 and port", "10.1.2.3:1", map[string][]string{"Forwarded": {`for=6.6.6.6, for="[2001:db8:cafe::17]:4711";proto=https`}}, "2001:db8:cafe::17"},
		{"both headers agreeing", "10.1.2.3:1", map[string][]string{"X-Forwarded-For": {"198.51.100.4"}, "Forwarded": {"for=198.51.100.4"}}, "198.51.100.4"},
		{"both headers disagreeing: the proxy", "10.1.2.3:1", map[string][]string{"X-Forwarded-For": {"198.51.100.4"}, "Forwarded": {"for=6.6.6.6"}}, "10.1.2.3"},
		{"an obfuscated hop: the proxy", "10.1.2.3:1", map[string][]string{"Forwarded": {"for=_hidden"}}, "10.1.2.3"},
		{"garbage hop: the proxy", "10.1.2.3:1", map[string][]string{"X-Forwarded-For": {"1.2.3.4, not-an-ip"}}, "10.1.2.3"},
		{"all hops trusted: the leftmost", "10.1.2.3:1", map[string][]string{"X-Forwarded-For": {"10.0.0.5, 10.0.0.6"}}, "10.0.0.5"},
		{"IPv4-mapped peer is trusted as IPv4", "[::ffff:10.1.2.3]:1", map[string][]string{"X-Forwarded-For": {"198.51.100.4"}}, "198.51.100.4"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/", nil)
			r.RemoteAddr = c.peer
			for k, vs := range c.header {
				for _, v := range vs {
					r.Header.Add(k, v)
				}
			}
			if got := proxies.Addr(r); got != c.want {
				t.Errorf("Addr = %q, want %q", got, c.want)
			}
		})
	}
}

func TestParseProxiesRefusesWhatIsNoNetwork(t *testing.T) {
	for _, bad := range []string{"10.0.0.0/33", "example.com", "10.0.0.0/8,,1.2.3"} {
		if _, err := ParseProxies(bad); err == nil {
			t.Errorf("ParseProxies(%q) accepted it", bad)
		}
	}
	if p, err := ParseProxies(" "); err != nil || len(p) != 0 {
		t.Errorf("ParseProxies of blank = %v, %v; want none", p, err)
	}
}

func TestAuthenticateServesAValidKeyFromAnAddressOverItsLimit(t *testing.T) {
	c := &clock{t: time.Unix(1_000_000, 0)}
	l := &Limiter{Limit: 10, Window: time.Minute, Now: c.now}
	valid := func(key string) bool { return key == "good-key" }
	for i := range 10 {
		if ok, wait := l.Authenticate("10.0.0.1", "guess", valid); ok || wait != 0 {
			t.Fatalf("wrong key %d: ok %v wait %s; want a refusal without a wait", i+1, ok, wait)
		}
	}
	if ok, wait := l.Authenticate("10.0.0.1", "guess", valid); ok || wait <= 0 {
		t.Fatalf("a wrong key past the limit: ok %v wait %s; want a refusal with a wait", ok, wait)
	}
	if ok, wait := l.Authenticate("10.0.0.1", "good-key", valid); !ok || wait != 0 {
		t.Fatalf("a valid key from the address over its limit: ok %v wait %s; want it accepted", ok, wait)
	}
	if ok, wait := l.Authenticate("10.0.0.2", "guess", valid); ok || wait != 0 {
		t.Fatalf("a wrong key from another address: ok %v wait %s; want a refusal without a wait", ok, wait)
	}
}

func TestSecondsRoundsUpToAtLeastOne(t *testing.T) {
	for d, want := range map[time.Duration]string{time.Millisecond: "1", 1500 * time.Millisecond: "2", 50 * time.Second: "50", 0: "1"} {
		if got := Seconds(d); got != want {
			t.Errorf("Seconds(%s) = %s, want %s", d, got, want)
		}
	}
}
