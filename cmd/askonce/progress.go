package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/client"
)

// stage is what a planning job is doing now, read from its events: which
// interpreter call it waits for and why that call is made.
type stage struct {
	attempt int    // the interpreter call being waited for, from 1
	reason  string // why: an answer, a retry, the fallback
	retry   string // the error of the attempt that is being retried
}

// next moves the stage past one event of the job.
func (s *stage) next(ev askonce.Event) {
	switch ev.Type {
	case askonce.EventCreated:
		s.attempt = max(s.attempt, 1)
	case askonce.EventAttempt:
		var a struct {
			N       int                    `json:"n"`
			Outcome askonce.AttemptOutcome `json:"outcome"`
			Error   string                 `json:"error"`
		}
		json.Unmarshal(ev.Data, &a)
		s.attempt = max(s.attempt, a.N+1)
		s.reason, s.retry = "", ""
		if a.Outcome == askonce.AttemptInvalid {
			s.reason, s.retry = "retry", a.Error
		}
	case askonce.EventAnswered, askonce.EventAutoResolved:
		s.reason, s.retry = "clarification answer", ""
	case askonce.EventFallbackApplied:
		s.reason, s.retry = "fallback", ""
	case askonce.EventRecovered:
		s.reason, s.retry = "recovered after a restart", ""
	}
}

func (s stage) String() string {
	t := "waiting for interpreter"
	if s.attempt > 0 {
		t += fmt.Sprintf(" · attempt %d", s.attempt)
	}
	if s.reason != "" {
		t += " · " + s.reason
	}
	if s.retry != "" {
		t += ": " + oneLine(s.retry, 60)
	}
	return t
}

// spinner draws one line, "⠋ <stage>", redrawn in place until stop.
type spinner struct {
	w    io.Writer
	mu   sync.Mutex
	text string
	done chan struct{}
	wg   sync.WaitGroup
}

var spinnerFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// startSpinner draws on w, which must be a terminal; the spinner writes
// its own escape sequences, and the stage text is cleaned of any.
func startSpinner(w io.Writer, text string) *spinner {
	s := &spinner{w: raw(w), text: text, done: make(chan struct{})}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for i := 0; ; i++ {
			s.mu.Lock()
			fmt.Fprintf(s.w, "\r\x1b[2K%s %s", spinnerFrames[i%len(spinnerFrames)], cleanText(s.text))
			s.mu.Unlock()
			select {
			case <-s.done:
				fmt.Fprint(s.w, "\r\x1b[2K")
				return
			case <-t.C:
			}
		}
	}()
	return s
}

func (s *spinner) set(text string) {
	s.mu.Lock()
	s.text = text
	s.mu.Unlock()
}

func (s *spinner) stop() {
	close(s.done)
	s.wg.Wait()
}

// settle waits for a planning job to leave planning and returns it. On a
// terminal ui it shows a spinner with the live stage; elsewhere it waits
// quietly, so that piped output holds only the result.
func settle(ctx context.Context, cl *client.Client, j *client.JobView, ui io.Writer) (*client.JobView, error) {
	if j.Status != askonce.StatusPlanning {
		return j, nil
	}
	var progress func(askonce.Event)
	if f, ok := raw(ui).(*os.File); ok && isTerminal(f) {
		var st stage
		sp := startSpinner(ui, st.String())
		defer sp.stop()
		progress = func(ev askonce.Event) {
			st.next(ev)
			sp.set(st.String())
		}
	}
	d, err := cl.WaitJobProgress(ctx, j.JobID, progress)
	if err != nil {
		return nil, err
	}
	return &d.JobView, nil
}
