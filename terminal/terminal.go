// Package terminal is the terminal client: askonce run, repl, jobs and
// memory, over the client package, against a server (--server) or the
// embedded engine on a local SQLite file (--db, by default in the user's
// data folder) that cmd/askonce hands it as a cli.Embedded.
package terminal

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/url"
	"syscall"

	"github.com/askonce/askonce/client"
	"github.com/askonce/askonce/internal/cli"
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
	if errors.As(err, new(cli.UsageError)) {
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
