package askonce

import (
	"context"
	"time"
)

// IdempotencyStore keeps the API's Idempotency-Key records and the leases
// of the processes that claim them. It is apart from Store: a record holds
// an HTTP response's status and body, and package server makes the keys
// and replays the responses. The sqlite and postgres stores implement it;
// every implementation passes storetest.RunIdempotency.
//
// A claim belongs to an owner: one server process, alive while its lease
// is. An in-flight claim whose owner's lease has lapsed (or that was
// abandoned) belongs to no one, and the next claim of the key with the
// same fingerprint takes it over. The store's clock alone decides whether
// a lease has lapsed, so that owners on several machines agree.
//
// Every method is scoped by tenant, as Store is.
type IdempotencyStore interface {
	// RenewIdempotencyLease records that owner is alive for ttl from now
	// (creating its lease).
	RenewIdempotencyLease(ctx context.Context, owner string, ttl time.Duration) error

	// EndIdempotencyLease ends owner's lease at once: its in-flight
	// claims can be taken over.
	EndIdempotencyLease(ctx context.Context, owner string) error

	// ClaimIdempotencyKey claims (rec.TenantID, rec.Key) for rec.Owner:
	//   - no record: it stores rec in flight (Status 0) and returns nil,
	//     false;
	//   - an in-flight record with rec.Fingerprint whose owner's lease has
	//     lapsed, or that was abandoned: it makes rec.Owner its owner,
	//     keeping the record's JobID and BaseVersion, and returns the
	//     record as it now is, true. Of two claims racing for it only one
	//     takes it over;
	//   - otherwise (a live owner's claim, a completed record, another
	//     fingerprint): it writes nothing and returns the stored record,
	//     false.
	ClaimIdempotencyKey(ctx context.Context, rec *IdempotencyRecord) (stored *IdempotencyRecord, tookOver bool, err error)

	// CompleteIdempotencyKey stores rec.Status and rec.Body as the
	// key's response, if rec.Owner still holds the key in flight; else
	// it writes nothing and returns ECONFLICT.
	CompleteIdempotencyKey(ctx context.Context, rec *IdempotencyRecord) error

	// AbandonIdempotencyKey gives up rec.Owner's in-flight claim without
	// a response (its request failed with a 5xx), keeping its JobID and
	// BaseVersion, so that the next claim takes it over at once. A key
	// that is completed or another owner's is left as it is.
	AbandonIdempotencyKey(ctx context.Context, rec *IdempotencyRecord) error
}

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
