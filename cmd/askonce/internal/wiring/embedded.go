package wiring

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/internal/cli"
	"github.com/askonce/askonce/postgres"
	"github.com/askonce/askonce/server"
)

// Embedded is the embedded engine of askonce run, repl, jobs and memory
// without --server (cli.Embedded): the rules (or --interpreter)
// interpreter and the store of --db behind the HTTP API, in this process.
func Embedded(ctx context.Context, c *cli.Conn) (http.Handler, func(), error) {
	interp, err := NewInterpreter(c.Interpreter, c.ProfileFiles, c.Getenv)
	if err != nil {
		return nil, nil, err
	}
	if c.DB, err = EmbeddedDB(c); err != nil {
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
	return api, func() { api.CloseStreams(); st.Close() }, nil
}

// EmbeddedDB is the database the embedded engine opens: --db, else
// askonce.db in the user's data folder (UserDataDir), whose missing
// folders it creates with mode 0700 unless the command only reads. A
// project's directory is the user's, not askonce's: nothing lands there
// unasked.
func EmbeddedDB(c *cli.Conn) (string, error) {
	if c.DB != "" {
		return dbPath(c.DB)
	}
	getenv := c.Getenv
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
			return "", cli.UsageError{Msg: "no home folder to keep askonce's database in (HOME is not set): give --db FILE"}
		}
	}
	return filepath.Join(home, ".local", "share", "askonce"), nil
}
