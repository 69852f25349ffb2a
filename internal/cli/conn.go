package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/client"
	"github.com/askonce/askonce/postgres"
	"github.com/askonce/askonce/server"
)

// Conn is where the client's requests go.
type Conn struct {
	Server       string
	DB           string
	APIKey       string
	Interpreter  string
	ProfileFiles string
	getenv       func(string) string
	// ReadOnly is set by commands that only read: they open an existing
	// --db file and never create one.
	ReadOnly bool
}

// Flags adds --server, --db, --api-key, --interpreter and --profile-files.
func (c *Conn) Flags(s *Settings) {
	s.String(&c.Server, "server", "", "askonce server URL (http://host:port); empty: the embedded engine on --db")
	s.String(&c.DB, "db", "", "embedded engine's "+DBHelp+" (used when --server is empty); empty: askonce.db in the user's data folder, never the working directory")
	s.ShowDefault("db", UserDBShown)
	s.String(&c.APIKey, "api-key", "", "API key for --server (sent as a Bearer token); prefer the environment variable")
	s.String(&c.Interpreter, "interpreter", "rules", "interpreter of the embedded engine: rules, openai (ASKONCE_OPENAI_*) or exec (ASKONCE_EXEC_*); see docs/interpreters.md")
	s.String(&c.ProfileFiles, "profile-files", "", "rules profiles of the embedded engine from files, as name=path[,name=path]")
	c.getenv = s.getenv
}

// Open returns a client and a function that releases it.
func (c *Conn) Open(ctx context.Context) (*client.Client, func(), error) {
	if c.Server != "" {
		cl, err := client.New(c.Server, client.WithAPIKey(c.APIKey))
		if err != nil {
			return nil, nil, UsageError{Msg: "--server: " + err.Error()}
		}
		return cl, func() {}, nil
	}
	interp, err := NewInterpreter(c.Interpreter, c.ProfileFiles, c.getenv)
	if err != nil {
		return nil, nil, err
	}
	if c.DB, err = c.EmbeddedDB(); err != nil {
		return nil, nil, err
	}
	if c.ReadOnly && !postgres.IsDSN(c.DB) {
		if _, err := os.Stat(c.DB); errors.Is(err, fs.ErrNotExist) {
			return nil, nil, fmt.Errorf("no database at %s: nothing has been run there yet (give --db the file askonce run used, or --server)", c.DB)
		}
	}
	st, _, err := OpenStore(ctx, c.DB, StoreHooks{})
	if err != nil {
		return nil, nil, err
	}
	engine := &askonce.Engine{Store: st, Interpreter: interp, NoBuilder: true}
	// Questions that waited past their time expire before anything reads them.
	engine.ExpireDue(ctx)
	api := server.New(server.Config{Engine: engine, Idempotency: st, AnsweredVia: askonce.ViaTerminal})
	return client.NewHandler(api), func() { api.CloseStreams(); st.Close() }, nil
}

// UserDBShown is where the embedded engine's database is when --db is not
// given, as --help and the docs say it.
const UserDBShown = "$XDG_DATA_HOME/askonce/askonce.db, else ~/.local/share/askonce/askonce.db"

// EmbeddedDB is the database the embedded engine opens: --db, else
// askonce.db in the user's data folder (UserDataDir), whose missing
// folders it creates with mode 0700 unless the command only reads. A
// project's directory is the user's, not askonce's: nothing lands there
// unasked.
func (c *Conn) EmbeddedDB() (string, error) {
	if c.DB != "" {
		return dbPath(c.DB)
	}
	getenv := c.getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	dir, err := UserDataDir(getenv)
	if err != nil {
		return "", err
	}
	if !c.ReadOnly {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return "", fmt.Errorf("create the folder of askonce's database: %w (or give --db FILE)", err)
		}
	}
	return filepath.Join(dir, "askonce.db"), nil
}

// UserDataDir is askonce's folder among the user's data, as the XDG Base
// Directory specification places it: $XDG_DATA_HOME/askonce when that is
// an absolute path (the specification ignores a relative one), else
// ~/.local/share/askonce.
func UserDataDir(getenv func(string) string) (string, error) {
	if x := getenv("XDG_DATA_HOME"); filepath.IsAbs(x) {
		return filepath.Join(x, "askonce"), nil
	}
	home := getenv("HOME")
	if home == "" {
		var err error
		if home, err = os.UserHomeDir(); err != nil {
			return "", UsageError{Msg: "no home folder to keep askonce's database in (HOME is not set): give --db FILE"}
		}
	}
	return filepath.Join(home, ".local", "share", "askonce"), nil
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
