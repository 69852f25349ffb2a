// Package cli is the plumbing the askonce commands share: flags with an
// ASKONCE_* variable as their fallback, usage errors, the --db store and
// the embedded engine's interpreter, and terminal-safe output.
package cli

import (
	"flag"
	"fmt"
	"github.com/askonce/askonce"
	"io"
	"strconv"
	"strings"
	"time"
)

// Settings binds flags to fields with an ASKONCE_* environment variable as
// the fallback: a flag given on the command line wins over the variable,
// which wins over the default. One definition serves parsing, --help and
// the README's configuration table (a test keeps them equal).
type Settings struct {
	fs     *flag.FlagSet
	getenv func(string) string
	envErr error
	defs   []Flag
	line   string // the usage line: "serve [flags]"
}

// Flag is one flag as --help and docs/flags.md document it: its name
// (with its argument for a repeatable one), its ASKONCE_* variable (none
// for a repeatable one: Repeated), its default as --help shows it, and
// what it does.
type Flag struct {
	Name, Env, Default, Help string
}

// Flags are the command's flags in the order it defined them.
func (s *Settings) Flags() []Flag { return s.defs }

// Usage is the command's usage line after "askonce ": "serve [flags]".
func (s *Settings) Usage() string { return s.line }

// MadeSettings, when set, hears of every command's settings as they are
// made: the completion scripts list the flags so.
var MadeSettings func(*Settings)

// NewSettings are the flags of the command name; summary is its --help
// text, out where --help and flag errors go.
func NewSettings(name, summary string, getenv func(string) string, out io.Writer) *Settings {
	s := &Settings{fs: flag.NewFlagSet(name, flag.ContinueOnError), getenv: getenv}
	if MadeSettings != nil {
		MadeSettings(s)
	}
	s.fs.SetOutput(out)
	s.fs.Usage = s.usage(name+" [flags]", summary)
	return s
}

// usage is --help: a usage line, a summary, and every flag with its
// variable and default.
func (s *Settings) usage(line, summary string) func() {
	s.line = line
	return func() {
		w := s.fs.Output()
		fmt.Fprintf(w, "Usage: askonce %s\n\n%s\n\nFlags (each also read from its environment variable):\n", line, summary)
		for _, d := range s.defs {
			if d.Env == "" {
				fmt.Fprintf(w, "  --%s  (repeatable)\n      %s\n", d.Name, d.Help)
				continue
			}
			def := d.Default
			if def == "" {
				def = `""`
			}
			fmt.Fprintf(w, "  --%s  (%s, default %s)\n      %s\n", d.Name, d.Env, def, d.Help)
		}
	}
}

func envName(flagName string) string {
	return "ASKONCE_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// env returns the variable's value for a flag, and records it.
func (s *Settings) env(name, def, help string) (string, bool) {
	env := envName(name)
	s.defs = append(s.defs, Flag{Name: name, Env: env, Default: def, Help: help})
	v := s.getenv(env)
	return v, v != ""
}

func (s *Settings) badEnv(name, v string, err error) {
	if s.envErr == nil {
		s.envErr = UsageError{Msg: fmt.Sprintf("%s=%q: %v", envName(name), v, err)}
	}
}

// String is a string flag with its variable as the fallback.
func (s *Settings) String(p *string, name, def, help string) {
	if v, ok := s.env(name, def, help); ok {
		def = v
	}
	s.fs.StringVar(p, name, def, help)
}

// Int is an integer flag with its variable as the fallback.
func (s *Settings) Int(p *int, name string, def int, help string) {
	if v, ok := s.env(name, strconv.Itoa(def), help); ok {
		n, err := strconv.Atoi(v)
		if err != nil {
			s.badEnv(name, v, err)
		}
		def = n
	}
	s.fs.IntVar(p, name, def, help)
}

// Duration is a duration flag with its variable as the fallback.
func (s *Settings) Duration(p *time.Duration, name string, def time.Duration, help string) {
	if v, ok := s.env(name, def.String(), help); ok {
		d, err := time.ParseDuration(v)
		if err != nil {
			s.badEnv(name, v, err)
		}
		def = d
	}
	s.fs.DurationVar(p, name, def, help)
}

// Float is a number flag with its variable as the fallback.
func (s *Settings) Float(p *float64, name string, def float64, help string) {
	if v, ok := s.env(name, strconv.FormatFloat(def, 'g', -1, 64), help); ok {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			s.badEnv(name, v, err)
		}
		def = f
	}
	s.fs.Float64Var(p, name, def, help)
}

