// Package sqlite implements askonce.Store, and the HTTP API's
// server.IdempotencyStore, on one SQLite database file with
// modernc.org/sqlite, a pure-Go driver, so that askonce builds with
// CGO_ENABLED=0.
//
// The database runs in WAL mode. All writes go through one connection, so
// write transactions never contend inside the process, and begin with
// BEGIN IMMEDIATE, so that they never fail halfway on a lock upgrade.
// Writes that arrive while another commits are committed together, each
// in a savepoint of its own (see writer.go). Reads use a pool of
// query-only connections that run alongside the writer. The schema is
// migrated with goose from the SQL files embedded in the package, every
// time a Store is opened.
package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/askonce/askonce"
	"github.com/pressly/goose/v3"
	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

//go:embed migrations/*.sql
var migrations embed.FS

// Store is an askonce.Store kept in one SQLite file. It is safe for
// concurrent use by the goroutines of one process; several processes may
// share the file, their writes then wait for each other up to the busy
// timeout.
type Store struct {
	writer *sql.DB // one connection: every write transaction
	reader *sql.DB // query-only connections
	now    func() time.Time

	onDispatch func(ctx context.Context, tx *sql.Tx, job *askonce.Job) error

	w writeStmts
	r readStmts

	writes    chan *writeReq // to writeLoop
	closing   chan struct{}  // closed by Close
	loopDone  chan struct{}  // closed when writeLoop returned
	closeOnce sync.Once

	listMu    sync.Mutex
	listStmts [8]*sql.Stmt // ListJobs, by listQuery's filter bits
}

// Options configure a Store. The zero value is ready to use.
type Options struct {
	// Readers is the number of read connections. Zero means
	// max(4, GOMAXPROCS).
	Readers int
	// BusyTimeout is how long a statement waits for a lock held by
	// another connection (another process, or the writer during a
	// checkpoint). Zero means 5s.
	BusyTimeout time.Duration
	// Now is the clock of the times the store assigns: CreatedAt when
	// unset, UpdatedAt, and the At of events and history entries that have
	// none. Nil means time.Now.
	Now func() time.Time
	// OnDispatch, when set, is called inside the transaction of every
	// UpdateJob that queues a dispatch, with that transaction and the job
	// as it is being written. The builder queue (River) inserts its job
	// here, so that the queue entry and the success commit together; an
	// error rolls the whole change back.
	OnDispatch func(ctx context.Context, tx *sql.Tx, job *askonce.Job) error
}

// Open opens (creating it if needed) the database file at path with the
// default Options and migrates it to the current schema.
func Open(ctx context.Context, path string) (*Store, error) {
	return Options{}.Open(ctx, path)
}

// Open opens (creating it if needed) the database file at path and
// migrates it to the current schema. path is a file path, not a DSN; an
// in-memory database is not supported, because the reader and writer
// connections must see the same database.
func (o Options) Open(ctx context.Context, path string) (*Store, error) {
	if path == "" || strings.HasPrefix(path, ":memory:") || strings.HasPrefix(path, "file:") {
		return nil, fmt.Errorf("open sqlite store: %q is not a file path", path)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("open sqlite store %s: %w", path, err)
	}
	busy := o.BusyTimeout
	if busy <= 0 {
		busy = 5 * time.Second
	}
	readers := o.Readers
	if readers <= 0 {
		readers = max(4, runtime.GOMAXPROCS(0))
	}
	s := &Store{
		now:        o.Now,
		onDispatch: o.OnDispatch,
		writes:     make(chan *writeReq),
		closing:    make(chan struct{}),
		loopDone:   make(chan struct{}),
	}
	if s.now == nil {
		s.now = time.Now
	}

	s.writer, err = sql.Open("sqlite", dsn(abs, busy, false))
	if err != nil {
		return nil, fmt.Errorf("open sqlite store %s: %w", path, err)
	}
	// One writer connection, kept for the life of the store so that its
	// prepared statements stay prepared.
	s.writer.SetMaxOpenConns(1)
	s.writer.SetMaxIdleConns(1)
	s.writer.SetConnMaxLifetime(0)
	s.writer.SetConnMaxIdleTime(0)
	if err := migrate(ctx, s.writer); err != nil {
		s.writer.Close()
		return nil, fmt.Errorf("migrate sqlite store %s: %w", path, err)
	}

	// Readers open after the migration, so that they never see a file
	// without the schema (or not yet in WAL mode).
	s.reader, err = sql.Open("sqlite", dsn(abs, busy, true))
	if err != nil {
		s.writer.Close()
		return nil, fmt.Errorf("open sqlite store %s: %w", path, err)
	}
	s.reader.SetMaxOpenConns(readers)
	s.reader.SetMaxIdleConns(readers)
	s.reader.SetConnMaxLifetime(0)
	s.reader.SetConnMaxIdleTime(0)

	if err := s.prepare(ctx); err != nil {
		close(s.loopDone)
		s.Close()
		return nil, fmt.Errorf("open sqlite store %s: %w", path, err)
	}
	go s.writeLoop()
	return s, nil
}

// WriteDB returns the store's write pool (one connection), for components
// that keep their own tables in the same file and must not contend with
// the store for the write lock, such as the builder queue.
func (s *Store) WriteDB() *sql.DB { return s.writer }

// dsn builds the connection string. The pragmas are DSN parameters so that
// the driver applies them to every connection the pools open, not only to
// the first one.
func dsn(path string, busy time.Duration, readOnly bool) string {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout("+strconv.FormatInt(busy.Milliseconds(), 10)+")")
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(NORMAL)")
	// Temporary files in memory; above all the sub-journal of the
	// savepoints that group-committed writes run in, which would spill
	// to a file past 64 KiB.
	q.Add("_pragma", "temp_store(MEMORY)")
	if readOnly {
		q.Add("_pragma", "query_only(1)")
	} else {
		// Write transactions take the write lock at BEGIN: a deferred
		// transaction that reads and then writes can fail with
		// SQLITE_BUSY at the upgrade, which busy_timeout cannot wait out.
		q.Set("_txlock", "immediate")
	}
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(path), RawQuery: q.Encode()}
	return u.String()
}

// migrate brings the schema up to date with the embedded migrations. It is
// idempotent: opening a migrated database applies nothing.
func migrate(ctx context.Context, db *sql.DB) error {
	fsys, err := fs.Sub(migrations, "migrations")
	if err != nil {
		return err
	}
	p, err := goose.NewProvider(goose.DialectSQLite3, db, fsys, goose.WithDisableGlobalRegistry(true))
	if err != nil {
		return err
	}
	_, err = p.Up(ctx)
	return err
}

// Close waits for the write in progress, fails the writes still waiting
// with an error, and closes the store's statements and connections.
func (s *Store) Close() error {
	s.closeOnce.Do(func() { close(s.closing) })
	<-s.loopDone
	var errs []error
	for _, st := range s.statements() {
		if st != nil {
			errs = append(errs, st.Close())
		}
	}
	if s.reader != nil {
		errs = append(errs, s.reader.Close())
	}
	if s.writer != nil {
		errs = append(errs, s.writer.Close())
	}
	return errors.Join(errs...)
}

var _ askonce.Store = (*Store)(nil)
