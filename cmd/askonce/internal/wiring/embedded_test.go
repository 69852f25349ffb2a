package wiring

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/askonce/askonce/internal/cli"
)

// Without --db the embedded engine's database is askonce.db in the user's
// data folder: $XDG_DATA_HOME/askonce when that is absolute, else
// ~/.local/share/askonce, whose missing folders are made 0700, except by
// a command that only reads. --db wins.
func TestEmbeddedDBIsInTheUserDataFolder(t *testing.T) {
	home, data := t.TempDir(), t.TempDir()
	for _, c := range []struct {
		name     string
		env      map[string]string
		db       string
		readOnly bool
		want     string
	}{
		{"XDGDataHome", map[string]string{"HOME": home, "XDG_DATA_HOME": data}, "", false, filepath.Join(data, "askonce", "askonce.db")},
		{"HomeWithoutXDG", map[string]string{"HOME": home}, "", false, filepath.Join(home, ".local", "share", "askonce", "askonce.db")},
		{"RelativeXDGIsIgnored", map[string]string{"HOME": home, "XDG_DATA_HOME": "rel"}, "", false, filepath.Join(home, ".local", "share", "askonce", "askonce.db")},
		{"DBFlagWins", map[string]string{"HOME": home, "XDG_DATA_HOME": data}, "mine.db", false, "mine.db"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cn := cli.Conn{DB: c.db, ReadOnly: c.readOnly, Getenv: func(k string) string { return c.env[k] }}
			got, err := EmbeddedDB(&cn)
			if err != nil || got != c.want {
				t.Fatalf("EmbeddedDB() = %q, %v; want %q", got, err, c.want)
			}
			if c.db != "" {
				return
			}
			st, err := os.Stat(filepath.Dir(got))
			if err != nil || !st.IsDir() || st.Mode().Perm() != 0o700 {
				t.Errorf("folder %s: %v, %v; want it made with mode 0700", filepath.Dir(got), st, err)
			}
		})
	}
	t.Run("ReadOnlyCreatesNothing", func(t *testing.T) {
		fresh := t.TempDir()
		cn := cli.Conn{ReadOnly: true, Getenv: func(k string) string { return map[string]string{"XDG_DATA_HOME": fresh}[k] }}
		got, err := EmbeddedDB(&cn)
		if err != nil || got != filepath.Join(fresh, "askonce", "askonce.db") {
			t.Fatalf("EmbeddedDB() = %q, %v", got, err)
		}
		if entries, _ := os.ReadDir(fresh); len(entries) != 0 {
			t.Errorf("a read-only command made %v", entries)
		}
	})
}
