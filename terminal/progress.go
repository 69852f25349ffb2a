package terminal

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/client"
	"github.com/askonce/askonce/internal/cli"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/huh/spinner"
	"github.com/charmbracelet/lipgloss"
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

// stageSpinner is huh's spinner with a title that follows the job: huh
// reads the title while it draws, so a new stage is sent to the spinner's
// program as a message and set there, never from the goroutine that reads
// the events.
type stageSpinner struct{ *spinner.Spinner }

// stageTitle is a new title for a stageSpinner.
type stageTitle string

func (s stageSpinner) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if t, ok := msg.(stageTitle); ok {
		s.Title(string(t))
		return s, nil
	}
	_, cmd := s.Spinner.Update(msg)
	return s, cmd
}

// startSpinner shows a spinner and text on w, which must be a terminal,
// until stop is called; set replaces the text. The spinner writes its own
// escape sequences; the text is cleaned of any.
func startSpinner(w io.Writer, text string) (set func(string), stop func()) {
	sp := spinner.New().Title(cli.CleanText(text)).TitleStyle(lipgloss.NewStyle())
	// No input: keys typed meanwhile wait for the picker, and Ctrl-C
	// reaches the command's own signal handling, which ends the wait.
	p := tea.NewProgram(stageSpinner{sp}, tea.WithOutput(cli.Raw(w)), tea.WithInput(nil), tea.WithoutSignalHandler())
	done := make(chan struct{})
	go func() {
		defer close(done)
		p.Run() // a spinner that cannot draw leaves the wait as it is
	}()
	set = func(t string) { p.Send(stageTitle(cli.CleanText(t))) }
	stop = func() {
		p.Quit()
		<-done
	}
	return set, stop
}

// settle waits for a planning job to leave planning and returns it. On a
// terminal ui it shows a spinner with the live stage; elsewhere it waits
// quietly, so that piped output holds only the result.
func settle(ctx context.Context, cl *client.Client, j *client.JobView, ui io.Writer) (*client.JobView, error) {
	if j.Status != askonce.StatusPlanning {
		return j, nil
	}
	var progress func(askonce.Event)
	if f, ok := cli.Raw(ui).(*os.File); ok && cli.IsTerminal(f) {
		var st stage
		set, stop := startSpinner(ui, st.String())
		defer stop()
		progress = func(ev askonce.Event) {
			st.next(ev)
			set(st.String())
		}
	}
	d, err := cl.WaitJobProgress(ctx, j.JobID, progress)
	if err != nil {
		return nil, err
	}
	return &d.JobView, nil
}
