package main

// The terminal client: askonce run, repl and jobs, over the client
// package, against a server (--server) or the embedded engine on a local
// SQLite file (--db).

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/client"
	"github.com/askonce/askonce/postgres"
	"github.com/askonce/askonce/server"
	"github.com/mattn/go-isatty"
)

// Exit codes of run, repl and jobs (docs/terminal.md, askonce jobs --help).
const (
	exitOK         = 0
	exitError      = 1
	exitUsage      = 2
	exitNotFound   = 3
	exitConflict   = 4
	exitInvalid    = 5
	exitJobFailed  = 6
	exitUnanswered = 7
)

// exitCodeHelp is each exit code's line (or lines) in --help.
var exitCodeHelp = map[int]string{
	exitOK:       "  0  ok",
	exitError:    "  1  other error (server unreachable, bad request, unauthorized, ...)",
	exitUsage:    "  2  usage error",
	exitNotFound: "  3  not found (no such job)",
	exitConflict: "  4  conflict (the job is not pending: already answered, cancelled, ...)",
	exitInvalid: `  5  invalid input (an answer the question does not allow, an empty goal,
     an unknown profile); the job stays pending`,
	exitJobFailed: `  6  the job ended without success (failed, validation_error, expired,
     cancelled); run and jobs answer only`,
	exitUnanswered: `  7  the question was left unanswered (no answer on stdin, picker
     aborted); the job stays pending: answer it with askonce jobs answer`,
}

// exitCodes is the "Exit codes:" section of a command's --help, listing
// only the codes it can return.
func exitCodes(codes ...int) string {
	out := "Exit codes:"
	for _, c := range codes {
		out += "\n" + exitCodeHelp[c]
	}
	return out
}

// exitCodesHelp lists every exit code of run and jobs.
var exitCodesHelp = exitCodes(exitOK, exitError, exitUsage, exitNotFound, exitConflict, exitInvalid, exitJobFailed, exitUnanswered)

// exitError carries an exit code other than 1 for an error; its message
// has already been printed when msg is empty.
type exitErr struct {
	code int
	msg  string
}

func (e exitErr) Error() string { return e.msg }

// clientCode is the exit code for a client error, and the error to print.
func clientCode(err error) int {
	var ce *client.Error
	var ee exitErr
	switch {
	case errors.As(err, &ee):
		return ee.code
	case errors.As(err, &ce):
		switch {
		case ce.Code == client.CodeNotFound:
			return exitNotFound
		case ce.Code == client.CodeConflict:
			return exitConflict
		case ce.Code == client.CodeInvalid:
			return exitInvalid
		}
	}
	return exitError
}

// report prints err (if it has a message) and returns its exit code; nil
// is 0, --help is 0, a usage error is 2.
func report(err error, stderr io.Writer) int {
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if errors.As(err, new(usageError)) {
		fmt.Fprintln(stderr, "askonce:", err)
		return exitUsage
	}
	if err.Error() != "" {
		fmt.Fprintln(stderr, "askonce:", err)
	}
	if hint := unreachable(err); hint != "" {
		fmt.Fprintln(stderr, hint)
	}
	return clientCode(err)
}

// conn is where the client's requests go.
type conn struct {
	Server       string
	DB           string
	APIKey       string
	Interpreter  string
	ProfileFiles string
	getenv       func(string) string
	// readOnly is set by commands that only read: they open an existing
	// --db file and never create one.
	readOnly bool
}

func (c *conn) flags(s *settings) {
	s.String(&c.Server, "server", "", "askonce server URL (http://host:port); empty: the embedded engine on --db")
	s.String(&c.DB, "db", "askonce.db", "embedded engine's "+dbHelp+" (used when --server is empty)")
	s.String(&c.APIKey, "api-key", "", "API key for --server (sent as a Bearer token); prefer the environment variable")
	s.String(&c.Interpreter, "interpreter", "rules", "interpreter of the embedded engine: rules, openai (ASKONCE_OPENAI_*) or exec (ASKONCE_EXEC_*); see docs/interpreters.md")
	s.String(&c.ProfileFiles, "profile-files", "", "rules profiles of the embedded engine from files, as name=path[,name=path]")
	c.getenv = s.getenv
}

// open returns a client and a function that releases it.
func (c *conn) open(ctx context.Context) (*client.Client, func(), error) {
	if c.Server != "" {
		cl, err := client.New(c.Server, client.WithAPIKey(c.APIKey))
		if err != nil {
			return nil, nil, usageError{"--server: " + err.Error()}
		}
		return cl, func() {}, nil
	}
	interp, err := newInterpreter(c.Interpreter, c.ProfileFiles, c.getenv)
	if err != nil {
		return nil, nil, err
	}
	if c.DB, err = dbPath(c.DB); err != nil {
		return nil, nil, err
	}
	if c.readOnly && !postgres.IsDSN(c.DB) {
		if _, err := os.Stat(c.DB); errors.Is(err, fs.ErrNotExist) {
			return nil, nil, fmt.Errorf("no database at %s: nothing has been run there yet (give --db the file askonce run used, or --server)", c.DB)
		}
	}
	st, _, err := openStore(ctx, c.DB, storeHooks{})
	if err != nil {
		return nil, nil, err
	}
	engine := &askonce.Engine{Store: st, Interpreter: interp, NoBuilder: true}
	// Questions that waited past their time expire before anything reads them.
	engine.ExpireDue(ctx)
	api := server.New(server.Config{Engine: engine, Idempotency: st, AnsweredVia: askonce.ViaTerminal})
	return client.NewHandler(api), func() { api.CloseStreams(); st.Close() }, nil
}

// Bool is a boolean flag with its variable as the fallback.
func (s *settings) Bool(p *bool, name string, def bool, help string) {
	if v, ok := s.env(name, strconv.FormatBool(def), help); ok {
		b, err := strconv.ParseBool(v)
		if err != nil {
			s.badEnv(name, v, err)
		}
		def = b
	}
	s.fs.BoolVar(p, name, def, help)
}

// parseArgs parses flags anywhere among the arguments and returns the
// positional ones ("askonce run 'goal' --json" works).
func (s *settings) parseArgs(args []string) ([]string, error) {
	var pos []string
	for {
		if err := s.parseFlags(args); err != nil {
			return nil, err
		}
		args = s.fs.Args()
		if len(args) == 0 {
			break
		}
		if args[0] == "--" {
			pos = append(pos, args[1:]...)
			break
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
	if s.envErr != nil {
		return nil, s.envErr
	}
	return pos, nil
}

// splitList splits a,b,c, dropping empty items.
func splitList(v string) []string {
	var out []string
	for _, f := range strings.Split(v, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// isTerminal reports whether f is a terminal (not merely a character
// device such as /dev/null).
func isTerminal(f *os.File) bool {
	return isatty.IsTerminal(f.Fd())
}

// unreachable is the hint for an error that is a server not answering at
// all (nothing listening, no such host), or "".
func unreachable(err error) string {
	var ue *url.Error
	if !errors.As(err, &ue) {
		return ""
	}
	var dns *net.DNSError
	if !errors.Is(err, syscall.ECONNREFUSED) && !errors.As(err, &dns) && !errors.Is(err, syscall.EHOSTUNREACH) {
		return ""
	}
	server := ue.URL
	if u, perr := url.Parse(ue.URL); perr == nil && u.Host != "" {
		server = u.Scheme + "://" + u.Host
	}
	return fmt.Sprintf("is `askonce serve` running at %s? (start it, or give --server the address it listens on)", server)
}
