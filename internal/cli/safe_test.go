package cli

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// Bidirectional controls reorder the text around them when shown ("exe.txt"
// reads as "txt.exe"), so every one of them is shown as an escape, by the
// writer every command prints through and by the picker's CleanText.
func TestSafe_BidiControlsAreShownEscaped(t *testing.T) {
	t.Parallel()
	bidi := []rune{0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069}
	for _, r := range bidi {
		in := "report" + string(r) + "txt.exe"
		want := fmt.Sprintf(`report\u%04xtxt.exe`, r)
		if got := CleanText(in); got != want {
			t.Errorf("CleanText(U+%04X) = %q, want %q", r, got, want)
		}
		var b bytes.Buffer
		if _, err := fmt.Fprintln(TerminalSafe(&b), in); err != nil {
			t.Fatal(err)
		}
		if b.String() != want+"\n" {
			t.Errorf("safeWriter wrote %q for U+%04X", b.String(), r)
		}
	}
	// The neighbours of the ranges are ordinary text: left as they are.
	for _, r := range []rune{0x2027, 0x202f, 0x2065, 0x206a, 'é', '日'} {
		if s := "a" + string(r); CleanText(s) != s {
			t.Errorf("CleanText changed U+%04X: %q", r, CleanText(s))
		}
	}
}

// The other characters that must not reach the terminal raw.
func TestSafe_ControlCharactersAreShownEscaped(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"a\x1b[2Jb":   `a\u001b[2Jb`,
		"a\rb":        `a\u000db`,
		"a\u009bb":    `a\u009bb`,
		"a\u2028b":    `a\u2028b`,
		"a\xffb":      `a\xffb`,
		"a\ufffdb":    "a\ufffdb", // a real U+FFFD is text
		"line\nnext":  `line\u000anext`,
		"tab\tstays?": `tab\u0009stays?`,
	} {
		if got := CleanText(in); got != want {
			t.Errorf("CleanText(%q) = %q, want %q", in, got, want)
		}
	}
	var b bytes.Buffer
	fmt.Fprint(TerminalSafe(&b), "keeps\nlines\tand tabs\x07")
	if got := b.String(); got != `keeps`+"\n"+`lines`+"\t"+`and tabs\u0007` {
		t.Errorf("safeWriter = %q", got)
	}
	if strings.ContainsAny(CleanText("\x00\x7f"), "\x00\x7f") {
		t.Error("NUL or DEL passed")
	}
}
