package askonce

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"
)

// MemoryScope is how far a job's remembered answers reach (docs/protocol.md
// rule 5): the repeat guard looks a question up in the job's session, then,
// for a wider scope, in its project, then in its tenant, and a person's
// answer is remembered at the job's scope.
type MemoryScope string

const (
	// MemorySession: the job's session only (the default, seed 002).
	MemorySession MemoryScope = "session"
	// MemoryProject: every session and agent of the tenant that names the
	// same project.
	MemoryProject MemoryScope = "project"
	// MemoryTenant: every job of the tenant.
	MemoryTenant MemoryScope = "tenant"
)

// MemoryScopes lists every scope, narrowest first: the order of the
// lookup. It is the one list behind Valid, the API's enum and its error
// messages; do not modify it.
var MemoryScopes = []MemoryScope{MemorySession, MemoryProject, MemoryTenant}

// Valid reports whether s is one of the defined scopes.
func (s MemoryScope) Valid() bool { return slices.Contains(MemoryScopes, s) }

// Reaches reports whether a job of scope s looks up, and remembers at,
// scope t: a project job reads its session and its project, a tenant job
// all three.
func (s MemoryScope) Reaches(t MemoryScope) bool {
	return slices.Index(MemoryScopes, t) <= slices.Index(MemoryScopes, s)
}

// Memory limits and defaults.
const (
	// MaxProjectBytes bounds a project name.
	MaxProjectBytes = 128
	// DefaultMemoryTTL is how long a project or tenant answer is
	// remembered when neither the job nor the engine says.
	DefaultMemoryTTL = 720 * time.Hour
	// DefaultMaxMemoryTTL is the longest TTL a job may ask for when the
	// engine does not say.
	DefaultMaxMemoryTTL = 365 * 24 * time.Hour
)

// Memory is a job's answer memory: where the repeat guard looks before a
// question reaches a person, and where that person's answer is kept. The
// caller sets it when creating the job; it never changes after.
type Memory struct {
	// Scope is session (the default), project or tenant.
	Scope MemoryScope `json:"scope,omitempty"`
	// Project names the project whose memory a project job shares (and a
	// tenant job reads after its session): any name up to
	// MaxProjectBytes without control characters, such as a repository.
	Project string `json:"project,omitempty"`
	// TTL is how long an answer given to this job is remembered in its
	// project or tenant, as a Go duration ("720h"). Empty: the engine's
	// MemoryTTL. At most the engine's MaxMemoryTTL.
	TTL string `json:"ttl,omitempty"`
	// Fresh asks that this job's question not be answered from memory
	// (session history included); its answer is still remembered.
	Fresh bool `json:"fresh,omitempty"`
}

// IsZero reports whether m asks for nothing but the default.
func (m Memory) IsZero() bool { return m == Memory{} }

// Duration returns m's TTL (zero when unset or unparsable: the job's
// memory was validated when it was created).
func (m Memory) Duration() time.Duration {
	d, _ := time.ParseDuration(m.TTL)
	return d
}

// ValidateProject returns the error for a project name that is too long,
// not UTF-8 or holds control characters; field names it in the message.
func ValidateProject(field, p string) error {
	switch {
	case len(p) > MaxProjectBytes:
		return Errorf(EINVALID, "%s is %d bytes; the limit is %d", field, len(p), MaxProjectBytes)
	case !validText(p):
		return Errorf(EINVALID, "%s holds control characters or is not valid UTF-8", field)
	}
	return nil
}

func validText(s string) bool {
	for _, r := range s {
		if r == unicode.ReplacementChar || unicode.IsControl(r) {
			return false
		}
	}
	return true
}

// ParseMemoryScope returns the scope named s, EINVALID naming field when
// there is none.
func ParseMemoryScope(field, s string) (MemoryScope, error) {
	sc := MemoryScope(s)
	if !sc.Valid() {
		return "", Errorf(EINVALID, "%s %q is not one of %s", field, s, joinScopes())
	}
	return sc, nil
}

func joinScopes() string {
	names := make([]string, len(MemoryScopes))
	for i, s := range MemoryScopes {
		names[i] = string(s)
	}
	return strings.Join(names, ", ")
}

