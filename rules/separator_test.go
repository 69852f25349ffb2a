package rules

import (
	"testing"
	"unicode"
)

// TestSeparatorInASCIIIsWhiteSpace holds separator's ASCII shortcut to
// what unicode.IsSpace says of every ASCII rune.
func TestSeparatorInASCIIIsWhiteSpace(t *testing.T) {
	t.Parallel()
	for r := rune(0); r < 0x80; r++ {
		if separator(r) != unicode.IsSpace(r) {
			t.Errorf("separator(%q) = %v, want %v", r, separator(r), unicode.IsSpace(r))
		}
	}
}
