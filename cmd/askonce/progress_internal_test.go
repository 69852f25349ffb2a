package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/askonce/askonce"
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
	got := cleanText(s.String())
	if strings.ContainsAny(got, "\x1b\x07\n") {
		t.Fatalf("stage text %q carries control characters to the terminal", got)
	}
}
