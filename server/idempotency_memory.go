package server

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/askonce/askonce"
)

// MemoryIdempotency is an askonce.IdempotencyStore in the process's
// memory. It is what a Server without Config.Idempotency uses: a retry
// is safe while the process lives, but its keys die with it, so a retry
// after a restart runs the request again. Its records are never
// forgotten.
type MemoryIdempotency struct {
	mu     sync.Mutex
	recs   map[[2]string]*askonce.IdempotencyRecord // by tenant, key
	leases map[string]time.Time                     // owner -> lapses at
	// Now is the store's clock; nil means time.Now.
	Now func() time.Time
}

// NewMemoryIdempotency returns an empty MemoryIdempotency.
func NewMemoryIdempotency() *MemoryIdempotency {
	return &MemoryIdempotency{recs: map[[2]string]*askonce.IdempotencyRecord{}, leases: map[string]time.Time{}}
}

func (m *MemoryIdempotency) now() time.Time {
	if m.Now != nil {
		return m.Now()
	}
	return time.Now()
}

// RenewIdempotencyLease implements askonce.IdempotencyStore.
func (m *MemoryIdempotency) RenewIdempotencyLease(_ context.Context, owner string, ttl time.Duration) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.leases[owner] = m.now().Add(ttl)
	return nil
}

// EndIdempotencyLease implements askonce.IdempotencyStore.
func (m *MemoryIdempotency) EndIdempotencyLease(_ context.Context, owner string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.leases, owner)
	return nil
}

// ClaimIdempotencyKey implements askonce.IdempotencyStore.
func (m *MemoryIdempotency) ClaimIdempotencyKey(_ context.Context, rec *askonce.IdempotencyRecord) (*askonce.IdempotencyRecord, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	id := [2]string{rec.TenantID, rec.Key}
	got, ok := m.recs[id]
	if !ok {
		stored := *rec
		stored.Status, stored.Body, stored.CreatedAt = 0, nil, m.now()
		m.recs[id] = &stored
		rec.Status, rec.Body, rec.CreatedAt = 0, nil, stored.CreatedAt
		return nil, false, nil
	}
	if got.Status == 0 && got.Fingerprint == rec.Fingerprint && !m.now().Before(m.leases[got.Owner]) {
		got.Owner = rec.Owner
		return clone(got), true, nil
	}
	return clone(got), false, nil
}

// CompleteIdempotencyKey implements askonce.IdempotencyStore.
func (m *MemoryIdempotency) CompleteIdempotencyKey(_ context.Context, rec *askonce.IdempotencyRecord) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	got, ok := m.recs[[2]string{rec.TenantID, rec.Key}]
	if !ok || got.Status != 0 || got.Owner != rec.Owner {
		return askonce.Errorf(askonce.ECONFLICT, "idempotency key %q is not held by %s", rec.Key, rec.Owner)
	}
	got.Status, got.Body = rec.Status, slices.Clone(rec.Body)
	return nil
}

// AbandonIdempotencyKey implements askonce.IdempotencyStore.
func (m *MemoryIdempotency) AbandonIdempotencyKey(_ context.Context, rec *askonce.IdempotencyRecord) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if got, ok := m.recs[[2]string{rec.TenantID, rec.Key}]; ok && got.Status == 0 && got.Owner == rec.Owner {
		got.Owner = ""
	}
	return nil
}

func clone(r *askonce.IdempotencyRecord) *askonce.IdempotencyRecord {
	c := *r
	c.Body = slices.Clone(r.Body)
	return &c
}

var _ askonce.IdempotencyStore = (*MemoryIdempotency)(nil)
