package terminal

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/client"
	"github.com/askonce/askonce/internal/cli"
)

func TestPrintPlanDrawsTheDAG(t *testing.T) {
	var b bytes.Buffer
	printPlan(&b, &askonce.Plan{Tasks: []askonce.Task{
		{ID: "a", Title: "A"},
		{ID: "b", Title: "B", DependsOn: []string{"a"}},
		{ID: "c", Title: "C", DependsOn: []string{"a"}},
		{ID: "d", Title: "D", DependsOn: []string{"b", "c"}},
		{ID: "x", Title: "X", DependsOn: []string{"y"}},
		{ID: "y", Title: "Y", DependsOn: []string{"x"}},
	}, Assumptions: []string{"hot"}})
	// One tree: the tasks of a cycle, which have no root, follow the rest.
	want := `├── a  A
│   ├── b  B  (after a)
│   └── c  C  (after a)
│       └── d  D  (after b, c)
└── x  X  (after y)
    └── y  Y  (after x)
  assumption: hot
`
	if got := b.String(); got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
}

// A task title with escape sequences, a newline or bidi controls stays on
// its own line of the tree, with those characters shown as escapes.
func TestPrintPlanEscapesHostileTitles(t *testing.T) {
	var b bytes.Buffer
	printPlan(&b, &askonce.Plan{Tasks: []askonce.Task{
		{ID: "a", Title: "title\x1b]0;owned\x07\nsecond line"},
		{ID: "b", Title: "exe\u202etxt.sh", DependsOn: []string{"a"}},
	}})
	want := `└── a  title\u001b]0;owned\u0007\u000asecond line
    └── b  exe\u202etxt.sh  (after a)
`
	if got := b.String(); got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
}

// A typed line picks a choice by its number or its exact text, as that
// option (by identity, so options differing only in case stay apart); a
// number that is no choice is refused, never sent as text.
func TestLineAnswerPicksByNumberAndRefusesANumberThatIsNoChoice(t *testing.T) {
	q := askonce.Question{Type: askonce.QuestionSelectOne, Text: "Which?", Options: []string{"Postgres", "postgres"}, AllowOther: true}
	for in, want := range map[string]askonce.Answer{
		"1":        askonce.AnswerOf(askonce.OptionValue("Postgres")),
		" 2 ":      askonce.AnswerOf(askonce.OptionValue("postgres")),
		"postgres": askonce.AnswerOf(askonce.OptionValue("postgres")),
		"tepid":    askonce.TextAnswer("tepid"),
	} {
		if got, err := lineAnswer(in, &q, q.Options); err != nil || !got.Equal(want) {
			t.Errorf("lineAnswer(%q) = %s, %v; want %s", in, got.JSON(), err, want.JSON())
		}
	}
	for _, in := range []string{"9", "0", "3"} {
		if got, err := lineAnswer(in, &q, q.Options); err == nil || !strings.Contains(err.Error(), "pick 1 to 2") {
			t.Errorf("lineAnswer(%q) = %s, %v; want refused", in, got.JSON(), err)
		}
	}
	many := askonce.Question{Type: askonce.QuestionSelectMany, Text: "Which zones?", Options: []string{"eu", "us", "ap"}}
	if got, err := lineAnswer("3, 1", &many, many.Options); err != nil || !got.Equal(askonce.AnswerOf(askonce.OptionsValue("ap", "eu"))) {
		t.Errorf("lineAnswer(3, 1) = %s, %v; want ap and eu", got.JSON(), err)
	}
	if _, err := lineAnswer("1,4", &many, many.Options); err == nil {
		t.Errorf("lineAnswer(1,4) taken; want refused")
	}
}

