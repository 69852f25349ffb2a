package askonce

import (
	"context"
	"encoding/json"
	"time"
)

// Store persists jobs, their attempts, events and the sessions' answer
// history. Packages sqlite and postgres implement it; every
// implementation must pass the conformance suite in storetest. (The HTTP
// API's Idempotency-Key records are kept apart: see IdempotencyStore.)
//
// Every method is scoped by tenant: no query returns or changes another
// tenant's rows, and a job of another tenant is ENOTFOUND.
type Store interface {
	// CreateJob inserts c.Job as a new job, stored as Version 1, and in
	// the same transaction writes everything UpdateJob writes with a
	// change: appends c.Attempts (the job's usage sums and AttemptCount
	// are theirs, not taken from c.Job), c.Events, upserts c.History,
	// when c.Dispatch is set queues the job's dispatch, records
	// c.AnswerLink and hands c.Notify to the store's notification queue.
	// So a job and an outcome computed before it was stored (a fast
	// in-process interpreter's) commit together or not at all.
	// c.Job.Version is ignored. CreatedAt and UpdatedAt are
	// c.Job.CreatedAt, or the store's time when it is zero. On success
	// c.Job.Version (1), CreatedAt, UpdatedAt, Usage, AttemptCount and
	// Dispatch hold the stored values, and c.Events and c.History what was
	// stored, as with UpdateJob. The job's ID must be new in every tenant:
	// otherwise ECONFLICT, and nothing is written.
	CreateJob(ctx context.Context, c *Change) error

	// GetJob returns the job, or ENOTFOUND.
	GetJob(ctx context.Context, tenant, id string) (*Job, error)

	// ListJobs returns one page of the tenant's jobs, newest first.
	ListJobs(ctx context.Context, tenant string, f JobFilter) (*JobPage, error)

	// UpdateJob writes c.Job if and only if the stored version still equals
	// c.Job.Version (compare-and-set), and in the same transaction appends
	// c.Attempts (adding their usage to the job's), c.Events, upserts
	// c.History, when c.Dispatch is set queues the job's dispatch (unique
	// per job), records c.AnswerLink, and hands c.Notify to the store's
	// notification queue, if it has one. On success c.Job.Version, UpdatedAt, Usage and
	// AttemptCount hold the stored values. When the version moved it
	// returns ECONFLICT carrying the current job; when the job is gone,
	// ENOTFOUND.
	UpdateJob(ctx context.Context, c *Change) error

	// AddAttempt appends an attempt that does not change the job's state
	// (a retried one) with its event, adding its usage to the job's. It
	// changes neither the job's Version nor its UpdatedAt. The engine sets
	// the attempt's N; the store does not number attempts.
	AddAttempt(ctx context.Context, tenant, jobID string, a Attempt, ev Event) error

	// Attempts returns the job's attempts in order.
	Attempts(ctx context.Context, tenant, jobID string) ([]Attempt, error)

	// Events returns up to limit events of the job with ID > after, in
	// order (all of them when limit <= 0). ENOTFOUND if the job does not
	// exist.
	Events(ctx context.Context, tenant, jobID string, after int64, limit int) ([]Event, error)

	// LookupHistory returns the remembered answer to q.QuestionHash
	// nearest to the job: the session's, else (with q.Project) the
	// project's, else (with q.Tenant) the tenant's, skipping project and
	// tenant entries expired at q.Now; ENOTFOUND when there is none. It
	// is one indexed read. The entry's Scope (and Project) say where it
	// was found.
	LookupHistory(ctx context.Context, q HistoryQuery) (*HistoryEntry, error)

	// Memory returns the remembered answers of f's project or tenant that
	// have not expired at f.Now, newest first.
	Memory(ctx context.Context, f MemoryFilter) ([]HistoryEntry, error)

	// Forget deletes the remembered answer k names; ENOTFOUND when there
	// is none (or it is another tenant's).
	Forget(ctx context.Context, k MemoryKey) error

	// History returns the session's answered questions, oldest first.
	History(ctx context.Context, tenant, session string) ([]HistoryEntry, error)

	// DueQuestions returns pending jobs, of every tenant, whose question
	// expired at or before now. It is for the expiry sweeper only.
	DueQuestions(ctx context.Context, now time.Time, limit int) ([]JobRef, error)

	// LapsedLeases returns managed jobs, of every tenant, in planning
	// whose planning lease (Job.Lease) lapsed at or before q.Now: their
	// process died, or stopped renewing. When q.Owner is set it also
	// returns the jobs whose lease q.Owner holds, for a process that has
	// just started under the Owner of one that died (Engine.Recover).
	// Earliest lease first. It is for crash recovery only: claiming a job
	// is a compare-and-set (UpdateJob) with a new lease.
	LapsedLeases(ctx context.Context, q LeaseQuery) ([]JobRef, error)

	// RenewLeases moves the planning lease of each of r.Jobs to r.Until,
	// if the job is still in planning under a lease of r.Owner; any other
	// job is left alone. It changes neither Version nor UpdatedAt, so that
	// renewing never conflicts with the run's own compare-and-set. It
	// returns how many leases it moved.
	RenewLeases(ctx context.Context, r LeaseRenewal) (int, error)

	// Lead takes, or keeps, the leadership l.Name for l.Owner until
	// l.Until, if no one holds it, its holder's term ended at or before
	// l.Now, or l.Owner holds it already; it reports whether l.Owner
	// leads now. Of processes racing for it, one wins. The processes
	// sharing a store run the work that must happen once (the expiry
	// sweep, taking over lapsed leases) only while they lead.
	Lead(ctx context.Context, l Leadership) (bool, error)

	// JobByAnswerLink returns the job whose answer link has the given
	// hash (Change.AnswerLink), of whatever tenant and in whatever status,
	// with one indexed lookup; ENOTFOUND when no link has that hash. It is
	// for Engine.JobByAnswerToken only, which checks the token itself.
	JobByAnswerLink(ctx context.Context, hash []byte) (*Job, error)

	// Close releases the store's resources.
	Close() error
}

