// Package exec is askonce's exec interpreter: each attempt runs a user's
// command (an argv, no shell) with one JSON request on stdin, and reads one
// JSON outcome from stdout, the same {"plan": ...} or {"question": ...}
// object askonce.ParseOutcome reads, optionally with a "usage" object.
// A SELECT_ONE question may set "allowOther": true to let the user answer
// with their own text (never CONFIRM or TARGET_FILE), and "fields" (at
// most 5, askonce.QuestionField) to ask for several things in the one
// question. Any language can implement a plug-in this way; examples/exec-plugin
// holds one in Python, and docs/interpreters.md the schema.
//
// The command inherits askonce's environment plus Config.Env; everything
// about the request is on stdin. It runs in a process group of its own,
// which is killed when the context ends (the engine's InterpretTimeout),
// when stdout exceeds its cap, and after the command exits, so that
// nothing it started outlives the attempt.
package exec

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/internal/proc"
)

// Defaults of Config's zero-valued fields.
const (
	DefaultMaxStderr = 4 << 10
	DefaultWaitDelay = time.Second
)

// InputVersion is the version of the stdin schema, sent as "version".
const InputVersion = 1

// Config configures New. Command is required.
type Config struct {
	// Command is the program and its arguments, run without a shell. A
	// program without a slash is looked up in PATH.
	Command []string
	// Dir is the working directory; empty means askonce's own. A relative
	// program path with a slash is relative to Dir.
	Dir string
	// Env holds extra KEY=value variables, added to (and overriding) the
	// environment askonce inherited.
	Env []string
	// MaxOutput caps stdout: at most MaxOutput+1 bytes are read, then the
	// process group is killed and what was read is returned, so that the
	// engine records the oversize output as an invalid attempt. Default
	// askonce.DefaultMaxOutput, the engine's default limit; keep the two
	// equal.
	MaxOutput int
	// MaxStderr is how much of stderr (its tail) is kept for the error of
	// a failed run. Default 4 KiB.
	MaxStderr int
	// WaitDelay bounds how long, after the command exits or is killed,
	// askonce waits for descendants still holding stdout or stderr open.
	// Default 1s.
	WaitDelay time.Duration
}

// Interpreter is the exec interpreter. It is safe for concurrent use;
// every call runs its own process.
type Interpreter struct {
	cfg Config
}

var _ askonce.Interpreter = (*Interpreter)(nil)

// New returns an Interpreter for cfg. It checks that the program exists
// (in PATH, or at its path) and is executable, but does not run it.
func New(cfg Config) (*Interpreter, error) {
	if len(cfg.Command) == 0 || strings.TrimSpace(cfg.Command[0]) == "" {
		return nil, errors.New("exec: command is required (e.g. [\"python3\", \"examples/exec-plugin/plugin.py\"])")
	}
	cfg.Command = append([]string(nil), cfg.Command...)
	cfg.Env = append([]string(nil), cfg.Env...)
	for _, kv := range cfg.Env {
		if k, _, ok := strings.Cut(kv, "="); !ok || k == "" {
			return nil, fmt.Errorf("exec: environment entry %q is not KEY=value", kv)
		}
	}
	if cfg.MaxOutput < 0 || cfg.MaxStderr < 0 || cfg.WaitDelay < 0 {
		return nil, errors.New("exec: sizes and delays must not be negative")
	}
	if cfg.MaxOutput == 0 {
		cfg.MaxOutput = askonce.DefaultMaxOutput
	}
	if cfg.MaxStderr == 0 {
		cfg.MaxStderr = DefaultMaxStderr
	}
	if cfg.WaitDelay == 0 {
		cfg.WaitDelay = DefaultWaitDelay
	}
	if cfg.Dir != "" {
		if fi, err := os.Stat(cfg.Dir); err != nil || !fi.IsDir() {
			return nil, fmt.Errorf("exec: working directory %q is not a directory", cfg.Dir)
		}
	}
	prog := cfg.Command[0]
	if !strings.ContainsRune(prog, filepath.Separator) && !strings.ContainsRune(prog, '/') {
		if _, err := osexec.LookPath(prog); err != nil {
			return nil, fmt.Errorf("exec: command %q: %w", prog, err)
		}
	} else {
		p := prog
		if !filepath.IsAbs(p) && cfg.Dir != "" {
			p = filepath.Join(cfg.Dir, p)
		}
		fi, err := os.Stat(p)
		switch {
		case err != nil:
			return nil, fmt.Errorf("exec: command %q: %w", prog, err)
		case fi.IsDir() || fi.Mode().Perm()&0o111 == 0:
			return nil, fmt.Errorf("exec: command %q is not an executable file", prog)
		}
	}
	return &Interpreter{cfg: cfg}, nil
}

