package postgres

import (
	"bytes"
	"io/fs"
	"slices"
	"testing"
	"time"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/postgres/pgtest"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
)

// schemaVersion returns the goose version of the schema dsn names.
func schemaVersion(t *testing.T, pool *pgxpool.Pool) int64 {
	t.Helper()
	fsys, err := fs.Sub(migrations, "migrations")
	if err != nil {
		t.Fatal(err)
	}
	db := stdlib.OpenDBFromPool(pool)
	defer db.Close()
	p, err := goose.NewProvider(goose.DialectPostgres, db, fsys, goose.WithDisableGlobalRegistry(true))
	if err != nil {
		t.Fatal(err)
	}
	v, err := p.GetDBVersion(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// latestVersion is the version of the newest embedded migration.
func latestVersion(t *testing.T) int64 {
	vs := versions(t)
	return vs[len(vs)-1]
}

// previousVersion is the version of the embedded migration before the
// newest (versions need not be consecutive: each branch takes its own),
// or the newest if it is the only one.
func previousVersion(t *testing.T) int64 {
	t.Helper()
	vs := versions(t)
	return vs[max(len(vs)-2, 0)]
}

// versions are the versions of the embedded migrations, in order.
func versions(t *testing.T) []int64 {
	t.Helper()
	files, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil || len(files) == 0 {
		t.Fatalf("embedded migrations: %v %v", files, err)
	}
	var out []int64
	for _, f := range files {
		v, err := goose.NumericComponent(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	slices.Sort(out)
	return out
}

func TestMigrateFromAnEmptyDatabase(t *testing.T) {
	t.Parallel()
	dsn := pgtest.Schema(t)
	s, err := Open(t.Context(), dsn)
	if err != nil {
		t.Fatalf("open an empty database: %v", err)
	}
	defer s.Close()
	latest := latestVersion(t)
	if v := schemaVersion(t, s.pool); v != latest {
		t.Fatalf("schema version %d after open, want %d", v, latest)
	}
	// The schema works: a job round-trips.
	j := &askonce.Job{ID: "01a20000-0000-7000-8000-000000000001", TenantID: "t", SessionID: "s", Mode: askonce.ModeManaged,
		Goal: "g", HardCap: askonce.HardCapFallback, Title: "g", Status: askonce.StatusPlanning, ClarificationStatus: askonce.ClarificationNone}
	if err := s.CreateJob(t.Context(), &askonce.Change{Job: j, Events: []askonce.Event{{Type: askonce.EventCreated}}}); err != nil {
		t.Fatal(err)
	}
	// Opening a migrated database again applies nothing and keeps the rows.
	again, err := Open(t.Context(), dsn)
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer again.Close()
	if v := schemaVersion(t, again.pool); v != latest {
		t.Fatalf("schema version %d after reopen, want %d", v, latest)
	}
	if _, err := again.GetJob(t.Context(), "t", j.ID); err != nil {
		t.Fatalf("the job after reopen: %v", err)
	}
}

// versionRows writes, in a database at a schema version, the rows a
// process of that version would have written: a pending job with its
// static part, two events, a history entry, an answer link, an
// idempotency record and the link secret. A new migration adds the rows
// of the version before it here.
var versionRows = map[int64]string{
	1: version1Rows,
	// Version 2 (planning leases) writes the same rows; its planning job
	// holds no lease (the columns' defaults), so the checks below hold.
	2: version1Rows,
	// Version 3 (jobs_active) adds an index only.
	3: version1Rows,
	// Version 4 (candidates) writes the same rows: a job without
	// candidates (the column NULL), which reads back as nil.
	4: version1Rows,
	// Version 5 (list indexes) adds indexes only: the same rows, read
	// back without recipients (00006_notify).
	5: version1Rows,
	// Version 6 (notify) writes the same rows: no recipients, and the
	// default session memory (migration 00007).
	6: version1Rows,
	// Version 7 (memory) writes the same rows: the default session
	// memory (NULL columns) and no push configs (00008_push_configs).
	7: version1Rows,
	// Version 8 (push configs) writes the same rows: a question without
	// fields (clarification_fields NULL, 00009_question_fields).
	8: version1Rows,
	// Version 9 (question fields) writes the same rows: a pending
	// question, no answer (clarification_value NULL, 00010_typed_answers).
	9: version1Rows,
}

const version1Rows = `
INSERT INTO jobs (id, tenant_id, session_id, mode, profile, hard_cap, title, status, clarification_status,
    clarification_question, clarification_type, clarification_options, clarification_expires_at,
    error, prompt_tokens, completion_tokens, cost_usd, attempt_count, version, created_at, updated_at)
VALUES ('01a20000-0000-7000-8000-0000000000aa', 'acme', 'sess', 'managed', 'general', 'fallback', 'Cheese',
    'pending', 'asked', 'Hot or frozen?', 'SELECT_ONE', '{hot,frozen}', '2026-11-24 12:00:00+00',
    '', 12, 3, 0.5, 1, 3, '2026-11-23 10:00:00.123456+00', '2026-11-23 10:00:01+00');
INSERT INTO jobs_static (id, goal, files, spec_schema)
VALUES ('01a20000-0000-7000-8000-0000000000aa', 'hot frozen cheese', '{a.go}', '{"type": "object"}');
INSERT INTO attempts (job_id, n, tenant_id, reason, started_at, duration_ns, outcome, raw, error,
    prompt_tokens, completion_tokens, cost_usd)
VALUES ('01a20000-0000-7000-8000-0000000000aa', 1, 'acme', 'initial', '2026-11-23 10:00:00+00', 1000, 'question', '{}', '', 12, 3, 0.5);
INSERT INTO events (job_id, tenant_id, type, at, data) VALUES
    ('01a20000-0000-7000-8000-0000000000aa', 'acme', 'created', '2026-11-23 10:00:00+00', NULL),
    ('01a20000-0000-7000-8000-0000000000aa', 'acme', 'asked', '2026-11-23 10:00:01+00', '{"question": "Hot or frozen?"}');
INSERT INTO history (tenant_id, session_id, question_hash, type, question, answer, job_id, at)
VALUES ('acme', 'sess', 'h1', 'CONFIRM', 'Overwrite?', 'yes', '01a20000-0000-7000-8000-0000000000aa', '2026-11-23 09:00:00+00');
INSERT INTO answer_links (token_hash, tenant_id, job_id, created_at)
VALUES ('\x0102', 'acme', '01a20000-0000-7000-8000-0000000000aa', '2026-11-23 10:00:01+00');
INSERT INTO idempotency (tenant_id, key, fingerprint, status, body, created_at, owner, job_id, base_version)
VALUES ('acme', 'k1', 'POST /jobs x', 201, '\x7b7d', '2026-11-23 10:00:00+00', '', '01a20000-0000-7000-8000-0000000000aa', 0);
INSERT INTO settings (name, value) VALUES ('answer_link_secret', '\x000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f');
INSERT INTO jobs (id, tenant_id, session_id, mode, profile, hard_cap, title, status, clarification_status,
    error, version, created_at, updated_at)
VALUES ('01a20000-0000-7000-8000-0000000000bb', 'acme', 'sess', 'managed', 'general', 'fallback', 'Left planning',
    'planning', 'none', '', 1, '2026-11-23 10:00:00+00', '2026-11-23 10:00:00+00');
INSERT INTO jobs_static (id, goal) VALUES ('01a20000-0000-7000-8000-0000000000bb', 'copper ore');
`

// A database of the previous schema version, with rows, migrates up on
// Open and the store reads every row as it was written. (While there is
// one migration, the rows are written at it, and Open must keep them as
// they are.)
func TestMigrateFromThePreviousVersionKeepsItsRows(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	from := previousVersion(t)
	rows, ok := versionRows[from]
	if !ok {
		t.Fatalf("versionRows has no rows for schema version %d: add what a process of that version writes", from)
	}
	dsn := pgtest.Schema(t)
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if err := migrateTo(ctx, pool, from); err != nil {
		t.Fatalf("migrate to version %d: %v", from, err)
	}
	if _, err := pool.Exec(ctx, rows); err != nil {
		t.Fatalf("write the rows of version %d: %v", from, err)
	}

	s, err := Open(ctx, dsn)
	if err != nil {
		t.Fatalf("open (migrate up from %d): %v", from, err)
	}
	defer s.Close()
	if v, latest := schemaVersion(t, s.pool), latestVersion(t); v != latest {
		t.Fatalf("schema version %d, want %d", v, latest)
	}
	const id = "01a20000-0000-7000-8000-0000000000aa"
	j, err := s.GetJob(ctx, "acme", id)
	if err != nil {
		t.Fatalf("the job: %v", err)
	}
	if j.Status != askonce.StatusPending || j.Version != 3 || j.Goal != "hot frozen cheese" || j.Question == nil ||
		j.Question.Text != "Hot or frozen?" || len(j.Question.Options) != 2 || j.Usage.PromptTokens != 12 ||
		j.CreatedAt.Nanosecond() != 123456000 || len(j.Files) != 1 || j.Candidates != nil || string(j.SpecSchema) != `{"type": "object"}` ||
		j.Memory != nil || j.AnswerMemory != nil {
		t.Errorf("the job reads back as %+v", j)
	}
	evs, err := s.Events(ctx, askonce.EventQuery{TenantID: "acme", JobID: id})
	if err != nil || len(evs) != 2 || evs[1].Type != askonce.EventAsked {
		t.Fatalf("events %v (%v), want created and asked", evs, err)
	}
	if h, err := s.LookupHistory(ctx, askonce.HistoryQuery{TenantID: "acme", SessionID: "sess", QuestionHash: "h1"}); err != nil || h.Answer != "yes" {
		t.Errorf("history %+v (%v), want the answer yes", h, err)
	}
	if lj, err := s.JobByAnswerLink(ctx, []byte{1, 2}); err != nil || lj.ID != id {
		t.Errorf("answer link finds %v (%v), want job %s", lj, err, id)
	}
	if sec := s.LinkSecret(); len(sec) != 32 || sec[31] != 0x1f {
		t.Errorf("link secret %x, want the stored one", sec)
	}
	got, tookOver, err := s.ClaimIdempotencyKey(ctx, &askonce.IdempotencyRecord{TenantID: "acme", Key: "k1", Fingerprint: "POST /jobs x", Owner: "new"})
	if err != nil || tookOver || got == nil || got.Status != 201 || !bytes.Equal(got.Body, []byte("{}")) {
		t.Errorf("idempotency record %+v (%v, took over %v), want the stored 201", got, err, tookOver)
	}
	// A job a process of version 1 left in planning has no lease: the
	// first sweep takes it over (migration 00002).
	refs, err := s.LapsedLeases(ctx, askonce.LeaseQuery{Now: time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)})
	if err != nil || len(refs) != 1 || refs[0].ID != "01a20000-0000-7000-8000-0000000000bb" {
		t.Errorf("lapsed leases after the migration: %v (%v), want the planning job alone", refs, err)
	}
	if p, err := s.GetJob(ctx, "acme", "01a20000-0000-7000-8000-0000000000bb"); err != nil || p.Lease != (askonce.Lease{}) {
		t.Errorf("the planning job reads back as %+v (%v), want no lease", p, err)
	}
	// The job goes on: its next events come after the migrated ones.
	j.Status = askonce.StatusSuccess
	c := &askonce.Change{Job: j, Events: []askonce.Event{{Type: askonce.EventAnswered}}}
	if err := s.UpdateJob(ctx, c); err != nil {
		t.Fatalf("update the migrated job: %v", err)
	}
	if c.Events[0].ID <= evs[1].ID || j.Version != 4 {
		t.Errorf("new event id %d after %d, version %d; want a larger id and version 4", c.Events[0].ID, evs[1].ID, j.Version)
	}
}
