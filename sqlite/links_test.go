package sqlite

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"
)

func TestLinkSecretIsRandomPerDatabaseAndSurvivesReopen(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	open := func(name string) []byte {
		t.Helper()
		s, err := Open(context.Background(), filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		return s.LinkSecret()
	}
	a := open("a.db")
	if len(a) != 32 || bytes.Equal(a, make([]byte, 32)) {
		t.Fatalf("secret %x, want 32 random bytes", a)
	}
	if again := open("a.db"); !bytes.Equal(a, again) {
		t.Errorf("secret changed on reopen: %x, then %x", a, again)
	}
	if b := open("b.db"); bytes.Equal(a, b) {
		t.Errorf("two databases share the secret %x", a)
	}
}