func TestExitCodes(t *testing.T) {
	for err, want := range map[error]int{
		&client.Error{Status: 404, Code: "not_found"}:            exitNotFound,
		&client.Error{Status: 409, Code: "conflict"}:             exitConflict,
		&client.Error{Status: 422, Code: "invalid"}:              exitInvalid,
		&client.Error{Status: 401, Code: "unauthorized"}:         exitError,
		exitErr{code: exitJobFailed}:                             exitJobFailed,
		errors.New("dial tcp: connection refused"):               exitError,
		cli.UsageError{Msg: "bad flag"}:                          exitUsage,
		&client.Error{Status: 422, Code: "idempotency_mismatch"}: exitError,
	} {
		if got := report(err, &bytes.Buffer{}); got != want {
			t.Errorf("report(%v) = %d, want %d", err, got, want)
		}
	}
	if got := jobOutcome(&client.JobView{Status: askonce.StatusFailed}); clientCode(got) != exitJobFailed {
		t.Errorf("failed job: %v", got)
	}
	if got := jobOutcome(&client.JobView{Status: askonce.StatusSuccess, Success: true}); got != nil {
		t.Errorf("successful job: %v", got)
	}
	if !strings.Contains(exitCodesHelp, "7  the question was left unanswered") {
		t.Error("exit codes help lacks 7")
	}
}

// Job tables fit 80 columns whatever the titles and sessions, and never
// shorten what other commands take or scripts match: the id, the status,
// the question's state.
func TestPrintJobTableFitsEightyColumns(t *testing.T) {
	t.Parallel()
	job := func(status askonce.Status, cl askonce.ClarificationStatus, src askonce.Source, session, title string) client.JobView {
		var j client.JobView
		j.JobID = "01a1fcb4-3bca-7659-9e7c-36f4a83f41ae"
		j.Status, j.ClarificationStatus, j.ClarificationSource = status, cl, src
		j.SessionID, j.Title = session, title
		return j
	}
	long := strings.Repeat("a long title with ünïcödé ", 10)
	for name, jobs := range map[string][]client.JobView{
		"short":           {job(askonce.StatusSuccess, askonce.ClarificationNone, "", "r1", "Hot cheese")},
		"long title":      {job(askonce.StatusSuccess, askonce.ClarificationAnswered, "history", "r1", long)},
		"uuid session":    {job(askonce.StatusPending, askonce.ClarificationAsked, "", "6f1c2b9e-1d2a-4c3b-9e8f-0a1b2c3d4e5f", long)},
		"widest statuses": {job(askonce.StatusValidationError, askonce.ClarificationAnswered, "history", "6f1c2b9e-1d2a-4c3b-9e8f-0a1b2c3d4e5f", long)},
		"no jobs":         nil,
	} {
		var b bytes.Buffer
		printJobTable(&b, jobs, tableWidth)
		lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
		if len(lines) != len(jobs)+1 || !strings.HasPrefix(lines[0], "ID  ") {
			t.Errorf("%s: want a header and %d rows:\n%s", name, len(jobs), b.String())
		}
		for _, l := range lines {
			if n := len([]rune(l)); n > 80 {
				t.Errorf("%s: a line of %d columns:\n%s", name, n, l)
			}
		}
		for i, j := range jobs {
			cl := string(j.ClarificationStatus)
			if j.ClarificationSource != "" {
				cl += " (" + string(j.ClarificationSource) + ")"
			}
			for _, whole := range []string{j.JobID, string(j.Status), cl} {
				if !strings.Contains(lines[i+1], whole) {
					t.Errorf("%s: row %q lacks %q", name, lines[i+1], whole)
				}
			}
		}
	}
	// With no width (stdout is not a terminal) every title is whole.
	var whole bytes.Buffer
	printJobTable(&whole, []client.JobView{job(askonce.StatusSuccess, askonce.ClarificationNone, "", "6f1c2b9e-1d2a-4c3b-9e8f-0a1b2c3d4e5f", long)}, 0)
	if !strings.Contains(whole.String(), "  6f1c2b9e-1d2a-4c3b-9e8f-0a1b2c3d4e5f  "+strings.TrimSpace(long)+"\n") {
		t.Errorf("with no width the session and title were shortened:\n%s", whole.String())
	}
	// What fits is shown whole.
	var b bytes.Buffer
	printJobTable(&b, []client.JobView{job(askonce.StatusSuccess, askonce.ClarificationNone, "", "r1", "Hot cheese")}, tableWidth)
	if !strings.Contains(b.String(), "  r1  ") || !strings.HasSuffix(b.String(), "  Hot cheese\n") {
		t.Errorf("a short row was shortened:\n%s", b.String())
	}
}
