package terminal

import (
	"bytes"
	"context"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/internal/cli"
	"github.com/askonce/askonce/rules"
	"github.com/askonce/askonce/server"
	"github.com/askonce/askonce/sqlite"
)

// The terminal commands called as functions, with strings for stdin and
// buffers for stdout and stderr, on the embedded engine and a real SQLite
// file: no process, no terminal (so no picker: the numbered options and a
// line of stdin). cmd/askonce's tests run the same paths through the
// built binary.

// embedded is the embedded engine of the tests: the rules interpreter
// and the SQLite file of --db behind the HTTP API, as cmd/askonce wires
// it (whatever --interpreter says).
func embedded(ctx context.Context, c *cli.Conn) (http.Handler, func(), error) {
	interp, err := rules.New(rules.Options{})
	if err != nil {
		return nil, nil, err
	}
	st, err := sqlite.Options{}.Open(ctx, c.DB)
	if err != nil {
		return nil, nil, err
	}
	api := server.New(server.Config{Engine: &askonce.Engine{Store: st, Interpreter: interp, NoBuilder: true}, Idempotency: st, AnsweredVia: askonce.ViaTerminal})
	return api, func() { api.CloseStreams(); st.Close() }, nil
}

// noEnv is an environment with no ASKONCE_* variable set.
func noEnv(string) string { return "" }

type cmdFunc func(args []string, stdin string) (stdout, stderr string, code int)

func call(t *testing.T, f func(args []string, stdin *strings.Reader, stdout, stderr *bytes.Buffer) int) cmdFunc {
	return func(args []string, stdin string) (string, string, int) {
		t.Helper()
		var out, errs bytes.Buffer
		code := f(args, strings.NewReader(stdin), &out, &errs)
		return out.String(), errs.String(), code
	}
}

func wantRun(t *testing.T, what, out, errs string, code, wantCode int, contains ...string) {
	t.Helper()
	if code != wantCode {
		t.Fatalf("%s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", what, code, wantCode, out, errs)
	}
	for _, c := range contains {
		if !strings.Contains(out+errs, c) {
			t.Fatalf("%s: output lacks %q\nstdout:\n%s\nstderr:\n%s", what, c, out, errs)
		}
	}
}

var jobID = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

func TestCommandsWithoutAProcess(t *testing.T) {
	db := t.TempDir() + "/t.db"
	run := call(t, func(args []string, stdin *strings.Reader, stdout, stderr *bytes.Buffer) int {
		return Run(t.Context(), embedded, append([]string{"--db", db}, args...), noEnv, stdin, stdout, stderr)
	})
	jobs := call(t, func(args []string, stdin *strings.Reader, stdout, stderr *bytes.Buffer) int {
		return Jobs(t.Context(), embedded, append(args[:1:1], append([]string{"--db", db}, args[1:]...)...), noEnv, stdin, stdout, stderr)
	})

	t.Run("RunReadsTheAnswerFromStdinAndDrawsThePlan", func(t *testing.T) {
		out, errs, code := run([]string{"--session", "S", "hot frozen cheese"}, "2\n")
		wantRun(t, "run", out, errs, code, exitOK, "1) hot", "2) frozen", "Frozen cheese", "answer: frozen (from user)", "└── t1  Frozen cheese")
		if !jobID.MatchString(out) {
			t.Fatalf("no job id in %q", out)
		}
	})
	t.Run("RunAnswersARepeatFromTheSession", func(t *testing.T) {
		out, errs, code := run([]string{"--session", "S", "hot frozen cheese"}, "")
		wantRun(t, "repeat", out, errs, code, exitOK, "[auto-resolved]", "-> frozen (from history)")
	})
	var pending string
	t.Run("RunWithNoAnswerLeavesTheJobPending", func(t *testing.T) {
		out, errs, code := run([]string{"--profile", "minecraft-mod", "make a mod"}, "")
		wantRun(t, "no answer", out, errs, code, exitUnanswered, "no answer on stdin", "askonce jobs answer")
		pending = jobID.FindString(out + errs)
		if pending == "" {
			t.Fatalf("no job id in\n%s%s", out, errs)
		}
	})
	t.Run("RunWithoutAGoalIsAUsageError", func(t *testing.T) {
		out, errs, code := run(nil, "")
		wantRun(t, "no goal", out, errs, code, exitUsage, "give a goal")
	})
	t.Run("JobsListShowsEveryJob", func(t *testing.T) {
		out, errs, code := jobs([]string{"list"}, "")
		wantRun(t, "jobs list", out, errs, code, exitOK, "STATUS", "answered (user)", "answered (history)", pending)
	})
	t.Run("JobsAnswerSettlesThePendingJob", func(t *testing.T) {
		out, errs, code := jobs([]string{"answer", pending, "a glowing lamp block"}, "")
		wantRun(t, "jobs answer", out, errs, code, exitOK, "Glowing lamp block", "answer: a glowing lamp block (from user)")
		out, errs, code = jobs([]string{"answer", pending, "again"}, "")
		wantRun(t, "jobs answer twice", out, errs, code, exitConflict, "cannot answer")
	})
	t.Run("JobsShowOfAnUnknownJobIsNotFound", func(t *testing.T) {
		out, errs, code := jobs([]string{"show", "01a1fcb1-0000-7000-8000-000000000000"}, "")
		wantRun(t, "jobs show unknown", out, errs, code, exitNotFound, "not found")
	})
	t.Run("ReplPlansOneGoalPerLine", func(t *testing.T) {
		var out, errs bytes.Buffer
		code := Repl(t.Context(), embedded, []string{"--db", db, "--session", "R"}, noEnv,
			strings.NewReader("hot frozen cheese\n/answer 1\n/quit\nwrite the README\n"), &out, &errs)
		wantRun(t, "repl", out.String(), errs.String(), code, exitOK, "session R", "1) hot", "answer: hot (from user)")
		if strings.Contains(out.String(), "Write the README") {
			t.Fatalf("repl went on after /quit:\n%s", out.String())
		}
	})
}
