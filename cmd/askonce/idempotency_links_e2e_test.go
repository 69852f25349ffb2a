package main_test

import (
	"bytes"
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"github.com/askonce/askonce/postgres/pgtest"
	"github.com/jackc/pgx/v5"
	_ "modernc.org/sqlite"
)

// A stored Idempotency-Key response holds no answer token, on either
// store: the rows read straight from the database file or server show
// none, while a replay still returns the first response byte for byte,
// with an answerUrl that opens the question.
func answerLinksStoredIdempotentResponsesHoldNoToken(t *testing.T) {
	t.Parallel()
	for _, store := range []struct {
		name   string
		db     func(t *testing.T) string
		bodies func(t *testing.T, db string) [][]byte
	}{
		{"sqlite", func(t *testing.T) string { return filepath.Join(t.TempDir(), "a.db") }, sqliteIdempotencyBodies},
		{"postgres", func(t *testing.T) string { return pgtest.Schema(t) }, postgresIdempotencyBodies},
	} {
		t.Run(store.name, func(t *testing.T) {
			t.Parallel()
			db := store.db(t)
			in := start(t, nil, "--db", db)
			goal := map[string]any{"goal": "hot frozen cheese"}
			first := in.do("POST", "/jobs", goal, "Idempotency-Key", "create-1")
			link := str(first.body, "answerUrl")
			_, token, ok := strings.Cut(link, "/a/")
			if first.status != 201 || !ok || len(token) != 43 {
				t.Fatalf("create: %d %s; want a pending job with its answerUrl", first.status, first.raw)
			}
			bodies := store.bodies(t, db)
			if len(bodies) != 1 || !bytes.Contains(bodies[0], []byte(str(first.body, "jobId"))) {
				t.Fatalf("idempotency rows: %q; want the one response of job %s", bodies, str(first.body, "jobId"))
			}
			for _, b := range bodies {
				if bytes.Contains(b, []byte(token)) {
					t.Fatalf("a stored response holds the live answer token:\n%s", b)
				}
			}
			replay := in.do("POST", "/jobs", goal, "Idempotency-Key", "create-1")
			if replay.status != 201 || replay.header.Get("Idempotent-Replayed") != "true" || !bytes.Equal(replay.raw, first.raw) {
				t.Fatalf("replay: %d %s\nwant the first response:\n%s", replay.status, replay.raw, first.raw)
			}
			if page := in.do("GET", "/a/"+token, nil); page.status != 200 {
				t.Fatalf("the replayed answerUrl: %d, want the question's page", page.status)
			}
		})
	}
}

func sqliteIdempotencyBodies(t *testing.T, path string) [][]byte {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT body FROM idempotency`)
	if err != nil {
		t.Fatalf("read the idempotency rows from the SQLite file: %v", err)
	}
	defer rows.Close()
	var out [][]byte
	for rows.Next() {
		var b []byte
		if err := rows.Scan(&b); err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func postgresIdempotencyBodies(t *testing.T, dsn string) [][]byte {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT body FROM idempotency`)
	if err != nil {
		t.Fatalf("read the idempotency rows from PostgreSQL: %v", err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[[]byte])
	if err != nil {
		t.Fatal(err)
	}
	return out
}
