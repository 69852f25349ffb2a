package terminal

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/client"
	"github.com/askonce/askonce/internal/cli"
)

// memoryFlags are the answer-memory flags of askonce run.
type memoryFlags struct {
	Scope, Project, TTL string
	Fresh, NoRemember   bool
}

func (m *memoryFlags) flags(s *cli.Settings) {
	s.String(&m.Scope, "memory", "", "answer memory: session (the default), project (with --project) or tenant: where the question is looked up and the answer remembered")
	s.String(&m.Project, "project", "", "the project whose answers this job shares (with --memory project or tenant)")
	s.String(&m.TTL, "memory-ttl", "", "how long the answer is remembered in the project or tenant (e.g. 720h); empty: the server's default")
	s.Bool(&m.Fresh, "fresh", false, "do not answer the question from memory; ask")
	s.Bool(&m.NoRemember, "no-remember", false, "do not remember the answer given here in the project or tenant")
}

// memory is the job's memory; a bad scope is a usage error before any
// job is created (the server checks the rest, naming the field).
func (m *memoryFlags) memory() (*askonce.Memory, error) {
	if m.Scope == "" && m.Project == "" && m.TTL == "" && !m.Fresh {
		return nil, nil
	}
	if m.Scope != "" {
		if _, err := askonce.ParseMemoryScope("--memory", m.Scope); err != nil {
			return nil, cli.UsageError{Msg: askonce.ErrorMessage(err)}
		}
	}
	scope := askonce.MemoryScope(m.Scope)
	if scope == "" && m.Project != "" {
		scope = askonce.MemoryProject
	}
	return &askonce.Memory{Scope: scope, Project: m.Project, TTL: m.TTL, Fresh: m.Fresh}, nil
}

var memoryUsage = `Usage: askonce memory COMMAND [flags] [ARGS]

Commands (each takes --server/--db, --api-key and --json):
  list                 the remembered answers of a project (--project NAME) or of the tenant (--scope tenant)
  forget HASH          forget one (HASH is its questionHash, as list shows), so the next job asks again

` + exitCodesHelp + `
`

// Memory is askonce memory: list or forget remembered answers; it returns
// the exit code.
func Memory(ctx context.Context, embed cli.Embedded, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, memoryUsage)
		return exitUsage
	}
	sub, rest := args[0], args[1:]
	switch sub {
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, memoryUsage)
		return exitOK
	case "list", "forget":
	default:
		fmt.Fprintf(stderr, "askonce: unknown memory command %q\n\n%s", sub, memoryUsage)
		return exitUsage
	}
	var (
		cn     cli.Conn
		asJSON bool
		q      client.MemoryQuery
		scope  string
	)
	s := cli.NewSettings("memory "+sub, "", getenv, stderr)
	cn.Flags(s)
	cn.Embed = embed
	cn.ReadOnly = sub == "list"
	s.Bool(&asJSON, "json", false, "print JSON instead of a table")
	s.String(&scope, "scope", "", "project (the default with --project), tenant, or session (forget, with --session)")
	s.String(&q.Project, "project", "", "the project")
	s.String(&q.Session, "session", "", "the session (forget --scope session)")
	args1, nargs := "", 0
	if sub == "forget" {
		args1, nargs = "HASH", 1
	}
	s.SetUsage("memory "+sub+" [flags] "+args1, memoryUsage)
	pos, err := s.ParseArgs(rest)
	if err != nil {
		return report(err, stderr)
	}
	if len(pos) != nargs {
		return report(cli.UsageError{Msg: fmt.Sprintf("usage: askonce memory %s [flags] %s", sub, args1)}, stderr)
	}
	switch {
	case scope != "":
		q.Scope = askonce.MemoryScope(scope)
	case q.Session != "" && sub == "forget":
		q.Scope = askonce.MemorySession
	case q.Project != "":
		q.Scope = askonce.MemoryProject
	default:
		return report(cli.UsageError{Msg: "give --project NAME, --scope tenant or (forget) --session ID"}, stderr)
	}
	cl, closeFn, err := open(ctx, &cn)
	if err != nil {
		return report(err, stderr)
	}
	defer closeFn()
	if sub == "forget" {
		f, err := cl.Forget(ctx, pos[0], q)
		if err == nil {
			if asJSON {
				err = cli.PrintJSON(stdout, f)
			} else {
				fmt.Fprintf(stdout, "forgot the %s answer %s\n", f.Scope, f.QuestionHash)
			}
		}
		return report(err, stderr)
	}
	l, err := cl.Memory(ctx, q)
	if err == nil {
		if asJSON {
			err = cli.PrintJSON(stdout, l)
		} else {
			printMemory(stdout, l.Entries, time.Now())
		}
	}
	return report(err, stderr)
}

// printMemory shows remembered answers: when and by which job, the
// question and answer, expiry, uses and the hash that forgets it.
func printMemory(w io.Writer, entries []askonce.HistoryEntry, now time.Time) {
	if len(entries) == 0 {
		fmt.Fprintln(w, "nothing remembered")
		return
	}
	for _, e := range entries {
		expires := ""
		if e.ExpiresAt != nil {
			expires = ", expires " + e.ExpiresAt.Local().Format("2006-01-02")
		}
		fmt.Fprintf(w, "%s  %s -> %s\n    answered %s in job %s%s, used %d times; forget: %s\n",
			e.At.Local().Format("2006-01-02 15:04"), oneLine(e.Question, 100), oneLine(e.Answer, 80),
			askonce.Ago(now.Sub(e.At)), e.JobID, expires, e.Uses, e.QuestionHash)
	}
}
