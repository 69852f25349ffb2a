package webhook

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// ErrBlockedAddress is the error of a connection GuardedClient refused:
// the address is loopback, private, link-local, multicast or
// unspecified.
var ErrBlockedAddress = errors.New("address not allowed: loopback, private, link-local, multicast or unspecified")

// GuardedClient is an HTTP client for URLs that someone other than the
// operator chose (A2A push-notification URLs): unless allowPrivate, it
// refuses to connect to an address that is loopback, private (RFC 1918,
// RFC 4193), link-local (cloud metadata at 169.254.169.254 among them),
// multicast or unspecified. The check runs on the resolved address, in
// the dialer, so a name that resolves to such an address (DNS rebinding
// included) is refused as its IP would be. It does not follow redirects,
// as the builder webhook's client does not, and it uses no proxy (a
// proxy would connect on the client's behalf, unchecked).
func GuardedClient(allowPrivate bool) *http.Client {
	d := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
	if !allowPrivate {
		d.Control = refuseBlocked
	}
	return &http.Client{
		Transport: &http.Transport{
			DialContext:           d.DialContext,
			ForceAttemptHTTP2:     true,
			MaxIdleConns:          100,
			IdleConnTimeout:       90 * time.Second,
			TLSHandshakeTimeout:   10 * time.Second,
			ExpectContinueTimeout: time.Second,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// refuseBlocked is a net.Dialer Control: it runs on the resolved address
// of each connection, before it is made.
func refuseBlocked(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("dial %s: %w", address, err)
	}
	if Blocked(ap.Addr()) {
		return fmt.Errorf("dial %s: %w", ap.Addr(), ErrBlockedAddress)
	}
	return nil
}

// Blocked reports whether GuardedClient refuses to connect to a: a
// loopback, private, link-local, multicast or unspecified address (an
// IPv4 address mapped into IPv6 is judged as IPv4).
func Blocked(a netip.Addr) bool {
	a = a.Unmap()
	return a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsInterfaceLocalMulticast() || a.IsMulticast() || a.IsUnspecified()
}

// HostAddr is the address a URL's host names when it is an IP literal in
// any form a resolver or a browser reads as one: IPv6 (brackets and zone
// allowed), or IPv4 as WHATWG URL's IPv4 parser reads it (one to four
// dot-separated parts, each decimal, 0x-hexadecimal or 0-octal, the last
// filling the bytes left, with one trailing dot allowed): "127.1",
// "0x7f000001", "2130706433", "0177.0.0.1" and "127.0.0.1." are all
// 127.0.0.1. A host that is none of these is a name: false.
func HostAddr(host string) (netip.Addr, bool) {
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if a, err := netip.ParseAddr(host); err == nil {
		return a.WithZone(""), true
	}
	parts := strings.Split(strings.TrimSuffix(host, "."), ".")
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	var n uint64
	for i, p := range parts {
		v, ok := ipv4Part(p)
		last := i == len(parts)-1
		if !ok || (!last && v > 255) || (last && v >= 1<<(8*(5-len(parts)))) {
			return netip.Addr{}, false
		}
		if last {
			n = n<<(8*(5-len(parts))) | v
		} else {
			n = n<<8 | v
		}
	}
	return netip.AddrFrom4([4]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}), true
}

// ipv4Part is the number one part of an IPv4 literal writes: 0x (or 0X)
// then hexadecimal, 0 then octal, else decimal.
func ipv4Part(p string) (uint64, bool) {
	base := 10
	switch {
	case len(p) >= 2 && (p[:2] == "0x" || p[:2] == "0X"):
		p, base = p[2:], 16
		if p == "" {
			return 0, true
		}
	case len(p) > 1 && p[0] == '0':
		p, base = p[1:], 8
	}
	v, err := strconv.ParseUint(p, base, 64) // no sign, no "0x", no "_"
	return v, err == nil && v <= 1<<32
}

// BlockedHost reports whether a URL's host is one GuardedClient would
// refuse, without a DNS lookup: an IP literal in any form (HostAddr) that
// is Blocked, or localhost or a name under it (which RFC 6761 reserves
// for loopback), with or without its trailing dot.
func BlockedHost(host string) bool {
	if a, ok := HostAddr(host); ok {
		return Blocked(a)
	}
	name := strings.ToLower(strings.TrimSuffix(host, "."))
	return name == "localhost" || strings.HasSuffix(name, ".localhost")
}
