// Package sqlite implements askonce.Store, and the HTTP API's
// askonce.IdempotencyStore, on one SQLite database file with
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
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/internal/sqlstore"
	"github.com/askonce/askonce/internal/wake"
	"github.com/askonce/askonce/sqlite/internal/walvfs"
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
	base // the reads, and the writes PostgreSQL's store runs alike

	writer *sql.DB // one connection: every write transaction
	reader *sql.DB // query-only connections
	now    func() time.Time

	onDispatch func(ctx context.Context, tx *sql.Tx, job *askonce.Job) error
	onNotify   func(ctx context.Context, tx *sql.Tx, job *askonce.Job, ev askonce.QuestionEvent) error
	linkSecret []byte

	w           writeStmts   // the writer's own statements
	writeShared sharedWrites // sqlstore's, on the writer
	readStmts   prepared     // sqlstore's, on the reader pool
	wstmts      wstmts       // numbers the writer's statements
	raw         *rawConn     // the writer's driver connection, with writing held
	logArgs     []any        // the values of a write's job_log records (writeWith), with writing held

	commits   atomic.Int64   // write transactions committed, for Commits
	writes    chan *writeReq // to writeLoop
	queued    atomic.Int32   // writes sent, or being sent, to writeLoop and not done
	writing   sync.Mutex     // held by whoever runs writes: writeLoop, or a write on its caller's goroutine
	closing   chan struct{}  // closed by Close
	loopDone  chan struct{}  // closed when writeLoop returned
	closeOnce sync.Once

	checkpointer   *sql.DB                // one connection: background checkpoints
	checkpointDone chan struct{}          // closed when checkpointLoop returned
	catchUp        atomic.Pointer[string] // the checkpoint mode the writer is to run next

	watchers wake.Hub // Watch, woken by this process's commits
}

// Watch is askonce.Watcher for the writes of this process: another
// process's commits to the same file are seen by polling alone.
func (s *Store) Watch(tenant, jobID string) (<-chan struct{}, func()) {
	return s.watchers.Watch(jobID)
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
	// CheckpointSize is the size in bytes of the WAL file past which a
	// checkpoint runs, in the background rather than inside a commit (see
	// checkpoint.go); the WAL file is cut back to it when it starts over.
	// Zero means 128 MiB.
	CheckpointSize int64
	// Now is the clock of the times the store assigns: CreatedAt when
	// unset, UpdatedAt, and the At of events and history entries that have
	// none. Nil means time.Now.
	Now func() time.Time
	// OnDispatch, when set, is called inside the transaction of every
	// CreateJob or UpdateJob that queues a dispatch, with that transaction and the job
	// as it is being written. The builder queue (River) inserts its job
	// here, so that the queue entry and the success commit together; an
	// error rolls the whole change back.
	OnDispatch func(ctx context.Context, tx *sql.Tx, job *askonce.Job) error
	// OnNotify, when set, is called inside the transaction of every
	// CreateJob or UpdateJob whose change carries a question notification
	// (askonce.Change.Notify: the job went pending, or left pending), with
	// that transaction, the job as it is being written and the event. The
	// notification queue (dispatch.Dispatcher.Notify) inserts its River
	// job here, as OnDispatch does for the builder; an error rolls the
	// whole change back.
	OnNotify func(ctx context.Context, tx *sql.Tx, job *askonce.Job, ev askonce.QuestionEvent) error
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
	walSize := o.CheckpointSize
	if walSize <= 0 {
		walSize = defaultCheckpointSize
	}
	s := &Store{
		now:        o.Now,
		onDispatch: o.OnDispatch,
		onNotify:   o.OnNotify,
		writes:     make(chan *writeReq),
		closing:    make(chan struct{}),
		loopDone:   make(chan struct{}),

		checkpointDone: make(chan struct{}),
	}
	if s.now == nil {
		s.now = time.Now
	}

	s.writer, err = sql.Open("sqlite", dsn(abs, busy, false, walSize))
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
	if s.linkSecret, err = sqlstore.LinkSecret(sqlstore.Question, func(q string, args ...any) error {
		_, err := s.writer.ExecContext(ctx, q, args...)
		return err
	}, func(q string, args ...any) sqlstore.Scanner {
		return s.writer.QueryRowContext(ctx, q, args...)
	}); err != nil {
		s.writer.Close()
		return nil, fmt.Errorf("open sqlite store %s: %w", path, err)
	}

	// Readers open after the migration, so that they never see a file
	// without the schema (or not yet in WAL mode).
	s.reader, err = sql.Open("sqlite", dsn(abs, busy, true, 0))
	if err != nil {
		s.writer.Close()
		return nil, fmt.Errorf("open sqlite store %s: %w", path, err)
	}
	s.reader.SetMaxOpenConns(readers)
	s.reader.SetMaxIdleConns(readers)
	s.reader.SetConnMaxLifetime(0)
	s.reader.SetConnMaxIdleTime(0)

	s.checkpointer, err = sql.Open("sqlite", dsn(abs, busy, false, walSize))
	if err != nil {
		s.reader.Close()
		s.writer.Close()
		return nil, fmt.Errorf("open sqlite store %s: %w", path, err)
	}
	s.checkpointer.SetMaxOpenConns(1)
	s.checkpointer.SetMaxIdleConns(1)
	s.checkpointer.SetConnMaxLifetime(0)
	s.checkpointer.SetConnMaxIdleTime(0)

	if err := s.prepare(ctx); err != nil {
		close(s.loopDone)
		close(s.checkpointDone)
		s.Close()
		return nil, fmt.Errorf("open sqlite store %s: %w", path, err)
	}
	s.base = newBase(s)
	go s.writeLoop()
	go s.checkpointLoop(s.checkpointer, abs+"-wal", walSize)
	return s, nil
}

