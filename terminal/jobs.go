package terminal

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/client"
	"github.com/askonce/askonce/internal/cli"
)

var jobsUsage = `Usage: askonce jobs COMMAND [flags] [ARGS]

Commands (each takes --server/--db, --api-key and --json; see COMMAND --help):
  list                 the jobs, newest first (--session, --status, --limit)
  show ID              one job: question, answer, plan, attempts (--wait: once it leaves planning)
  answer ID TEXT       answer a pending job (a number picks that option)
  cancel ID            cancel a planning or pending job
  decline ID           decline the question (its default, or the fallback)
  events ID            the job's audit trail (--follow streams it live)
  history SESSION      the session's answered questions (the repeat guard)

Without --server they read the embedded engine's database: --db, by default
the askonce.db askonce run uses ($XDG_DATA_HOME/askonce, else
~/.local/share/askonce).

` + exitCodesHelp + `
`

// JobsCommands are the commands of askonce jobs, as its usage lists them.
var JobsCommands = []string{"list", "show", "answer", "cancel", "decline", "events", "history"}

// jobsExitCodes are the exit codes each jobs command can return: only
// commands that take a job id can find none, only those that change a job
// can conflict, and only answer checks an answer and waits for the outcome.
var jobsExitCodes = map[string][]int{
	"list":    {exitOK, exitError, exitUsage},
	"history": {exitOK, exitError, exitUsage},
	"show":    {exitOK, exitError, exitUsage, exitNotFound},
	"events":  {exitOK, exitError, exitUsage, exitNotFound},
	"cancel":  {exitOK, exitError, exitUsage, exitNotFound, exitConflict},
	"decline": {exitOK, exitError, exitUsage, exitNotFound, exitConflict},
	"answer":  {exitOK, exitError, exitUsage, exitNotFound, exitConflict, exitInvalid, exitJobFailed},
}

