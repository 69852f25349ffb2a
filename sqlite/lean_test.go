package sqlite

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/storetest"
)

// leanFixture writes, with the SQL of schema version 5 (the store before
// migration 00006), a pending job "a" with goal, files, spec schema,
// question and answer link, a dispatched job "b" with an attempt and a
// plan, and their events with the ids AUTOINCREMENT gave them. It returns
// the path of the closed database.
func leanFixture(t *testing.T) string {
	t.Helper()
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "askonce.db")
	old := migrateTo(t, path, 5)
	for _, q := range []string{
		`INSERT INTO jobs (tenant_id, id, session_id, mode, goal, profile, files, hard_cap, spec_schema, title, status,
			clarification_status, clarification_question, clarification_type, clarification_options,
			clarification_cosmetic, clarification_allow_other, error, version, created_at, updated_at)
			VALUES ('t', 'a', 's', 'gate', 'hot frozen cheese', 'minecraft-mod', '["src/Cheese.java"]', 'fail',
			'{"type":"object"}', 'Cheese', 'pending', 'asked', 'Hot or frozen?', 'SELECT_ONE', '["hot","frozen"]',
			0, 1, '', 2, 100, 200)`,
		`INSERT INTO jobs (tenant_id, id, session_id, mode, goal, profile, hard_cap, title, status,
			clarification_status, plan, error, dispatch_status, prompt_tokens, attempt_count, version, created_at, updated_at)
			VALUES ('t', 'b', 's', 'managed', 'copper ore', '', 'fallback', 'Copper', 'success', 'none',
			'{"title":"Copper","tasks":[{"id":"t1","title":"Block","instruction":"Register it"}]}', '', 'queued', 7, 1, 2, 150, 250)`,
		`INSERT INTO attempts VALUES ('b', 1, 't', 'initial', 1, 1, 'plan', '{}', '', 7, 0, 0)`,
		`INSERT INTO dispatches (job_id, tenant_id, created_at, status) VALUES ('b', 't', 250, 'queued')`,
		`INSERT INTO answer_links (token_hash, tenant_id, job_id, created_at) VALUES (x'01', 't', 'a', 200)`,
		`INSERT INTO events (id, tenant_id, job_id, type, at) VALUES (10, 't', 'a', 'created', 100)`,
		`INSERT INTO events (id, tenant_id, job_id, type, at) VALUES (11, 't', 'b', 'created', 150)`,
		`INSERT INTO events (id, tenant_id, job_id, type, at, data) VALUES (12, 't', 'a', 'asked', 200, '{"n":1}')`,
	} {
		if _, err := old.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := old.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func eventIDs(evs []askonce.Event) []int64 {
	var ids []int64
	for _, e := range evs {
		ids = append(ids, e.ID)
	}
	return ids
}

// Opening a database of schema version 5 migrates it to the lean schema
// and keeps every job with its fixed and changing fields, the events with
// their ids (a client's Last-Event-ID still resumes where it was), the
// attempts, the dispatch and the answer link; new events take ids after
// the old ones, a job id stays unique across tenants, and foreign keys
// are enforced.
func TestMigrationToTheLeanSchemaKeepsEveryRow(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s, err := Open(ctx, leanFixture(t))
	if err != nil {
		t.Fatalf("open a version 5 database: %v", err)
	}
	defer s.Close()

	a, err := s.GetJob(ctx, "t", "a")
	if err != nil {
		t.Fatal(err)
	}
	if a.Goal != "hot frozen cheese" || !slices.Equal(a.Files, []string{"src/Cheese.java"}) || string(a.SpecSchema) != `{"type":"object"}` ||
		a.Mode != askonce.ModeGate || a.Profile != "minecraft-mod" || a.HardCap != askonce.HardCapFail || a.SessionID != "s" ||
		a.Title != "Cheese" || a.Status != askonce.StatusPending || a.Version != 2 ||
		a.Question == nil || a.Question.Text != "Hot or frozen?" || !a.Question.AllowOther || len(a.Question.Options) != 2 {
		t.Errorf("job a after the migration: %+v, question %+v", a, a.Question)
	}
	b, err := s.GetJob(ctx, "t", "b")
	if err != nil {
		t.Fatal(err)
	}
	if b.Goal != "copper ore" || b.Plan == nil || len(b.Plan.Tasks) != 1 || b.Usage.PromptTokens != 7 || b.AttemptCount != 1 || b.Dispatch != askonce.DispatchQueued {
		t.Errorf("job b after the migration: %+v", b)
	}
	page, err := s.ListJobs(ctx, "t", askonce.JobFilter{})
	if err != nil || len(page.Jobs) != 2 || page.Jobs[0].ID != "b" || page.Jobs[1].Goal != "hot frozen cheese" {
		t.Errorf("list after the migration: %+v, %v", page, err)
	}
	if as, err := s.Attempts(ctx, "t", "b"); err != nil || len(as) != 1 {
		t.Errorf("attempts after the migration: %v, %v", as, err)
	}
	if got, err := s.JobByAnswerLink(ctx, []byte{1}); err != nil || got.ID != "a" {
		t.Errorf("answer link after the migration: %v, %v", got, err)
	}

	evs, err := s.Events(ctx, askonce.EventQuery{TenantID: "t", JobID: "a"})
	if err != nil || !slices.Equal(eventIDs(evs), []int64{10, 12}) || string(evs[1].Data) != `{"n":1}` {
		t.Fatalf("events of a after the migration: %+v, %v", evs, err)
	}
	if evs, err := s.Events(ctx, askonce.EventQuery{TenantID: "t", JobID: "a", After: 10}); err != nil || !slices.Equal(eventIDs(evs), []int64{12}) {
		t.Errorf("events of a after 10: %+v, %v", evs, err)
	}

	// The pending job is answered like any other; its new events follow
	// every old id.
	step(t, s, a, askonce.Answered{Answer: askonce.TextAnswer("hot")})
	evs, err = s.Events(ctx, askonce.EventQuery{TenantID: "t", JobID: "a", After: 12})
	if err != nil || len(evs) == 0 || evs[0].ID <= 12 {
		t.Errorf("events appended after the migration: %+v, %v", evs, err)
	}
	if got, err := s.GetJob(ctx, "t", "a"); err != nil || got.Answer.String() != "hot" || got.Goal != "hot frozen cheese" {
		t.Errorf("job a answered after the migration: %+v, %v", got, err)
	}

	// A dispatched job is not dispatched twice.
	b.Status = askonce.StatusSuccess
	err = s.UpdateJob(ctx, &askonce.Change{Job: b, Dispatch: true})
	if askonce.ErrorCode(err) != askonce.ECONFLICT {
		t.Errorf("second dispatch of b after the migration: %v, want ECONFLICT", err)
	}
	// Job ids are unique across tenants.
	dup := storetest.NewJob(storetest.NewTenant())
	dup.ID = "a"
	if err := s.CreateJob(ctx, &askonce.Change{Job: dup}); askonce.ErrorCode(err) != askonce.ECONFLICT {
		t.Errorf("a job id of another tenant created again: %v, want ECONFLICT", err)
	}

	if got := pragma(t, s.writer, "foreign_keys"); got != "1" {
		t.Errorf("foreign_keys = %s after the migration, want 1", got)
	}
	if _, err := s.writer.ExecContext(ctx, `INSERT INTO answer_links (token_hash, tenant_id, job_id, created_at) VALUES (x'ff', 't', 'no-such-job', 1)`); err == nil {
		t.Error("an answer link of a job that does not exist was written: the foreign key is gone")
	}
	rows, err := s.writer.QueryContext(ctx, `PRAGMA foreign_key_check`)
	if err != nil {
		t.Fatal(err)
	}
	if rows.Next() {
		t.Error("foreign_key_check reports a violation after the migration")
	}
	rows.Close()
}

// Migrating back to version 5 restores the events' AUTOINCREMENT ids:
// each job's events in their order (migration 00010 numbers them again,
// since its ids increase per job), and new ids go on after every one.
func TestMigrationDownFromTheLeanSchemaKeepsEventOrder(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	path := leanFixture(t)
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	a, err := s.GetJob(ctx, "t", "a")
	if err != nil {
		t.Fatal(err)
	}
	step(t, s, a, askonce.Answered{Answer: askonce.TextAnswer("hot")})
	evs, err := s.Events(ctx, askonce.EventQuery{TenantID: "t", JobID: "a"})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()

	db := migrateDown(t, path, 6, 5)
	var goal string
	if err := db.QueryRowContext(ctx, `SELECT goal FROM jobs WHERE tenant_id = 't' AND id = 'a'`).Scan(&goal); err != nil || goal != "hot frozen cheese" {
		t.Errorf("goal after the migration down: %q, %v", goal, err)
	}
	rows, err := db.QueryContext(ctx, `SELECT type FROM events WHERE job_id = 'a' ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	var types []askonce.EventType
	for rows.Next() {
		var typ string
		if err := rows.Scan(&typ); err != nil {
			t.Fatal(err)
		}
		types = append(types, askonce.EventType(typ))
	}
	rows.Close()
	if !slices.Equal(types, eventTypes(evs)) {
		t.Errorf("events of a after the migration down: %v, want %v", types, eventTypes(evs))
	}
	var last int64
	if err := db.QueryRowContext(ctx, `SELECT max(id) FROM events`).Scan(&last); err != nil {
		t.Fatal(err)
	}
	var next int64
	if err := db.QueryRowContext(ctx, `INSERT INTO events (tenant_id, job_id, type, at) VALUES ('t', 'b', 'x', 1) RETURNING id`).Scan(&next); err != nil || next <= last {
		t.Errorf("event id after the migration down: %d, %v; want > %d", next, err, last)
	}
	if got := pragma(t, db, "foreign_keys"); got != "1" {
		t.Errorf("foreign_keys = %s after the migration down, want 1", got)
	}
}

func eventTypes(evs []askonce.Event) []askonce.EventType {
	var out []askonce.EventType
	for _, e := range evs {
		out = append(out, e.Type)
	}
	return out
}
