package terminal

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/client"
	"github.com/askonce/askonce/internal/cli"
	"github.com/google/uuid"
)

const replSummary = `Reads one goal per line and plans each in one session, so that a question
answered once is answered again by the repeat guard ([auto-resolved]).
A pending question is shown with numbered options; answer it with /answer.

Commands:
  /answer TEXT   answer the pending job (a number picks that option)
  /jobs          the session's jobs
  /help          this list
  /quit          leave (so does end of input)`

// Repl is askonce repl: one goal per line of stdin in one session; it
// returns the exit code.
func Repl(ctx context.Context, embed cli.Embedded, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) int {
	cn := cli.Conn{Embed: embed}
	var session, profile, files string
	var cands candidateFlags
	s := cli.NewSettings("repl", replSummary, getenv, stderr)
	cn.Flags(s)
	s.String(&session, "session", "", "session id for every goal; empty: a new one")
	s.String(&profile, "profile", "", "interpreter profile (e.g. general, minecraft-mod)")
	s.String(&files, "files", "", "comma-separated files the goals are about")
	cands.flags(s)
	if err := s.Parse(args); err != nil {
		return report(err, stderr)
	}
	candidates, err := cands.list()
	if err != nil {
		return report(err, stderr)
	}
	cl, closeFn, err := open(ctx, &cn)
	if err != nil {
		return report(err, stderr)
	}
	defer closeFn()
	if session == "" {
		session = uuid.NewString()
	}
	r := &replState{cl: cl, session: session, profile: profile, files: cli.SplitList(files), candidates: candidates, width: outputWidth(), out: stdout, errw: stderr}
	f, ok := stdin.(*os.File)
	interactive := ok && cli.IsTerminal(f)
	fmt.Fprintf(stdout, "askonce repl · session %s · /help for commands\n", session)
	in := bufio.NewReader(stdin)
	for {
		if interactive {
			fmt.Fprint(stdout, "> ")
		}
		line, ok, err := readLine(in)
		if err != nil {
			return report(err, stderr)
		}
		if !ok || ctx.Err() != nil {
			if interactive {
				// Ctrl-D leaves the cursor after the prompt: end its line
				// so the shell's prompt starts on its own.
				fmt.Fprintln(stdout)
			}
			return exitOK
		}
		if !r.handle(ctx, strings.TrimSpace(line)) {
			return exitOK
		}
	}
}

type replState struct {
	cl      *client.Client
	session string
	profile string
	files   []string
	// candidates go with every goal, as files do.
	candidates []string
	pending    *client.JobView
	width      int // of the job table
	out        io.Writer
	errw       io.Writer
}

// handle runs one line; false means quit.
func (r *replState) handle(ctx context.Context, line string) bool {
	cmd, arg, _ := strings.Cut(line, " ")
	arg = strings.TrimSpace(arg)
	switch {
	case line == "" || strings.HasPrefix(line, "#"):
	case cmd == "/quit" || cmd == "/exit":
		return false
	case cmd == "/help":
		fmt.Fprintln(r.out, replSummary[strings.Index(replSummary, "Commands:"):])
	case cmd == "/jobs":
		l, err := r.cl.List(ctx, client.ListOptions{SessionID: r.session, Limit: 100})
		if err != nil {
			r.fail(err)
			break
		}
		printJobTable(r.out, l.Jobs, r.width)
	case cmd == "/answer":
		if r.pending == nil {
			fmt.Fprintln(r.errw, "no pending question: type a goal first")
			break
		}
		if arg == "" {
			fmt.Fprintln(r.errw, "usage: /answer TEXT")
			break
		}
		q := questionOf(r.pending)
		a, err := lineAnswer(arg, &q, answerOptions(r.pending, nil))
		if err != nil {
			fmt.Fprintf(r.errw, "%v; the question is still pending\n", err)
			break
		}
		j, err := r.cl.ReplyAsync(ctx, r.pending.JobID, client.AnswerRequest{Answer: wireAnswer(a)})
		if err == nil {
			j, err = settle(ctx, r.cl, j, r.out)
		}
		if err != nil {
			r.fail(err)
			if client.IsConflict(err) {
				r.pending = nil
			}
			break
		}
		r.pending = nil
		printResult(r.out, j)
	case strings.HasPrefix(cmd, "/"):
		fmt.Fprintf(r.errw, "unknown command %s (/help lists them)\n", cmd)
	default:
		if r.pending != nil {
			fmt.Fprintf(r.out, "(job %s is left pending)\n", r.pending.JobID)
			r.pending = nil
		}
		j, err := r.cl.CreateAsync(ctx, client.CreateRequest{Goal: line, SessionID: r.session, Profile: r.profile, Files: r.files, Candidates: r.candidates})
		if err == nil {
			j, err = settle(ctx, r.cl, j, r.out)
		}
		if err != nil {
			r.fail(err)
			break
		}
		if j.Status == askonce.StatusPending && j.ClarificationStatus == askonce.ClarificationAsked {
			r.pending = j
			printQuestion(r.out, j, nil)
			switch {
			case j.ClarificationAllowOther:
				fmt.Fprintln(r.out, "Answer with /answer N (an option's number) or /answer TEXT (an option, or your own answer)")
			case len(answerOptions(j, nil)) > 0:
				fmt.Fprintln(r.out, "Answer with /answer N (an option's number) or /answer TEXT")
			default:
				fmt.Fprintln(r.out, "Answer with /answer TEXT")
			}
			break
		}
		printResult(r.out, j)
	}
	return true
}

func (r *replState) fail(err error) {
	fmt.Fprintln(r.errw, "error:", err)
}