// Jobs is askonce jobs: its command (list, show, answer, ...) with its
// flags and arguments; it returns the exit code.
func Jobs(ctx context.Context, embed cli.Embedded, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, jobsUsage)
		return exitUsage
	}
	sub, rest := args[0], args[1:]
	switch sub {
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, jobsUsage)
		return exitOK
	default:
		if !slices.Contains(JobsCommands, sub) {
			if hint := cli.DidYouMean(sub, JobsCommands); hint != "" {
				fmt.Fprintf(stderr, "askonce: unknown jobs command %q: %s\nRun 'askonce jobs --help' for its commands.\n", sub, hint)
				return exitUsage
			}
			fmt.Fprintf(stderr, "askonce: unknown jobs command %q\n\n%s", sub, jobsUsage)
			return exitUsage
		}
	}
	var (
		cn                     cli.Conn
		asJSON, follow, wait   bool
		noRemember             bool
		session, status        string
		limit                  int
		after                  int
		nargs                  int
		argNames, summaryExtra string
	)
	s := cli.NewSettings("jobs "+sub, "", getenv, stderr)
	cn.Flags(s)
	cn.Embed = embed
	cn.ReadOnly = sub == "list" || sub == "show" || sub == "events" || sub == "history"
	s.Bool(&asJSON, "json", false, "print JSON instead of a table")
	switch sub {
	case "list":
		s.String(&session, "session", "", "only the jobs of this session")
		s.String(&status, "status", "", "only jobs with this status (pending, success, failed, ...)")
		s.Int(&limit, "limit", 50, "at most this many jobs (1-500)")
	case "show":
		nargs, argNames = 1, "ID"
		s.Bool(&wait, "wait", false, "wait until the job leaves planning (pending with its question, or settled), showing its stage on a terminal")
	case "cancel", "decline":
		nargs, argNames = 1, "ID"
	case "answer":
		nargs, argNames = 2, "ID TEXT"
		s.Bool(&noRemember, "no-remember", false, "do not remember this answer in the job's project or tenant memory")
	case "events":
		nargs, argNames = 1, "ID"
		s.Bool(&follow, "follow", false, "stream new events until the job is settled (Server-Sent Events)")
		s.Int(&after, "after", 0, "only events with an id greater than this")
	case "history":
		nargs, argNames = 1, "SESSION"
	}
	// The command's line of jobsUsage, after its padded name, is its summary.
	line := jobsUsage[strings.Index(jobsUsage, "\n  "+sub+" ")+1:]
	line = line[:strings.Index(line, "\n")]
	summaryExtra = strings.TrimSpace(line[23:])
	summaryExtra = strings.ToUpper(summaryExtra[:1]) + summaryExtra[1:] + "."
	s.SetUsage("jobs "+sub+" [flags] "+argNames, summaryExtra+"\n\n"+exitCodes(jobsExitCodes[sub]...))
	pos, err := s.ParseArgs(rest)
	if err != nil {
		return report(err, stderr)
	}
	if sub == "answer" && len(pos) > 2 {
		pos = []string{pos[0], strings.Join(pos[1:], " ")}
	}
	if len(pos) != nargs {
		return report(cli.UsageError{Msg: fmt.Sprintf("usage: askonce jobs %s [flags] %s", sub, argNames)}, stderr)
	}
	cl, closeFn, err := open(ctx, &cn)
	if err != nil {
		return report(err, stderr)
	}
	defer closeFn()
	out := func(v any, text func()) error {
		if asJSON {
			return cli.PrintJSON(stdout, v)
		}
		text()
		return nil
	}
	switch sub {
	case "list":
		l, err := cl.List(ctx, client.ListOptions{SessionID: session, Status: askonce.Status(status), Limit: limit})
		if err == nil {
			err = out(l, func() { printJobTable(stdout, l.Jobs, outputWidth()) })
		}
		return report(err, stderr)
	case "show":
		d, err := cl.Get(ctx, pos[0])
		if err == nil && wait && d.Status == askonce.StatusPlanning {
			var j *client.JobView
			if j, err = settle(ctx, cl, &d.JobView, stderr); err == nil {
				d, err = cl.Get(ctx, j.JobID)
			}
		}
		if err == nil {
			err = out(d, func() { printDetail(stdout, d) })
		}
		return report(err, stderr)
	case "answer":
		d, err := cl.Get(ctx, pos[0])
		if err != nil {
			return report(err, stderr)
		}
		q := questionOf(&d.JobView)
		a, err := lineAnswer(pos[1], &q, answerOptions(&d.JobView, nil))
		if err != nil {
			return report(exitErr{exitInvalid, fmt.Sprintf("%v; the question is still pending", err)}, stderr)
		}
		j, err := cl.ReplyAsync(ctx, pos[0], client.AnswerRequest{Answer: wireAnswer(a), DontRemember: noRemember})
		if err == nil {
			j, err = settle(ctx, cl, j, stderr)
		}
		if err == nil {
			if err = out(j, func() { printResult(stdout, j) }); err == nil {
				err = jobOutcome(j)
			}
		}
		return report(err, stderr)
	case "cancel", "decline":
		call := cl.Cancel
		if sub == "decline" {
			call = cl.DeclineAsync
		}
		j, err := call(ctx, pos[0])
		if err == nil {
			j, err = settle(ctx, cl, j, stderr)
		}
		if err == nil {
			err = out(j, func() { printResult(stdout, j) })
		}
		return report(err, stderr)
	case "events":
		if !follow {
			evs, err := cl.Events(ctx, pos[0], int64(after))
			if err == nil {
				err = out(evs, func() { printEvents(stdout, evs.Events) })
			}
			return report(err, stderr)
		}
		_, err := cl.Stream(ctx, pos[0], int64(after), func(ev askonce.Event) error {
			if asJSON {
				return cli.PrintJSON(stdout, ev)
			}
			fmt.Fprintf(stdout, "%d  %s  %s  %s\n", ev.ID, ev.At.Local().Format("15:04:05.000"), ev.Type, oneLine(string(ev.Data), 80))
			return nil
		})
		if err == context.Canceled {
			err = nil
		}
		return report(err, stderr)
	default: // history
		h, err := cl.History(ctx, pos[0])
		if err == nil {
			err = out(h, func() { printHistory(stdout, h.Entries) })
		}
		return report(err, stderr)
	}
}

func printHistory(w io.Writer, entries []askonce.HistoryEntry) {
	for _, e := range entries {
		fmt.Fprintf(w, "%s  %s -> %s  [%s, job %s]\n", e.At.Local().Format("2006-01-02 15:04:05"), e.Question, oneLine(e.Answer, 80), e.Type, e.JobID)
	}
}
