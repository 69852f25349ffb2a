package postgres

import (
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
	// fixedColumn: written by CreateJob; UpdateJob writes those of
	// jobs_static only when the change changes them.
	fixedColumn
	// stateColumn: overwritten by every UpdateJob.
	stateColumn
	// storeColumn: the store's own (the sums over attempts, version,
	// times), written by CreateJob from the job and by UpdateJob with
	// expressions of their own.
	storeColumn
)

// jobColumn is one column of a job: its table, who writes it, the value
// written from a job and where a read puts it. jobTable lists them all;
// every job statement and scanJob are built from it, so a new column is
// one entry (and, when its value needs decoding, a field of jobRow).
type jobColumn struct {
	name   string
	static bool // in jobs_static, not jobs
	kind   columnKind
	arg    func(j *askonce.Job) (any, error)
	dest   func(r *jobRow) any
}

// jobRow is a job as read, before the values that need decoding are.
type jobRow struct {
	j                                     askonce.Job
	mode, hardCap, status, clar, dispatch string
	specSchema, plan                      []byte
	notify                                *string
	qText, qType, qDefault, qReason       *string
	answer, source, resolved, result      *string
	qOptions                              []string
	qCosmetic, qAllowOther                bool
	qExpires, answeredAt                  *time.Time
	createdAt, updatedAt, leaseUntil      time.Time
}

// leaseArg stores a lease's end to the microsecond; none (the zero time)
// as 0001-01-01, the column's default.
func leaseArg(t time.Time) time.Time {
	if t.IsZero() {
		return time.Time{}
	}
	return micro(t)
}

// plain returns an arg that cannot fail.
func plain(f func(j *askonce.Job) any) func(j *askonce.Job) (any, error) {
	return func(j *askonce.Job) (any, error) { return f(j), nil }
}

// question returns an arg of a question column: NULL without a question.
func question(f func(q *askonce.Question) any) func(j *askonce.Job) (any, error) {
	return func(j *askonce.Job) (any, error) {
		if j.Question == nil {
			return nil, nil
		}
		return f(j.Question), nil
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
	{"goal", true, fixedColumn, plain(func(j *askonce.Job) any { return j.Goal }), func(r *jobRow) any { return &r.j.Goal }},
	{"files", true, fixedColumn, plain(func(j *askonce.Job) any { return listArg(j.Files) }), func(r *jobRow) any { return &r.j.Files }},
	{"candidates", true, fixedColumn, plain(func(j *askonce.Job) any { return listArg(j.Candidates) }), func(r *jobRow) any { return &r.j.Candidates }},
	{"spec_schema", true, fixedColumn, plain(func(j *askonce.Job) any { return rawArg(j.SpecSchema) }), func(r *jobRow) any { return &r.specSchema }},

	{"title", false, stateColumn, plain(func(j *askonce.Job) any { return j.Title }), func(r *jobRow) any { return &r.j.Title }},
	{"status", false, stateColumn, plain(func(j *askonce.Job) any { return string(j.Status) }), func(r *jobRow) any { return &r.status }},
	{"clarification_status", false, stateColumn, plain(func(j *askonce.Job) any { return string(j.ClarificationStatus) }), func(r *jobRow) any { return &r.clar }},
	{"clarification_question", false, stateColumn, question(func(q *askonce.Question) any { return textArg(q.Text) }), func(r *jobRow) any { return &r.qText }},
	{"clarification_type", false, stateColumn, question(func(q *askonce.Question) any { return string(q.Type) }), func(r *jobRow) any { return &r.qType }},
	{"clarification_options", false, stateColumn, question(func(q *askonce.Question) any { return listArg(q.Options) }), func(r *jobRow) any { return &r.qOptions }},
	{"clarification_default", false, stateColumn, question(func(q *askonce.Question) any { return textArg(q.Default) }), func(r *jobRow) any { return &r.qDefault }},
	{"clarification_reason", false, stateColumn, question(func(q *askonce.Question) any { return textArg(q.Reason) }), func(r *jobRow) any { return &r.qReason }},
	{"clarification_cosmetic", false, stateColumn, plain(func(j *askonce.Job) any { return j.Question != nil && j.Question.Cosmetic }), func(r *jobRow) any { return &r.qCosmetic }},
	{"clarification_allow_other", false, stateColumn, plain(func(j *askonce.Job) any { return j.Question != nil && j.Question.AllowOther }), func(r *jobRow) any { return &r.qAllowOther }},
	{"clarification_expires_at", false, stateColumn, question(func(q *askonce.Question) any { return timePtrArg(q.ExpiresAt) }), func(r *jobRow) any { return &r.qExpires }},
	{"clarification_answer", false, stateColumn, plain(func(j *askonce.Job) any { return textArg(j.Answer) }), func(r *jobRow) any { return &r.answer }},
	{"clarification_source", false, stateColumn, plain(func(j *askonce.Job) any { return textArg(string(j.AnswerSource)) }), func(r *jobRow) any { return &r.source }},
	{"clarification_answered_at", false, stateColumn, plain(func(j *askonce.Job) any { return timePtrArg(j.AnsweredAt) }), func(r *jobRow) any { return &r.answeredAt }},
	{"answered_via", false, stateColumn, plain(func(j *askonce.Job) any { return j.AnsweredVia }), func(r *jobRow) any { return &r.j.AnsweredVia }},
	{"answered_by", false, stateColumn, plain(func(j *askonce.Job) any { return j.AnsweredBy }), func(r *jobRow) any { return &r.j.AnsweredBy }},
	{"resolved_prompt", false, stateColumn, plain(func(j *askonce.Job) any { return textArg(j.ResolvedPrompt) }), func(r *jobRow) any { return &r.resolved }},
	{"fallback_used", false, stateColumn, plain(func(j *askonce.Job) any { return j.FallbackUsed }), func(r *jobRow) any { return &r.j.FallbackUsed }},
	{"answer_delivered", false, stateColumn, plain(func(j *askonce.Job) any { return j.AnswerDelivered }), func(r *jobRow) any { return &r.j.AnswerDelivered }},
	{"plan", false, stateColumn, planArg, func(r *jobRow) any { return &r.plan }},
	{"result", false, stateColumn, plain(func(j *askonce.Job) any { return textArg(j.Result) }), func(r *jobRow) any { return &r.result }},
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
	{"created_at", false, storeColumn, plain(func(j *askonce.Job) any { return j.CreatedAt }), func(r *jobRow) any { return &r.createdAt }},
	{"updated_at", false, storeColumn, plain(func(j *askonce.Job) any { return j.UpdatedAt }), func(r *jobRow) any { return &r.updatedAt }},
}

func planArg(j *askonce.Job) (any, error) {
	if j.Plan == nil {
		return nil, nil
	}
	b, err := json.Marshal(j.Plan)
	if err != nil {
		return nil, fmt.Errorf("encode plan: %w", err)
	}
	return json.RawMessage(b), nil
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
	// of jobs_static (keyed by id), and updatedColumns those UpdateJob
	// overwrites with the change's values: the state and the fixed ones
	// of jobs (rewriting an unchanged value costs PostgreSQL nothing
	// more, the row is rewritten anyway).
	jobsColumns    = columnsWhere(func(c *jobColumn) bool { return !c.static })
	staticColumns  = columnsWhere(func(c *jobColumn) bool { return c.static })
	updatedColumns = columnsWhere(func(c *jobColumn) bool {
		return !c.static && (c.kind == stateColumn || c.kind == fixedColumn)
	})
)

// names returns the columns' names, each with prefix, joined by sep.
func names(cols []*jobColumn, prefix string, sep string) string {
	var b strings.Builder
	for i, c := range cols {
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(prefix + c.name)
	}
	return b.String()
}

// params returns "$from, $from+1, ..." for n values.
func params(from, n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = fmt.Sprintf("$%d", from+i)
	}
	return strings.Join(parts, ", ")
}

