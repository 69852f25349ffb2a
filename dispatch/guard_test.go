package dispatch

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
	w := &Webhook{URL: srv.URL, Client: GuardedClient(false)}
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
		"93.184.216.34": false, "2606:4700::1111": false, "8.8.8.8": false,
	} {
		if got := Blocked(netip.MustParseAddr(addr)); got != want {
			t.Errorf("Blocked(%s) = %v, want %v", addr, got, want)
		}
	}
}
