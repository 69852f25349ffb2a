package sqlstore

// Stmt is one statement a store runs, written once in PostgreSQL's $n
// placeholders: a store's Conn runs it in its own (In) and prepares it
// on first use, keyed by the Stmt itself. A query of Store is a Stmt
// and the method that runs it; nothing else names it.
type Stmt struct {
	dollar, question string
}

// NewStmt is the statement q, written with $1, $2, ...
func NewStmt(q string) *Stmt { return &Stmt{dollar: q, question: Question.Rebind(q)} }

// sharedStmts are the statements of this package, in the order written.
var sharedStmts []*Stmt

// shared is NewStmt for a statement of this package: Shared lists it.
func shared(q string) *Stmt {
	s := NewStmt(q)
	sharedStmts = append(sharedStmts, s)
	return s
}

// Shared returns every statement Store runs that is not a store's Own,
// for a store that prepares them before it runs any (SQLite's writer,
// which cannot prepare inside the transaction that holds its one
// connection).
func Shared() []*Stmt { return sharedStmts }

// In is the statement in p's placeholders.
func (s *Stmt) In(p Placeholders) string {
	if p == Question {
		return s.question
	}
	return s.dollar
}

// String is the statement as written.
func (s *Stmt) String() string { return s.dollar }

// Own is a store's statements in its own dialect that Store runs.
type Own struct {
	// GetJob reads the job (tenant, id); JobByLink the job of an answer
	// link's hash; JobExists returns a row if the tenant has the job
	// (tenant, id).
	GetJob, JobByLink, JobExists *Stmt
	// Attempts of (job, tenant); Events of (job, tenant, after, limit).
	Attempts, Events *Stmt
	// LapsedLeases of (now, owner, limit).
	LapsedLeases *Stmt
	// List is the ListJobs query of each set of filter bits (ListQuery).
	List [ListQueries]*Stmt
}

// pushColumns are what scanPushConfig reads.
const pushColumns = `tenant_id, job_id, id, url, token, auth_scheme, auth_credentials, created_at`

// HistoryColumns are what ScanHistory reads, of history or memory (whose
// scope and project (scope_key) a history query names as constants).
const HistoryColumns = `tenant_id, session_id, scope, scope_key, question_hash, type, question, answer, job_id, at, expires_at, uses`

// sessionColumns are HistoryColumns of the history table.
const sessionColumns = `tenant_id, session_id, 'session' AS scope, '' AS scope_key, question_hash, type, question, answer, job_id, at, CAST(NULL AS timestamptz) AS expires_at, CAST(0 AS bigint) AS uses`