// memoryOf validates a request's memory and returns the job's: the
// engine's default scope when the request names none (a project default
// applies only to a job that names a project), the engine's TTL when it
// gives none, and nil for the default session memory.
func (e *Engine) memoryOf(req Memory) (*Memory, error) {
	m := Memory{Project: strings.TrimSpace(req.Project), Fresh: req.Fresh}
	if err := ValidateProject("memory.project", m.Project); err != nil {
		return nil, err
	}
	if req.Scope != "" {
		sc, err := ParseMemoryScope("memory.scope", string(req.Scope))
		if err != nil {
			return nil, err
		}
		m.Scope = sc
	} else {
		m.Scope = e.memoryScope()
		if m.Scope == MemoryProject && m.Project == "" {
			m.Scope = MemorySession
		}
	}
	if m.Scope == MemoryProject && m.Project == "" {
		return nil, Errorf(EINVALID, "memory.project is required with memory.scope project")
	}
	ttl := e.memoryTTL()
	if req.TTL != "" {
		d, err := time.ParseDuration(req.TTL)
		if err != nil || d <= 0 {
			return nil, Errorf(EINVALID, "memory.ttl %q is not a positive duration such as 720h", req.TTL)
		}
		if d > e.maxMemoryTTL() {
			return nil, Errorf(EINVALID, "memory.ttl %s exceeds the limit %s", d, e.maxMemoryTTL())
		}
		ttl = d
	}
	if m.Scope == MemorySession && m.Project == "" && !m.Fresh {
		return nil, nil
	}
	if m.Scope != MemorySession {
		m.TTL = ttl.String()
	}
	return &m, nil
}

// MemoryRef says which remembered answer resolved a job's question: the
// scope (and project) it was found in, the job whose person gave it, and
// when.
type MemoryRef struct {
	Scope        MemoryScope `json:"scope"`
	Project      string      `json:"project,omitempty"`
	QuestionHash string      `json:"questionHash"`
	JobID        string      `json:"jobId"`
	At           time.Time   `json:"at"`
}

// Describe is the sentence every channel shows for a remembered answer:
// "answered from project memory, 3 days ago, job …".
func (r *MemoryRef) Describe(now time.Time) string {
	where := string(r.Scope) + " memory"
	if r.Project != "" {
		where = fmt.Sprintf("project %q memory", r.Project)
	}
	return fmt.Sprintf("answered from %s, %s, job %s", where, Ago(now.Sub(r.At)), r.JobID)
}

// MemoryNote is what every channel shows of a job answered from a
// remembered answer (Describe), or "" when it was not.
func (j *Job) MemoryNote(now time.Time) string {
	if j.AnswerSource != SourceHistory || j.AnswerMemory == nil {
		return ""
	}
	return j.AnswerMemory.Describe(now)
}

// Ago renders an age in the largest whole unit: "just now", "5 minutes
// ago", "3 days ago".
func Ago(d time.Duration) string {
	unit := func(n int64, name string) string {
		if n == 1 {
			return "1 " + name + " ago"
		}
		return fmt.Sprintf("%d %ss ago", n, name)
	}
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return unit(int64(d/time.Minute), "minute")
	case d < 24*time.Hour:
		return unit(int64(d/time.Hour), "hour")
	}
	return unit(int64(d/(24*time.Hour)), "day")
}

// HistoryQuery is one Store.LookupHistory call: the remembered answer to
// the question with QuestionHash nearest to a job, in the order
// session, project, tenant, among the entries not expired at Now.
type HistoryQuery struct {
	TenantID     string
	SessionID    string
	QuestionHash string
	// Project, when set, is the project whose memory is read after the
	// session.
	Project string
	// Tenant reads the tenant's memory last.
	Tenant bool
	Now    time.Time
}

// historyQuery is the lookup of a job's memory for question hash.
func historyQuery(j *Job, hash string, now time.Time) HistoryQuery {
	q := HistoryQuery{TenantID: j.TenantID, SessionID: j.SessionID, QuestionHash: hash, Now: now}
	if m := j.Memory; m != nil {
		if m.Scope.Reaches(MemoryProject) {
			q.Project = m.Project
		}
		q.Tenant = m.Scope == MemoryTenant
	}
	return q
}

// MemoryFilter selects remembered answers for Store.Memory: those of a
// tenant's project (Scope project) or of the tenant itself (Scope tenant)
// not expired at Now, newest first.
type MemoryFilter struct {
	TenantID string
	Scope    MemoryScope
	Project  string
	Now      time.Time
}

// MemoryKey names one remembered answer for Store.Forget: its tenant,
// scope, the session (scope session) or project (scope project) it
// belongs to, and its question hash.
type MemoryKey struct {
	TenantID     string
	Scope        MemoryScope
	SessionID    string
	Project      string
	QuestionHash string
}

// ScopeKey is what identifies the key's memory within its scope: the
// session, the project, or nothing for the tenant.
func (k MemoryKey) ScopeKey() string {
	switch k.Scope {
	case MemorySession:
		return k.SessionID
	case MemoryProject:
		return k.Project
	}
	return ""
}

// memoryKeyOf validates k's scope and the name that goes with it.
func memoryKeyOf(k MemoryKey) (MemoryKey, error) {
	k.TenantID = tenantOr(k.TenantID)
	if _, err := ParseMemoryScope("scope", string(k.Scope)); err != nil {
		return k, err
	}
	switch {
	case k.Scope == MemorySession && k.SessionID == "":
		return k, Errorf(EINVALID, "session is required with scope session")
	case k.Scope == MemoryProject && k.Project == "":
		return k, Errorf(EINVALID, "project is required with scope project")
	}
	return k, ValidateProject("project", k.Project)
}
