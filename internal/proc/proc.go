// Package proc holds what askonce's subprocesses share: the exec
// interpreter and the command builder both run a user's program in a
// process group of its own, so that a timeout kills everything it started,
// and both keep the tail of its stderr for the error they report.
package proc

import (
	"strings"
	"sync"
)

// Tail is an io.Writer that keeps the last Limit bytes written to it: the
// end of stderr is where a program says what went wrong.
type Tail struct {
	Limit int

	mu  sync.Mutex
	buf []byte
	cut bool
}

func (t *Tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	// Trim in batches, not on every write.
	if len(t.buf) > 2*t.Limit {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-t.Limit:]...)
		t.cut = true
	}
	return len(p), nil
}

// String returns what was kept as trimmed text, starting with "…" when
// earlier output was dropped; "" when nothing but white space was written.
func (t *Tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	b, cut := t.buf, t.cut
	if len(b) > t.Limit {
		b, cut = b[len(b)-t.Limit:], true
	}
	s := strings.TrimSpace(strings.ToValidUTF8(string(b), ""))
	if s != "" && cut {
		s = "…" + s
	}
	return s
}
