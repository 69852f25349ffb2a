package server

import (
	"bufio"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
)

// Keys maps API keys to tenants. Only the SHA-256 of each key is held, so a
// leaked keys file does not leak keys. Build it with LoadKeys.
type Keys struct {
	entries []keyEntry
}

type keyEntry struct {
	tenant string
	hash   [sha256.Size]byte
	// recipients, when not nil, are the only job recipients the key may
	// name (see Recipients.allows).
	recipients *Recipients
}

var tenantName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

// LoadKeys reads an API keys file: one key per line,
//
//	<tenant> <sha256-hex of the key> [notify=<pattern>,<pattern>...]
//
// separated by spaces or tabs. The optional third field restricts the
// recipients the key's jobs may name (see Recipients): without it a key
// may name any. Blank lines and lines starting with # are
// ignored. A tenant is 1-128 characters of letters, digits, '.', '_' and
// '-'; several keys may map to one tenant, but one key (hash) only to one.
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
		if len(f) != 2 && len(f) != 3 {
			return nil, fmt.Errorf("line %d: want '<tenant> <sha256-hex> [notify=...]', got %d fields", n, len(f))
		}
		tenant, hexHash := f[0], strings.ToLower(f[1])
		if !tenantName.MatchString(tenant) {
			return nil, fmt.Errorf("line %d: tenant %q: use 1-128 letters, digits, '.', '_' or '-'", n, tenant)
		}
		b, err := hex.DecodeString(hexHash)
		if err != nil || len(b) != sha256.Size {
			return nil, fmt.Errorf("line %d: %q is not a SHA-256 in hex (64 characters); hash the key with HashKey", n, f[1])
		}
		var e keyEntry
		e.tenant = tenant
		copy(e.hash[:], b)
		if len(f) == 3 {
			if e.recipients, err = parseRecipients(f[2]); err != nil {
				return nil, fmt.Errorf("line %d: %w", n, err)
			}
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
	if len(k.entries) == 0 {
		return nil, fmt.Errorf("no keys: every request would be refused")
	}
	return k, nil
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

// presentedKey extracts the key from "Authorization: Bearer <key>" or, when
// there is no Authorization header, from "X-API-Key: <key>".
func presentedKey(r *http.Request) (string, error) {
	if h := r.Header.Get("Authorization"); h != "" {
		scheme, key, ok := strings.Cut(h, " ")
		if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(key) == "" {
			return "", reqErrorf(http.StatusUnauthorized, CodeUnauthorized, "the Authorization header must be 'Bearer <API key>'")
		}
		return strings.TrimSpace(key), nil
	}
	if key := strings.TrimSpace(r.Header.Get("X-API-Key")); key != "" {
		return key, nil
	}
	return "", reqErrorf(http.StatusUnauthorized, CodeUnauthorized, "an API key is required: send 'Authorization: Bearer <key>' or 'X-API-Key: <key>'")
}