// assign returns "a = $from, b = $from+1, ...".
func assign(cols []*jobColumn, from int) string {
	parts := make([]string, len(cols))
	for i, c := range cols {
		parts[i] = fmt.Sprintf("%s = $%d", c.name, from+i)
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
	j.Mode = askonce.Mode(r.mode)
	j.HardCap = askonce.HardCap(r.hardCap)
	j.Status = askonce.Status(r.status)
	j.ClarificationStatus = askonce.ClarificationStatus(r.clar)
	// NULL reads back as the zero value.
	j.Answer = deref(r.answer)
	j.AnswerSource = askonce.Source(deref(r.source))
	j.ResolvedPrompt = deref(r.resolved)
	j.Result = deref(r.result)
	j.Dispatch = askonce.DispatchStatus(r.dispatch)
	if len(r.specSchema) > 0 {
		j.SpecSchema = json.RawMessage(r.specSchema)
	}
	j.AnsweredAt = utcPtr(r.answeredAt)
	j.CreatedAt = r.createdAt.UTC()
	j.UpdatedAt = r.updatedAt.UTC()
	if u := r.leaseUntil.UTC(); !u.IsZero() {
		j.Lease.Until = u
	}
	if len(j.Files) == 0 {
		j.Files = nil
	}
	if len(j.Candidates) == 0 {
		j.Candidates = nil
	}
	if r.qType != nil {
		q := &askonce.Question{
			Type:       askonce.QuestionType(*r.qType),
			Text:       deref(r.qText),
			Default:    deref(r.qDefault),
			Reason:     deref(r.qReason),
			Cosmetic:   r.qCosmetic,
			AllowOther: r.qAllowOther,
			ExpiresAt:  utcPtr(r.qExpires),
		}
		if len(r.qOptions) > 0 {
			q.Options = r.qOptions
		}
		j.Question = q
	}
	if r.notify != nil {
		var err error
		if j.Notify, err = askonce.DecodeRecipients(*r.notify); err != nil {
			return nil, fmt.Errorf("decode notify of job %s: %w", j.ID, err)
		}
	}
	if r.plan != nil {
		j.Plan = new(askonce.Plan)
		if err := json.Unmarshal(r.plan, j.Plan); err != nil {
			return nil, fmt.Errorf("decode plan of job %s: %w", j.ID, err)
		}
	}
	return j, nil
}