// Parse parses args; it returns flag.ErrHelp for --help, and a UsageError
// for a bad flag, a bad variable or a stray argument.
func (s *Settings) Parse(args []string) error {
	if err := s.parseFlags(args); err != nil {
		return err
	}
	if s.envErr != nil {
		return s.envErr
	}
	if s.fs.NArg() > 0 {
		return UsageError{Msg: fmt.Sprintf("unexpected argument %q (see --help)", s.fs.Arg(0))}
	}
	return nil
}

// ShowDefault sets the default --help prints for the flag name when the
// real default depends on the machine (a path under the user's home): the
// help, and the docs made from it, then say the rule rather than one
// machine's answer.
func (s *Settings) ShowDefault(name, shown string) {
	for i := range s.defs {
		if s.defs[i].Name == name {
			s.defs[i].Default = shown
		}
	}
}

// OneOf checks a value against its allowed set.
func OneOf(name, v string, allowed ...string) error {
	for _, a := range allowed {
		if v == a {
			return nil
		}
	}
	return UsageError{Msg: fmt.Sprintf("--%s %q: must be one of %s", name, v, strings.Join(allowed, ", "))}
}

// parseFlags is fs.Parse with the usage printed for --help only: a bad
// flag is one line and a pointer to --help, not the error wrapped in the
// whole flag list.
func (s *Settings) parseFlags(args []string) error {
	usage, out := s.fs.Usage, s.fs.Output()
	s.fs.Usage = func() {}
	s.fs.SetOutput(io.Discard)
	err := s.fs.Parse(args)
	s.fs.Usage = usage
	s.fs.SetOutput(out)
	switch {
	case err == flag.ErrHelp:
		usage()
		return err
	case err != nil:
		msg := err.Error()
		if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
			msg = "unknown flag --" + name
			if hint := DidYouMean("--"+strings.TrimPrefix(name, "-"), s.FlagNames()); hint != "" {
				msg += ": " + hint
			}
		}
		return UsageError{Msg: fmt.Sprintf("%s\nRun 'askonce %s --help' for its flags.", msg, s.fs.Name())}
	}
	return nil
}

// FlagNames are the command's flags as typed: --name.
func (s *Settings) FlagNames() []string {
	var names []string
	s.fs.VisitAll(func(f *flag.Flag) { names = append(names, "--"+f.Name) })
	return names
}

// UsageError is a mistake in the command line: exit code 2.
type UsageError struct{ Msg string }

func (e UsageError) Error() string { return e.Msg }

// SetUsage replaces the usage line of --help, keeping the summary and the
// flag list.
func (s *Settings) SetUsage(line, summary string) {
	s.fs.Usage = s.usage(line, summary)
}

// Bool is a boolean flag with its variable as the fallback.
func (s *Settings) Bool(p *bool, name string, def bool, help string) {
	if v, ok := s.env(name, strconv.FormatBool(def), help); ok {
		b, err := strconv.ParseBool(v)
		if err != nil {
			s.badEnv(name, v, err)
		}
		def = b
	}
	s.fs.BoolVar(p, name, def, help)
}

// ParseArgs parses flags anywhere among the arguments and returns the
// positional ones ("askonce run 'goal' --json" works).
func (s *Settings) ParseArgs(args []string) ([]string, error) {
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

// Repeated is a flag that may be given more than once, each value
// appended to *p in order. It has no environment variable.
func (s *Settings) Repeated(p *[]string, name, arg, help string) {
	s.defs = append(s.defs, Flag{Name: name + " " + arg, Help: help})
	s.fs.Func(name, help, func(v string) error {
		*p = append(*p, v)
		return nil
	})
}

// SplitList splits a,b,c, dropping empty items.
func SplitList(v string) []string {
	var out []string
	for _, f := range strings.Split(v, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// Recipients builds a job's recipients from a Slack id (a user id, U… or
// W…, is a direct message; anything else a channel) and a comma-separated
// list of addresses; nil when both are empty. The engine validates them.
func Recipients(slack, emails string) *askonce.Recipients {
	r := &askonce.Recipients{Email: SplitList(emails)}
	switch slack = strings.TrimSpace(slack); {
	case slack == "":
	case strings.HasPrefix(slack, "U") || strings.HasPrefix(slack, "W"):
		r.Slack = &askonce.SlackRecipient{User: slack}
	default:
		r.Slack = &askonce.SlackRecipient{Channel: slack}
	}
	if r.Empty() {
		return nil
	}
	return r
}
