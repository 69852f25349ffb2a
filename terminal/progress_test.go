package terminal

import (
	"bytes"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/internal/cli"
)

func event(t *testing.T, typ askonce.EventType, data map[string]any) askonce.Event {
	t.Helper()
	b, err := json.Marshal(data)
	if err != nil {
		t.Fatal(err)
	}
	return askonce.Event{Type: typ, Data: b}
}

func TestStageFollowsAttemptsRetriesAndAnswers(t *testing.T) {
	var s stage
	steps := []struct {
		ev   askonce.Event
		want string
	}{
		{event(t, askonce.EventCreated, nil), "waiting for interpreter · attempt 1"},
		{event(t, askonce.EventAttempt, map[string]any{"n": 1, "outcome": "invalid", "error": "task t2 depends on t9,\nwhich does not exist"}),
			"waiting for interpreter · attempt 2 · retry: task t2 depends on t9, which does not exist"},
		{event(t, askonce.EventAttempt, map[string]any{"n": 2, "outcome": "question"}), "waiting for interpreter · attempt 3"},
		{event(t, askonce.EventAsked, nil), "waiting for interpreter · attempt 3"},
		{event(t, askonce.EventAnswered, nil), "waiting for interpreter · attempt 3 · clarification answer"},
		{event(t, askonce.EventFallbackApplied, nil), "waiting for interpreter · attempt 3 · fallback"},
	}
	for i, st := range steps {
		s.next(st.ev)
		if got := s.String(); got != st.want {
			t.Errorf("after event %d (%s): %q, want %q", i, st.ev.Type, got, st.want)
		}
	}
}

func TestStageOfHostileRetryErrorIsOneCleanLine(t *testing.T) {
	var s stage
	s.next(event(t, askonce.EventAttempt, map[string]any{"n": 1, "outcome": "invalid", "error": "bad\x1b]0;owned\x07\nline"}))
	got := cli.CleanText(s.String())
	if strings.ContainsAny(got, "\x1b\x07\n") {
		t.Fatalf("stage text %q carries control characters to the terminal", got)
	}
}

// lockedBuffer is a bytes.Buffer the spinner's program writes to while the
// test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// The spinner's text follows set, and text with escape sequences or bidi
// controls is drawn with them shown as escapes, never passed to the
// terminal.
func TestSpinnerShowsEachStageCleaned(t *testing.T) {
	var out lockedBuffer
	set, stop := startSpinner(&out, "first stage\x1b]0;owned\x07")
	defer stop() // again: a stopped spinner's stop returns at once
	waitOutput := func(text string) {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); !strings.Contains(out.String(), text); {
			if time.Now().After(deadline) {
				t.Fatalf("the spinner never drew %q:\n%q", text, out.String())
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	waitOutput(`first stage\u001b]0;owned\u0007`)
	set("second stage exe\u202etxt.sh")
	waitOutput(`second stage exe\u202etxt.sh`)
	stop()
	if got := out.String(); strings.Contains(got, "\x1b]0;owned") || strings.ContainsRune(got, '\u202e') {
		t.Fatalf("hostile stage text reached the terminal raw: %q", got)
	}
}
