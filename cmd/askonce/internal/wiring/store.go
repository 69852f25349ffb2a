package wiring

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/dispatch"
	"github.com/askonce/askonce/internal/cli"
	"github.com/askonce/askonce/postgres"
	"github.com/askonce/askonce/sqlite"
)

// Store is the store --db names, SQLite or PostgreSQL: what the commands
// need of either.
type Store interface {
	askonce.Store
	askonce.IdempotencyStore
	// LinkSecret is the database's answer-link secret.
	LinkSecret() []byte
}

// StoreHooks joins the store to the dispatcher made after it.
type StoreHooks struct {
	Hook             *dispatch.Hook
	Dispatch, Notify bool // queue builder deliveries, question notifications
	// Log, when set, hears of the store's background trouble (PostgreSQL's
	// listening connection reconnecting).
	Log *slog.Logger
}

// OpenStore opens the database db names: PostgreSQL for a postgres:// or
// postgresql:// URL, else the SQLite file at that path. With hooks, the
// store queues deliveries and notifications through hooks.Hook; queue
// then sets a dispatcher's database to the store's (River keeps its
// tables there).
func OpenStore(ctx context.Context, db string, hooks StoreHooks) (st Store, queue func(*dispatch.Config), err error) {
	if db, err = dbPath(db); err != nil {
		return nil, nil, err
	}
	if postgres.IsDSN(db) {
		var o postgres.Options
		if hooks.Dispatch {
			o.OnDispatch = hooks.Hook.EnqueuePgx
		}
		if hooks.Notify {
			o.OnNotify = hooks.Hook.NotifyPgx
		}
		if hooks.Log != nil {
			o.Logger = func(msg string, err error) { hooks.Log.Warn(msg, "err", err) }
		}
		pg, err := o.Open(ctx, db)
		if err != nil {
			return nil, nil, err // it names the database, without the password
		}
		if hooks.Log != nil {
			warnUnvacuumed(ctx, pg, hooks.Log)
		}
		return pg, func(c *dispatch.Config) { c.Pool = pg.Pool() }, nil
	}
	var o sqlite.Options
	if hooks.Dispatch {
		o.OnDispatch = hooks.Hook.Enqueue
	}
	if hooks.Notify {
		o.OnNotify = hooks.Hook.Notify
	}
	lite, err := o.Open(ctx, db)
	if err != nil {
		if why := whySQLiteFails(db); why != "" {
			return nil, nil, fmt.Errorf("open %s: %s", db, why)
		}
		return nil, nil, fmt.Errorf("open %s: %w", db, err)
	}
	return lite, func(c *dispatch.Config) { c.DB = lite.WriteDB() }, nil
}

// ShownDB is db as logs and messages may show it: without the password
// of a PostgreSQL URL.
func ShownDB(db string) string {
	if postgres.IsDSN(db) {
		return postgres.Redact(db)
	}
	return db
}

// dbPath checks what --db names: a PostgreSQL URL, a SQLite file path, or
// a file:// URL of one (returned as its path). Any other scheme:// is a
// usage error; it was once opened as a SQLite file of that odd name.
func dbPath(db string) (string, error) {
	scheme, _, ok := strings.Cut(db, "://")
	if !ok || postgres.IsDSN(db) || strings.ContainsAny(scheme, `/\.`) {
		return db, nil
	}
	if strings.EqualFold(scheme, "file") {
		u, err := url.Parse(db)
		if err != nil || (u.Host != "" && u.Host != "localhost") || u.Path == "" {
			return "", cli.UsageError{Msg: fmt.Sprintf("--db %q: a file:// URL names a local file, as in file:///var/lib/askonce/askonce.db", db)}
		}
		return u.Path, nil
	}
	return "", cli.UsageError{Msg: fmt.Sprintf("--db %s://…: not a database askonce opens; give a SQLite file path or a postgres:// URL", scheme)}
}

// whySQLiteFails says why the SQLite file at db cannot be opened, in
// words a person can act on, or "" when it cannot tell: the folder is
// missing, the path is a folder, or the file or its folder is not
// writable.
func whySQLiteFails(db string) string {
	dir := filepath.Dir(db)
	if st, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return fmt.Sprintf("the folder %s does not exist: create it, or choose another --db", dir)
	} else if err == nil && !st.IsDir() {
		return fmt.Sprintf("%s is a file, not a folder: choose another --db", dir)
	}
	st, err := os.Stat(db)
	switch {
	case err == nil && st.IsDir():
		return fmt.Sprintf("%s is a folder: give --db a file path, such as %s", db, filepath.Join(db, "askonce.db"))
	case err == nil:
		f, err := os.OpenFile(db, os.O_RDWR, 0)
		if errors.Is(err, fs.ErrPermission) {
			return fmt.Sprintf("no permission to write %s (askonce needs to read and write it)", db)
		}
		if err == nil {
			f.Close()
		}
	case errors.Is(err, fs.ErrNotExist):
		f, err := os.CreateTemp(dir, ".askonce-check-*")
		if errors.Is(err, fs.ErrPermission) {
			return fmt.Sprintf("no permission to create a file in %s: choose another --db", dir)
		}
		if err == nil {
			f.Close()
			os.Remove(f.Name())
		}
	case errors.Is(err, fs.ErrPermission):
		return fmt.Sprintf("no permission to reach %s: choose another --db", db)
	}
	return ""
}

// warnUnvacuumed warns when PostgreSQL's autovacuum leaves askonce's
// tables alone: their dead rows pile up, and every round trip slows down.
func warnUnvacuumed(ctx context.Context, pg *postgres.Store, log *slog.Logger) {
	tables, err := pg.Unvacuumed(ctx)
	switch {
	case err != nil:
		log.Warn("could not check PostgreSQL's autovacuum", "err", err)
	case len(tables) > 0:
		log.Warn("PostgreSQL's autovacuum is off for askonce's tables: their dead rows pile up and every round trip slows down (half the rate within minutes under load, docs/benchmarks.md); set autovacuum = on and track_counts = on (the defaults), or VACUUM them yourself",
			"tables", strings.Join(tables, ","))
	}
}
