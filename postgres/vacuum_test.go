package postgres

import (
	"net/url"
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

// Unvacuumed's verdict when the server does not count what autovacuum
// needs (track_counts off, set for the store's sessions so that the
// verdict does not depend on the server's own settings): every churned
// table, whatever the tables' own parameters say.
func TestUnvacuumedNamesEveryTableWhenTrackCountsIsOff(t *testing.T) {
	t.Parallel()
	u, err := url.Parse(pgtest.Schema(t))
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("track_counts", "off") // a run-time parameter of every session
	u.RawQuery = q.Encode()
	s, err := Open(t.Context(), u.String())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got, err := s.Unvacuumed(t.Context())
	if want := slices.Sorted(slices.Values(churned)); err != nil || !slices.Equal(got, want) {
		t.Fatalf("with track_counts off: Unvacuumed = %v, %v; want every churned table %v", got, err, want)
	}
}

// The tables' own branch, whatever the server's setting: none of them
// until a table's autovacuum_enabled is off, then that one.
func TestTablesWithAutovacuumOffAreTheOnesWhoseParameterSaysSo(t *testing.T) {
	t.Parallel()
	dsn := pgtest.Schema(t)
	s, err := Open(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got, err := s.tablesWithAutovacuumOff(t.Context()); err != nil || len(got) != 0 {
		t.Fatalf("new store: %v, %v; want none", got, err)
	}
	conn, err := pgx.Connect(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(t.Context())
	if _, err := conn.Exec(t.Context(), `ALTER TABLE memory SET (autovacuum_enabled = false)`); err != nil {
		t.Fatal(err)
	}
	if got, err := s.tablesWithAutovacuumOff(t.Context()); err != nil || !slices.Equal(got, []string{"memory"}) {
		t.Fatalf("after autovacuum_enabled = false on memory: %v, %v; want [memory]", got, err)
	}
}
