package sqlstore

import "reflect"

// SQL is the statements both stores run, in one store's placeholders
// (Statements).
type SQL struct {
	JobExists string

	UpsertHistory string
	// UpsertMemory keeps, of two answers racing for an entry, the later
	// (by time, then job id, so that every replica agrees).
	UpsertMemory string
	UseMemory    string
	// LookupHistory reads the session's answer alone; LookupMemory is
	// one statement, one primary-key seek per scope, nearest first.
	LookupHistory, LookupMemory string
	History, Memory             string
	ForgetSession, ForgetShared string

	// InsertLink: a job asks once, so its link is written once; the same
	// row again is harmless.
	InsertLink string
	Message    string
	// PutMessage keeps the first message of a job on a channel.
	PutMessage string

	DueQuestions string
	// Lead: the upsert's WHERE decides: a free, lapsed or own lead is
	// taken; a live one of another owner is left, and then no row
	// returns.
	Lead string

	RenewKeyLease, DropKeyLeases, EndKeyLease  string
	ClaimKey, ReadKey, CompleteKey, AbandonKey string

	// PutPushConfig replaces the job's config of the same id.
	PutPushConfig, PushConfig, PushConfigs, DeletePushConfig string
}

// pushColumns are what scanPushConfig reads.
const pushColumns = `tenant_id, job_id, id, url, token, auth_scheme, auth_credentials, created_at`

// HistoryColumns are what ScanHistory reads, of history or memory (whose
// scope and project (scope_key) a history query names as constants).
const HistoryColumns = `tenant_id, session_id, scope, scope_key, question_hash, type, question, answer, job_id, at, expires_at, uses`

// sessionColumns are HistoryColumns of the history table.
const sessionColumns = `tenant_id, session_id, 'session' AS scope, '' AS scope_key, question_hash, type, question, answer, job_id, at, CAST(NULL AS timestamptz) AS expires_at, CAST(0 AS bigint) AS uses`