// The statements both stores run. Those a store's own write path runs
// in its transactions are exported.
var (
	UpsertHistory = shared(`INSERT INTO history
			(tenant_id, session_id, question_hash, type, question, answer, job_id, at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
			ON CONFLICT (tenant_id, session_id, question_hash) DO UPDATE SET
			type = excluded.type, question = excluded.question, answer = excluded.answer,
			job_id = excluded.job_id, at = excluded.at`)
	// UpsertMemory keeps, of two answers racing for an entry, the later
	// (by time, then job id, so that every replica agrees).
	UpsertMemory = shared(`INSERT INTO memory
			(tenant_id, scope, scope_key, question_hash, type, question, answer, job_id, session_id, at, expires_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
			ON CONFLICT (tenant_id, scope, scope_key, question_hash) DO UPDATE SET
			type = excluded.type, question = excluded.question, answer = excluded.answer,
			job_id = excluded.job_id, session_id = excluded.session_id, at = excluded.at, expires_at = excluded.expires_at
			WHERE excluded.at > memory.at OR (excluded.at = memory.at AND excluded.job_id > memory.job_id)`)
	UseMemory = shared(`UPDATE memory SET uses = uses + 1
			WHERE tenant_id = $1 AND scope = $2 AND scope_key = $3 AND question_hash = $4`)
	// lookupHistory reads the session's answer alone, the columns its
	// key does not say (historyRow.scanSession): every column of a
	// result costs the driver calls into SQLite for its name and type,
	// on every query, found or not. lookupMemory is one statement, one
	// primary-key seek per scope, nearest first.
	lookupHistory = shared(`SELECT type, question, answer, job_id, at
			FROM history WHERE tenant_id = $1 AND session_id = $2 AND question_hash = $3`)
	lookupMemory = shared(`SELECT ` + HistoryColumns + ` FROM (
			SELECT 0 AS rank, ` + sessionColumns + ` FROM history
				WHERE tenant_id = $1 AND session_id = $2 AND question_hash = $3
			UNION ALL
			SELECT 1, ` + HistoryColumns + ` FROM memory
				WHERE tenant_id = $1 AND scope = 'project' AND scope_key = $4 AND question_hash = $3 AND expires_at > $6
			UNION ALL
			SELECT 2, ` + HistoryColumns + ` FROM memory
				WHERE $5 AND tenant_id = $1 AND scope = 'tenant' AND scope_key = '' AND question_hash = $3 AND expires_at > $6
			) m ORDER BY rank LIMIT 1`)
	history = shared(`SELECT ` + sessionColumns + `
			FROM history WHERE tenant_id = $1 AND session_id = $2 ORDER BY at, question_hash`)
	memory = shared(`SELECT ` + HistoryColumns + `
			FROM memory WHERE tenant_id = $1 AND scope = $2 AND scope_key = $3 AND expires_at > $4
			ORDER BY at DESC, question_hash`)
	forgetSession = shared(`DELETE FROM history WHERE tenant_id = $1 AND session_id = $2 AND question_hash = $3`)
	forgetShared  = shared(`DELETE FROM memory WHERE tenant_id = $1 AND scope = $2 AND scope_key = $3 AND question_hash = $4`)

	// InsertLink: a job asks once, so its link is written once; the same
	// row again is harmless.
	InsertLink = shared(`INSERT INTO answer_links (token_hash, tenant_id, job_id, created_at)
			VALUES ($1, $2, $3, $4) ON CONFLICT (token_hash) DO NOTHING`)
	message = shared(`SELECT ref FROM notify_messages WHERE tenant_id = $1 AND job_id = $2 AND channel = $3`)
	// putMessage keeps the first message of a job on a channel.
	putMessage = shared(`INSERT INTO notify_messages (tenant_id, job_id, channel, ref)
			VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`)

	// DueQuestions repeats the WHERE of SQLite's jobs_active, which
	// covers it (SQLite uses a partial index only then).
	DueQuestions = shared(`SELECT tenant_id, id FROM jobs
			WHERE status = 'pending' AND status IN ('planning', 'pending') AND clarification_expires_at IS NOT NULL
			AND clarification_expires_at <= $1
			ORDER BY clarification_expires_at, id LIMIT $2`)
	// lead: the upsert's WHERE decides: a free, lapsed or own lead is
	// taken; a live one of another owner is left, and then no row
	// returns.
	lead = shared(`INSERT INTO leaders (name, owner, until) VALUES ($1, $2, $4)
			ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, until = excluded.until
			WHERE leaders.owner = excluded.owner OR leaders.until <= $3
			RETURNING owner`)

	renewKeyLease = shared(`INSERT INTO idempotency_leases (owner, expires_at) VALUES ($1, $2)
			ON CONFLICT (owner) DO UPDATE SET expires_at = excluded.expires_at`)
	// A lapsed lease and no lease mean the same: dead.
	dropKeyLeases = shared(`DELETE FROM idempotency_leases WHERE expires_at <= $1`)
	endKeyLease   = shared(`DELETE FROM idempotency_leases WHERE owner = $1`)
	claimKey      = shared(`INSERT INTO idempotency
			(tenant_id, key, fingerprint, owner, job_id, base_version, status, body, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, 0, NULL, $7) ON CONFLICT (tenant_id, key) DO NOTHING`)
	readKey = shared(`SELECT fingerprint, owner, job_id, base_version, status, body, created_at
			FROM idempotency WHERE tenant_id = $1 AND key = $2`)
	completeKey = shared(`UPDATE idempotency SET status = $1, body = $2
			WHERE tenant_id = $3 AND key = $4 AND owner = $5 AND status = 0`)
	abandonKey = shared(`UPDATE idempotency SET owner = ''
			WHERE tenant_id = $1 AND key = $2 AND owner = $3 AND status = 0`)

	// putPushConfig replaces the job's config of the same id.
	putPushConfig = shared(`INSERT INTO push_configs (` + pushColumns + `)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
			ON CONFLICT (tenant_id, job_id, id) DO UPDATE SET
			url = excluded.url, token = excluded.token, auth_scheme = excluded.auth_scheme,
			auth_credentials = excluded.auth_credentials, created_at = excluded.created_at`)
	pushConfig = shared(`SELECT ` + pushColumns + ` FROM push_configs
			WHERE tenant_id = $1 AND job_id = $2 AND id = $3`)
	pushConfigs = shared(`SELECT ` + pushColumns + ` FROM push_configs
			WHERE tenant_id = $1 AND job_id = $2 ORDER BY created_at, id`)
	deletePushConfig = shared(`DELETE FROM push_configs WHERE tenant_id = $1 AND job_id = $2 AND id = $3`)
)
