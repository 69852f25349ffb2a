package askonce

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
)

// Defaults of the Engine's zero-valued settings.
const (
	DefaultMaxAttempts      = 3
	DefaultMaxOutput        = 1 << 20
	DefaultMaxRaw           = 64 << 10
	DefaultQuestionTTL      = 24 * time.Hour
	DefaultInterpretTimeout = 2 * time.Minute
	DefaultPlanningLease    = 30 * time.Second
	MaxGoal                 = 32 << 10
	MaxFiles                = 1000
	MaxCandidates           = 1000
	MaxCandidateBytes       = 256
)

// Engine runs the protocol: it drives Step against a Store and an
// Interpreter. One planning loop serves create, answer, fallback and crash
// recovery; for a fast interpreter (Fast) it runs before the change it
// follows is written, and the change commits with its outcome. A
// person's acts on a job (answer, decline, cancel) all come through Act.
// The zero value of every setting works; Store is required, and
// Interpreter is required for managed jobs.
//
// An Engine is safe for concurrent use: every state change is a
// compare-and-set in the store, so concurrent callers (and processes) on the
// same job cannot both win.
type Engine struct {
	Store       Store
	Interpreter Interpreter

	// MaxAttempts is the number of interpreter calls per interpretation
	// (docs/protocol.md rule 9). Default 3.
	MaxAttempts int
	// MaxOutput is the largest interpreter output parsed; a larger one is
	// an invalid attempt. Default 1 MiB.
	MaxOutput int
	// MaxRaw caps the raw output stored on attempts and on a
	// validation_error job. Default 64 KiB.
	MaxRaw int
	// QuestionTTL is how long a question waits for its answer before the
	// expiry sweep applies its default or expires the job. Default 24h;
	// negative means questions never expire.
	QuestionTTL time.Duration
	// InterpretTimeout bounds one interpreter call. Default 2 minutes.
	InterpretTimeout time.Duration
	// HardCap is the policy for jobs created without one. Default fallback.
	HardCap HardCap
	// MemoryScope is the memory scope of jobs that name none (a project
	// scope only of those that name a project). Default session.
	MemoryScope MemoryScope
	// MemoryTTL is how long a project or tenant answer is remembered
	// when its job gives no TTL. Default 720h.
	MemoryTTL time.Duration
	// MaxMemoryTTL is the longest TTL a job may give. Default one year.
	MaxMemoryTTL time.Duration
	// LinkSecret keys the answer links of pending questions (see
	// AnswerToken). Empty: no answer links. Changing it kills every link
	// handed out before.
	LinkSecret []byte
	// DefaultRecipients are who is asked the question of a job created
	// without recipients of its own (CreateRequest.Notify). Nil: no one.
	DefaultRecipients *Recipients
	// ReachMinInterval is the least time between the ask and a job's
	// first reach step, and between two steps (Recipients.Steps).
	// Default DefaultReachMinInterval (a minute); tests and demos set
	// it lower.
	ReachMinInterval time.Duration
	// NoBuilder says that nothing delivers the plans of successful jobs
	// (askonce serve --builder none): a success then queues no dispatch
	// and records no dispatched event, and its DispatchStatus is none
	// rather than a queued that would never move.
	NoBuilder bool

	// Owner names this engine's process in the planning leases of the
	// jobs it plans (rule 13). It must differ between processes running
	// at once on one store. A process restarted under the Owner of one
	// that died takes that one's jobs back at once (Recover); any other
	// takes them over once their lease lapses. Default: a random id.
	Owner string
	// PlanningLease is how long a planning job's lease lasts; the engine
	// renews the leases of its runs every third of it. A process that
	// dies leaves its jobs to be taken over by another after at most this
	// long. Default 30s.
	PlanningLease time.Duration

	// Now and NewID are the engine's clock and id source; tests set them.
	// NewID must not repeat: a session it names for a job is taken to
	// have no history yet.
	Now   func() time.Time
	NewID func() string
	// Logger receives warnings about background work. Default discards.
	Logger *slog.Logger
	// Observer, when set, is told of every committed transition and every
	// interpreter attempt (metrics implement it). It must be fast and must
	// not block.
	Observer Observer

	bg      sync.WaitGroup // background planning runs (Start), for Drain
	leases  leases         // the planning runs in flight, whose leases it renews
	pending pendingJobs    // the jobs it left pending, to answer without a read
}

// Observer receives the engine's measurements.
type Observer interface {
	// Transition is called after a transition of job was committed,
	// with the job's new state and the transition's effects: its Events
	// say what happened, From the status the job left, HardCap the
	// hard-cap outcome.
	Transition(job *Job, fx *Effects)
	// Attempt is called for every interpreter call or gate report.
	Attempt(job *Job, a Attempt)
}

// Get returns a job, or ENOTFOUND.
func (e *Engine) Get(ctx context.Context, tenant, id string) (*Job, error) {
	return e.Store.GetJob(ctx, tenantOr(tenant), id)
}

