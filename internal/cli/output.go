package cli

import (
	"encoding/json"
	"io"
	"os"

	"github.com/mattn/go-isatty"
)

// PrintJSON writes v as indented JSON.
func PrintJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// IsTerminal reports whether f is a terminal (not merely a character
// device such as /dev/null).
func IsTerminal(f *os.File) bool {
	return isatty.IsTerminal(f.Fd())
}