// Statements returns the shared statements in p's placeholders.
func Statements(p Placeholders) SQL {
	s := SQL{
		JobExists: `SELECT 1 FROM jobs WHERE tenant_id = $1 AND id = $2`,

		UpsertHistory: `INSERT INTO history
			(tenant_id, session_id, question_hash, type, question, answer, job_id, at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
			ON CONFLICT (tenant_id, session_id, question_hash) DO UPDATE SET
			type = excluded.type, question = excluded.question, answer = excluded.answer,
			job_id = excluded.job_id, at = excluded.at`,
		UpsertMemory: `INSERT INTO memory
			(tenant_id, scope, scope_key, question_hash, type, question, answer, job_id, session_id, at, expires_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
			ON CONFLICT (tenant_id, scope, scope_key, question_hash) DO UPDATE SET
			type = excluded.type, question = excluded.question, answer = excluded.answer,
			job_id = excluded.job_id, session_id = excluded.session_id, at = excluded.at, expires_at = excluded.expires_at
			WHERE excluded.at > memory.at OR (excluded.at = memory.at AND excluded.job_id > memory.job_id)`,
		UseMemory: `UPDATE memory SET uses = uses + 1
			WHERE tenant_id = $1 AND scope = $2 AND scope_key = $3 AND question_hash = $4`,
		LookupHistory: `SELECT ` + sessionColumns + `
			FROM history WHERE tenant_id = $1 AND session_id = $2 AND question_hash = $3`,
		LookupMemory: `SELECT ` + HistoryColumns + ` FROM (
			SELECT 0 AS rank, ` + sessionColumns + ` FROM history
				WHERE tenant_id = $1 AND session_id = $2 AND question_hash = $3
			UNION ALL
			SELECT 1, ` + HistoryColumns + ` FROM memory
				WHERE tenant_id = $1 AND scope = 'project' AND scope_key = $4 AND question_hash = $3 AND expires_at > $6
			UNION ALL
			SELECT 2, ` + HistoryColumns + ` FROM memory
				WHERE $5 AND tenant_id = $1 AND scope = 'tenant' AND scope_key = '' AND question_hash = $3 AND expires_at > $6
			) m ORDER BY rank LIMIT 1`,
		History: `SELECT ` + sessionColumns + `
			FROM history WHERE tenant_id = $1 AND session_id = $2 ORDER BY at, question_hash`,
		Memory: `SELECT ` + HistoryColumns + `
			FROM memory WHERE tenant_id = $1 AND scope = $2 AND scope_key = $3 AND expires_at > $4
			ORDER BY at DESC, question_hash`,
		ForgetSession: `DELETE FROM history WHERE tenant_id = $1 AND session_id = $2 AND question_hash = $3`,
		ForgetShared:  `DELETE FROM memory WHERE tenant_id = $1 AND scope = $2 AND scope_key = $3 AND question_hash = $4`,

		InsertLink: `INSERT INTO answer_links (token_hash, tenant_id, job_id, created_at)
			VALUES ($1, $2, $3, $4) ON CONFLICT (token_hash) DO NOTHING`,
		Message: `SELECT ref FROM notify_messages WHERE tenant_id = $1 AND job_id = $2 AND channel = $3`,
		PutMessage: `INSERT INTO notify_messages (tenant_id, job_id, channel, ref)
			VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`,

		DueQuestions: `SELECT tenant_id, id FROM jobs
			WHERE status = 'pending' AND clarification_expires_at IS NOT NULL
			AND clarification_expires_at <= $1
			ORDER BY clarification_expires_at, id LIMIT $2`,
		Lead: `INSERT INTO leaders (name, owner, until) VALUES ($1, $2, $4)
			ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, until = excluded.until
			WHERE leaders.owner = excluded.owner OR leaders.until <= $3
			RETURNING owner`,

		RenewKeyLease: `INSERT INTO idempotency_leases (owner, expires_at) VALUES ($1, $2)
			ON CONFLICT (owner) DO UPDATE SET expires_at = excluded.expires_at`,
		// A lapsed lease and no lease mean the same: dead.
		DropKeyLeases: `DELETE FROM idempotency_leases WHERE expires_at <= $1`,
		EndKeyLease:   `DELETE FROM idempotency_leases WHERE owner = $1`,
		ClaimKey: `INSERT INTO idempotency
			(tenant_id, key, fingerprint, owner, job_id, base_version, status, body, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, 0, NULL, $7) ON CONFLICT (tenant_id, key) DO NOTHING`,
		ReadKey: `SELECT fingerprint, owner, job_id, base_version, status, body, created_at
			FROM idempotency WHERE tenant_id = $1 AND key = $2`,
		CompleteKey: `UPDATE idempotency SET status = $1, body = $2
			WHERE tenant_id = $3 AND key = $4 AND owner = $5 AND status = 0`,
		AbandonKey: `UPDATE idempotency SET owner = ''
			WHERE tenant_id = $1 AND key = $2 AND owner = $3 AND status = 0`,

		PutPushConfig: `INSERT INTO push_configs (` + pushColumns + `)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
			ON CONFLICT (tenant_id, job_id, id) DO UPDATE SET
			url = excluded.url, token = excluded.token, auth_scheme = excluded.auth_scheme,
			auth_credentials = excluded.auth_credentials, created_at = excluded.created_at`,
		PushConfig: `SELECT ` + pushColumns + ` FROM push_configs
			WHERE tenant_id = $1 AND job_id = $2 AND id = $3`,
		PushConfigs: `SELECT ` + pushColumns + ` FROM push_configs
			WHERE tenant_id = $1 AND job_id = $2 ORDER BY created_at, id`,
		DeletePushConfig: `DELETE FROM push_configs WHERE tenant_id = $1 AND job_id = $2 AND id = $3`,
	}
	v := reflect.ValueOf(&s).Elem()
	for i := range v.NumField() {
		v.Field(i).SetString(p.Rebind(v.Field(i).String()))
	}
	return s
}
