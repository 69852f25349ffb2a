package sqlite

import (
	"database/sql"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/storetest"
	sqlite3 "modernc.org/sqlite/lib"
)

// logFixture writes, with the SQL of schema version 9 (the store before
// migration 00010), a pending job "a" with goal, files, spec schema, an
// attempt, a question and answer link, and a dispatched job "b" with an
// attempt, a history entry, and their events with ids that increase
// across the store (event_ids gave them out). It returns the path of the
// closed database.
func logFixture(t *testing.T) string {
	t.Helper()
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "askonce.db")
	old := migrateTo(t, path, 9)
	for _, q := range []string{
		`INSERT INTO jobs (id, tenant_id, session_id, mode, profile, hard_cap, title, status,
			clarification_status, clarification_question, clarification_type, clarification_options,
			result, error, attempt_count, prompt_tokens, version, created_at, updated_at)
			VALUES ('a', 't', 's', 'gate', 'minecraft-mod', 'fail', 'Cheese', 'pending', 'asked',
			'Hot or frozen?', 'SELECT_ONE', '["hot","frozen"]', '{"q":1}', '', 1, 3, 2, 100, 200)`,
		`INSERT INTO jobs_static VALUES ('a', 'hot frozen cheese', '["src/Cheese.java"]', '{"type":"object"}')`,
		`INSERT INTO jobs (id, tenant_id, session_id, mode, profile, hard_cap, title, status,
			clarification_status, plan, error, dispatch_status, prompt_tokens, attempt_count, version, created_at, updated_at)
			VALUES ('b', 't', 's', 'managed', '', 'fallback', 'Copper', 'success', 'none',
			'{"title":"Copper","tasks":[{"id":"t1","title":"Block","instruction":"Register it"}]}', '', 'queued', 7, 1, 2, 150, 250)`,
		`INSERT INTO jobs_static (id, goal) VALUES ('b', 'copper ore')`,
		`INSERT INTO attempts VALUES ('a', 1, 't', 'initial', 90, 5, 'question', '{"q":1}', '', 3, 1, 0.5)`,
		`INSERT INTO attempts VALUES ('b', 1, 't', 'initial', 140, 6, 'plan', '{"p":1}', 'none', 7, 0, 0)`,
		`INSERT INTO dispatches (job_id, tenant_id, created_at, status) VALUES ('b', 't', 250, 'queued')`,
		`INSERT INTO answer_links (token_hash, tenant_id, job_id, created_at) VALUES (x'01', 't', 'a', 200)`,
		`INSERT INTO history VALUES ('t', 's', 'h', 'FREE_TEXT', 'Which ore?', 'copper', 'b', 240)`,
		`INSERT INTO events VALUES ('a', 10, 't', 'created', 100, NULL)`,
		`INSERT INTO events VALUES ('b', 11, 't', 'created', 150, NULL)`,
		`INSERT INTO events VALUES ('a', 12, 't', 'asked', 200, '{"n":1}')`,
		`UPDATE event_ids SET last = 12`,
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

// Opening a database of schema version 9 moves the fixed fields,
// attempts, events and dispatches into job_log and keeps every one: the
// jobs read back whole, the attempts and events as they were (events
// with their ids, so a client's Last-Event-ID still resumes where it
// was), a dispatched job is not dispatched again, and a job's new events
// take ids after its old ones. A result that is an attempt's raw output
// becomes a reference to the attempt.
func TestMigrationToTheJobLogKeepsEveryRecord(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s, err := Open(ctx, logFixture(t))
	if err != nil {
		t.Fatalf("open a version 9 database: %v", err)
	}
	defer s.Close()

	a, err := s.GetJob(ctx, "t", "a")
	if err != nil {
		t.Fatal(err)
	}
	if a.Goal != "hot frozen cheese" || !slices.Equal(a.Files, []string{"src/Cheese.java"}) || string(a.SpecSchema) != `{"type":"object"}` ||
		a.Question == nil || a.Question.Text != "Hot or frozen?" || a.AttemptCount != 1 || a.Version != 2 || a.Result != `{"q":1}` {
		t.Errorf("job a after the migration: %+v", a)
	}
	if res, att := storedResult(t, s, "a"); res.Valid || att.Int64 != 1 {
		t.Errorf("result of a after the migration: %v and attempt %v, want a reference to attempt 1", res, att)
	}
	if got, err := s.JobByAnswerLink(ctx, []byte{1}); err != nil || got.ID != "a" || got.Goal != "hot frozen cheese" {
		t.Errorf("answer link after the migration: %+v, %v", got, err)
	}
	as, err := s.Attempts(ctx, "t", "a")
	if err != nil || len(as) != 1 {
		t.Fatalf("attempts of a after the migration: %+v, %v", as, err)
	}
	if at := as[0]; at.N != 1 || at.Reason != askonce.ReasonInitial || at.StartedAt.UnixNano() != 90 || at.Duration != 5 ||
		at.Outcome != askonce.AttemptQuestion || at.Raw != `{"q":1}` || at.Error != "" ||
		at.Usage != (askonce.Usage{PromptTokens: 3, CompletionTokens: 1, CostUSD: 0.5}) {
		t.Errorf("attempt of a after the migration: %+v", at)
	}
	if bs, err := s.Attempts(ctx, "t", "b"); err != nil || len(bs) != 1 || bs[0].Raw != `{"p":1}` || bs[0].Error != "none" {
		t.Errorf("attempts of b after the migration: %+v, %v", bs, err)
	}
	if _, err := s.Attempts(ctx, "other", "a"); askonce.ErrorCode(err) != askonce.ENOTFOUND {
		t.Errorf("attempts of a in another tenant: %v, want ENOTFOUND", err)
	}
	evs, err := s.Events(ctx, askonce.EventQuery{TenantID: "t", JobID: "a"})
	if err != nil || !slices.Equal(eventIDs(evs), []int64{10, 12}) || string(evs[1].Data) != `{"n":1}` ||
		evs[1].Type != askonce.EventAsked || evs[1].At.UnixNano() != 200 || evs[1].TenantID != "t" || evs[1].JobID != "a" {
		t.Fatalf("events of a after the migration: %+v, %v", evs, err)
	}
	if h, err := s.LookupHistory(ctx, askonce.HistoryQuery{TenantID: "t", SessionID: "s", QuestionHash: "h"}); err != nil || h.Answer != "copper" {
		t.Errorf("history after the migration: %+v, %v", h, err)
	}

	step(t, s, a, askonce.Answered{Answer: askonce.TextAnswer("hot")})
	evs, err = s.Events(ctx, askonce.EventQuery{TenantID: "t", JobID: "a", After: 12})
	if err != nil || len(evs) == 0 || evs[0].ID != 13 {
		t.Errorf("events appended to a after the migration: %+v, %v; want ids from 13", evs, err)
	}

	b, err := s.GetJob(ctx, "t", "b")
	if err != nil {
		t.Fatal(err)
	}
	err = s.UpdateJob(ctx, &askonce.Change{Job: b, Dispatch: true})
	if askonce.ErrorCode(err) != askonce.ECONFLICT {
		t.Errorf("second dispatch of b after the migration: %v, want ECONFLICT", err)
	}
	if got := pragma(t, s.writer, "foreign_keys"); got != "1" {
		t.Errorf("foreign_keys = %s after the migration, want 1", got)
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

// Migrating back to version 9 restores jobs_static, attempts, events,
// dispatches and event_ids with every row, and the events numbered
// across the store again in each job's order.
func TestMigrationDownFromTheJobLogRestoresTheTables(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	path := logFixture(t)
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	db := migrateDown(t, path, 10, 9)
	for _, c := range []struct {
		query string
		want  int
	}{
		{`SELECT count(*) FROM jobs_static WHERE (id = 'a' AND goal = 'hot frozen cheese' AND spec_schema IS NOT NULL) OR (id = 'b' AND goal = 'copper ore')`, 2},
		{`SELECT count(*) FROM attempts WHERE tenant_id = 't' AND ((job_id = 'a' AND outcome = 'question' AND raw = '{"q":1}' AND started_at = 90) OR (job_id = 'b' AND raw = '{"p":1}'))`, 2},
		{`SELECT count(*) FROM dispatches WHERE job_id = 'b' AND tenant_id = 't' AND created_at = 250 AND status = 'queued'`, 1},
		{`SELECT count(*) FROM events WHERE tenant_id = 't'`, 3},
		{`SELECT count(*) FROM event_ids WHERE last = (SELECT max(id) FROM events)`, 1},
		{`SELECT count(*) FROM jobs WHERE id = 'a' AND result = '{"q":1}'`, 1},
		{`SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'jobs'
			AND name IN ('jobs_active', 'jobs_due', 'jobs_lease') AND sql LIKE '%WHERE status%'`, 3},
	} {
		var n int
		if err := db.QueryRowContext(ctx, c.query).Scan(&n); err != nil || n != c.want {
			t.Errorf("%s: %d, %v; want %d", c.query, n, err, c.want)
		}
	}
	var types string
	if err := db.QueryRowContext(ctx, `SELECT group_concat(type, ',') FROM (SELECT type FROM events WHERE job_id = 'a' ORDER BY id)`).Scan(&types); err != nil || types != "created,asked" {
		t.Errorf("events of a after the migration down: %q, %v; want created,asked", types, err)
	}
	if got := pragma(t, db, "foreign_keys"); got != "1" {
		t.Errorf("foreign_keys = %s after the migration down, want 1", got)
	}
}

// queryPlan returns the EXPLAIN QUERY PLAN details of query on db.
func queryPlan(t *testing.T, db *sql.DB, query string, args ...any) string {
	t.Helper()
	rows, err := db.QueryContext(t.Context(), "EXPLAIN QUERY PLAN "+query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, notused int
		var detail string
		if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	return strings.Join(plan, "; ")
}

// Every read and write of job_log seeks its rowids (a job's records by
// their range, the next job's number and a job's last event by the end
// of one), and none scans or sorts.
func TestJobLogQueriesSeek(t *testing.T) {
	t.Parallel()
	s := openTest(t, Options{})
	for _, q := range []struct {
		name, query string
		args        []any
	}{
		{"job", selectJobSQL, []any{"t", "j"}},
		{"attempts", attemptsSQL, []any{"j", "t"}},
		{"events", eventsSQL, []any{"j", "t", 0, 10}},
		{"next log_seq", nextLogSeqSQL, nil},
		{"last event", lastEventIDSQL, []any{1, 2}},
	} {
		plan := queryPlan(t, s.writer, q.query, q.args...)
		if !strings.Contains(plan, "USING INTEGER PRIMARY KEY") && plan != "SEARCH job_log" {
			t.Errorf("%s: plan %q does not seek job_log's rowids", q.name, plan)
		}
		if strings.Contains(plan, "SCAN") || strings.Contains(plan, "TEMP B-TREE") {
			t.Errorf("%s: plan %q scans or sorts", q.name, plan)
		}
	}
}

// storedResult reads how the job's result is stored: its text in the row,
// and the attempt it refers to.
func storedResult(t *testing.T, s *Store, id string) (result sql.NullString, attempt sql.NullInt64) {
	t.Helper()
	if err := s.writer.QueryRowContext(t.Context(), `SELECT result, result_attempt FROM jobs WHERE id = ?`, id).Scan(&result, &attempt); err != nil {
		t.Fatal(err)
	}
	return result, attempt
}

// A result that is the raw output of an attempt is stored once, as a
// reference to the attempt, and kept while updates keep it; another
// result is stored as text. Every read returns the text.
func TestResultOfAnAttemptIsStoredOnce(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := openTest(t, Options{})
	j := storetest.NewJob(storetest.NewTenant())
	raw := `{"question": "Hot or frozen?"}`
	j.Status, j.Result = askonce.StatusPending, raw
	if err := s.CreateJob(ctx, &askonce.Change{Job: j, Attempts: []askonce.Attempt{
		{N: 1, Reason: askonce.ReasonInitial, Outcome: askonce.AttemptInvalid, Raw: "{"},
		{N: 2, Reason: askonce.ReasonRetryParseError, Outcome: askonce.AttemptQuestion, Raw: raw},
	}}); err != nil {
		t.Fatal(err)
	}
	check := func(when string, wantAttempt int64) {
		t.Helper()
		res, att := storedResult(t, s, j.ID)
		if wantAttempt != 0 && (res.Valid || att.Int64 != wantAttempt) {
			t.Errorf("%s: stored as %v and attempt %v, want a reference to attempt %d", when, res, att, wantAttempt)
		}
		if wantAttempt == 0 && (res.String != j.Result || att.Valid) {
			t.Errorf("%s: stored as %v and attempt %v, want the text", when, res, att)
		}
		got, err := s.GetJob(ctx, j.TenantID, j.ID)
		if err != nil || got.Result != j.Result {
			t.Errorf("%s: result read back %q, %v; want %q", when, got.Result, err, j.Result)
		}
		page, err := s.ListJobs(ctx, j.TenantID, askonce.JobFilter{})
		if err != nil || len(page.Jobs) != 1 || page.Jobs[0].Result != j.Result {
			t.Errorf("%s: listed %+v, %v; want the result %q", when, page, err, j.Result)
		}
	}
	check("created", 2)
	j.Status = askonce.StatusPlanning
	if err := s.UpdateJob(ctx, &askonce.Change{Job: j}); err != nil {
		t.Fatal(err)
	}
	check("updated with the same result", 2)
	j.Status, j.Result = askonce.StatusValidationError, "not an attempt's"
	if err := s.UpdateJob(ctx, &askonce.Change{Job: j}); err != nil {
		t.Fatal(err)
	}
	check("updated with another result", 0)
	j.Result = raw
	if err := s.UpdateJob(ctx, &askonce.Change{Job: j}); err != nil {
		t.Fatal(err)
	}
	check("updated back to the attempt's text, without the attempt", 0)
}

// An attempt's reason, duration, usage and error are one column of its
// job_log record (a record has six columns, whatever its kind; the sixth
// holds the kind 0 record's candidates), and
// read back exactly as written: a cost that is not a short decimal, an
// error with quotes and newlines, negative zero, and the zero values
// that the column leaves out.
func TestAttemptFieldsAreOneColumn(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := openTest(t, Options{})
	j := storetest.NewJob(storetest.NewTenant())
	want := []askonce.Attempt{
		{N: 1, Reason: askonce.ReasonInitial, Outcome: askonce.AttemptInvalid, Raw: "{"},
		{N: 2, Reason: askonce.ReasonRetryParseError, StartedAt: time.Unix(0, 123).UTC(), Duration: 7854,
			Outcome: askonce.AttemptQuestion, Raw: `{"q":1}`, Error: "bad \"json\"\n<&>",
			Usage: askonce.Usage{PromptTokens: 5, CompletionTokens: 32, CostUSD: 0.1 + 0.2}},
		{N: 3, Reason: askonce.ReasonInitial, Usage: askonce.Usage{CostUSD: math.Copysign(0, -1)}},
	}
	if err := s.CreateJob(ctx, &askonce.Change{Job: j, Attempts: want}); err != nil {
		t.Fatal(err)
	}
	got, err := s.Attempts(ctx, j.TenantID, j.ID)
	if err != nil || len(got) != len(want) {
		t.Fatalf("attempts: %+v, %v", got, err)
	}
	for i := range want {
		if got[i] != want[i] || math.Signbit(got[i].Usage.CostUSD) != math.Signbit(want[i].Usage.CostUSD) {
			t.Errorf("attempt %d read back %+v, want %+v", i+1, got[i], want[i])
		}
	}
	var more string
	if err := s.writer.QueryRowContext(ctx, `SELECT l.more FROM jobs j JOIN job_log l ON l.id = `+logIDSQL("j.log_seq", logAttempt)+` | 1
		WHERE j.id = ?`, j.ID).Scan(&more); err != nil || more != `["initial"]` {
		t.Errorf("attempt 1 stored as %q, %v; want [\"initial\"]", more, err)
	}
	var cols int
	if err := s.writer.QueryRowContext(ctx, `SELECT count(*) FROM pragma_table_info('job_log')`).Scan(&cols); err != nil || cols != 7 {
		t.Errorf("job_log has %d columns, %v; want 7 (the kind 0 record's candidates and memory last)", cols, err)
	}
}

// A store that migrated a database starts with the pages the migrations
// rewrote in the database file, not in the WAL, and its writer back on
// temp_store(MEMORY), which the migrations ran without (see migrate).
func TestMigrationLeavesItsPagesOutOfTheWALAndTheWritersPragmas(t *testing.T) {
	t.Parallel()
	path := logFixture(t)
	s, err := Open(t.Context(), path)
	if err != nil {
		t.Fatalf("open a version 9 database: %v", err)
	}
	defer s.Close()
	// Open writes one page after the migrations (the answer links'
	// secret): the WAL's header and at most two frames.
	const frame = 24 + 4096
	if got := walSize(t, path); got > 32+2*frame {
		t.Errorf("WAL is %d bytes after the migration, want at most %d (two frames)", got, 32+2*frame)
	}
	var tempStore int
	if err := s.WriteDB().QueryRow(`PRAGMA temp_store`).Scan(&tempStore); err != nil {
		t.Fatal(err)
	}
	if tempStore != 2 {
		t.Errorf("the writer's temp_store is %d after the migration, want 2 (MEMORY)", tempStore)
	}
}

// A change's attempts and events are inserted together, maxLogRows
// records a statement: a change with more of them than one statement
// holds stores every one, the events numbered on from the job's last
// event, in order, and the attempts by their numbers.
func TestRule12_ChangeWithMoreRecordsThanOneStatementStoresEveryEvent(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := openTest(t, Options{})
	j := storetest.NewJob(storetest.NewTenant())
	events := func(n int, typ askonce.EventType) []askonce.Event {
		evs := make([]askonce.Event, n)
		for i := range evs {
			evs[i] = askonce.Event{Type: typ, Data: []byte(fmt.Sprintf(`{"i":%d}`, i))}
		}
		return evs
	}
	attempts := func(from, n int) []askonce.Attempt {
		as := make([]askonce.Attempt, n)
		for i := range as {
			as[i] = askonce.Attempt{N: from + i, Reason: askonce.ReasonInitial, Outcome: askonce.AttemptInvalid, Raw: fmt.Sprint("raw ", from+i)}
		}
		return as
	}
	if err := s.CreateJob(ctx, &askonce.Change{Job: j, Attempts: attempts(1, 3), Events: events(maxLogRows, askonce.EventCreated)}); err != nil {
		t.Fatal(err)
	}
	c := &askonce.Change{Job: j, Attempts: attempts(4, maxLogRows), Events: events(2*maxLogRows+1, askonce.EventAttempt)}
	if err := s.UpdateJob(ctx, c); err != nil {
		t.Fatal(err)
	}
	if got, want := eventIDs(c.Events), int64(maxLogRows+1); len(got) != 2*maxLogRows+1 || got[0] != want || got[len(got)-1] != 3*maxLogRows+1 {
		t.Errorf("the update's events took ids %v; want %d to %d", got, want, 3*maxLogRows+1)
	}
	evs, err := s.Events(ctx, askonce.EventQuery{TenantID: j.TenantID, JobID: j.ID})
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 3*maxLogRows+1 {
		t.Fatalf("%d events stored, want %d", len(evs), 3*maxLogRows+1)
	}
	for i, e := range evs {
		if e.ID != int64(i+1) {
			t.Errorf("event %d has id %d, want %d", i, e.ID, i+1)
		}
	}
	if last := evs[len(evs)-1]; string(last.Data) != fmt.Sprintf(`{"i":%d}`, 2*maxLogRows) || last.Type != askonce.EventAttempt {
		t.Errorf("the last event is %s %s; want the update's last", last.Type, last.Data)
	}
	as, err := s.Attempts(ctx, j.TenantID, j.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(as) != 3+maxLogRows {
		t.Fatalf("%d attempts stored, want %d", len(as), 3+maxLogRows)
	}
	for i, a := range as {
		if a.N != i+1 || a.Raw != fmt.Sprint("raw ", i+1) {
			t.Errorf("attempt %d read back as %d %q", i+1, a.N, a.Raw)
		}
	}
	if got, err := s.GetJob(ctx, j.TenantID, j.ID); err != nil || got.AttemptCount != 3+maxLogRows {
		t.Errorf("the job counts %d attempts (%v), want %d", got.AttemptCount, err, 3+maxLogRows)
	}
}

// The dispatch is inserted with a change's other job_log records, the
// last of them: a second dispatch of a job is ECONFLICT wherever its
// record falls (after as many records as one statement holds, too),
// and a change that fails on another record first fails with that
// record's error, as when the dispatch was a statement of its own after
// the others.
func TestRule11_SecondDispatchIsTheConflictOnlyWhenItsRecordIsTaken(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := openTest(t, Options{})
	j := storetest.NewJob(storetest.NewTenant())
	first := askonce.Attempt{N: 1, Reason: askonce.ReasonInitial, Outcome: askonce.AttemptInvalid, Raw: "first"}
	if err := s.CreateJob(ctx, &askonce.Change{Job: j, Attempts: []askonce.Attempt{first}, Dispatch: true}); err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{0, 1, maxLogRows - 1, maxLogRows, maxLogRows + 1} {
		evs := make([]askonce.Event, n)
		for i := range evs {
			evs[i] = askonce.Event{Type: askonce.EventDispatched}
		}
		err := s.UpdateJob(ctx, &askonce.Change{Job: j.Clone(), Dispatch: true, Events: evs})
		var e *askonce.Error
		if !errors.As(err, &e) || e.Code != askonce.ECONFLICT || e.Job == nil || e.Job.Version != j.Version {
			t.Errorf("second dispatch after %d events: %v, want ECONFLICT with the stored job", n, err)
		}
	}
	again := first
	again.Raw = "again"
	err := s.UpdateJob(ctx, &askonce.Change{Job: j.Clone(), Dispatch: true, Attempts: []askonce.Attempt{again}})
	if err == nil || askonce.ErrorCode(err) == askonce.ECONFLICT || !isConstraint(err, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY) {
		t.Errorf("a taken attempt and a second dispatch: %v, want the attempt's primary key violation", err)
	}
	if evs, err := s.Events(ctx, askonce.EventQuery{TenantID: j.TenantID, JobID: j.ID}); err != nil || len(evs) != 0 {
		t.Errorf("events %v, %v after the failed changes, want none", evs, err)
	}
}

// Only a job's kind 0 record holds candidates and memory: the other
// records' are NULL in the insert's text, not bound (logWidth), in
// every statement of a change with more records than one holds, the
// kind 0 record first among them.
func TestOnlyTheKindZeroRecordHoldsCandidatesAndMemory(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := openTest(t, Options{})
	j := storetest.NewJob(storetest.NewTenant())
	j.Candidates = []string{"black pepper", "bell pepper"}
	j.Memory = &askonce.Memory{Scope: askonce.MemoryProject, Project: "cheese"}
	var attempts []askonce.Attempt
	for n := 1; n <= 3; n++ {
		attempts = append(attempts, askonce.Attempt{N: n, Reason: askonce.ReasonInitial, Outcome: askonce.AttemptInvalid, Raw: fmt.Sprint("raw ", n)})
	}
	events := make([]askonce.Event, maxLogRows)
	for i := range events {
		events[i] = askonce.Event{Type: askonce.EventCreated, Data: []byte(fmt.Sprintf(`{"i":%d}`, i))}
	}
	if err := s.CreateJob(ctx, &askonce.Change{Job: j, Attempts: attempts, Events: events, Dispatch: true}); err != nil {
		t.Fatal(err)
	}
	rows, err := s.writer.QueryContext(ctx, `SELECT l.id - (j.log_seq << 32), l.candidates, l.memory
		FROM jobs j JOIN job_log l ON l.id >= (j.log_seq << 32) AND l.id < ((j.log_seq + 1) << 32)
		WHERE j.id = ? ORDER BY l.id`, j.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for ; rows.Next(); n++ {
		var (
			id                 int64
			candidates, memory sql.NullString
		)
		if err := rows.Scan(&id, &candidates, &memory); err != nil {
			t.Fatal(err)
		}
		switch {
		case id == 0 && (candidates.String != `["black pepper","bell pepper"]` || !strings.Contains(memory.String, `"project":"cheese"`)):
			t.Errorf("the kind 0 record holds candidates %v and memory %v, want the job's", candidates, memory)
		case id != 0 && (candidates.Valid || memory.Valid):
			t.Errorf("record %d holds candidates %v and memory %v, want NULL", id, candidates, memory)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if want := 1 + len(attempts) + len(events) + 1; n != want {
		t.Errorf("%d records, want %d (kind 0, attempts, events, dispatch)", n, want)
	}
	got, err := s.GetJob(ctx, j.TenantID, j.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Candidates, j.Candidates) || got.Memory == nil || *got.Memory != *j.Memory {
		t.Errorf("job read back with candidates %q and memory %+v, want %q and %+v", got.Candidates, got.Memory, j.Candidates, j.Memory)
	}
}
