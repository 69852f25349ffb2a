package sqlstore

import "testing"

// A statement whose placeholders come in order, each once, gets SQLite's
// bare ?, which the driver binds without reading a parameter name; one
// that reuses or reorders them keeps the numbers; PostgreSQL's are as
// written.
func TestRebindNumbersOnlyWhatNeedsNumbers(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		p        Placeholders
		in, want string
	}{
		{Question, "a = $1 AND b = $2", "a = ? AND b = ?"},
		{Question, "a = $1 AND b = $1", "a = ?1 AND b = ?1"},
		{Question, "VALUES ($1, $2, $4) WHERE x <= $3", "VALUES (?1, ?2, ?4) WHERE x <= ?3"},
		{Question, "a = $1 AND b = $10", "a = ?1 AND b = ?10"},
		{Dollar, "a = $1 AND b = $1", "a = $1 AND b = $1"},
	} {
		if got := tc.p.Rebind(tc.in); got != tc.want {
			t.Errorf("%c Rebind(%q) = %q, want %q", tc.p, tc.in, got, tc.want)
		}
	}
}

// A cursor reads back as the position it was made of; one that is not
// base64 of "<ns>.<id>", or whose id no job can have, does not read.
func TestCursorReadsBackOnlyWhatEncodeCursorMade(t *testing.T) {
	t.Parallel()
	at, id, ok := DecodeCursor(EncodeCursor(-42, "job.1"))
	if !ok || at != -42 || id != "job.1" {
		t.Errorf("round trip: %d, %q, %v; want -42, \"job.1\", true", at, id, ok)
	}
	for _, c := range []string{"", "!!", EncodeCursor(1, ""), EncodeCursor(1, "a\x00b"), EncodeCursor(1, "\xff")} {
		if _, _, ok := DecodeCursor(c); ok {
			t.Errorf("DecodeCursor(%q) read a cursor", c)
		}
	}
}