// List returns one page of the tenant's jobs, newest first.
func (e *Engine) List(ctx context.Context, tenant string, f JobFilter) (*JobPage, error) {
	if f.Status != "" && !f.Status.Valid() {
		return nil, Errorf(EINVALID, "status %q is not a job status", f.Status)
	}
	return e.Store.ListJobs(ctx, tenantOr(tenant), f)
}

// Events returns the job's audit trail after the given event id.
func (e *Engine) Events(ctx context.Context, tenant, id string, after int64, limit int) ([]Event, error) {
	if limit <= 0 || limit > 1000 {
		limit = 1000
	}
	return e.Store.Events(ctx, EventQuery{TenantID: tenantOr(tenant), JobID: id, After: after, Limit: limit})
}

// Watch returns a channel that receives a value when the job may have
// changed, and the function that ends the watch, if the store is a
// Watcher; else a nil channel, which never receives. Waiters keep polling
// either way (see Watcher).
func (e *Engine) Watch(tenant, id string) (<-chan struct{}, func()) {
	if w, ok := e.Store.(Watcher); ok {
		return w.Watch(tenantOr(tenant), id)
	}
	return nil, func() {}
}

// Attempts returns the job's interpreter attempts in order.
func (e *Engine) Attempts(ctx context.Context, tenant, id string) ([]Attempt, error) {
	return e.Store.Attempts(ctx, tenantOr(tenant), id)
}

// History returns the session's answered questions.
func (e *Engine) History(ctx context.Context, tenant, session string) ([]HistoryEntry, error) {
	return e.Store.History(ctx, tenantOr(tenant), session)
}

// Memory returns the remembered answers of a project (f.Scope project)
// or of the tenant itself (f.Scope tenant) that have not expired, newest
// first. A session's are its History.
func (e *Engine) Memory(ctx context.Context, f MemoryFilter) ([]HistoryEntry, error) {
	f.TenantID = tenantOr(f.TenantID)
	switch {
	case f.Scope == MemoryProject && f.Project == "":
		return nil, Errorf(EINVALID, "project is required with scope project")
	case f.Scope != MemoryProject && f.Scope != MemoryTenant:
		return nil, Errorf(EINVALID, "scope %q is not project or tenant (a session's answers are its history)", f.Scope)
	}
	if err := ValidateProject("project", f.Project); err != nil {
		return nil, err
	}
	if f.Scope == MemoryTenant {
		f.Project = ""
	}
	f.Now = e.now()
	return e.Store.Memory(ctx, f)
}

// Forget deletes one remembered answer of the caller's tenant, so that
// the next job asks the question again; ENOTFOUND when there is none.
func (e *Engine) Forget(ctx context.Context, k MemoryKey) error {
	k, err := memoryKeyOf(k)
	if err != nil {
		return err
	}
	return e.Store.Forget(ctx, k)
}

func capString(s string, n int) string {
	if len(s) <= n {
		return s
	}
	// The cut may split a UTF-8 sequence; drop the broken tail.
	return strings.ToValidUTF8(s[:n], "")
}

func tenantOr(t string) string {
	if t == "" {
		return DefaultTenant
	}
	return t
}

func (e *Engine) now() time.Time {
	if e.Now != nil {
		return e.Now().UTC()
	}
	return time.Now().UTC()
}

func (e *Engine) newID() string {
	if e.NewID != nil {
		return e.NewID()
	}
	return uuid.Must(uuid.NewV7()).String()
}

func (e *Engine) maxAttempts() int { return orDefault(e.MaxAttempts, DefaultMaxAttempts) }
func (e *Engine) maxOutput() int   { return orDefault(e.MaxOutput, DefaultMaxOutput) }
func (e *Engine) maxRaw() int      { return orDefault(e.MaxRaw, DefaultMaxRaw) }
func (e *Engine) questionTTL() time.Duration {
	return orDefault(e.QuestionTTL, DefaultQuestionTTL)
}
func (e *Engine) memoryScope() MemoryScope {
	if e.MemoryScope == "" {
		return MemorySession
	}
	return e.MemoryScope
}
func (e *Engine) memoryTTL() time.Duration {
	return min(orDefault(e.MemoryTTL, DefaultMemoryTTL), e.maxMemoryTTL())
}
func (e *Engine) maxMemoryTTL() time.Duration {
	return orDefault(e.MaxMemoryTTL, DefaultMaxMemoryTTL)
}
func (e *Engine) interpretTimeout() time.Duration {
	return orDefault(e.InterpretTimeout, DefaultInterpretTimeout)
}
func (e *Engine) planningLease() time.Duration {
	return orDefault(e.PlanningLease, DefaultPlanningLease)
}

func (e *Engine) logger() *slog.Logger {
	if e.Logger != nil {
		return e.Logger
	}
	return slog.New(slog.DiscardHandler)
}

func orDefault[T int | time.Duration](v, d T) T {
	if v == 0 {
		return d
	}
	return v
}
