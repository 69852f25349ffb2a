package webhook

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"sync/atomic"
	"testing"
)

func TestGuardedClientRefusesLoopbackUnlessAllowed(t *testing.T) {
	t.Parallel()
	var got atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got.Add(1) }))
	t.Cleanup(srv.Close)
	w := &Sender{URL: srv.URL, Client: GuardedClient(false)}
	err := w.Post(t.Context(), "m1", []byte(`{}`), nil)
	if !errors.Is(err, ErrBlockedAddress) {
		t.Fatalf("POST to %s through the guard: %v; want ErrBlockedAddress", srv.URL, err)
	}
	// A name that resolves to loopback is refused as its address is.
	w.URL = "http://localhost" + srv.URL[len("http://127.0.0.1"):]
	if err := w.Post(t.Context(), "m1", []byte(`{}`), nil); !errors.Is(err, ErrBlockedAddress) {
		t.Fatalf("POST to %s through the guard: %v; want ErrBlockedAddress", w.URL, err)
	}
	if got.Load() != 0 {
		t.Fatalf("the receiver got %d requests through the guard", got.Load())
	}
	w.URL, w.Client = srv.URL, GuardedClient(true)
	if err := w.Post(t.Context(), "m1", []byte(`{}`), nil); err != nil || got.Load() != 1 {
		t.Fatalf("POST with private addresses allowed: %v, %d requests", err, got.Load())
	}
}

func TestBlockedAddresses(t *testing.T) {
	t.Parallel()
	for addr, want := range map[string]bool{
		"127.0.0.1": true, "::1": true, "10.1.2.3": true, "172.16.0.1": true, "192.168.1.1": true,
		"fd00::1": true, "169.254.169.254": true, "fe80::1": true, "224.0.0.1": true, "ff02::1": true,
		"0.0.0.0": true, "::": true, "::ffff:127.0.0.1": true, "::ffff:10.0.0.1": true,
		// Judged unmapped: netip's IsUnspecified does not unmap, and
		// Linux connects ::ffff:0.0.0.0 to localhost.
		"::ffff:0.0.0.0": true, "::ffff:169.254.169.254": true, "::ffff:224.0.0.1": true,
		"93.184.216.34": false, "2606:4700::1111": false, "8.8.8.8": false,
	} {
		if got := Blocked(netip.MustParseAddr(addr)); got != want {
			t.Errorf("Blocked(%s) = %v, want %v", addr, got, want)
		}
	}
}

// Every form of an IP literal a resolver or a browser reads is the
// address it means; anything else is a name.
func TestHostAddrReadsEveryFormOfAnIPLiteral(t *testing.T) {
	t.Parallel()
	for host, want := range map[string]string{
		"127.0.0.1": "127.0.0.1", "127.1": "127.0.0.1", "127.0.1": "127.0.0.1", "0x7f000001": "127.0.0.1",
		"0X7F000001": "127.0.0.1", "2130706433": "127.0.0.1", "0177.0.0.1": "127.0.0.1", "0177.1": "127.0.0.1",
		"127.0.0.1.": "127.0.0.1", "0x7f.0.0.0x1": "127.0.0.1", "0": "0.0.0.0", "0x": "0.0.0.0", "10.0x10000": "10.1.0.0",
		"4294967295": "255.255.255.255", "1.2.65535": "1.2.255.255", "1.16777215": "1.255.255.255",
		"[::1]": "::1", "::ffff:127.0.0.1": "::ffff:127.0.0.1", "fe80::1%eth0": "fe80::1",
		// Names, not literals.
		"example.com": "", "localhost": "", "4294967296": "", "1.2.3.256": "", "256.1": "", "1.2.3.4.5": "", "1.2.3.4.0": "",
		"1..2": "", "": "", ".": "", "1.2.3.4..": "", "08": "", "0x1g": "", "+1": "", "-1": "", "1.2.65536": "", "1.16777216": "",
	} {
		a, ok := HostAddr(host)
		got := ""
		if ok {
			got = a.String()
		}
		if got != want {
			t.Errorf("HostAddr(%q) = %q, %v; want %q", host, got, ok, want)
		}
	}
}

// A host is refused without a DNS lookup when it is a blocked address in
// any form, or localhost or a name under it.
func TestBlockedHostRefusesShorthandsAndLocalhostNames(t *testing.T) {
	t.Parallel()
	for host, want := range map[string]bool{
		"127.1": true, "0x7f000001": true, "2130706433": true, "0177.0.0.1": true, "127.0.0.1.": true,
		"localhost": true, "localhost.": true, "sub.localhost": true, "a.b.LOCALHOST.": true, "10.1": true, "0": true,
		"::ffff:0.0.0.0": true, "[::1]": true,
		"example.com": false, "notlocalhost": false, "localhost.example.com": false, "93.184.216.34": false, "0x5db8d822": false,
	} {
		if got := BlockedHost(host); got != want {
			t.Errorf("BlockedHost(%q) = %v, want %v", host, got, want)
		}
	}
}
