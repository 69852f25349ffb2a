// Package postgres implements askonce.Store, and the HTTP API's
// askonce.IdempotencyStore, on a PostgreSQL database with
// github.com/jackc/pgx/v5 (pgxpool), so that several askonce processes
// (replicas) can share one database.
//
// Every write is atomic, and most are one round trip: the
// statements of a change are sent together as a batch, which PostgreSQL
// runs as one implicit transaction (see batch in store.go). Changes are
// group-committed (group.go): those that arrive while a commit is in
// flight go together in the next batch, one transaction and one WAL
// flush for all of them, each still failing alone on its own fault. A
// compare-and-set is an UPDATE of the job's row guarded by its version
// and sent first: of two writers of the same version, in any processes,
// the second waits for the first's row lock and then finds the version
// moved, which fails its change before anything else in it is written. A
// change that queues a River job (a dispatch or a notification) runs in
// an explicit transaction instead, as River inserts through one. The
// schema is migrated with goose from the SQL files embedded in the
// package, every time a Store is opened.
package postgres

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/internal/sqlstore"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Store is an askonce.Store kept in a PostgreSQL database. It is safe for
// concurrent use, and any number of Stores, in any number of processes,
// may share the database.
type Store struct {
	base // the reads, and the writes SQLite's store runs alike

	pool *pgxpool.Pool
	now  func() time.Time

	onDispatch func(ctx context.Context, tx pgx.Tx, job *askonce.Job) error
	onNotify   func(ctx context.Context, tx pgx.Tx, job *askonce.Job, ev askonce.QuestionEvent) error
	linkSecret []byte
	logger     func(msg string, err error)

	listen listener // Watch
	group  grouper  // the group commit of changes (group.go)
}

func (s *Store) log(msg string, err error) {
	if s.logger != nil {
		s.logger(msg, err)
	}
}

// Options configure a Store. The zero value is ready to use.
type Options struct {
	// Now is the clock of the times the store assigns: CreatedAt when
	// unset, UpdatedAt, the At of events and history entries that have
	// none, and the expiry of idempotency leases. Nil means time.Now.
	// Replicas should run with synchronised clocks: leases are compared
	// with the time of whichever process reads them.
	Now func() time.Time
	// OnDispatch, when set, is called inside the transaction of every
	// UpdateJob that queues a dispatch, with that transaction and the job
	// as it is being written. The builder queue (River,
	// dispatch.Dispatcher.EnqueuePgx) inserts its job here, so that the
	// queue entry and the success commit together; an error rolls the
	// whole change back.
	OnDispatch func(ctx context.Context, tx pgx.Tx, job *askonce.Job) error
	// OnNotify, when set, is called inside the transaction of every
	// UpdateJob whose change carries a question notification
	// (askonce.Change.Notify), as OnDispatch is for the builder
	// (dispatch.Dispatcher.NotifyPgx); an error rolls the whole change
	// back.
	OnNotify func(ctx context.Context, tx pgx.Tx, job *askonce.Job, ev askonce.QuestionEvent) error
	// Logger, when set, is told of trouble in the background: the
	// connection that listens for other replicas' changes (Watch) failing
	// and being reconnected.
	Logger func(msg string, err error)

	// configure, when set, adjusts the pool's configuration before it
	// connects (the tests' statement and round-trip counters).
	configure func(*pgxpool.Config)
}

// IsDSN reports whether db names a PostgreSQL database (a postgres:// or
// postgresql:// URL) rather than a SQLite file.
func IsDSN(db string) bool {
	lower := strings.ToLower(db)
	return strings.HasPrefix(lower, "postgres://") || strings.HasPrefix(lower, "postgresql://")
}

// Redact returns dsn with its password, if any, replaced by "xxxxx", fit
// for logs and error messages.
func Redact(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		// Not a URL we can take apart: show the scheme only.
		scheme, _, _ := strings.Cut(dsn, "://")
		return scheme + "://(unparsable)"
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	q := u.Query()
	if q.Has("password") {
		q.Set("password", "xxxxx")
		u.RawQuery = q.Encode()
	}
	return u.String()
}

// Open connects to the database dsn names with the default Options and
// migrates it to the current schema.
func Open(ctx context.Context, dsn string) (*Store, error) {
	return Options{}.Open(ctx, dsn)
}

// Open connects to the database dsn names (a postgres:// URL; its query
// may set the pool, such as pool_max_conns, see pgxpool.ParseConfig) and
// migrates it to the current schema. Errors never show the DSN's
// password.
func (o Options) Open(ctx context.Context, dsn string) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("open postgres store %s: %w", Redact(dsn), err)
	}
	if o.configure != nil {
		o.configure(cfg)
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("open postgres store %s: %w", Redact(dsn), err)
	}
	s := &Store{pool: pool, now: o.Now, onDispatch: o.OnDispatch, onNotify: o.OnNotify, logger: o.Logger}
	if s.now == nil {
		s.now = time.Now
	}
	s.base = newBase(s)
	if err := migrate(ctx, pool); err != nil {
		pool.Close()
		return nil, fmt.Errorf("migrate postgres store %s: %w", Redact(dsn), err)
	}
	if s.linkSecret, err = sqlstore.LinkSecret(sqlstore.Dollar, func(q string, args ...any) error {
		_, err := pool.Exec(ctx, q, args...)
		return err
	}, func(q string, args ...any) sqlstore.Scanner {
		return pool.QueryRow(ctx, q, args...)
	}); err != nil {
		pool.Close()
		return nil, fmt.Errorf("open postgres store %s: %w", Redact(dsn), err)
	}
	return s, nil
}

// migrationLock is the first key of the advisory lock that serialises the
// migrations of replicas starting at once; the second is the hash of the
// schema migrated, so that stores in different schemas of one database
// (the tests') do not wait for each other.
const migrationLock = 0x61736b // "ask"

// migrate brings the schema up to date with the embedded migrations. It is
// idempotent: opening a migrated database applies nothing. Replicas that
// start together migrate one after the other.
func migrate(ctx context.Context, pool *pgxpool.Pool) error {
	return migrateTo(ctx, pool, 0)
}

// migrateTo migrates up to version (all of them when 0), holding the
// migration lock.
func migrateTo(ctx context.Context, pool *pgxpool.Pool, version int64) error {
	fsys, err := fs.Sub(migrations, "migrations")
	if err != nil {
		return err
	}
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1, hashtext(current_schema()))`, int32(migrationLock)); err != nil {
		return fmt.Errorf("migration lock: %w", err)
	}
	defer conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1, hashtext(current_schema()))`, int32(migrationLock))

	db := stdlib.OpenDBFromPool(pool)
	defer db.Close()
	p, err := goose.NewProvider(goose.DialectPostgres, db, fsys, goose.WithDisableGlobalRegistry(true))
	if err != nil {
		return err
	}
	if version > 0 {
		_, err = p.UpTo(ctx, version)
	} else {
		_, err = p.Up(ctx)
	}
	return err
}

// LinkSecret returns this database's answer-link secret: 32 random bytes
// created when the database was first opened, for
// askonce.Engine.LinkSecret. Every replica on the database gets the same
// one, so the links one of them hands out work on all of them.
func (s *Store) LinkSecret() []byte { return slices.Clone(s.linkSecret) }

// Pool returns the store's connection pool, for components that keep
// their own tables in the same database, such as the builder queue
// (River).
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// Close closes the store's connections, waiting for those in use to be
// returned.
func (s *Store) Close() error {
	s.stopListening()
	s.pool.Close()
	return nil
}

var _ askonce.Store = (*Store)(nil)
