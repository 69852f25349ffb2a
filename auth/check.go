package auth

import (
	"net/http"
	"strings"
	"time"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/api"
	"github.com/askonce/askonce/internal/ratelimit"
)

// The messages of a refused key, the same on every channel.
const (
	MsgKeyRequired = "an API key is required: send 'Authorization: Bearer <key>' or 'X-API-Key: <key>'"
	MsgBadHeader   = "the Authorization header must be 'Bearer <API key>'"
	MsgKeyInvalid  = "the API key is not valid"
)

// Refusal is why a request's API key was refused: 401 unauthorized (no
// key, a malformed Authorization header, a key that is not valid) or 429
// too_many_requests (the client's address is over its limit of wrong
// keys; RetryAfter says for how long). Check has set the response's
// headers already; each channel writes the body in its own protocol's
// form (the API's error JSON, a JSON-RPC error, a sign-in page).
type Refusal struct {
	// Status is http.StatusUnauthorized or http.StatusTooManyRequests.
	Status int
	// Code is api.CodeUnauthorized or api.CodeTooManyRequests.
	Code string
	// Message says why, for a person.
	Message string
	// RetryAfter is how long a 429's address must wait.
	RetryAfter time.Duration
}

func (r *Refusal) Error() string { return r.Message }

// Guard checks the API keys that requests present, for every channel that
// takes them (the HTTP API, MCP, A2A and the inbox's sign-in). Wrong keys
// count against the client's address (Proxies.Addr): over Fails' limit,
// they are refused 429 instead of 401, while a valid key is served from
// any address. A missing key is not counted.
type Guard struct {
	// Lookup maps a key to who it authenticates (Keys.Caller).
	Lookup func(key string) (askonce.Caller, bool)
	// Fails counts wrong keys per address. Required.
	Fails *ratelimit.Limiter
	// Proxies are the proxies whose forwarding headers name the client.
	Proxies ratelimit.Proxies
}

// Check returns who the API key of r authenticates: "Authorization:
// Bearer <key>", else "X-API-Key: <key>". On a refusal it sets
// WWW-Authenticate (401) or Retry-After (429) on w.
func (g *Guard) Check(w http.ResponseWriter, r *http.Request) (askonce.Caller, *Refusal) {
	key, msg := PresentedKey(r)
	var c askonce.Caller
	var refused *Refusal
	if key == "" {
		refused = &Refusal{Status: http.StatusUnauthorized, Code: api.CodeUnauthorized, Message: msg}
	} else {
		c, refused = g.CheckKey(w, r, key)
	}
	if refused != nil && refused.Status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="askonce"`)
	}
	return c, refused
}

// CheckKey is Check of a key presented some other way (a sign-in form's
// field): on a refusal it sets only Retry-After (429).
func (g *Guard) CheckKey(w http.ResponseWriter, r *http.Request, key string) (askonce.Caller, *Refusal) {
	var c askonce.Caller
	ok, wait := g.Fails.Authenticate(g.Proxies.Addr(r), key, func(key string) (found bool) {
		c, found = g.Lookup(key)
		return found
	})
	switch {
	case wait > 0:
		return askonce.Caller{}, g.refuse(w, &Refusal{Status: http.StatusTooManyRequests, Code: api.CodeTooManyRequests,
			Message: "too many wrong API keys from your address; retry in " + ratelimit.Seconds(wait) + " seconds", RetryAfter: wait})
	case !ok:
		return askonce.Caller{}, g.refuse(w, &Refusal{Status: http.StatusUnauthorized, Code: api.CodeUnauthorized, Message: MsgKeyInvalid})
	}
	return c, nil
}

func (g *Guard) refuse(w http.ResponseWriter, r *Refusal) *Refusal {
	if r.Status == http.StatusTooManyRequests {
		w.Header().Set("Retry-After", ratelimit.Seconds(r.RetryAfter))
	}
	return r
}

// PresentedKey is the key of "Authorization: Bearer <key>", or, when r
// has no Authorization header, of "X-API-Key: <key>". With no key it
// says why: none was sent (MsgKeyRequired), or the Authorization header
// is not a bearer token (MsgBadHeader).
func PresentedKey(r *http.Request) (key, why string) {
	if h := r.Header.Get("Authorization"); h != "" {
		scheme, key, ok := strings.Cut(h, " ")
		if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(key) == "" {
			return "", MsgBadHeader
		}
		return strings.TrimSpace(key), ""
	}
	if key := strings.TrimSpace(r.Header.Get("X-API-Key")); key != "" {
		return key, ""
	}
	return "", MsgKeyRequired
}
