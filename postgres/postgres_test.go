package postgres

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/postgres/pgtest"
	"github.com/askonce/askonce/storetest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// openTest opens a store on a new schema of the run's database and closes
// it when the test ends.
func openTest(t testing.TB, o Options) *Store {
	t.Helper()
	s, err := o.Open(context.Background(), pgtest.Schema(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestStore(t *testing.T) {
	storetest.Run(t, func(t *testing.T) askonce.Store {
		s, err := Open(t.Context(), pgtest.Schema(t))
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

func TestIdempotencyStore(t *testing.T) {
	storetest.RunIdempotency(t, func(t *testing.T) askonce.IdempotencyStore {
		return openTest(t, Options{})
	})
}

// Two replicas on one database: two Stores, each with its own pool.
func TestSharedStores(t *testing.T) {
	storetest.RunShared(t, func(t *testing.T) (askonce.Store, askonce.Store) {
		dsn := pgtest.Schema(t)
		a, err := Open(t.Context(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		b, err := Open(t.Context(), dsn)
		if err != nil {
			a.Close()
			t.Fatal(err)
		}
		return a, b
	})
}

func TestLinkSecretIsRandomPerDatabaseAndSharedByItsStores(t *testing.T) {
	t.Parallel()
	dsn := pgtest.Schema(t)
	open := func(dsn string) []byte {
		t.Helper()
		s, err := Open(t.Context(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		return s.LinkSecret()
	}
	a := open(dsn)
	if len(a) != 32 || bytes.Equal(a, make([]byte, 32)) {
		t.Fatalf("secret %x, want 32 random bytes", a)
	}
	if again := open(dsn); !bytes.Equal(a, again) {
		t.Errorf("secret changed on reopen: %x, then %x", a, again)
	}
	if b := open(pgtest.Schema(t)); bytes.Equal(a, b) {
		t.Errorf("two databases share the secret %x", a)
	}
}

func TestDSNSelectsPostgres(t *testing.T) {
	for db, want := range map[string]bool{
		"postgres://u@h/db":         true,
		"postgresql://u@h:5432/db":  true,
		"POSTGRES://u@h/db":         true,
		"askonce.db":                false,
		"/var/lib/postgres.db":      false,
		"./postgres://not-a-url.db": false,
	} {
		if got := IsDSN(db); got != want {
			t.Errorf("IsDSN(%q) = %v, want %v", db, got, want)
		}
	}
}

func TestRedactHidesThePassword(t *testing.T) {
	for _, dsn := range []string{
		"postgres://askonce:s3cret-pw@db.example:5432/askonce?sslmode=require",
		"postgres://askonce@db.example/askonce?password=s3cret-pw&pool_max_conns=8",
	} {
		got := Redact(dsn)
		if strings.Contains(got, "s3cret-pw") || !strings.Contains(got, "db.example") {
			t.Errorf("Redact(%q) = %q, want the host without the password", dsn, got)
		}
	}
}

func TestOpenErrorDoesNotShowThePassword(t *testing.T) {
	t.Parallel()
	// Nothing listens on port 1: the connection fails.
	_, err := Open(t.Context(), "postgres://askonce:s3cret-pw@127.0.0.1:1/askonce?connect_timeout=2")
	if err == nil {
		t.Fatal("opened a database on port 1")
	}
	if strings.Contains(err.Error(), "s3cret-pw") {
		t.Errorf("the error shows the password: %v", err)
	}
}
