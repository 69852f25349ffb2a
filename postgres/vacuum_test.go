package postgres

import (
	"slices"
	"testing"

	"github.com/askonce/askonce/postgres/pgtest"
	"github.com/jackc/pgx/v5"
)

// Unvacuumed names every churned table when the server's autovacuum is
// off, none when it is on, and a table whose own autovacuum_enabled is
// off either way.
func TestUnvacuumedNamesTheTablesAutovacuumSkips(t *testing.T) {
	t.Parallel()
	dsn := pgtest.Schema(t)
	s, err := Open(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var on bool
	if err := s.pool.QueryRow(t.Context(),
		`SELECT current_setting('autovacuum')::bool AND current_setting('track_counts')::bool`).Scan(&on); err != nil {
		t.Fatal(err)
	}
	got, err := s.Unvacuumed(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	want := slices.Sorted(slices.Values(churned)) // every one, when autovacuum is off
	if on {
		want = nil
	}
	if !slices.Equal(got, want) {
		t.Fatalf("autovacuum on: %v; Unvacuumed = %v, want %v", on, got, want)
	}
	t.Logf("this server's autovacuum is on: %v", on)

	conn, err := pgx.Connect(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(t.Context())
	if _, err := conn.Exec(t.Context(), `ALTER TABLE jobs SET (autovacuum_enabled = 0)`); err != nil {
		t.Fatal(err)
	}
	if got, err = s.Unvacuumed(t.Context()); err != nil || !slices.Contains(got, "jobs") {
		t.Fatalf("after autovacuum_enabled = 0 on jobs: Unvacuumed = %v, %v; want jobs in it", got, err)
	}
	if on && len(got) != 1 {
		t.Fatalf("after autovacuum_enabled = 0 on jobs alone: Unvacuumed = %v, want [jobs]", got)
	}
	if _, err := conn.Exec(t.Context(), `ALTER TABLE jobs SET (autovacuum_enabled = on)`); err != nil {
		t.Fatal(err)
	}
	if got, err = s.Unvacuumed(t.Context()); err != nil || on && len(got) != 0 {
		t.Fatalf("after autovacuum_enabled = on again: Unvacuumed = %v, %v", got, err)
	}
}
