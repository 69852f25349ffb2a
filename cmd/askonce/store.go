package main

import (
	"context"
	"fmt"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/dispatch"
	"github.com/askonce/askonce/postgres"
	"github.com/askonce/askonce/server"
	"github.com/askonce/askonce/sqlite"
)

// dbHelp describes --db to every command that takes it.
const dbHelp = "database: a SQLite file (created and migrated if missing), or a postgres:// (postgresql://) URL of a PostgreSQL database (migrated on start; see docs/deploy.md)"

// store is the store --db names, SQLite or PostgreSQL: what the commands
// need of either.
type store interface {
	askonce.Store
	server.IdempotencyStore
	// LinkSecret is the database's answer-link secret.
	LinkSecret() []byte
}

// storeHooks joins the store to the dispatcher made after it.
type storeHooks struct {
	hook             *dispatch.Hook
	dispatch, notify bool // queue builder deliveries, question notifications
}

// openStore opens the database db names: PostgreSQL for a postgres:// or
// postgresql:// URL, else the SQLite file at that path. With hooks, the
// store queues deliveries and notifications through hooks.hook; queue
// then sets a dispatcher's database to the store's (River keeps its
// tables there).
func openStore(ctx context.Context, db string, hooks storeHooks) (st store, queue func(*dispatch.Config), err error) {
	if postgres.IsDSN(db) {
		var o postgres.Options
		if hooks.dispatch {
			o.OnDispatch = hooks.hook.EnqueuePgx
		}
		if hooks.notify {
			o.OnNotify = hooks.hook.NotifyPgx
		}
		pg, err := o.Open(ctx, db)
		if err != nil {
			return nil, nil, err // it names the database, without the password
		}
		return pg, func(c *dispatch.Config) { c.Pool = pg.Pool() }, nil
	}
	var o sqlite.Options
	if hooks.dispatch {
		o.OnDispatch = hooks.hook.Enqueue
	}
	if hooks.notify {
		o.OnNotify = hooks.hook.Notify
	}
	lite, err := o.Open(ctx, db)
	if err != nil {
		return nil, nil, fmt.Errorf("open %s: %w", db, err)
	}
	return lite, func(c *dispatch.Config) { c.DB = lite.WriteDB() }, nil
}

// shownDB is db as logs and messages may show it: without the password
// of a PostgreSQL URL.
func shownDB(db string) string {
	if postgres.IsDSN(db) {
		return postgres.Redact(db)
	}
	return db
}