// LinkSecret returns this database's answer-link secret: 32 random bytes
// created when the file was first opened, for askonce.Engine.LinkSecret.
// Every process on the file gets the same one, so the links one of them
// hands out work on all of them.
func (s *Store) LinkSecret() []byte { return slices.Clone(s.linkSecret) }

// WriteDB returns the store's write pool (one connection), for components
// that keep their own tables in the same file and must not contend with
// the store for the write lock, such as the builder queue.
func (s *Store) WriteDB() *sql.DB { return s.writer }

// dsn builds the connection string. The pragmas are DSN parameters so that
// the driver applies them to every connection the pools open, not only to
// the first one. walSize is Options.CheckpointSize, for the connections
// that write or checkpoint.
func dsn(path string, busy time.Duration, readOnly bool, walSize int64) string {
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
		// No checkpoint inside a commit: checkpoint.go runs them.
		q.Add("_pragma", "wal_autocheckpoint(0)")
		q.Add("_pragma", "journal_size_limit("+strconv.FormatInt(walSize, 10)+")")
	}
	// The WAL's frames written in one call per commit (walvfs); should
	// the VFS fail to register, SQLite's own writes the same bytes.
	if walvfs.Register() == nil {
		q.Set("vfs", walvfs.Name)
	}
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(path), RawQuery: q.Encode()}
	return u.String()
}

// migrator is goose with the embedded migrations, on db.
func migrator(db *sql.DB) (*goose.Provider, error) {
	fsys, err := fs.Sub(migrations, "migrations")
	if err != nil {
		return nil, err
	}
	return goose.NewProvider(goose.DialectSQLite3, db, fsys, goose.WithDisableGlobalRegistry(true))
}

// migrate brings the schema up to date with the embedded migrations. It is
// idempotent: opening a migrated database applies nothing.
func migrate(ctx context.Context, db *sql.DB) error {
	p, err := migrator(db)
	if err != nil {
		return err
	}
	// A migration that rebuilds a table sorts every job and builds its
	// indexes anew. With the store's temp_store(MEMORY) those sorts would
	// be held in memory: migration 00010 took 359 MB of RSS at 100,000
	// jobs, and memory grows with the jobs. With temporary files it takes
	// what the page cache does (docs/deploy.md). db is the store's one
	// writer connection, so the pragmas apply to the migrations' own.
	if _, err := db.ExecContext(ctx, `PRAGMA temp_store = FILE`); err != nil {
		return err
	}
	applied, err := p.Up(ctx)
	if _, rerr := db.ExecContext(context.WithoutCancel(ctx), `PRAGMA temp_store = MEMORY`); rerr != nil {
		return errors.Join(err, rerr)
	}
	if err != nil {
		return err
	}
	if len(applied) > 0 {
		// The WAL now holds every page the migrations rewrote: copy them
		// back and start the WAL over before the store writes.
		_, err = db.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`)
	}
	return err
}

// Close waits for the write in progress, fails the writes still waiting
// with an error, checkpoints the WAL and closes the store's statements and
// connections.
func (s *Store) Close() error {
	s.closeOnce.Do(func() { close(s.closing) })
	<-s.loopDone
	<-s.checkpointDone
	// Wait for a write running on its caller's goroutine; later ones
	// find the store closed.
	s.writing.Lock()
	defer s.writing.Unlock()
	var errs []error
	if s.checkpointer != nil {
		// The last connection to the file checkpoints by itself as it
		// closes; this one copies this store's writes back even when
		// another process keeps the file open. PASSIVE: Close never
		// waits for the other process's readers.
		_, err := s.checkpointer.Exec(`PRAGMA wal_checkpoint(PASSIVE)`)
		errs = append(errs, err, s.checkpointer.Close())
	}
	if s.writer != nil {
		errs = append(errs, s.closeRaw())
	}
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

var (
	_ askonce.Store   = (*Store)(nil)
	_ askonce.Watcher = (*Store)(nil)
)

// WriterDSN is the connection string of a store's writer at path with
// the default Options: the driver and pragmas every write transaction of
// the store commits with. A floor probe (internal/walmeter) opens a
// separate file with it, so that its commits cost what the cheapest
// commit of the store could.
func WriterDSN(path string) string {
	return dsn(path, 5*time.Second, false, defaultCheckpointSize)
}
