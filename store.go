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

	// Events returns the job's events that q selects, in order of ID.
	// ENOTFOUND if the tenant has no such job.
	Events(ctx context.Context, q EventQuery) ([]Event, error)

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

// The optional parts of a store. A Store may implement each of the
// interfaces below; the Engine (and the server) find them by a type
// assertion on the Store and go without the feature when it is missing:
// EINVALID for an API call that needs it, a poll instead of a wake-up for
// Watcher. The sqlite and postgres stores implement all five, and
// storetest runs their conformance cases on each.
//
//   - Watcher: wake-ups when a job's change commits (Engine.Watch).
//   - EventAppender: an event without a change of the job (the channels'
//     record of their sends).
//   - MessageStore: the channels' messages (Slack's post of a question).
//   - PushConfigStore: the A2A push-notification configs.
//   - IdempotencyStore: the HTTP API's Idempotency-Key records.
//
// FullStore is a Store with every optional part.
type FullStore interface {
	Store
	Watcher
	EventAppender
	MessageStore
	PushConfigStore
	IdempotencyStore
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

// MessageStore is implemented by stores that keep Messages (sqlite and
// postgres do). Channels reach it through the Engine.
type MessageStore interface {
	// PutMessage records m unless the job has a message on m.Channel
	// already, and returns the one stored: m, or the earlier one. Of
	// two racing callers one wins; both get the winner's.
	PutMessage(ctx context.Context, m Message) (Message, error)
	// Message returns the job's message on channel, or ENOTFOUND.
	Message(ctx context.Context, tenant, jobID, channel string) (Message, error)
}

// EventAppender is implemented by stores that append an event to a job
// without changing the job (sqlite and postgres do): the channels' record
// of what they sent.
type EventAppender interface {
	AppendEvent(ctx context.Context, ev Event) error
}

// PushConfigStore keeps PushConfigs (sqlite and postgres do; every
// implementation passes storetest's PushConfigs cases). It does not check
// that the job exists: a config may be stored just before the job it
// names is, so that the job's first change finds it. Every method is
// scoped by tenant, as Store is.
type PushConfigStore interface {
	// PutPushConfig stores c, replacing the job's config of the same
	// ID.
	PutPushConfig(ctx context.Context, c PushConfig) error
	// PushConfig returns the config k names, or ENOTFOUND.
	PushConfig(ctx context.Context, k PushConfigKey) (PushConfig, error)
	// PushConfigs returns the job's configs, oldest first (then by ID).
	PushConfigs(ctx context.Context, tenant, jobID string) ([]PushConfig, error)
	// DeletePushConfig removes the config k names; ENOTFOUND when there
	// is none.
	DeletePushConfig(ctx context.Context, k PushConfigKey) error
}

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

// EventQuery selects a page of one job's events for Store.Events; its
// zero After and Limit select them all.
type EventQuery struct {
	TenantID string
	JobID    string
	// After is the ID of the last event already seen: only those with a
	// greater ID are returned.
	After int64
	// Limit bounds the result; <= 0 means no bound.
	Limit int
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
