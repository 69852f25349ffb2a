package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestPublicURLDefaultsToAddrWithLoopbackForUnspecifiedHosts(t *testing.T) {
	for _, tc := range []struct {
		addr, public, want string
		loopback           bool
	}{
		{"127.0.0.1:8080", "", "http://127.0.0.1:8080", false},
		{"0.0.0.0:8080", "", "http://127.0.0.1:8080", true},
		{"[::]:9000", "", "http://127.0.0.1:9000", true},
		{":9000", "", "http://127.0.0.1:9000", true},
		{"[::1]:9000", "", "http://[::1]:9000", false},
		{"0.0.0.0:8080", "https://askonce.example.com/x/", "https://askonce.example.com/x", false},
		// Port 0 listens on a free port (41517 here): the links name it.
		{"127.0.0.1:0", "", "http://127.0.0.1:41517", false},
		{":0", "", "http://127.0.0.1:41517", true},
	} {
		c := &serveConfig{Addr: tc.addr, PublicURL: tc.public}
		got, loopback, err := c.publicURL(41517)
		if err != nil || got != tc.want || loopback != tc.loopback {
			t.Errorf("addr %q public %q: %q loopback=%v %v; want %q loopback=%v", tc.addr, tc.public, got, loopback, err, tc.want, tc.loopback)
		}
	}
	for _, bad := range []string{"askonce.example.com", "ftp://x", "https://x/?q=1", "https://"} {
		if _, _, err := (&serveConfig{Addr: ":1", PublicURL: bad}).publicURL(1); err == nil {
			t.Errorf("--public-url %q accepted", bad)
		}
	}
}

func TestLinkSecretIsHexOrBase64OfAtLeast32Bytes(t *testing.T) {
	key := bytes.Repeat([]byte{0xab}, 32)
	for _, s := range []string{strings.Repeat("ab", 32), "q6urq6urq6urq6urq6urq6urq6urq6urq6urq6urq6s=", "q6urq6urq6urq6urq6urq6urq6urq6urq6urq6urq6s"} {
		got, err := parseSecret(s)
		if err != nil || !bytes.Equal(got, key) {
			t.Errorf("parseSecret(%q) = %x, %v; want %x", s, got, err, key)
		}
	}
	for _, bad := range []string{strings.Repeat("ab", 31), "not a secret!", ""} {
		if _, err := parseSecret(bad); err == nil {
			t.Errorf("parseSecret(%q) accepted", bad)
		}
	}
}
