package askonce

import (
	"time"
)

// IdempotencyRecord is one Idempotency-Key: its claim while the first
// request with it runs, then that request's response. A retry with the
// same key and Fingerprint gets Status and Body again; the same key with
// another fingerprint is refused.
type IdempotencyRecord struct {
	TenantID string
	Key      string
	// Fingerprint identifies the request: method, path and body hash.
	Fingerprint string
	// Owner is the lease of the process whose request holds the claim;
	// empty once the claim is abandoned.
	Owner string
	// JobID is the job the request is about: the path's job, or the id a
	// created job takes (chosen before planning starts). BaseVersion is
	// that job's version when the key was first claimed (0: no such job
	// yet). A takeover compares them with the job as it is now to tell
	// whether the first request changed it.
	JobID       string
	BaseVersion int64
	// Status is 0 while the request is in flight.
	Status    int
	Body      []byte
	CreatedAt time.Time
}
