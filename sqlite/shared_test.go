package sqlite

import (
	"path/filepath"
	"testing"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/storetest"
)

// Two stores on one file are two processes sharing the database.
func TestSharedStore(t *testing.T) {
	storetest.RunShared(t, func(t *testing.T) (askonce.Store, askonce.Store) {
		path := filepath.Join(t.TempDir(), "askonce.db")
		a, err := Open(t.Context(), path)
		if err != nil {
			t.Fatal(err)
		}
		b, err := Open(t.Context(), path)
		if err != nil {
			a.Close()
			t.Fatal(err)
		}
		return a, b
	})
}
