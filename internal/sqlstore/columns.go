package sqlstore

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/askonce/askonce"
)

// Encoding is how a store keeps the values SQL has no one type for:
// SQLite keeps times as Unix nanoseconds, booleans as integers, lists and
// JSON as text; PostgreSQL has timestamptz, boolean, text[] and jsonb.
type Encoding interface {
	// Bool is a boolean value.
	Bool(b bool) any
	// Time is a time that is set (a job's created_at and updated_at).
	Time(t time.Time) any
	// TimePtr is an optional time: NULL when nil or zero.
	TimePtr(t *time.Time) any
	// Lease is the end of a planning lease, which is never NULL: the
	// zero time when there is no lease.
	Lease(t time.Time) any
	// List is a list of strings: NULL when empty.
	List(v []string) (any, error)
	// JSON is a JSON document: NULL when empty.
	JSON(b []byte) any
	// ScanList is the scan destination of a List column for p.
	ScanList(p *[]string) any
}

// Kind tells who writes a job column, and when.
type Kind int

const (
	// Key: the job's tenant and id, written by CreateJob.
	Key Kind = iota
	// Fixed: written by CreateJob; UpdateJob rewrites it only when the
	// change changes it (SQLite), or with the row (PostgreSQL).
	Fixed
	// State: overwritten by every UpdateJob.
	State
	// Stored: the store's own (the sums over attempts, version, times),
	// written by CreateJob from the job and by UpdateJob with
	// expressions of their own.
	Stored
	// Result: the job's result. PostgreSQL writes it as State; SQLite
	// keeps it by reference to the attempt whose raw output it is, with
	// an expression of its own.
	Result
)

// Column is one column of a job: its name, whether it is kept apart from
// the jobs table with what never changes (Static: in jobs_static, or in
// SQLite's job_log), who writes it, the value written from a job and
// where a scan puts it. JobTable lists them all; every job statement and
// ScanJob are built from it, so a new column is one entry (and, when its
// value needs decoding, a field of Row).
type Column struct {
	Name   string
	Static bool
	Kind   Kind
	Arg    func(j *askonce.Job) (any, error)
	Dest   func(r *Row) any
}

// Row is a job as scanned, before the values that need decoding are.
type Row struct {
	j                                     askonce.Job
	mode, hardCap, status, clar, dispatch string
	notify                                sql.NullString
	qText, qType, qDefault, qReason       sql.NullString
	source, resolved, result              sql.NullString
	specSchema, plan                      []byte
	memory, answerMemory, qFields         []byte
	value                                 []byte
	qOptions                              []string
	qCosmetic, qAllowOther                bool
	qExpires, answeredAt                  Time
	createdAt, updatedAt, leaseUntil      Time
}

// plain returns an arg that cannot fail.
func plain(f func(j *askonce.Job) any) func(j *askonce.Job) (any, error) {
	return func(j *askonce.Job) (any, error) { return f(j), nil }
}

// question returns an arg of a question column: NULL without a question.
func question(f func(q *askonce.Question) (any, error)) func(j *askonce.Job) (any, error) {
	return func(j *askonce.Job) (any, error) {
		if j.Question == nil {
			return nil, nil
		}
		return f(j.Question)
	}
}

// Text is an optional text value: empty is NULL, which the clarification
// columns are until set (NULL, never an empty string).
func Text(v string) any {
	if v == "" {
		return nil
	}
	return v
}

