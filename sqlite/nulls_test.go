package sqlite

import (
	"database/sql"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/storetest"
)

// optionalColumns are the job columns that are NULL until set (a value or
// NULL, never an empty string).
var optionalColumns = []string{
	"clarification_question", "clarification_type", "clarification_options",
	"clarification_default", "clarification_reason", "clarification_expires_at",
	"clarification_value", "clarification_source", "clarification_answered_at",
	"resolved_prompt", "result",
}

// nullColumns reads the job's optionalColumns with SQL and returns those
// that hold NULL.
func nullColumns(t *testing.T, db *sql.DB, id string) []string {
	t.Helper()
	vals := make([]any, len(optionalColumns))
	ptrs := make([]any, len(optionalColumns))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	q := "SELECT " + strings.Join(optionalColumns, ", ") + " FROM jobs WHERE id = ?"
	if err := db.QueryRowContext(t.Context(), q, id).Scan(ptrs...); err != nil {
		t.Fatalf("read columns of job %s: %v", id, err)
	}
	var nulls []string
	for i, v := range vals {
		if v == nil {
			nulls = append(nulls, optionalColumns[i])
		}
	}
	return nulls
}

// without returns optionalColumns less the given ones.
func without(set ...string) []string {
	return slices.DeleteFunc(slices.Clone(optionalColumns), func(c string) bool { return slices.Contains(set, c) })
}

// step applies in to j with askonce.Step and writes the result, as the
// engine does.
func step(t *testing.T, s *Store, j *askonce.Job, in askonce.Input) *askonce.Job {
	t.Helper()
	next, fx, err := askonce.Step(j, in, storetest.Now())
	if err != nil {
		t.Fatalf("step %T: %v", in, err)
	}
	if err := s.UpdateJob(t.Context(), &askonce.Change{Job: next, Events: fx.Events, History: fx.History, Dispatch: fx.Dispatch}); err != nil {
		t.Fatalf("update after %T: %v", in, err)
	}
	return next
}

func checkNulls(t *testing.T, when string, s *Store, id string, want []string) {
	t.Helper()
	if got := nullColumns(t, s.writer, id); !slices.Equal(got, want) {
		t.Errorf("%s: NULL columns %v, want %v", when, got, want)
	}
}

