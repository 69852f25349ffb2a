package ratelimit

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// Proxies are the networks of the reverse proxies and load balancers in
// front of the server (--trusted-proxies). Only a request that reaches the
// server from one of them has its forwarding headers believed; the zero
// value trusts none, so every client is its TCP peer's address.
type Proxies []netip.Prefix

// ParseProxies reads a comma-separated list of CIDRs ("10.0.0.0/8") or
// single addresses ("192.0.2.7", "::1"). Empty is no proxy.
func ParseProxies(s string) (Proxies, error) {
	var p Proxies
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if !strings.Contains(f, "/") {
			a, err := netip.ParseAddr(f)
			if err != nil {
				return nil, fmt.Errorf("%q is neither a CIDR (10.0.0.0/8) nor an IP address", f)
			}
			a = a.Unmap()
			p = append(p, netip.PrefixFrom(a, a.BitLen()))
			continue
		}
		pre, err := netip.ParsePrefix(f)
		if err != nil {
			return nil, fmt.Errorf("%q is neither a CIDR (10.0.0.0/8) nor an IP address", f)
		}
		if pre.Addr().Is4In6() {
			pre = netip.PrefixFrom(pre.Addr().Unmap(), max(pre.Bits()-96, 0))
		}
		p = append(p, pre.Masked())
	}
	return p, nil
}

func (p Proxies) trusts(a netip.Addr) bool {
	a = a.Unmap()
	for _, pre := range p {
		if pre.Contains(a) {
			return true
		}
	}
	return false
}

// Addr returns the client address of r that every limiter counts by: the
// IP of its TCP peer, without the port. When that peer is a trusted proxy,
// the client is the nearest address in X-Forwarded-For (or, without it,
// Forwarded) that is not a trusted proxy, read from the right, where
// proxies append: everything to the left of it came from the client and
// proves nothing. A request carrying both headers whose clients differ,
// or whose nearest untrusted hop is not an IP address, counts as the
// proxy itself, so that no header a client writes can pick its address.
func (p Proxies) Addr(r *http.Request) string {
	peer, ok := hostIP(r.RemoteAddr)
	if !ok {
		return r.RemoteAddr
	}
	if !p.trusts(peer) {
		return peer.String()
	}
	xff, hasXFF := p.client(forwardedFor(r.Header.Values("X-Forwarded-For")))
	fwd, hasFwd := p.client(forwardedElements(r.Header.Values("Forwarded")))
	switch {
	case hasXFF && hasFwd && xff != fwd:
		return peer.String()
	case hasXFF:
		return xff.String()
	case hasFwd:
		return fwd.String()
	}
	return peer.String()
}

// client walks hops from the right and returns the first one that is not
// a trusted proxy (or the leftmost, when all are). ok is false with no
// hops, or when that hop is not an IP address.
func (p Proxies) client(hops []string) (netip.Addr, bool) {
	var a netip.Addr
	for i := len(hops) - 1; i >= 0; i-- {
		var ok bool
		if a, ok = hostIP(hops[i]); !ok {
			return netip.Addr{}, false
		}
		if !p.trusts(a) {
			return a, true
		}
	}
	return a, a.IsValid()
}

// forwardedFor splits X-Forwarded-For lines into hops.
func forwardedFor(lines []string) []string {
	var hops []string
	for _, l := range lines {
		for _, h := range strings.Split(l, ",") {
			hops = append(hops, strings.TrimSpace(h))
		}
	}
	return hops
}

// forwardedElements returns the for= of each element of RFC 7239
// Forwarded lines (an element without one is a hop of unknown address).
func forwardedElements(lines []string) []string {
	var hops []string
	for _, l := range lines {
		for _, el := range strings.Split(l, ",") {
			hop := ""
			for _, pair := range strings.Split(el, ";") {
				k, v, _ := strings.Cut(strings.TrimSpace(pair), "=")
				if strings.EqualFold(k, "for") {
					hop = strings.Trim(v, `"`)
				}
			}
			hops = append(hops, hop)
		}
	}
	return hops
}

// hostIP reads an address with or without a port ("192.0.2.1",
// "192.0.2.1:80", "[2001:db8::1]:80", "[2001:db8::1]", "2001:db8::1").
func hostIP(s string) (netip.Addr, bool) {
	s = strings.TrimSpace(s)
	if a, err := netip.ParseAddr(s); err == nil {
		return a.Unmap().WithZone(""), true
	}
	if host, _, err := net.SplitHostPort(s); err == nil {
		s = host
	}
	a, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(s, "["), "]"))
	if err != nil {
		return netip.Addr{}, false
	}
	return a.Unmap().WithZone(""), true
}