// jsonArg encodes v as JSON; nil is NULL.
func jsonArg[T any](e Encoding, v *T) (any, error) {
	if v == nil {
		return nil, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return e.JSON(b), nil
}

// JobTable is every job column, in the order of the statements' values
// and of ScanJob, with the values e keeps.
func JobTable(e Encoding) []Column {
	text := func(f func(j *askonce.Job) string) func(j *askonce.Job) (any, error) {
		return plain(func(j *askonce.Job) any { return f(j) })
	}
	return []Column{
		{"tenant_id", false, Key, text(func(j *askonce.Job) string { return j.TenantID }), func(r *Row) any { return &r.j.TenantID }},
		{"id", false, Key, text(func(j *askonce.Job) string { return j.ID }), func(r *Row) any { return &r.j.ID }},

		{"session_id", false, Fixed, text(func(j *askonce.Job) string { return j.SessionID }), func(r *Row) any { return &r.j.SessionID }},
		{"mode", false, Fixed, text(func(j *askonce.Job) string { return string(j.Mode) }), func(r *Row) any { return &r.mode }},
		{"profile", false, Fixed, text(func(j *askonce.Job) string { return j.Profile }), func(r *Row) any { return &r.j.Profile }},
		{"hard_cap", false, Fixed, text(func(j *askonce.Job) string { return string(j.HardCap) }), func(r *Row) any { return &r.hardCap }},
		{"notify", false, Fixed, func(j *askonce.Job) (any, error) { return askonce.EncodeRecipients(j.Notify) }, func(r *Row) any { return &r.notify }},
		{"goal", true, Fixed, text(func(j *askonce.Job) string { return j.Goal }), func(r *Row) any { return &r.j.Goal }},
		{"files", true, Fixed, func(j *askonce.Job) (any, error) { return e.List(j.Files) }, func(r *Row) any { return e.ScanList(&r.j.Files) }},
		{"candidates", true, Fixed, func(j *askonce.Job) (any, error) { return e.List(j.Candidates) }, func(r *Row) any { return e.ScanList(&r.j.Candidates) }},
		{"spec_schema", true, Fixed, plain(func(j *askonce.Job) any { return e.JSON(j.SpecSchema) }), func(r *Row) any { return &r.specSchema }},
		{"memory", true, Fixed, func(j *askonce.Job) (any, error) { return jsonArg(e, j.Memory) }, func(r *Row) any { return &r.memory }},

		{"title", false, State, text(func(j *askonce.Job) string { return j.Title }), func(r *Row) any { return &r.j.Title }},
		{"status", false, State, text(func(j *askonce.Job) string { return string(j.Status) }), func(r *Row) any { return &r.status }},
		{"clarification_status", false, State, text(func(j *askonce.Job) string { return string(j.ClarificationStatus) }), func(r *Row) any { return &r.clar }},
		{"clarification_question", false, State, question(func(q *askonce.Question) (any, error) { return Text(q.Text), nil }), func(r *Row) any { return &r.qText }},
		{"clarification_type", false, State, question(func(q *askonce.Question) (any, error) { return string(q.Type), nil }), func(r *Row) any { return &r.qType }},
		{"clarification_options", false, State, question(func(q *askonce.Question) (any, error) { return e.List(q.Options) }), func(r *Row) any { return e.ScanList(&r.qOptions) }},
		{"clarification_default", false, State, question(func(q *askonce.Question) (any, error) { return Text(q.Default), nil }), func(r *Row) any { return &r.qDefault }},
		{"clarification_reason", false, State, question(func(q *askonce.Question) (any, error) { return Text(q.Reason), nil }), func(r *Row) any { return &r.qReason }},
		{"clarification_cosmetic", false, State, plain(func(j *askonce.Job) any { return e.Bool(j.Question != nil && j.Question.Cosmetic) }), func(r *Row) any { return &r.qCosmetic }},
		{"clarification_allow_other", false, State, plain(func(j *askonce.Job) any { return e.Bool(j.Question != nil && j.Question.AllowOther) }), func(r *Row) any { return &r.qAllowOther }},
		{"clarification_expires_at", false, State, question(func(q *askonce.Question) (any, error) { return e.TimePtr(q.ExpiresAt), nil }), func(r *Row) any { return &r.qExpires }},
		{"clarification_fields", false, State, question(func(q *askonce.Question) (any, error) {
			if q.Filled == nil && q.Constraints.IsZero() && len(q.Fields) == 0 {
				return nil, nil
			}
			sf := &storedFields{Fields: q.Fields}
			if q.Filled != nil {
				sf.Filled = storeFilled(q.Filled)
			}
			if !q.Constraints.IsZero() {
				sf.Constraints = &q.Constraints
			}
			return jsonArg(e, sf)
		}), func(r *Row) any { return &r.qFields }},
		// The answer, typed (askonce.Answer.Encode); an answer stored as
		// text before is {"old": text} (askonce.DecodeStoredAnswer).
		{"clarification_value", false, State, plain(func(j *askonce.Job) any { return e.JSON(j.Answer.Encode()) }), func(r *Row) any { return &r.value }},
		{"clarification_source", false, State, plain(func(j *askonce.Job) any { return Text(string(j.AnswerSource)) }), func(r *Row) any { return &r.source }},
		{"clarification_answered_at", false, State, plain(func(j *askonce.Job) any { return e.TimePtr(j.AnsweredAt) }), func(r *Row) any { return &r.answeredAt }},
		{"answered_via", false, State, text(func(j *askonce.Job) string { return j.AnsweredVia }), func(r *Row) any { return &r.j.AnsweredVia }},
		{"answered_by", false, State, text(func(j *askonce.Job) string { return j.AnsweredBy }), func(r *Row) any { return &r.j.AnsweredBy }},
		{"clarification_memory", false, State, func(j *askonce.Job) (any, error) { return jsonArg(e, j.AnswerMemory) }, func(r *Row) any { return &r.answerMemory }},
		{"resolved_prompt", false, State, plain(func(j *askonce.Job) any { return Text(j.ResolvedPrompt) }), func(r *Row) any { return &r.resolved }},
		{"fallback_used", false, State, plain(func(j *askonce.Job) any { return e.Bool(j.FallbackUsed) }), func(r *Row) any { return &r.j.FallbackUsed }},
		{"answer_delivered", false, State, plain(func(j *askonce.Job) any { return e.Bool(j.AnswerDelivered) }), func(r *Row) any { return &r.j.AnswerDelivered }},
		{"plan", false, State, func(j *askonce.Job) (any, error) { return jsonArg(e, j.Plan) }, func(r *Row) any { return &r.plan }},
		{"result", false, Result, plain(func(j *askonce.Job) any { return Text(j.Result) }), func(r *Row) any { return &r.result }},
		{"error", false, State, text(func(j *askonce.Job) string { return j.Error }), func(r *Row) any { return &r.j.Error }},
		{"dispatch_status", false, State, text(func(j *askonce.Job) string { return string(j.Dispatch) }), func(r *Row) any { return &r.dispatch }},
		{"delivery_attempts", false, State, plain(func(j *askonce.Job) any { return j.DeliveryAttempts }), func(r *Row) any { return &r.j.DeliveryAttempts }},
		{"delivery_error", false, State, text(func(j *askonce.Job) string { return j.DeliveryError }), func(r *Row) any { return &r.j.DeliveryError }},
		{"lease_owner", false, State, text(func(j *askonce.Job) string { return j.Lease.Owner }), func(r *Row) any { return &r.j.Lease.Owner }},
		{"lease_until", false, State, plain(func(j *askonce.Job) any { return e.Lease(j.Lease.Until) }), func(r *Row) any { return &r.leaseUntil }},

		{"prompt_tokens", false, Stored, plain(func(j *askonce.Job) any { return j.Usage.PromptTokens }), func(r *Row) any { return &r.j.Usage.PromptTokens }},
		{"completion_tokens", false, Stored, plain(func(j *askonce.Job) any { return j.Usage.CompletionTokens }), func(r *Row) any { return &r.j.Usage.CompletionTokens }},
		{"cost_usd", false, Stored, plain(func(j *askonce.Job) any { return j.Usage.CostUSD }), func(r *Row) any { return &r.j.Usage.CostUSD }},
		{"attempt_count", false, Stored, plain(func(j *askonce.Job) any { return j.AttemptCount }), func(r *Row) any { return &r.j.AttemptCount }},
		{"version", false, Stored, plain(func(j *askonce.Job) any { return j.Version }), func(r *Row) any { return &r.j.Version }},
		{"created_at", false, Stored, plain(func(j *askonce.Job) any { return e.Time(j.CreatedAt) }), func(r *Row) any { return &r.createdAt }},
		{"updated_at", false, Stored, plain(func(j *askonce.Job) any { return e.Time(j.UpdatedAt) }), func(r *Row) any { return &r.updatedAt }},
	}
}

// Where returns the columns of table that keep.
func Where(table []Column, keep func(c *Column) bool) []*Column {
	var out []*Column
	for i := range table {
		if keep(&table[i]) {
			out = append(out, &table[i])
		}
	}
	return out
}

// Names returns the columns' names, each with prefix(c) before it
// (nil: none), joined by sep.
func Names(cols []*Column, prefix func(c *Column) string, sep string) string {
	var b strings.Builder
	for i, c := range cols {
		if i > 0 {
			b.WriteString(sep)
		}
		if prefix != nil {
			b.WriteString(prefix(c))
		}
		b.WriteString(c.Name)
	}
	return b.String()
}

// Args returns the values cols take from j.
func Args(j *askonce.Job, cols []*Column) ([]any, error) {
	return AppendArgs(make([]any, 0, len(cols)+8), j, cols)
}

// AppendArgs appends the values cols take from j to dst.
func AppendArgs(dst []any, j *askonce.Job, cols []*Column) ([]any, error) {
	for _, c := range cols {
		v, err := c.Arg(j)
		if err != nil {
			return nil, fmt.Errorf("encode %s: %w", c.Name, err)
		}
		dst = append(dst, v)
	}
	return dst, nil
}

// ScanJob reads one row of every column of table, in its order.
func ScanJob(table []Column, row Scanner) (*askonce.Job, error) {
	var r Row
	dest := make([]any, len(table))
	for i := range table {
		dest[i] = table[i].Dest(&r)
	}
	if err := row.Scan(dest...); err != nil {
		return nil, err
	}
	return r.job()
}

// job decodes the values of r that need it.
func (r *Row) job() (*askonce.Job, error) {
	j := &r.j
	j.Mode = askonce.Mode(r.mode)
	j.HardCap = askonce.HardCap(r.hardCap)
	j.Status = askonce.Status(r.status)
	j.ClarificationStatus = askonce.ClarificationStatus(r.clar)
	// NULL reads back as the zero value.
	j.AnswerSource = askonce.Source(r.source.String)
	j.ResolvedPrompt = r.resolved.String
	j.Result = r.result.String
	j.Dispatch = askonce.DispatchStatus(r.dispatch)
	if len(r.specSchema) > 0 {
		j.SpecSchema = json.RawMessage(r.specSchema)
	}
	j.AnsweredAt = r.answeredAt.Ptr()
	j.CreatedAt = time.Time(r.createdAt)
	j.UpdatedAt = time.Time(r.updatedAt)
	// No lease is kept as the zero time, which SQLite's nanoseconds
	// cannot hold: it keeps 0 (Encoding.Lease).
	if u := time.Time(r.leaseUntil); !u.IsZero() && !u.Equal(unixZero) {
		j.Lease.Until = u
	}
	if len(j.Files) == 0 {
		j.Files = nil
	}
	if len(j.Candidates) == 0 {
		j.Candidates = nil
	}
	var err error
	if j.Notify, err = askonce.DecodeRecipients(r.notify.String); err != nil {
		return nil, fmt.Errorf("decode notify of job %s: %w", j.ID, err)
	}
	if j.Memory, err = fromJSON[askonce.Memory](r.memory); err != nil {
		return nil, fmt.Errorf("decode memory of job %s: %w", j.ID, err)
	}
	if j.AnswerMemory, err = fromJSON[askonce.MemoryRef](r.answerMemory); err != nil {
		return nil, fmt.Errorf("decode clarification memory of job %s: %w", j.ID, err)
	}
	if j.Plan, err = fromJSON[askonce.Plan](r.plan); err != nil {
		return nil, fmt.Errorf("decode plan of job %s: %w", j.ID, err)
	}
	if r.qType.Valid {
		q := &askonce.Question{
			Type:       askonce.QuestionType(r.qType.String),
			Text:       r.qText.String,
			Default:    r.qDefault.String,
			Reason:     r.qReason.String,
			Cosmetic:   r.qCosmetic,
			AllowOther: r.qAllowOther,
			ExpiresAt:  r.qExpires.Ptr(),
		}
		if len(r.qOptions) > 0 {
			q.Options = r.qOptions
		}
		if err := decodeFields(q, r.qFields); err != nil {
			return nil, fmt.Errorf("decode clarification fields of job %s: %w", j.ID, err)
		}
		j.Question = q
	}
	if j.Answer, err = askonce.DecodeStoredAnswer(r.value, j.Question); err != nil {
		return nil, fmt.Errorf("decode clarification answer of job %s: %w", j.ID, err)
	}
	return j, nil
}

// fromJSON decodes a JSON value; NULL is nil.
// storedFields is how clarification_fields keeps what a question has
// beyond its plain columns: the fields asked, the ones filled before it
// was asked (askonce.Question.Filled) and its own constraints
// (askonce.Question.Constraints); NULL for none of them. (The migration
// to typed answers made the arrays of fields stored before objects.)
type storedFields struct {
	Fields      []askonce.QuestionField `json:"fields,omitempty"`
	Filled      *storedFilled           `json:"filled,omitempty"`
	Constraints *askonce.Constraints    `json:"constraints,omitempty"`
}

// storedFilled keeps askonce.FilledFields: the values as Typed
// (askonce.Answer.Encode, each value with its kind), or, stored before
// answers were typed, as the text of each in Values.
type storedFilled struct {
	Fields []askonce.QuestionField `json:"fields"`
	Typed  json.RawMessage         `json:"typed,omitempty"`
	Values map[string]string       `json:"values,omitempty"`
}

func storeFilled(f *askonce.FilledFields) *storedFilled {
	var a askonce.Answer
	for _, fd := range f.Fields {
		if v, ok := f.Values[fd.Name]; ok {
			a.Fields = append(a.Fields, askonce.FieldValue{Name: fd.Name, Value: v})
		}
	}
	return &storedFilled{Fields: f.Fields, Typed: a.Encode()}
}

func (s *storedFilled) filled() (*askonce.FilledFields, error) {
	if s == nil {
		return nil, nil
	}
	f := &askonce.FilledFields{Fields: s.Fields, Values: map[string]askonce.Value{}}
	for name, text := range s.Values {
		f.Values[name] = askonce.TextValue(text)
	}
	a, err := askonce.DecodeAnswer(s.Typed)
	if err != nil {
		return nil, err
	}
	for _, fv := range a.Fields {
		f.Values[fv.Name] = fv.Value
	}
	return f, nil
}

// decodeFields sets q's Fields (and Filled) from clarification_fields.
func decodeFields(q *askonce.Question, b []byte) error {
	sf, err := fromJSON[storedFields](b)
	if err != nil || sf == nil {
		return err
	}
	q.Fields = sf.Fields
	if sf.Constraints != nil {
		q.Constraints = *sf.Constraints
	}
	q.Filled, err = sf.Filled.filled()
	return err
}

func fromJSON[T any](b []byte) (*T, error) {
	if len(b) == 0 {
		return nil, nil
	}
	v := new(T)
	if err := json.Unmarshal(b, v); err != nil {
		return nil, err
	}
	return v, nil
}
