package dispatch

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
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
