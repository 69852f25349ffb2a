package sqlite

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/askonce/askonce"
)

// columnKind tells who writes a job column, and when.
type columnKind int

const (
	// keyColumn: the job's tenant and id, written by CreateJob.
	keyColumn columnKind = iota
	// fixedColumn: written by CreateJob, and by UpdateJob only when the
	// change changes it, so that a transition leaves its indexes alone.
	fixedColumn
	// stateColumn: overwritten by every UpdateJob.
	stateColumn
	// storeColumn: the store's own (the sums over attempts, version,
	// times), written by CreateJob from the job and by UpdateJob with
	// statements of their own.
	storeColumn
	// resultColumn: the result, which is most often the raw output of
	// one of the job's attempts, kept once, in job_log: the column is
	// then NULL and result_attempt names the attempt (resultRef).
	// UpdateJob overwrites it with an expression of its own.
	resultColumn
)

// jobColumn is one column of a job: its table, who writes it, the value
// written from a job and where a read puts it. jobTable lists them all;
// every job statement and scanJob are built from it, so a new column is
// one entry (and, when its value needs decoding, a field of jobRow).
type jobColumn struct {
	name   string // a static column's is the job_log column it is kept in
	static bool   // in job_log's kind 0 record, not jobs: the goal in data, the files in type, the spec schema in more, the candidates in candidates
	kind   columnKind
	arg    func(j *askonce.Job) (any, error)
	dest   func(r *jobRow) any
}

// jobRow is a job as read, before the values that need decoding are.
type jobRow struct {
	j                                         askonce.Job
	mode, hardCap, status, clar, dispatch     string
	files, candidates, specSchema, plan       sql.NullString
	notify                                    sql.NullString
	qText, qType, qOptions, qDefault, qReason sql.NullString
	answer, source, resolved, result          sql.NullString
	qCosmetic, qAllowOther                    bool
	qExpires, answeredAt                      sql.NullInt64
	createdAt, updatedAt, leaseUntil          int64
}

