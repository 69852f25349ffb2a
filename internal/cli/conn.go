package cli

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
)

// DBHelp describes --db to every command that takes it.
const DBHelp = "database: a SQLite file (created and migrated if missing), or a postgres:// (postgresql://) URL of a PostgreSQL database (migrated on start; see docs/deploy.md)"

// UserDBShown is where the embedded engine's database is when --db is not
// given, as --help and the docs say it.
const UserDBShown = "$XDG_DATA_HOME/askonce/askonce.db, else ~/.local/share/askonce/askonce.db"

// Embedded opens the embedded engine a Conn without --server talks to:
// the HTTP API over the database c.DB names, as a handler in this
// process, and a function that releases it. It sets c.DB to the database
// it opened. The program's wiring provides it (cmd/askonce), so that the
// commands that take a Conn import no store, interpreter or server.
type Embedded func(ctx context.Context, c *Conn) (http.Handler, func(), error)

// Conn is where the client's requests go.
type Conn struct {
	Server       string
	DB           string
	APIKey       string
	Interpreter  string
	ProfileFiles string
	// Getenv reads the environment (Flags sets it from the Settings).
	Getenv func(string) string
	// ReadOnly is set by commands that only read: they open an existing
	// --db file and never create one.
	ReadOnly bool
	// Embed opens the embedded engine, without --server.
	Embed Embedded
}

// Flags adds --server, --db, --api-key, --interpreter and --profile-files.
func (c *Conn) Flags(s *Settings) {
	s.String(&c.Server, "server", "", "askonce server URL (http://host:port); empty: the embedded engine on --db")
	s.String(&c.DB, "db", "", "embedded engine's "+DBHelp+" (used when --server is empty); empty: askonce.db in the user's data folder, never the working directory")
	s.ShowDefault("db", UserDBShown)
	s.String(&c.APIKey, "api-key", "", "API key for --server (sent as a Bearer token); prefer the environment variable")
	s.String(&c.Interpreter, "interpreter", "rules", "interpreter of the embedded engine: rules, openai (ASKONCE_OPENAI_*) or exec (ASKONCE_EXEC_*); see docs/interpreters.md")
	s.String(&c.ProfileFiles, "profile-files", "", "rules profiles of the embedded engine from files, as name=path[,name=path]")
	c.Getenv = s.getenv
}

// OwnFiles are the embedded engine's SQLite file and its journal files,
// relative to the working directory, or nothing with --server.
func (c *Conn) OwnFiles() []string {
	if c.Server != "" {
		return nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return nil
	}
	db, err := filepath.Abs(c.DB)
	if err != nil {
		return nil
	}
	rel, err := filepath.Rel(wd, db)
	if err != nil {
		return nil
	}
	rel = filepath.ToSlash(rel)
	return []string{rel, rel + "-wal", rel + "-shm", rel + "-journal"}
}
