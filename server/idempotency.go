package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"time"

	"github.com/askonce/askonce"
)

// MaxIdempotencyKey is the longest Idempotency-Key accepted.
const MaxIdempotencyKey = 255

// abandonedClaim is how long a claimed key may stay in flight before it is
// taken to belong to a request whose process died: longer than any
// request (three interpretations of three interpreter calls at the default
// timeout take 18 minutes).
const abandonedClaim = time.Hour

// idempotent runs h at most once per (tenant, Idempotency-Key): see the
// package documentation.
func (s *Server) idempotent(w http.ResponseWriter, c *call, key string, h apiFunc) {
	if len(key) > MaxIdempotencyKey || !visibleASCII(key) {
		s.writeError(w, c.r, badRequest("Idempotency-Key must be 1-%d visible ASCII characters", MaxIdempotencyKey))
		return
	}
	sum := sha256.Sum256(c.body)
	fp := c.r.Method + " " + c.r.URL.Path + " " + hex.EncodeToString(sum[:])
	store := s.engine.Store
	ctx := context.WithoutCancel(c.r.Context())

	var prev *askonce.IdempotencyRecord
	var err error
	for try := 0; try < 2; try++ {
		prev, err = store.ClaimIdempotencyKey(ctx, &askonce.IdempotencyRecord{TenantID: c.tenant, Key: key, Fingerprint: fp})
		if err != nil || prev == nil || prev.Status != 0 || time.Since(prev.CreatedAt) < abandonedClaim {
			break
		}
		// The request that claimed it died without an answer: forget the
		// claim and claim again.
		if err = store.ReleaseIdempotencyKey(ctx, c.tenant, key); err != nil {
			break
		}
	}
	switch {
	case err != nil:
		s.writeError(w, c.r, err)
		return
	case prev != nil && prev.Fingerprint != fp:
		s.writeError(w, c.r, reqErrorf(http.StatusUnprocessableEntity, CodeIdempotencyMismatch,
			"Idempotency-Key %q was already used for another request (a different method, path or body); use a new key for a new request", key))
		return
	case prev != nil && prev.Status == 0:
		s.writeError(w, c.r, reqErrorf(http.StatusConflict, askonce.ECONFLICT, "a request with this Idempotency-Key is in progress; retry when it has finished"))
		return
	case prev != nil:
		w.Header().Set("Idempotent-Replayed", "true")
		writeJSON(w, prev.Status, prev.Body)
		return
	}

	status, body := s.respond(c, h)
	if status >= 500 {
		// Not worth repeating: let a retry run again.
		err = store.ReleaseIdempotencyKey(ctx, c.tenant, key)
	} else {
		err = store.CompleteIdempotencyKey(ctx, c.tenant, key, status, body)
	}
	if err != nil {
		s.log.Error("record idempotency key", "route", c.info.route, "job", c.info.jobID, "err", err)
	}
	writeJSON(w, status, body)
}

func visibleASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x21 || s[i] > 0x7e {
			return false
		}
	}
	return s != ""
}