// Input is the JSON object written to the command's stdin, one per
// attempt. Lists are never null.
type Input struct {
	// Version is InputVersion.
	Version int    `json:"version"`
	JobID   string `json:"jobId"`
	Goal    string `json:"goal"`
	// Prompt is what to interpret: the goal, or after an answer the
	// resolved prompt, goal + "\n\nClarification Answer: " + answer. The
	// answer is authoritative; never ask after one.
	Prompt  string   `json:"prompt"`
	Profile string   `json:"profile"`
	Files   []string `json:"files"`
	// Candidates are the names besides files the builder can act on
	// (objects in a room, environments, branches, tables): a reference
	// that matches two or more of them and none exactly may be asked
	// about (a SELECT_ONE over the matching names).
	Candidates []string `json:"candidates"`
	// Attempt counts from 1 within one interpretation.
	Attempt int                   `json:"attempt"`
	Reason  askonce.AttemptReason `json:"reason"`
	// Feedback lists the previous attempt's parse or validation errors.
	Feedback []string `json:"feedback"`
	// Directive, when set, must be obeyed: return a plan, never a question.
	Directive string `json:"directive"`
	// SpecSchema is the JSON Schema the plan's spec must meet, if any.
	SpecSchema json.RawMessage `json:"specSchema,omitempty"`
}

// NewInput returns the stdin object for req.
func NewInput(req *askonce.Request) Input {
	in := Input{
		Version: InputVersion, JobID: req.JobID, Goal: req.Goal, Prompt: req.Prompt, Profile: req.Profile,
		Files: req.Files, Candidates: req.Candidates, Attempt: req.Attempt, Reason: req.Reason, Feedback: req.Feedback, Directive: req.Directive,
	}
	if in.Files == nil {
		in.Files = []string{}
	}
	if in.Candidates == nil {
		in.Candidates = []string{}
	}
	if in.Feedback == nil {
		in.Feedback = []string{}
	}
	if json.Valid(req.SpecSchema) {
		in.SpecSchema = json.RawMessage(req.SpecSchema)
	}
	return in
}

// Interpret runs the command once for req. It returns stdout as Raw,
// unchecked (the engine parses and validates it), with the usage the
// command reported in its "usage" object. A run that exits non-zero, is
// killed by ctx, or cannot start is an error that carries the tail of
// stderr; stdout read so far is kept as Raw. Oversize stdout is not an
// error: the first MaxOutput+1 bytes are returned for the engine to
// record as oversize.
func (in *Interpreter) Interpret(ctx context.Context, req *askonce.Request) (*askonce.Response, error) {
	stdin, err := json.Marshal(NewInput(req))
	if err != nil {
		return nil, fmt.Errorf("exec: encode request: %w", err)
	}
	name := commandName(in.cfg.Command)
	cmd := osexec.CommandContext(ctx, in.cfg.Command[0], in.cfg.Command[1:]...)
	cmd.Dir = in.cfg.Dir
	cmd.Env = append(os.Environ(), in.cfg.Env...)
	cmd.Stdin = bytes.NewReader(stdin)
	cmd.WaitDelay = in.cfg.WaitDelay
	proc.OwnGroup(cmd)
	stdout := &headWriter{limit: in.cfg.MaxOutput + 1}
	stdout.full = func() { proc.KillGroup(cmd) }
	stderr := &proc.Tail{Limit: in.cfg.MaxStderr}
	cmd.Stdout, cmd.Stderr = stdout, stderr

	runErr := cmd.Run()
	// Whatever the command left behind in its group goes too.
	proc.KillGroup(cmd)

	raw, overflow := stdout.result()
	resp := &askonce.Response{Raw: raw}
	switch {
	case overflow:
		// Killed by us for writing too much: the engine records it.
		return resp, nil
	case runErr == nil, errors.Is(runErr, osexec.ErrWaitDelay):
		// ErrWaitDelay: the command exited 0 but a descendant held its
		// output open; the descendant is killed and the output stands.
		resp.Usage = usage(raw)
		return resp, nil
	case ctx.Err() != nil:
		return resp, fmt.Errorf("exec: %s: process group killed: %w%s", name, ctx.Err(), stderrSuffix(stderr))
	}
	var ee *osexec.ExitError
	if errors.As(runErr, &ee) {
		return resp, fmt.Errorf("exec: %s %s%s", name, exitText(ee), stderrSuffix(stderr))
	}
	return resp, fmt.Errorf("exec: %s: %w%s", name, runErr, stderrSuffix(stderr))
}

