package main

import (
	"context"
	"os"
	"strings"
	"testing"
)

// docs/flags.md is what askonce help flags prints, made from the flag
// definitions the commands parse with: a flag added, renamed or given a
// new default without go generate fails here, so the reference cannot
// drift from the code.
func TestFlagsDocIsGeneratedFromTheFlagDefinitions(t *testing.T) {
	want := flagsDoc(context.Background()) + "\n"
	got, err := os.ReadFile("../../docs/flags.md")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("docs/flags.md is stale: run go generate ./cmd/askonce (it writes askonce help flags there)")
	}
	for _, row := range []string{
		"## askonce serve\n\n`askonce serve [flags]`\n",
		"| `--db` | `ASKONCE_DB` | `askonce.db` | database: a SQLite file",
		"| `--db` | `ASKONCE_DB` | `$XDG_DATA_HOME/askonce/askonce.db, else ~/.local/share/askonce/askonce.db` |",
		"| `--candidate NAME` |  | repeatable |",
		"## askonce jobs answer\n",
		"## askonce memory forget\n",
	} {
		if !strings.Contains(want, row) {
			t.Errorf("askonce help flags lacks %q", row)
		}
	}
}
