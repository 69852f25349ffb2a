package terminal

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/client"
	"github.com/askonce/askonce/internal/cli"
)

var runSummary = `Turns GOAL into a plan: creates the job and, when it has a question, asks
it with a picker of its type (a list for SELECT_ONE and TARGET_FILE, yes/no
for CONFIRM, a text input for FREE_TEXT), submits the answer and prints the
plan as a tree. When stdin is not a terminal (or with --no-input) the
options are printed numbered and the answer is read as one line from stdin:
a number picks that option, anything else is the answer. --answer answers
up front. With no --server, the embedded engine runs on the --db file,
by default askonce.db in $XDG_DATA_HOME/askonce (else ~/.local/share/askonce),
never in the working directory.

` + exitCodesHelp

type runConfig struct {
	cli.Conn
	Session, Profile, Files, Answer string
	GoalFile                        string
	NotifySlack, NotifyEmail        string
	JSON, NoInput                   bool
	Candidates                      candidateFlags
	Memory                          memoryFlags
}

// Run is askonce run: one goal to a plan, its question asked on the
// terminal or read from stdin; it returns the exit code.
func Run(ctx context.Context, embed cli.Embedded, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := &runConfig{}
	c.Conn.Embed = embed
	s := cli.NewSettings("run", runSummary, getenv, stderr)
	c.Conn.Flags(s)
	s.String(&c.Session, "session", "", "session id (the repeat guard's scope); empty: a new one")
	s.String(&c.Profile, "profile", "", "interpreter profile (e.g. general, minecraft-mod)")
	s.String(&c.Files, "files", "", "comma-separated files the goal is about (offered by TARGET_FILE questions); empty: the working tree's files (git: those .gitignore does not exclude), up to 500")
	c.Candidates.flags(s)
	c.Memory.flags(s)
	s.String(&c.Answer, "answer", "", "answer the question, if one is asked, with this text (a number picks an option)")
	s.String(&c.NotifySlack, "notify-slack", "", "Slack channel (C…) or user (U…) id the question is sent to (the server needs --slack-bot-token); empty: the server's default")
	s.String(&c.NotifyEmail, "notify-email", "", "comma-separated addresses the question is emailed to (the server needs --smtp-url); empty: the server's default")
	s.Bool(&c.JSON, "json", false, "print the job as JSON instead of the plan tree")
	s.Bool(&c.NoInput, "no-input", false, "never show a picker: print numbered options and read the answer from stdin")
	s.String(&c.GoalFile, "goal-file", "", "read the goal from this file (- for stdin) instead of the arguments; the answer then comes from --answer or a picker")
	s.SetUsage("run [flags] GOAL|-", runSummary)
	pos, err := s.ParseArgs(args)
	if err != nil {
		return report(err, stderr)
	}
	goal, err := c.goal(pos, stdin)
	if err != nil {
		return report(err, stderr)
	}
	if goal == "" {
		return report(cli.UsageError{Msg: "run: give a goal, as in: askonce run \"write the README then add tests\" (or - to read it from stdin, or --goal-file FILE)"}, stderr)
	}
	candidates, err := c.Candidates.list()
	if err != nil {
		return report(err, stderr)
	}
	if _, err := c.Memory.memory(); err != nil {
		return report(err, stderr)
	}
	cl, closeFn, err := open(ctx, &c.Conn)
	if err != nil {
		return report(err, stderr)
	}
	defer closeFn()
	return report(c.run(ctx, cl, goal, candidates, stdin, stdout, stderr), stderr)
}

// goal is the goal of the arguments, or of --goal-file, or of stdin for
// "-" (read to its end: the answer can then come only from --answer or a
// picker on the terminal).
func (c *runConfig) goal(pos []string, stdin io.Reader) (string, error) {
	from := c.GoalFile
	if len(pos) == 1 && pos[0] == "-" {
		pos = nil
		if from != "" {
			return "", cli.UsageError{Msg: "run: give the goal as - or --goal-file, not both"}
		}
		from = "-"
	}
	if from == "" {
		return strings.TrimSpace(strings.Join(pos, " ")), nil
	}
	if len(pos) > 0 {
		return "", cli.UsageError{Msg: fmt.Sprintf("run: the goal comes from --goal-file %s; unexpected argument %q", from, pos[0])}
	}
	r, name := stdin, "stdin"
	if from != "-" {
		f, err := os.Open(from)
		if err != nil {
			return "", cli.UsageError{Msg: "run: --goal-file: " + err.Error()}
		}
		defer f.Close()
		r, name = f, from
	}
	// One byte past the limit is enough for the server to say the goal is too long.
	b, err := io.ReadAll(io.LimitReader(r, askonce.MaxGoal+1))
	if err != nil {
		return "", fmt.Errorf("run: read the goal from %s: %w", name, err)
	}
	if !utf8.Valid(b) {
		return "", cli.UsageError{Msg: fmt.Sprintf("run: the goal in %s is not UTF-8 text", name)}
	}
	return strings.TrimSpace(string(b)), nil
}