// Watcher is implemented by stores that can wake the goroutines waiting
// on a job when a change to it commits: PostgreSQL for the commits of
// every process sharing the database (LISTEN/NOTIFY), SQLite for those of
// its own process. It only shortens waits: a waiter still polls, because a
// wake-up can be lost (a dropped connection, another process's SQLite
// commit).
type Watcher interface {
	// Watch returns a channel that receives a value after changes to
	// the job (its state, events or attempts) commit, and the function
	// that ends the watch. Wake-ups that come while one is pending merge
	// into it, and one may come with no change; a waiter re-reads the
	// job after each.
	Watch(tenant, jobID string) (<-chan struct{}, func())
}

// Change is one compare-and-set write of a job and what goes with it.
type Change struct {
	// Job is the new state. Job.Version is the version it was computed
	// from; the write fails with ECONFLICT if the stored one differs.
	Job      *Job
	Attempts []Attempt
	Events   []Event
	History  *HistoryEntry
	// FieldHistory are the answers to the fields of a question with
	// fields, each remembered on its own under its field's text (so a
	// later question that needs one of them asks only what is new),
	// complete with their tenant, session, job, time and scope: the
	// store upserts each as it does History.
	FieldHistory []HistoryEntry
	// Recalled, when set, is the project or tenant entry that answered
	// the job's question: the store counts the use.
	Recalled *MemoryRef
	Dispatch bool
	// AnswerLink, when set, is the SHA-256 of the answer token of the
	// question this change asks (see Engine.AnswerToken): the store keeps
	// it, with the job's tenant and id, for JobByAnswerLink. Only the
	// hash is stored, never the token.
	AnswerLink []byte
	// Notify, when set, is the question notification this change
	// triggers; a store with a notification queue queues it in the same
	// transaction (see sqlite.Options.OnNotify).
	Notify QuestionEvent
}

// StoredHistory returns c.History as a store keeps it: with the job's
// tenant, and its session, job and time (at) when unset; nil without.
// A store rounds At to the precision it keeps.
func (c *Change) StoredHistory(at time.Time) *HistoryEntry {
	if c.History == nil {
		return nil
	}
	h := *c.History
	h.TenantID = c.Job.TenantID
	if h.SessionID == "" {
		h.SessionID = c.Job.SessionID
	}
	if h.JobID == "" {
		h.JobID = c.Job.ID
	}
	if h.At.IsZero() {
		h.At = at
	}
	if h.Scope == "" {
		h.Scope = MemorySession
	}
	return &h
}

// QuestionEvent names a change to a job's human question that is worth
// telling someone about (question notifications).
type QuestionEvent string

const (
	// QuestionAsked: the job went pending with a question for a human.
	QuestionAsked QuestionEvent = "question.asked"
	// QuestionResolved: the job stopped pending (answered, declined,
	// cancelled, expired, or its gate agent reported past it).
	QuestionResolved QuestionEvent = "question.resolved"
	// QuestionReminded: a step of the job's reach policy reminded the
	// people asked, or escalated to new ones (Recipients.Steps).
	QuestionReminded QuestionEvent = "question.reminded"
)

// Lease is the planning lease of a managed job in planning: which process
// plans it, and until when that process is trusted to be alive
// (docs/protocol.md rule 13). The engine sets it with every write that
// leaves a managed job in planning and renews it while its run goes on;
// another process takes over a job whose lease lapsed. Owner is empty and
// Until zero when the job is not planning under a lease.
type Lease struct {
	Owner string
	Until time.Time
}

