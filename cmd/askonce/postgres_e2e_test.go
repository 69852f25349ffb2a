package main_test

import (
	"context"
	"github.com/askonce/askonce/postgres"
	"net/url"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/askonce/askonce/postgres/pgtest"
	"github.com/jackc/pgx/v5"
)

// withPassword returns dsn with a password for its user. The test server
// trusts loopback connections, so the password is never asked for: it is
// there to show that no log line carries it.
func withPassword(t *testing.T, dsn, password string) string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword(u.User.Username(), password)
	return u.String()
}

// TestPostgres: askonce serve on PostgreSQL.
func TestPostgres(t *testing.T) {
	t.Parallel()
	t.Run("ClarificationRoundTrip", postgresClarificationRoundTrip)
	t.Run("WarnsWhenAutovacuumSkipsItsTables", postgresWarnsWhenAutovacuumSkipsItsTables)
}

// askonce serve on PostgreSQL (ASKONCE_DB=postgres://...): a question, its
// answer, the builder's delivery through River on PostgreSQL, the rows in
// the database itself, and a log that never shows the password. The
// terminal commands (jobs list, run) work on the same database.
func postgresClarificationRoundTrip(t *testing.T) {
	t.Parallel()
	const password = "pw-never-logged-7f3a"
	dsn := withPassword(t, pgtest.Schema(t), password)
	rc := newReceiver(t, 0)
	env, args := rc.args()
	in := start(t, append(env, "ASKONCE_DB="+dsn), args...)

	r := in.do("POST", "/jobs", map[string]any{"prompt": "hot frozen cheese"})
	if r.status != 201 || r.body["needsClarification"] != true || str(r.body, "clarificationQuestion") == "" {
		t.Fatalf("create: %d %s", r.status, r.raw)
	}
	id := str(r.body, "jobId")
	a := in.do("POST", "/jobs/"+id+"/clarification", map[string]any{"answer": "hot"})
	if a.status != 200 || a.body["success"] != true || str(a.body, "status") != "success" {
		t.Fatalf("answer: %d %s", a.status, a.raw)
	}
	if again := in.do("POST", "/jobs/"+id+"/clarification", map[string]any{"answer": "frozen"}); again.status != 409 {
		t.Fatalf("second answer: %d %s", again.status, again.raw)
	}
	eventually(t, "the builder to be triggered", func() bool { return rc.ackedCount(id) == 1 })
	eventually(t, "delivery to be recorded", func() bool {
		return str(in.do("GET", "/jobs/"+id, nil).body, "dispatchStatus") == "delivered"
	})

	// The job is in PostgreSQL, not in a file named after the URL.
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var status, answer, dispatch string
	// The answer is stored typed (clarification_value, jsonb): the
	// option "hot" as an option.
	if err := conn.QueryRow(ctx, `SELECT status, clarification_value::text, dispatch_status FROM jobs WHERE id = $1`, id).
		Scan(&status, &answer, &dispatch); err != nil {
		t.Fatalf("read the job from PostgreSQL: %v", err)
	}
	if status != "success" || !strings.Contains(answer, `"hot"`) || dispatch != "delivered" {
		t.Fatalf("PostgreSQL holds status %q, answer %q, dispatch %q; want success, an answer holding hot, delivered", status, answer, dispatch)
	}

	// The terminal commands take the same --db.
	out, errs, code := runCLI(t, "", nil, "jobs", "list", "--db", dsn)
	if code != 0 || !strings.Contains(out, id) {
		t.Fatalf("askonce jobs list --db <postgres url>: exit %d\n%s%s", code, out, errs)
	}

	out, errs2, code := runCLI(t, "", nil, "run", "--no-input", "--db", dsn, "write the README then add tests")
	if code != 0 {
		t.Fatalf("askonce run --db <postgres url>: exit %d\n%s%s", code, out, errs2)
	}
	var runs int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM jobs_static WHERE goal = 'write the README then add tests'`).Scan(&runs); err != nil || runs != 1 {
		t.Fatalf("askonce run stored %d jobs in PostgreSQL (%v), want 1", runs, err)
	}
	errs += errs2

	in.stop(syscall.SIGTERM)
	logs := in.logs.String()
	if strings.Contains(logs, password) || strings.Contains(errs, password) {
		t.Fatalf("a log shows the database password:\n%s%s", logs, errs)
	}
	if !strings.Contains(logs, "postgres://") {
		t.Errorf("the start-up log does not name the database:\n%s", logs)
	}
}

// askonce serve on a database whose autovacuum leaves askonce's tables
// alone warns at start, naming them: their dead rows would slow every
// round trip down unseen.
func postgresWarnsWhenAutovacuumSkipsItsTables(t *testing.T) {
	t.Parallel()
	dsn := pgtest.Schema(t)
	ctx := context.Background()
	st, err := postgres.Open(ctx, dsn) // creates the tables
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `ALTER TABLE jobs SET (autovacuum_enabled = off)`); err != nil {
		t.Fatal(err)
	}
	in := start(t, []string{"ASKONCE_DB=" + dsn})
	in.stop(syscall.SIGTERM)
	var warning string
	for _, line := range strings.Split(in.logs.String(), "\n") {
		if strings.Contains(line, "autovacuum is off") {
			warning = line
		}
	}
	if !strings.Contains(warning, "level=WARN") || !regexp.MustCompile(`tables=\S*\bjobs\b`).MatchString(warning) {
		t.Fatalf("no warning naming jobs in the start-up log:\n%s", in.logs.String())
	}
}
