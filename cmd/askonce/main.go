// Command askonce runs the askonce service and its tools.
//
//	askonce serve      run the HTTP API (SQLite file, rules interpreter by default)
//	askonce bench      drive a running server with load (loopback only)
//	askonce hash-key   print the line of an API keys file for a key
//	askonce run        turn a goal into a plan, asking its question in the terminal
//	askonce repl       one goal per line in one session
//	askonce jobs       list, show, answer, cancel jobs and follow their events
//	askonce memory     list and forget remembered answers
//	askonce eval       measure an interpreter on labelled goals
//	askonce health     check a running server's /healthz (the container's health check)
//	askonce version    print the module version and VCS revision
//
// Every command takes --help.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"syscall"

	"github.com/askonce/askonce/bench"
	"github.com/askonce/askonce/cmd/askonce/internal/wiring"
	"github.com/askonce/askonce/eval"
	"github.com/askonce/askonce/internal/buildinfo"
	"github.com/askonce/askonce/internal/cli"
	"github.com/askonce/askonce/terminal"
)

const usage = `askonce turns a goal into a validated plan, asking at most one question.

Usage:
  askonce serve [flags]       run the HTTP API
  askonce bench [flags]       load-test a running server (loopback only)
  askonce hash-key TENANT     read a key on stdin (or make one: --new), print its API keys file line
  askonce run [flags] GOAL    turn a goal into a plan, asking its question here
  askonce repl [flags]        one goal per line in one session (/answer, /jobs)
  askonce jobs COMMAND        list, show, answer, cancel, decline jobs; events
  askonce memory list|forget  the answers remembered in a project or tenant
  askonce mcp [flags]         serve the MCP tools over stdio (docs/mcp.md)
  askonce eval [flags] FILE   measure an interpreter on labelled goals (JSONL)
  askonce health [flags]      check a running server's /healthz (exit 0 when healthy)
  askonce version             the module version and VCS revision (also -v, --version)
  askonce completion SHELL    a completion script for bash, zsh or fish
  askonce help [command]      this text, or a command's flags
  askonce help flags          every command's flags, as docs/flags.md lists them

Run 'askonce COMMAND --help' for the flags of a command. Every flag can
also be set with the ASKONCE_* environment variable its help names.
`

// commands are the names run knows, as the usage lists them: "did you
// mean" and the completion scripts offer them (a test checks that the
// scripts offer every command of the usage).
var commands = []string{"serve", "bench", "hash-key", "run", "repl", "jobs", "mcp", "eval", "health", "version", "completion", "help"}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr))
}

// run is main without the process: it returns the exit code.
func run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	var err error
	switch cmd, rest := args[0], args[1:]; cmd {
	case "serve":
		err = serve(ctx, rest, getenv, stderr)
	case "bench":
		err = bench.Run(ctx, rest, getenv, stdout, stderr)
	case "hash-key":
		err = hashKey(rest, stdin, stdout, stderr)
	case "run":
		return terminal.Run(ctx, wiring.Embedded, rest, getenv, stdin, cli.TerminalSafe(stdout), cli.TerminalSafe(stderr))
	case "mcp":
		err = mcpCommand(ctx, rest, getenv, stdin, stdout, stderr)
	case "repl":
		return terminal.Repl(ctx, wiring.Embedded, rest, getenv, stdin, cli.TerminalSafe(stdout), cli.TerminalSafe(stderr))
	case "jobs":
		return terminal.Jobs(ctx, wiring.Embedded, rest, getenv, stdin, cli.TerminalSafe(stdout), cli.TerminalSafe(stderr))
	case "memory":
		return terminal.Memory(ctx, wiring.Embedded, rest, getenv, cli.TerminalSafe(stdout), cli.TerminalSafe(stderr))
	case "eval":
		return eval.Run(ctx, wiring.NewInterpreter, rest, getenv, cli.TerminalSafe(stdout), cli.TerminalSafe(stderr))
	case "completion":
		err = completion(ctx, rest, getenv, stdout)
	case "health":
		err = health(ctx, rest, getenv, stdout, stderr)
	case "version", "--version", "-v":
		fmt.Fprint(stdout, version())
		return 0
	case "help", "-h", "-help", "--help":
		if len(rest) == 1 && rest[0] == "flags" {
			fmt.Fprintln(stdout, flagsDoc(ctx))
			return 0
		}
		if len(rest) > 0 {
			return run(ctx, []string{rest[0], "--help"}, getenv, stdin, stdout, stderr)
		}
		fmt.Fprint(stdout, usage)
		return 0
	default:
		if hint := cli.DidYouMean(cmd, commands); hint != "" {
			fmt.Fprintf(stderr, "askonce: unknown command %q: %s\nRun 'askonce help' for the commands.\n", cmd, hint)
			return 2
		}
		fmt.Fprintf(stderr, "askonce: unknown command %q\n\n%s", cmd, usage)
		return 2
	}
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, new(cli.UsageError)):
		fmt.Fprintln(stderr, "askonce:", err)
		return 2
	default:
		fmt.Fprintln(stderr, "askonce:", err)
		return 1
	}
}

// version describes this binary: its version (buildinfo.Get: the release
// stamp, else the module version, else the VCS revision), the module path,
// the VCS revision and time it was built from (with "modified" for a dirty
// tree), and the Go toolchain.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return fmt.Sprintf("askonce %s %s %s/%s\n", buildinfo.Get(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
	}
	vcs := map[string]string{}
	for _, s := range bi.Settings {
		vcs[s.Key] = s.Value
	}
	out := fmt.Sprintf("askonce %s (%s)\n", buildinfo.Get(), bi.Main.Path)
	if rev := vcs["vcs.revision"]; rev != "" {
		out += "revision " + rev
		if t := vcs["vcs.time"]; t != "" {
			out += " " + t
		}
		if vcs["vcs.modified"] == "true" {
			out += " modified"
		}
		out += "\n"
	}
	return out + fmt.Sprintf("%s %s/%s\n", bi.GoVersion, runtime.GOOS, runtime.GOARCH)
}
