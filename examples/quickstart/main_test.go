package main

import (
	"os"
	"path/filepath"
	"testing"
)

// go run ./examples/quickstart leaves nothing behind: not in the folder
// it runs in (where askonce serve keeps its ./askonce.db), not in the
// temporary folder.
func TestQuickstartLeavesNoStateBehind(t *testing.T) {
	cwd, tmp := t.TempDir(), t.TempDir()
	t.Chdir(cwd)
	t.Setenv("TMPDIR", tmp)
	args := os.Args
	defer func() { os.Args = args }()
	os.Args = []string{"quickstart"}
	main()
	for _, dir := range []string{cwd, tmp} {
		left, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range left {
			t.Errorf("the quickstart left %s behind", filepath.Join(dir, e.Name()))
		}
	}
}