// The clarification columns are NULL until set, never empty
// strings; what was set reads back as written.
func TestClarificationColumnsAreNullUntilSet(t *testing.T) {
	t.Parallel()
	s := openTest(t, Options{})
	ctx := t.Context()
	j := storetest.NewJob(storetest.NewTenant())
	if err := s.CreateJob(ctx, &askonce.Change{Job: j}); err != nil {
		t.Fatal(err)
	}
	checkNulls(t, "created", s, j.ID, optionalColumns)

	// A question without default, reason or expiry: those stay NULL, and
	// so does result (the pending job keeps no output).
	q := askonce.Question{Type: askonce.QuestionSelectOne, Text: "Hot or frozen?", Options: []string{"hot", "frozen"}}
	j = step(t, s, j, askonce.Asked{Question: q})
	checkNulls(t, "asked", s, j.ID, without("clarification_question", "clarification_type", "clarification_options"))
	if got, err := s.GetJob(ctx, j.TenantID, j.ID); err != nil || got.Result != "" || got.Answer.String() != "" || got.ResolvedPrompt != "" || got.Question.Default != "" {
		t.Fatalf("asked job read back: %+v, %v", got, err)
	}

	j = step(t, s, j, askonce.Answered{Answer: askonce.TextAnswer("hot")})
	checkNulls(t, "answered", s, j.ID, []string{"clarification_default", "clarification_reason", "clarification_expires_at", "result"})
	got, err := s.GetJob(ctx, j.TenantID, j.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Answer.String() != "hot" || got.AnswerSource != askonce.SourceUser || got.AnsweredAt == nil ||
		got.ResolvedPrompt != askonce.ResolvedPrompt(j.Goal, "hot") {
		t.Errorf("answered job read back: answer %q source %q at %v prompt %q", got.Answer, got.AnswerSource, got.AnsweredAt, got.ResolvedPrompt)
	}
}

// A question with every optional field stores each of them.
func TestQuestionDefaultAndReasonAreStoredWhenSet(t *testing.T) {
	t.Parallel()
	s := openTest(t, Options{})
	j := storetest.NewJob(storetest.NewTenant())
	if err := s.CreateJob(t.Context(), &askonce.Change{Job: j}); err != nil {
		t.Fatal(err)
	}
	exp := storetest.Now().Add(time.Hour)
	q := askonce.Question{Type: askonce.QuestionConfirm, Text: "Overwrite it?", Options: []string{"yes", "no"},
		Default: "no", Reason: "target_file_exists", ExpiresAt: &exp}
	j = step(t, s, j, askonce.Asked{Question: q})
	checkNulls(t, "asked", s, j.ID, []string{"clarification_value", "clarification_source", "clarification_answered_at", "resolved_prompt", "result"})
}

// A declined question without a default leaves the answer NULL: the
// source says who decided, the time says when, but no one answered.
func TestDeclineWithoutDefaultLeavesTheAnswerNull(t *testing.T) {
	t.Parallel()
	s := openTest(t, Options{})
	j := storetest.NewJob(storetest.NewTenant())
	if err := s.CreateJob(t.Context(), &askonce.Change{Job: j}); err != nil {
		t.Fatal(err)
	}
	j = step(t, s, j, askonce.Asked{Question: askonce.Question{Type: askonce.QuestionFreeText, Text: "Which colour?"}})
	j = step(t, s, j, askonce.Decline{})
	checkNulls(t, "declined", s, j.ID, []string{"clarification_options", "clarification_default", "clarification_reason",
		"clarification_expires_at", "clarification_value", "resolved_prompt", "result"})
	got, err := s.GetJob(t.Context(), j.TenantID, j.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Answer.String() != "" || got.AnswerSource != askonce.SourceDefault || got.AnsweredAt == nil || !got.FallbackUsed {
		t.Errorf("declined job read back: answer %q source %q at %v fallback %v", got.Answer, got.AnswerSource, got.AnsweredAt, got.FallbackUsed)
	}
}

// migrateTo brings the database at path to the given schema version only.
func migrateTo(t *testing.T, path string, version int64) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", dsn(path, 5*time.Second, false, defaultCheckpointSize))
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	p, err := migrator(db)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.UpTo(t.Context(), version); err != nil {
		t.Fatalf("migrate to %d: %v", version, err)
	}
	return db
}

// migrateDown brings the database at path, of schema version from, back
// to version to.
func migrateDown(t *testing.T, path string, from, to int64) *sql.DB {
	t.Helper()
	db := migrateTo(t, path, from)
	p, err := migrator(db)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.DownTo(t.Context(), to); err != nil {
		t.Fatalf("migrate down to %d: %v", to, err)
	}
	return db
}

// A database written by the first schema holds empty strings in the
// clarification columns it had nothing for. Opening it migrates those to
// NULL, keeps every set value and every row that refers to a job, and
// leaves foreign keys enforced.
func TestMigrationTurnsEmptyClarificationColumnsIntoNull(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "askonce.db")
	old := migrateTo(t, path, 1)

	// The rows as the first schema's store wrote them: a planning job, a
	// pending one (question without default or reason) and an answered,
	// dispatched one.
	const insert = `INSERT INTO jobs (tenant_id, id, session_id, mode, goal, profile, hard_cap, title, status,
		clarification_status, clarification_question, clarification_type, clarification_options,
		clarification_default, clarification_reason, clarification_cosmetic, clarification_expires_at,
		clarification_answer, clarification_source, clarification_answered_at, resolved_prompt,
		result, error, version, created_at, updated_at)
		VALUES ('t', ?, 's', 'managed', 'hot frozen cheese', '', 'fallback', 'Hot frozen cheese', ?,
		?, ?, ?, ?, ?, ?, 0, NULL, ?, ?, ?, ?, ?, '', 1, 1, 1)`
	rows := []struct {
		id, status, clar                       string
		question, typ, options, def, reason    any
		answer, source, answeredAt, prompt, rs any
	}{
		{"planning", "planning", "none", nil, nil, nil, nil, nil, "", "", nil, "", ""},
		{"pending", "pending", "asked", "Hot or frozen?", "SELECT_ONE", `["hot","frozen"]`, "", "", "", "", nil, "", ""},
		{"answered", "success", "answered", "Hot or frozen?", "SELECT_ONE", `["hot","frozen"]`, "hot", "contradiction",
			"hot", "user", int64(5), "hot frozen cheese\n\nClarification Answer: hot", `{"question":{}}`},
	}
	for _, r := range rows {
		if _, err := old.ExecContext(ctx, insert, r.id, r.status, r.clar, r.question, r.typ, r.options, r.def, r.reason,
			r.answer, r.source, r.answeredAt, r.prompt, r.rs); err != nil {
			t.Fatalf("insert %s job: %v", r.id, err)
		}
	}
	for _, q := range []string{
		`INSERT INTO attempts VALUES ('answered', 1, 't', 'initial', 1, 1, 'plan', '{}', '', 1, 1, 0)`,
		`INSERT INTO events (tenant_id, job_id, type, at) VALUES ('t', 'answered', 'planned', 1)`,
		`INSERT INTO dispatches (job_id, tenant_id, created_at, status) VALUES ('answered', 't', 1, 'queued')`,
	} {
		if _, err := old.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := old.Close(); err != nil {
		t.Fatal(err)
	}

	s, err := Open(ctx, path)
	if err != nil {
		t.Fatalf("open the first schema's database: %v", err)
	}
	defer s.Close()
	checkNulls(t, "planning job", s, "planning", optionalColumns)
	checkNulls(t, "pending job", s, "pending", without("clarification_question", "clarification_type", "clarification_options"))
	// Stored before answers were typed: its text moved from
	// clarification_answer (gone) to clarification_value as {"old":
	// text}, which askonce.OldAnswer reads typed.
	checkNulls(t, "answered job", s, "answered", []string{"clarification_expires_at"})

	answered, err := s.GetJob(ctx, "t", "answered")
	if err != nil {
		t.Fatal(err)
	}
	if !answered.Answer.Equal(askonce.AnswerOf(askonce.OptionValue("hot"))) || answered.AnswerSource != askonce.SourceUser || answered.Question.Default != "hot" ||
		answered.ResolvedPrompt != "hot frozen cheese\n\nClarification Answer: hot" || answered.Result != `{"question":{}}` {
		t.Errorf("answered job after the migration: %+v", answered)
	}
	if as, err := s.Attempts(ctx, "t", "answered"); err != nil || len(as) != 1 {
		t.Errorf("attempts after the migration: %v, %v", as, err)
	}
	if evs, err := s.Events(ctx, askonce.EventQuery{TenantID: "t", JobID: "answered"}); err != nil || len(evs) != 1 {
		t.Errorf("events after the migration: %v, %v", evs, err)
	}
	if rows := dispatchRowsOf(t, s, "answered"); len(rows) != 1 {
		t.Errorf("dispatch rows after the migration: %+v, want one", rows)
	}

	if got := pragma(t, s.writer, "foreign_keys"); got != "1" {
		t.Errorf("foreign_keys = %s after the migration, want 1", got)
	}
	if _, err := s.writer.ExecContext(ctx, `INSERT INTO answer_links (token_hash, tenant_id, job_id, created_at) VALUES (x'ff', 't', 'no-such-job', 1)`); err == nil {
		t.Error("an answer link of a job that does not exist was written: the foreign key is gone")
	}
	fkRows, err := s.writer.QueryContext(ctx, `PRAGMA foreign_key_check`)
	if err != nil {
		t.Fatal(err)
	}
	if fkRows.Next() {
		t.Error("foreign_key_check reports a violation after the migration")
	}
	fkRows.Close()

	indexes := map[string]bool{}
	ixRows, err := s.writer.QueryContext(ctx, `SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'jobs' AND sql IS NOT NULL`)
	if err != nil {
		t.Fatal(err)
	}
	for ixRows.Next() {
		var name string
		if err := ixRows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		indexes[name] = true
	}
	ixRows.Close()
	want := []string{"jobs_active", "jobs_by_tenant", "jobs_by_tenant_session", "jobs_ended", "jobs_ended_by_session"}
	if got := slices.Sorted(maps.Keys(indexes)); !slices.Equal(got, want) {
		t.Errorf("indexes of jobs after the migration: %v, want %v", got, want)
	}

	// The migrated pending job is answered like any other.
	pending, err := s.GetJob(ctx, "t", "pending")
	if err != nil {
		t.Fatal(err)
	}
	step(t, s, pending, askonce.Answered{Answer: askonce.TextAnswer("frozen")})
	checkNulls(t, "pending job answered after the migration", s, "pending",
		[]string{"clarification_default", "clarification_reason", "clarification_expires_at", "result"})
}

// The migration back restores the first schema's NOT NULL columns, with
// empty strings for the NULLs.
func TestMigrationDownRestoresEmptyStrings(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "askonce.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	j := storetest.NewJob(storetest.NewTenant())
	if err := s.CreateJob(ctx, &askonce.Change{Job: j}); err != nil {
		t.Fatal(err)
	}
	s.Close()

	db := migrateDown(t, path, 2, 1)
	var answer, source, prompt, result any
	if err := db.QueryRowContext(ctx, `SELECT clarification_answer, clarification_source, resolved_prompt, result FROM jobs WHERE id = ?`, j.ID).
		Scan(&answer, &source, &prompt, &result); err != nil {
		t.Fatal(err)
	}
	for _, v := range []any{answer, source, prompt, result} {
		if v == nil {
			t.Errorf("a NOT NULL column of the first schema holds NULL after the migration down")
		}
	}
	if _, err := db.ExecContext(ctx, `UPDATE jobs SET resolved_prompt = NULL WHERE id = ?`, j.ID); err == nil {
		t.Error("resolved_prompt took NULL: the first schema's NOT NULL is not back")
	}
	if got := pragma(t, db, "foreign_keys"); got != "1" {
		t.Errorf("foreign_keys = %s after the migration down, want 1", got)
	}
}