func (c *runConfig) run(ctx context.Context, cl *client.Client, goal string, candidates []string, stdin io.Reader, stdout, stderr io.Writer) error {
	// ui gets everything but the result, so that --json output stays JSON.
	ui := stdout
	if c.JSON {
		ui = stderr
	}
	// With no --files, the job is about the project it is run in, so that
	// a TARGET_FILE question offers its files.
	files := cli.SplitList(c.Files)
	if len(files) == 0 {
		files = c.projectFiles()
	}
	mem, _ := c.Memory.memory()
	j, err := cl.CreateAsync(ctx, client.CreateRequest{Goal: goal, SessionID: c.Session, Profile: c.Profile, Files: files, Candidates: candidates,
		Notify: cli.Recipients(c.NotifySlack, c.NotifyEmail), Memory: mem})
	if err == nil {
		j, err = settle(ctx, cl, j, ui)
	}
	if err != nil {
		return err
	}
	if j.Status == askonce.StatusPending && j.ClarificationStatus == askonce.ClarificationAsked {
		answer, err := c.ask(ctx, j, stdin, stdout, ui)
		if ee, ok := err.(exitErr); ok && ee.code == exitUnanswered && c.JSON {
			// Left pending: the JSON is the job, with its answer link.
			if perr := cli.PrintJSON(stdout, j); perr != nil {
				return perr
			}
		}
		if err != nil {
			return err
		}
		done, err := cl.ReplyAsync(ctx, j.JobID, client.AnswerRequest{Answer: wireAnswer(answer), DontRemember: c.Memory.NoRemember})
		if err != nil {
			if client.IsInvalid(err) {
				return exitErr{exitInvalid, fmt.Sprintf("%v\nthe job %s is still pending; answer it with: askonce jobs answer %s TEXT", err, j.JobID, j.JobID)}
			}
			return err
		}
		if j, err = settle(ctx, cl, done, ui); err != nil {
			return err
		}
	}
	if c.JSON {
		if line := autoResolved(j); line != "" {
			fmt.Fprintln(stderr, line)
		}
		if err := cli.PrintJSON(stdout, j); err != nil {
			return err
		}
	} else {
		printResult(stdout, j)
	}
	return jobOutcome(j)
}

// jobOutcome is the exit status of a settled job.
func jobOutcome(j *client.JobView) error {
	switch {
	case j.Status == askonce.StatusPending:
		return exitErr{exitUnanswered, ""}
	case !j.Success:
		return exitErr{exitJobFailed, ""}
	}
	return nil
}

// projectFiles are the working directory's files a goal may be about:
// those of projectFiles but the embedded engine's own database, which
// askonce run creates there by default.
func (c *runConfig) projectFiles() []string {
	return projectFiles(".", 500, c.Conn.OwnFiles()...)
}

// ask gets the answer to j's question: --answer, a picker on a terminal,
// or a line of stdin (asked again while a line names no choice).
func (c *runConfig) ask(ctx context.Context, j *client.JobView, stdin io.Reader, stdout, ui io.Writer) (askonce.Answer, error) {
	var files []string
	if j.ClarificationType == askonce.QuestionTargetFile && len(j.ClarificationOptions) == 0 {
		files = c.projectFiles()
	}
	q := questionOf(j)
	if c.Answer != "" {
		a, err := lineAnswer(c.Answer, &q, answerOptions(j, files))
		if err != nil {
			return askonce.Answer{}, exitErr{exitInvalid, fmt.Sprintf("--answer: %v; the job %s is still pending", err, j.JobID)}
		}
		return a, nil
	}
	pending := func(why string) error {
		msg := fmt.Sprintf("%s; the job %s is still pending: answer it with: askonce jobs answer %s TEXT", why, j.JobID, j.JobID)
		if j.AnswerURL != "" {
			msg += "\nor open " + j.AnswerURL
		}
		return exitErr{exitUnanswered, msg}
	}
	if f, ok := stdin.(*os.File); ok && cli.IsTerminal(f) && !c.NoInput {
		// The picker draws on the terminal: stdout, unless that is
		// redirected or carries the JSON.
		out := io.Writer(os.Stderr)
		if o, ok := stdout.(*os.File); ok && cli.IsTerminal(o) && !c.JSON {
			out = stdout
		}
		a, err := picker(ctx, j, files, stdin, out)
		if errors.Is(err, errAborted) {
			return askonce.Answer{}, pending("no answer given")
		}
		if err != nil {
			return askonce.Answer{}, err
		}
		fmt.Fprintf(ui, "? %s › %s\n", j.ClarificationQuestion, oneLine(a.String(), 100))
		return a, nil
	}
	printQuestion(ui, j, files)
	r := bufio.NewReader(stdin)
	for {
		printAnswerPrompt(ui, j, files)
		line, ok, err := readLine(r)
		if err != nil {
			return askonce.Answer{}, err
		}
		if !ok {
			return askonce.Answer{}, pending("no answer on stdin")
		}
		a, err := lineAnswer(line, &q, answerOptions(j, files))
		if err == nil {
			return a, nil
		}
		fmt.Fprintf(ui, "%v\n", err)
	}
}
