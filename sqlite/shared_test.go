package sqlite

import (
	"path/filepath"
	"testing"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/storetest"
)

// Two processes on one file: two Stores, each with its own writer.
func TestSharedStores(t *testing.T) {
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
