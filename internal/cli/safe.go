package cli

import (
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/askonce/askonce"
)

// Text shown in the terminal comes from goals, interpreters and plug-ins,
// any of which may be hostile: an escape sequence in a question could
// rewrite the screen, hide the real options or set the window title. So
// every byte the terminal commands write goes through safeWriter, and the
// strings handed to the picker through CleanText: control characters other
// than newline and tab, the line and paragraph separators and the
// bidirectional controls (U+202A-U+202E, U+2066-U+2069, which reorder the
// text around them so that "exe.txt" can read as "txt.exe") become visible
// \uXXXX escapes, which are also valid inside JSON strings, so --json
// output keeps its meaning.

// safeWriter writes to w with control characters made visible.
type safeWriter struct{ w io.Writer }

// TerminalSafe is w behind a safeWriter (once).
func TerminalSafe(w io.Writer) io.Writer {
	if _, ok := w.(safeWriter); ok {
		return w
	}
	return safeWriter{w}
}

func (s safeWriter) Write(p []byte) (int, error) {
	if !hasControl(string(p), true) {
		return s.w.Write(p)
	}
	if _, err := io.WriteString(s.w, escapeControls(string(p), true)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Raw returns the writer behind w, for the picker, which draws the screen
// with escape sequences of its own and is given cleaned strings instead.
func Raw(w io.Writer) io.Writer {
	if s, ok := w.(safeWriter); ok {
		return s.w
	}
	return w
}

// CleanText makes one line of untrusted text safe for the picker: control
// characters, newlines included, become visible escapes.
func CleanText(s string) string {
	if !hasControl(s, false) {
		return s
	}
	return escapeControls(s, false)
}

func isUnsafe(r rune, keepLines bool) bool {
	if keepLines && (r == '\n' || r == '\t') {
		return false
	}
	return unicode.IsControl(r) || r == '\u2028' || r == '\u2029' || askonce.IsBidiControl(r)
}

// hasControl reports whether s needs escapeControls: an unsafe character,
// or a byte that is not valid UTF-8.
func hasControl(s string, keepLines bool) bool {
	for _, r := range s {
		if isUnsafe(r, keepLines) || r == utf8.RuneError {
			return true
		}
	}
	return false
}

func escapeControls(s string, keepLines bool) string {
	var b strings.Builder
	b.Grow(len(s) + 16)
	for len(s) > 0 {
		r, n := utf8.DecodeRuneInString(s)
		if r == utf8.RuneError && n == 1 {
			// A byte of a broken sequence: shown, never passed on raw.
			fmt.Fprintf(&b, `\x%02x`, s[0])
		} else if isUnsafe(r, keepLines) {
			fmt.Fprintf(&b, `\u%04x`, r)
		} else {
			b.WriteString(s[:n])
		}
		s = s[n:]
	}
	return b.String()
}