// usage reads the optional "usage" object of an outcome. Unreadable or
// negative usage counts as none: the engine reports the output itself.
func usage(raw []byte) askonce.Usage {
	var out struct {
		Usage *askonce.Usage `json:"usage"`
	}
	if json.Unmarshal(bytes.TrimSpace(raw), &out) != nil || out.Usage == nil {
		return askonce.Usage{}
	}
	u := *out.Usage
	if u.PromptTokens < 0 || u.CompletionTokens < 0 || u.CostUSD < 0 || u.CostUSD != u.CostUSD {
		return askonce.Usage{}
	}
	return u
}

// headWriter keeps the first limit bytes written and calls full once when
// they are reached; later writes are discarded (and succeed, so that the
// copy from the pipe goes on draining until the process is gone).
type headWriter struct {
	mu       sync.Mutex
	limit    int
	buf      []byte
	overflow bool
	full     func()
}

func (w *headWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	room := w.limit - len(w.buf)
	callFull := false
	if room > 0 {
		w.buf = append(w.buf, p[:min(room, len(p))]...)
		if len(w.buf) >= w.limit {
			w.overflow, callFull = true, true
		}
	}
	w.mu.Unlock()
	if callFull && w.full != nil {
		w.full()
	}
	return len(p), nil
}

func (w *headWriter) result() ([]byte, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf, w.overflow
}

// stderrSuffix is the stderr tail for an error message, "" when empty.
func stderrSuffix(t *proc.Tail) string {
	if s := t.String(); s != "" {
		return "; stderr: " + s
	}
	return ""
}

// commandName is the command line for error messages, shortened.
func commandName(argv []string) string {
	s := strings.Join(argv, " ")
	if len(s) > 200 {
		s = strings.ToValidUTF8(s[:200], "") + "…"
	}
	return s
}

// exitText describes how the process ended.
func exitText(ee *osexec.ExitError) string {
	if code := ee.ExitCode(); code >= 0 {
		return "exited with status " + strconv.Itoa(code)
	}
	return "was killed: " + ee.String()
}

// Environment variables read by ConfigFromEnv.
const (
	EnvCommand   = "ASKONCE_EXEC_COMMAND"
	EnvDir       = "ASKONCE_EXEC_DIR"
	EnvMaxOutput = "ASKONCE_EXEC_MAX_OUTPUT"
)

// ConfigFromEnv builds a Config from ASKONCE_EXEC_* variables read with
// getenv:
//
//	ASKONCE_EXEC_COMMAND     the argv: a JSON array of strings,
//	                         ["python3", "examples/exec-plugin/plugin.py"], or words
//	                         separated by spaces (no quoting): python3 plugin.py
//	ASKONCE_EXEC_DIR         working directory (default: askonce's)
//	ASKONCE_EXEC_MAX_OUTPUT  stdout cap in bytes (default 1 MiB)
//
// Malformed values are errors; a missing command is left for New to
// report.
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	var cfg Config
	if v := strings.TrimSpace(getenv(EnvCommand)); v != "" {
		if strings.HasPrefix(v, "[") {
			if err := json.Unmarshal([]byte(v), &cfg.Command); err != nil {
				return cfg, fmt.Errorf("exec: %s is not a JSON array of strings: %v", EnvCommand, err)
			}
		} else {
			cfg.Command = strings.Fields(v)
		}
	}
	cfg.Dir = strings.TrimSpace(getenv(EnvDir))
	if v := strings.TrimSpace(getenv(EnvMaxOutput)); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return cfg, fmt.Errorf("exec: %s=%q is not a byte count", EnvMaxOutput, v)
		}
		cfg.MaxOutput = n
	}
	return cfg, nil
}