// LeaseQuery selects jobs for Store.LapsedLeases.
type LeaseQuery struct {
	// Now is the instant a lease must have lapsed by.
	Now time.Time
	// Owner, when set, also selects the jobs whose lease it holds.
	Owner string
	// Limit bounds the result; <= 0 means no bound.
	Limit int
}

// LeaseRenewal is one Store.RenewLeases call: the leases Owner holds on
// Jobs move to Until.
type LeaseRenewal struct {
	Owner string
	Until time.Time
	Jobs  []JobRef
}

// Leadership is one Store.Lead call: Owner asks to lead Name until Until.
type Leadership struct {
	Name  string
	Owner string
	Now   time.Time
	Until time.Time
}

// JobRef names a job across tenants, for background sweeps.
type JobRef struct {
	TenantID string
	ID       string
}

// JobFilter selects jobs for ListJobs. Zero values match everything.
type JobFilter struct {
	Status    Status
	SessionID string
	// Cursor is the NextCursor of the previous page.
	Cursor string
	// Limit defaults to 50 and is at most 500.
	Limit int
}

// JobPage is one page of ListJobs.
type JobPage struct {
	Jobs []*Job `json:"jobs"`
	// NextCursor is empty on the last page.
	NextCursor string `json:"nextCursor,omitempty"`
}

// PageLimit returns f.Limit clamped to [1, 500], 50 when unset.
func (f JobFilter) PageLimit() int {
	switch {
	case f.Limit <= 0:
		return 50
	case f.Limit > 500:
		return 500
	}
	return f.Limit
}

// HistoryEntry is one remembered answer (the repeat guard's memory,
// docs/protocol.md rule 5). Every answer a person gives is kept in its
// session, keyed by (tenant, session, question hash); a job of a wider
// memory scope keeps it also in its project, keyed by (tenant, project,
// question hash), or its tenant, keyed by (tenant, question hash), until
// ExpiresAt. Written, Scope says how wide it is kept; read, where it was
// found.
type HistoryEntry struct {
	TenantID     string       `json:"tenantId"`
	SessionID    string       `json:"sessionId"`
	Scope        MemoryScope  `json:"scope,omitempty"`
	Project      string       `json:"project,omitempty"`
	QuestionHash string       `json:"questionHash"`
	Type         QuestionType `json:"type"`
	Question     string       `json:"question"`
	Answer       string       `json:"answer"`
	JobID        string       `json:"jobId"`
	At           time.Time    `json:"at"`
	// ExpiresAt is when a project or tenant entry is forgotten; session
	// entries do not expire.
	ExpiresAt *time.Time `json:"expiresAt,omitempty"`
	// Uses counts the questions a project or tenant entry answered.
	Uses int64 `json:"uses"`
}

// Ref returns the reference a job answered from h keeps.
func (h *HistoryEntry) Ref() *MemoryRef {
	r := &MemoryRef{Scope: h.Scope, Project: h.Project, QuestionHash: h.QuestionHash, JobID: h.JobID, At: h.At}
	if r.Scope == "" {
		r.Scope = MemorySession
	}
	return r
}

// EventType names one kind of state change (docs/protocol.md rule 12).
type EventType string

const (
	EventCreated          EventType = "created"
	EventAttempt          EventType = "attempt"
	EventAsked            EventType = "asked"
	EventAutoResolved     EventType = "auto_resolved"
	EventGated            EventType = "gated"
	EventAnswered         EventType = "answered"
	EventFallbackApplied  EventType = "fallback_applied"
	EventPlanned          EventType = "planned"
	EventValidationFailed EventType = "validation_failed"
	EventFailed           EventType = "failed"
	EventCancelled        EventType = "cancelled"
	EventExpired          EventType = "expired"
	EventResumed          EventType = "resumed"
	EventRecovered        EventType = "recovered"
	EventDispatched       EventType = "dispatched"
	EventDelivered        EventType = "delivered"
	EventDeliveryFailed   EventType = "delivery_failed"
	// EventNotified and EventNotifyFailed record the sends of the Slack
	// and email channels (Engine.Notified).
	EventNotified     EventType = "notified"
	EventNotifyFailed EventType = "notify_failed"
	// EventNotifySkipped records a send that was not made, and will not
	// be, with the reason (Notification.Skipped): an A2A push of an
	// input-required task answered before it went out.
	EventNotifySkipped EventType = "notify_skipped"
)

// Event is an append-only audit record of one change to a job. The store
// assigns ID when it appends the event: IDs increase within the job, in
// the order its events were appended (a stream resumes after the last ID
// it saw); they say nothing about the order of events of different jobs.
type Event struct {
	ID       int64           `json:"id"`
	TenantID string          `json:"tenantId"`
	JobID    string          `json:"jobId"`
	Type     EventType       `json:"type"`
	At       time.Time       `json:"at"`
	Data     json.RawMessage `json:"data,omitempty"`
}
