// Package auth says who a request comes from, once for every channel that
// takes API keys (the HTTP API, MCP, A2A and the inbox): the keys file
// (Keys: each key's tenant, name and allowed recipients, and who may sign
// in to the inbox with an OpenID provider) and the check of a request's
// key (Guard), whose wrong keys are limited per client address. A Guard's
// refusal (401 or 429) carries its status, code and message; each channel
// writes it in its own protocol's form.
package auth

import (
	"bufio"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"math"
	"regexp"
	"strings"

	"github.com/askonce/askonce"
)

// Keys maps API keys to tenants. Only the SHA-256 of each key is held, so a
// leaked keys file does not leak keys. Build it with LoadKeys.
type Keys struct {
	entries []keyEntry
	// signins are the signin lines (signin.go), in file order.
	signins []signinRule
}

type keyEntry struct {
	tenant string
	// name is the key's name= field, "" without one: recorded as
	// AnsweredBy of the answers given with the key.
	name string
	hash [sha256.Size]byte
	// recipients, when not nil, are the only job recipients the key may
	// name (see Recipients.allows).
	recipients *Recipients
}

var tenantName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

// LoadKeys reads an API keys file: one key per line,
//
//	<tenant> <sha256-hex of the key> [name=<name>] [notify=<pattern>,<pattern>...]
//
// separated by spaces or tabs. The optional fields come in any order,
// each at most once. name= names the key (1-128 letters, digits, '.',
// '_' or '-'): answers given with it record the name as answeredBy.
// notify= restricts the recipients the key's jobs may name (see
// Recipients): without it a key may name any. Blank lines and lines
// starting with # are
// ignored. A tenant is 1-128 characters of letters, digits, '.', '_' and
// '-'; several keys may map to one tenant, but one key (hash) only to one.
// Lines '<tenant> signin <rule>' say who may sign in to the inbox with an
// OpenID provider (see signin.go).
// Produce the lines with HashKey (or `askonce hash-key TENANT`). A file
// with no keys is an error: it would refuse every request.
func LoadKeys(r io.Reader) (*Keys, error) {
	k := &Keys{}
	seen := map[[sha256.Size]byte]int{}
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) < 2 || len(f) > 4 {
			return nil, fmt.Errorf("line %d: want '<tenant> <sha256-hex> [name=...] [notify=...]', got %d fields", n, len(f))
		}
		tenant, hexHash := f[0], strings.ToLower(f[1])
		if !tenantName.MatchString(tenant) {
			return nil, fmt.Errorf("line %d: tenant %q: use 1-128 letters, digits, '.', '_' or '-'", n, tenant)
		}
		if f[1] == "signin" {
			r, err := parseSignin(tenant, f[2:])
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", n, err)
			}
			k.signins = append(k.signins, r)
			continue
		}
		b, err := hex.DecodeString(hexHash)
		if err != nil || len(b) != sha256.Size {
			return nil, fmt.Errorf("line %d: %q is not a SHA-256 in hex (64 characters); hash the key with HashKey", n, f[1])
		}
		var e keyEntry
		e.tenant = tenant
		copy(e.hash[:], b)
		if err := e.options(f[2:]); err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		if prev, dup := seen[e.hash]; dup {
			return nil, fmt.Errorf("line %d: the same key is already on line %d", n, prev)
		}
		seen[e.hash] = n
		k.entries = append(k.entries, e)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read keys: %w", err)
	}
	if len(k.entries) == 0 && len(k.signins) == 0 {
		return nil, fmt.Errorf("no keys: every request would be refused")
	}
	return k, nil
}

// options reads a line's fields after the hash: name= and notify=.
func (e *keyEntry) options(fields []string) error {
	var named bool
	for _, f := range fields {
		switch {
		case strings.HasPrefix(f, "name="):
			if named {
				return fmt.Errorf("name= is given twice")
			}
			named = true
			e.name = strings.TrimPrefix(f, "name=")
			if !tenantName.MatchString(e.name) {
				return fmt.Errorf("key name %q: use 1-128 letters, digits, '.', '_' or '-'", e.name)
			}
		case e.recipients != nil && strings.HasPrefix(f, "notify="):
			return fmt.Errorf("notify= is given twice")
		default:
			r, err := parseRecipients(f)
			if err != nil {
				return err
			}
			e.recipients = r
		}
	}
	return nil
}

// MinKeyBits is the least entropy an API key must be able to carry: at 128
// bits guessing is hopeless at any rate, so the limit on wrong keys sheds
// floods of failures and never has to refuse a valid key.
const MinKeyBits = 128

// KeyBits is the most entropy key can carry: its length times the bits of
// a character of the smallest usual alphabet that holds all of its
// characters (digits, hex, letters and digits, base64, printable ASCII;
// 8 bits a byte for anything else). A key under MinKeyBits is too short
// whatever made it.
func KeyBits(key string) float64 {
	alphabets := []struct {
		bits  float64
		chars string
	}{
		{math.Log2(10), "0123456789"},
		{4, "0123456789abcdef"},
		{4, "0123456789ABCDEF"},
		{math.Log2(62), "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"},
		{6, "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_="},
		{6, "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ+/="},
	}
	for _, a := range alphabets {
		if !strings.ContainsFunc(key, func(r rune) bool { return !strings.ContainsRune(a.chars, r) }) {
			return float64(len(key)) * a.bits
		}
	}
	if !strings.ContainsFunc(key, func(r rune) bool { return r < ' ' || r > '~' }) {
		return float64(len(key)) * math.Log2(95)
	}
	return float64(len(key)) * 8
}

// NewKey returns a new API key of 256 random bits, in base64url.
func NewKey() string {
	b := make([]byte, 32)
	rand.Read(b) // never fails (crypto/rand)
	return base64.RawURLEncoding.EncodeToString(b)
}

// HashKey returns the SHA-256 of key in lower-case hex: the second field of
// a keys file line.
func HashKey(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// Tenant returns the tenant of key. It compares the key's hash with every
// entry in constant time, so the time taken says nothing about which
// entries exist.
func (k *Keys) Tenant(key string) (string, bool) {
	e, ok := k.entry(key)
	return e.tenant, ok
}

// Caller returns who key authenticates: its tenant, its name and the
// recipients it may name. It compares as Tenant does.
func (k *Keys) Caller(key string) (askonce.Caller, bool) {
	e, ok := k.entry(key)
	if !ok {
		return askonce.Caller{}, false
	}
	return e.caller(), true
}

func (e keyEntry) caller() askonce.Caller {
	c := askonce.Caller{Tenant: e.tenant, Name: e.name}
	if e.recipients != nil {
		c.Allow = e.recipients.allows
	}
	return c
}

// entry returns the entry of key, comparing as Tenant says.
func (k *Keys) entry(key string) (keyEntry, bool) {
	if k == nil || key == "" {
		return keyEntry{}, false
	}
	sum := sha256.Sum256([]byte(key))
	var out keyEntry
	found := 0
	for _, e := range k.entries {
		if subtle.ConstantTimeCompare(sum[:], e.hash[:]) == 1 {
			out, found = e, 1
		}
	}
	return out, found == 1
}

// Len returns the number of keys.
func (k *Keys) Len() int {
	if k == nil {
		return 0
	}
	return len(k.entries)
}
