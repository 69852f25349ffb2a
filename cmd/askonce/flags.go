package main

import (
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// settings binds flags to fields with an ASKONCE_* environment variable as
// the fallback: a flag given on the command line wins over the variable,
// which wins over the default. One definition serves parsing, --help and
// the README's configuration table (a test keeps them equal).
type settings struct {
	fs     *flag.FlagSet
	getenv func(string) string
	envErr error
	defs   []setting
}

// setting is one flag as documented; one without Env is repeatable
// (Repeated).
type setting struct {
	Flag, Env, Default, Help string
}

// madeSettings, when set, hears of every command's settings as they are
// made: the completion scripts list the flags so.
var madeSettings func(*settings)

func newSettings(name, summary string, getenv func(string) string, out io.Writer) *settings {
	s := &settings{fs: flag.NewFlagSet(name, flag.ContinueOnError), getenv: getenv}
	if madeSettings != nil {
		madeSettings(s)
	}
	s.fs.SetOutput(out)
	s.fs.Usage = s.usage(name+" [flags]", summary)
	return s
}

// usage is --help: a usage line, a summary, and every flag with its
// variable and default.
func (s *settings) usage(line, summary string) func() {
	return func() {
		w := s.fs.Output()
		fmt.Fprintf(w, "Usage: askonce %s\n\n%s\n\nFlags (each also read from its environment variable):\n", line, summary)
		for _, d := range s.defs {
			if d.Env == "" {
				fmt.Fprintf(w, "  --%s  (repeatable)\n      %s\n", d.Flag, d.Help)
				continue
			}
			def := d.Default
			if def == "" {
				def = `""`
			}
			fmt.Fprintf(w, "  --%s  (%s, default %s)\n      %s\n", d.Flag, d.Env, def, d.Help)
		}
	}
}

func envName(flagName string) string {
	return "ASKONCE_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// env returns the variable's value for a flag, and records it.
func (s *settings) env(name, def, help string) (string, bool) {
	env := envName(name)
	s.defs = append(s.defs, setting{Flag: name, Env: env, Default: def, Help: help})
	v := s.getenv(env)
	return v, v != ""
}

func (s *settings) badEnv(name, v string, err error) {
	if s.envErr == nil {
		s.envErr = usageError{fmt.Sprintf("%s=%q: %v", envName(name), v, err)}
	}
}

func (s *settings) String(p *string, name, def, help string) {
	if v, ok := s.env(name, def, help); ok {
		def = v
	}
	s.fs.StringVar(p, name, def, help)
}

func (s *settings) Int(p *int, name string, def int, help string) {
	if v, ok := s.env(name, strconv.Itoa(def), help); ok {
		n, err := strconv.Atoi(v)
		if err != nil {
			s.badEnv(name, v, err)
		}
		def = n
	}
	s.fs.IntVar(p, name, def, help)
}

func (s *settings) Duration(p *time.Duration, name string, def time.Duration, help string) {
	if v, ok := s.env(name, def.String(), help); ok {
		d, err := time.ParseDuration(v)
		if err != nil {
			s.badEnv(name, v, err)
		}
		def = d
	}
	s.fs.DurationVar(p, name, def, help)
}

func (s *settings) Float(p *float64, name string, def float64, help string) {
	if v, ok := s.env(name, strconv.FormatFloat(def, 'g', -1, 64), help); ok {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			s.badEnv(name, v, err)
		}
		def = f
	}
	s.fs.Float64Var(p, name, def, help)
}

// parse parses args; it returns flag.ErrHelp for --help, and a usageError
// for a bad flag, a bad variable or a stray argument.
func (s *settings) parse(args []string) error {
	if err := s.parseFlags(args); err != nil {
		return err
	}
	if s.envErr != nil {
		return s.envErr
	}
	if s.fs.NArg() > 0 {
		return usageError{fmt.Sprintf("unexpected argument %q (see --help)", s.fs.Arg(0))}
	}
	return nil
}

// oneOf checks a value against its allowed set.
func oneOf(name, v string, allowed ...string) error {
	for _, a := range allowed {
		if v == a {
			return nil
		}
	}
	return usageError{fmt.Sprintf("--%s %q: must be one of %s", name, v, strings.Join(allowed, ", "))}
}

// parseFlags is fs.Parse with the usage printed for --help only: a bad
// flag is one line and a pointer to --help, not the error wrapped in the
// whole flag list.
func (s *settings) parseFlags(args []string) error {
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
			if hint := didYouMean("--"+strings.TrimPrefix(name, "-"), s.flagNames()); hint != "" {
				msg += ": " + hint
			}
		}
		return usageError{fmt.Sprintf("%s\nRun 'askonce %s --help' for its flags.", msg, s.fs.Name())}
	}
	return nil
}

// flagNames are the command's flags as typed: --name.
func (s *settings) flagNames() []string {
	var names []string
	s.fs.VisitAll(func(f *flag.Flag) { names = append(names, "--"+f.Name) })
	return names
}