// leaseArg stores a lease's end as Unix nanoseconds, none as 0.
func leaseArg(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
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

// jobTable is every job column, in the order of the statements' values
// and of scanJob.
var jobTable = []jobColumn{
	{"tenant_id", false, keyColumn, plain(func(j *askonce.Job) any { return j.TenantID }), func(r *jobRow) any { return &r.j.TenantID }},
	{"id", false, keyColumn, plain(func(j *askonce.Job) any { return j.ID }), func(r *jobRow) any { return &r.j.ID }},

	{"session_id", false, fixedColumn, plain(func(j *askonce.Job) any { return j.SessionID }), func(r *jobRow) any { return &r.j.SessionID }},
	{"mode", false, fixedColumn, plain(func(j *askonce.Job) any { return string(j.Mode) }), func(r *jobRow) any { return &r.mode }},
	{"profile", false, fixedColumn, plain(func(j *askonce.Job) any { return j.Profile }), func(r *jobRow) any { return &r.j.Profile }},
	{"hard_cap", false, fixedColumn, plain(func(j *askonce.Job) any { return string(j.HardCap) }), func(r *jobRow) any { return &r.hardCap }},
	{"notify", false, fixedColumn, notifyArg, func(r *jobRow) any { return &r.notify }},
	{"data", true, fixedColumn, plain(func(j *askonce.Job) any { return j.Goal }), func(r *jobRow) any { return &r.j.Goal }},
	{"type", true, fixedColumn, func(j *askonce.Job) (any, error) { return stringsArg(j.Files) }, func(r *jobRow) any { return &r.files }},
	{"more", true, fixedColumn, plain(func(j *askonce.Job) any { return rawArg(j.SpecSchema) }), func(r *jobRow) any { return &r.specSchema }},
	{"candidates", true, fixedColumn, func(j *askonce.Job) (any, error) { return stringsArg(j.Candidates) }, func(r *jobRow) any { return &r.candidates }},

	{"title", false, stateColumn, plain(func(j *askonce.Job) any { return j.Title }), func(r *jobRow) any { return &r.j.Title }},
	{"status", false, stateColumn, plain(func(j *askonce.Job) any { return string(j.Status) }), func(r *jobRow) any { return &r.status }},
	{"clarification_status", false, stateColumn, plain(func(j *askonce.Job) any { return string(j.ClarificationStatus) }), func(r *jobRow) any { return &r.clar }},
	{"clarification_question", false, stateColumn, question(func(q *askonce.Question) (any, error) { return textArg(q.Text), nil }), func(r *jobRow) any { return &r.qText }},
	{"clarification_type", false, stateColumn, question(func(q *askonce.Question) (any, error) { return string(q.Type), nil }), func(r *jobRow) any { return &r.qType }},
	{"clarification_options", false, stateColumn, question(func(q *askonce.Question) (any, error) { return stringsArg(q.Options) }), func(r *jobRow) any { return &r.qOptions }},
	{"clarification_default", false, stateColumn, question(func(q *askonce.Question) (any, error) { return textArg(q.Default), nil }), func(r *jobRow) any { return &r.qDefault }},
	{"clarification_reason", false, stateColumn, question(func(q *askonce.Question) (any, error) { return textArg(q.Reason), nil }), func(r *jobRow) any { return &r.qReason }},
	{"clarification_cosmetic", false, stateColumn, func(j *askonce.Job) (any, error) { return boolArg(j.Question != nil && j.Question.Cosmetic), nil }, func(r *jobRow) any { return &r.qCosmetic }},
	{"clarification_allow_other", false, stateColumn, func(j *askonce.Job) (any, error) { return boolArg(j.Question != nil && j.Question.AllowOther), nil }, func(r *jobRow) any { return &r.qAllowOther }},
	{"clarification_expires_at", false, stateColumn, question(func(q *askonce.Question) (any, error) { return timePtrArg(q.ExpiresAt), nil }), func(r *jobRow) any { return &r.qExpires }},
	{"clarification_answer", false, stateColumn, plain(func(j *askonce.Job) any { return textArg(j.Answer) }), func(r *jobRow) any { return &r.answer }},
	{"clarification_source", false, stateColumn, plain(func(j *askonce.Job) any { return textArg(string(j.AnswerSource)) }), func(r *jobRow) any { return &r.source }},
	{"clarification_answered_at", false, stateColumn, plain(func(j *askonce.Job) any { return timePtrArg(j.AnsweredAt) }), func(r *jobRow) any { return &r.answeredAt }},
	{"answered_via", false, stateColumn, plain(func(j *askonce.Job) any { return j.AnsweredVia }), func(r *jobRow) any { return &r.j.AnsweredVia }},
	{"answered_by", false, stateColumn, plain(func(j *askonce.Job) any { return j.AnsweredBy }), func(r *jobRow) any { return &r.j.AnsweredBy }},
	{"resolved_prompt", false, stateColumn, plain(func(j *askonce.Job) any { return textArg(j.ResolvedPrompt) }), func(r *jobRow) any { return &r.resolved }},
	{"fallback_used", false, stateColumn, plain(func(j *askonce.Job) any { return boolArg(j.FallbackUsed) }), func(r *jobRow) any { return &r.j.FallbackUsed }},
	{"answer_delivered", false, stateColumn, plain(func(j *askonce.Job) any { return boolArg(j.AnswerDelivered) }), func(r *jobRow) any { return &r.j.AnswerDelivered }},
	{"plan", false, stateColumn, planArg, func(r *jobRow) any { return &r.plan }},
	{"result", false, resultColumn, plain(func(j *askonce.Job) any { return textArg(j.Result) }), func(r *jobRow) any { return &r.result }},
	{"error", false, stateColumn, plain(func(j *askonce.Job) any { return j.Error }), func(r *jobRow) any { return &r.j.Error }},
	{"dispatch_status", false, stateColumn, plain(func(j *askonce.Job) any { return string(j.Dispatch) }), func(r *jobRow) any { return &r.dispatch }},
	{"delivery_attempts", false, stateColumn, plain(func(j *askonce.Job) any { return j.DeliveryAttempts }), func(r *jobRow) any { return &r.j.DeliveryAttempts }},
	{"delivery_error", false, stateColumn, plain(func(j *askonce.Job) any { return j.DeliveryError }), func(r *jobRow) any { return &r.j.DeliveryError }},
	{"lease_owner", false, stateColumn, plain(func(j *askonce.Job) any { return j.Lease.Owner }), func(r *jobRow) any { return &r.j.Lease.Owner }},
	{"lease_until", false, stateColumn, plain(func(j *askonce.Job) any { return leaseArg(j.Lease.Until) }), func(r *jobRow) any { return &r.leaseUntil }},

	{"prompt_tokens", false, storeColumn, plain(func(j *askonce.Job) any { return j.Usage.PromptTokens }), func(r *jobRow) any { return &r.j.Usage.PromptTokens }},
	{"completion_tokens", false, storeColumn, plain(func(j *askonce.Job) any { return j.Usage.CompletionTokens }), func(r *jobRow) any { return &r.j.Usage.CompletionTokens }},
	{"cost_usd", false, storeColumn, plain(func(j *askonce.Job) any { return j.Usage.CostUSD }), func(r *jobRow) any { return &r.j.Usage.CostUSD }},
	{"attempt_count", false, storeColumn, plain(func(j *askonce.Job) any { return j.AttemptCount }), func(r *jobRow) any { return &r.j.AttemptCount }},
	{"version", false, storeColumn, plain(func(j *askonce.Job) any { return j.Version }), func(r *jobRow) any { return &r.j.Version }},
	{"created_at", false, storeColumn, plain(func(j *askonce.Job) any { return j.CreatedAt.UnixNano() }), func(r *jobRow) any { return &r.createdAt }},
	{"updated_at", false, storeColumn, plain(func(j *askonce.Job) any { return j.UpdatedAt.UnixNano() }), func(r *jobRow) any { return &r.updatedAt }},
}

func planArg(j *askonce.Job) (any, error) {
	if j.Plan == nil {
		return nil, nil
	}
	b, err := json.Marshal(j.Plan)
	if err != nil {
		return nil, fmt.Errorf("encode plan: %w", err)
	}
	return string(b), nil
}

// columnsWhere returns the columns of jobTable that keep.
func columnsWhere(keep func(c *jobColumn) bool) []*jobColumn {
	var out []*jobColumn
	for i := range jobTable {
		if keep(&jobTable[i]) {
			out = append(out, &jobTable[i])
		}
	}
	return out
}

var (
	// jobsColumns are the columns of the jobs table, staticColumns those
	// of job_log's kind 0 record, stateColumns those UpdateJob
	// overwrites with their values, and fixedJobs and fixedStatic the
	// fixed ones of each table.
	jobsColumns   = columnsWhere(func(c *jobColumn) bool { return !c.static })
	staticColumns = columnsWhere(func(c *jobColumn) bool { return c.static })
	stateColumns  = columnsWhere(func(c *jobColumn) bool { return c.kind == stateColumn })
	fixedJobs     = columnsWhere(func(c *jobColumn) bool { return c.kind == fixedColumn && !c.static })
	fixedStatic   = columnsWhere(func(c *jobColumn) bool { return c.kind == fixedColumn && c.static })
)

// names returns the columns' names, each with prefix, joined by sep.
func names(cols []*jobColumn, prefix func(c *jobColumn) string, sep string) string {
	var b strings.Builder
	for i, c := range cols {
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(prefix(c) + c.name)
	}
	return b.String()
}

func none(*jobColumn) string { return "" }

// tableAlias is the alias of the column's table in jobFrom.
func tableAlias(c *jobColumn) string {
	if c.static {
		return "s."
	}
	return "j."
}

// readExpr is what jobColumns reads for c: the column, or for the result
// the attempt's raw output it refers to (jobFrom's r).
func readExpr(c *jobColumn) string {
	if c.kind == resultColumn {
		return "COALESCE(j.result, r.data) AS "
	}
	return tableAlias(c)
}

// placeholders returns n comma-separated "?".
func placeholders(n int) string { return strings.TrimSuffix(strings.Repeat("?, ", n), ", ") }

// changedIf is the condition under which the fixed columns are rewritten,
// with the new values as ?1, ?2, ... in cols' order.
func changedIf(cols []*jobColumn) string {
	var parts []string
	for i, c := range cols {
		parts = append(parts, fmt.Sprintf("%s IS NOT ?%d", c.name, i+1))
	}
	return strings.Join(parts, " OR ")
}

// setNumbered is "a = ?1, b = ?2, ...".
func setNumbered(cols []*jobColumn) string {
	var parts []string
	for i, c := range cols {
		parts = append(parts, fmt.Sprintf("%s = ?%d", c.name, i+1))
	}
	return strings.Join(parts, ", ")
}

// jobArgs returns the values cols take from j.
func jobArgs(j *askonce.Job, cols []*jobColumn) ([]any, error) {
	out := make([]any, 0, len(cols)+8)
	for _, c := range cols {
		v, err := c.arg(j)
		if err != nil {
			return nil, fmt.Errorf("encode %s: %w", c.name, err)
		}
		out = append(out, v)
	}
	return out, nil
}

// scanJob reads the jobColumns of one row.
func scanJob(row interface{ Scan(...any) error }) (*askonce.Job, error) {
	var r jobRow
	dest := make([]any, len(jobTable))
	for i := range jobTable {
		dest[i] = jobTable[i].dest(&r)
	}
	if err := row.Scan(dest...); err != nil {
		return nil, err
	}
	return r.job()
}

// job decodes the values of r that need it.
func (r *jobRow) job() (*askonce.Job, error) {
	j := &r.j
	var err error
	j.Mode = askonce.Mode(r.mode)
	j.HardCap = askonce.HardCap(r.hardCap)
	j.Status = askonce.Status(r.status)
	j.ClarificationStatus = askonce.ClarificationStatus(r.clar)
	// NULL reads back as the zero value.
	j.Answer = r.answer.String
	j.AnswerSource = askonce.Source(r.source.String)
	j.ResolvedPrompt = r.resolved.String
	j.Result = r.result.String
	j.Dispatch = askonce.DispatchStatus(r.dispatch)
	j.SpecSchema = fromNullRaw(r.specSchema)
	j.AnsweredAt = fromNullNanosPtr(r.answeredAt)
	j.CreatedAt = fromNanos(r.createdAt)
	j.UpdatedAt = fromNanos(r.updatedAt)
	if r.leaseUntil != 0 {
		j.Lease.Until = fromNanos(r.leaseUntil)
	}
	if j.Notify, err = askonce.DecodeRecipients(r.notify.String); err != nil {
		return nil, fmt.Errorf("decode notify of job %s: %w", j.ID, err)
	}
	if j.Files, err = fromNullStrings(r.files); err != nil {
		return nil, fmt.Errorf("decode files of job %s: %w", j.ID, err)
	}
	if j.Candidates, err = fromNullStrings(r.candidates); err != nil {
		return nil, fmt.Errorf("decode candidates of job %s: %w", j.ID, err)
	}
	if r.qType.Valid {
		q := &askonce.Question{
			Type:       askonce.QuestionType(r.qType.String),
			Text:       r.qText.String,
			Default:    r.qDefault.String,
			Reason:     r.qReason.String,
			Cosmetic:   r.qCosmetic,
			AllowOther: r.qAllowOther,
			ExpiresAt:  fromNullNanosPtr(r.qExpires),
		}
		if q.Options, err = fromNullStrings(r.qOptions); err != nil {
			return nil, fmt.Errorf("decode question options of job %s: %w", j.ID, err)
		}
		j.Question = q
	}
	if r.plan.Valid {
		j.Plan = new(askonce.Plan)
		if err := json.Unmarshal([]byte(r.plan.String), j.Plan); err != nil {
			return nil, fmt.Errorf("decode plan of job %s: %w", j.ID, err)
		}
	}
	return j, nil
}
