// Package eval is askonce eval: an interpreter over labelled goals,
// measured (issue 20; docs/interpreters.md, "Measuring with askonce eval").
package eval

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/internal/cli"
)

const evalHelp = `Runs an interpreter over labelled goals and measures whether it asks when
a thoughtful person would, and asks the right question. Each FILE is JSONL:
one object a line with "goal" and "label" ("ask" or "clear"), optionally
"files", "candidates", "specSchema", "profile" (passed as a job's would),
"expect" {"type", "options", "reason"} (ask items only), "id" and "note";
blank lines and lines starting with # or // are skipped. A bad line stops
the run before any interpreter call, naming FILE:LINE.

Each item is one interpreter call, the first one the engine makes for a new
job. It reports asks on clear items, precision, recall, F1 and the
right-question rate (questions asked on ask items whose type and options
match "expect"; a question with fields is one question, right when one
of its fields matches), per question reason and per language, the tokens and cost
summed, and the interpreter's errors. The interpreter flags and their
ASKONCE_* variables are those of askonce serve (--interpreter openai reads
ASKONCE_OPENAI_*, exec reads ASKONCE_EXEC_*). Ctrl-C stops the run and
prints what was measured so far.

Exit codes:
  0  measured, and every threshold given was met
  1  a threshold (--min-precision, --max-asks-on-clear) was not met, or the
     report could not be written
  2  usage error, or a bad line in a FILE
  130  interrupted (Ctrl-C): the summary covers the items measured so far`

// Options is everything askonce eval can be told.
type Options struct {
	Interpreter      string
	ProfileFiles     string
	Profile          string
	InterpretTimeout time.Duration
	Concurrency      int
	Report           string
	JSON             bool
	MinPrecision     float64
	MaxAsksOnClear   float64
}

// Exit codes of askonce eval, as its --help lists them.
const (
	exitOK          = 0
	exitError       = 1
	exitUsage       = 2
	exitInterrupted = 130
)

// NewInterpreter builds the interpreter --interpreter names (rules,
// openai or exec), with --profile-files; the program's wiring provides it
// (cmd/askonce), so that eval imports no interpreter.
type NewInterpreter func(name, profileFiles string, getenv func(string) string) (askonce.Interpreter, error)

// Run is askonce eval: it reads the flags and the labelled FILEs, measures
// the interpreter on them and prints the figures; it returns the exit code.
func Run(ctx context.Context, newInterpreter NewInterpreter, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	c := &Options{}
	s := cli.NewSettings("eval", evalHelp, getenv, stderr)
	s.SetUsage("eval [flags] FILE.jsonl [FILE.jsonl ...]", evalHelp)
	s.String(&c.Interpreter, "interpreter", "rules", "interpreter: rules, openai (configured by ASKONCE_OPENAI_*) or exec (ASKONCE_EXEC_*); see docs/interpreters.md")
	s.String(&c.ProfileFiles, "profile-files", "", "rules profiles from files, as name=path[,name=path]; a name replaces the embedded profile")
	s.String(&c.Profile, "profile", "", "profile of the items that name none")
	s.Duration(&c.InterpretTimeout, "interpret-timeout", askonce.DefaultInterpretTimeout, "timeout of one interpreter call")
	s.Int(&c.Concurrency, "concurrency", 1, "interpreter calls at once (raise it for slow interpreters: a model server, a plug-in)")
	s.String(&c.Report, "report", "", "write a Markdown report for people to review to this file: every question beside its goal, the ones on clear items first")
	s.Bool(&c.JSON, "json", false, "print the summary and every item as JSON on stdout (the text summary goes to stderr)")
	s.Float(&c.MinPrecision, "min-precision", 0, "exit 1 when precision (questions on ask items / all questions) is below this fraction, e.g. 0.9")
	s.Float(&c.MaxAsksOnClear, "max-asks-on-clear", 1, "exit 1 when the fraction of clear items asked about is above this, e.g. 0.01")
	paths, err := s.ParseArgs(args)
	if err == nil {
		err = c.check(paths)
	}
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		fmt.Fprintln(stderr, "askonce eval:", err)
		return exitUsage
	}
	var items []*evalItem
	for _, p := range paths {
		its, err := readEvalFile(p)
		if err != nil {
			fmt.Fprintln(stderr, "askonce eval:", err)
			return exitUsage
		}
		items = append(items, its...)
	}
	interp, err := newInterpreter(c.Interpreter, c.ProfileFiles, getenv)
	if err != nil {
		fmt.Fprintln(stderr, "askonce eval:", err)
		return exitUsage
	}

	prog := newEvalProgress(stderr, len(items))
	results := runEval(ctx, interp, items, c, prog.update)
	prog.finish()
	interrupted := ctx.Err() != nil
	sum := scoreEval(results)

	text := stdout
	if c.JSON {
		text = stderr
		if err := cli.PrintJSON(stdout, evalJSON{Interpreter: c.Interpreter, Files: paths, Interrupted: interrupted, Summary: sum, Items: results}); err != nil {
			fmt.Fprintln(stderr, "askonce eval:", err)
			return exitError
		}
	}
	printEvalSummary(text, c.Interpreter, paths, sum, len(items))
	code := exitOK
	if c.Report != "" {
		if err := writeEvalReportFile(c.Report, c.Interpreter, paths, sum, results, len(items)); err != nil {
			fmt.Fprintln(stderr, "askonce eval:", err)
			code = exitError
		}
	}
	if interrupted {
		fmt.Fprintf(stderr, "askonce eval: interrupted: measured %d of %d items\n", sum.All.Items, len(items))
		return exitInterrupted
	}
	for _, msg := range c.unmet(sum.All) {
		fmt.Fprintln(stderr, "askonce eval:", msg)
		code = exitError
	}
	return code
}

func (c *Options) check(paths []string) error {
	switch {
	case len(paths) == 0:
		return cli.UsageError{Msg: "no labelled file given (usage: askonce eval [flags] FILE.jsonl ...; see --help)"}
	case c.Concurrency < 1 || c.Concurrency > 64:
		return cli.UsageError{Msg: "--concurrency must be between 1 and 64"}
	case c.MinPrecision < 0 || c.MinPrecision > 1:
		return cli.UsageError{Msg: "--min-precision is a fraction between 0 and 1 (0.9 for 90%)"}
	case c.MaxAsksOnClear < 0 || c.MaxAsksOnClear > 1:
		return cli.UsageError{Msg: "--max-asks-on-clear is a fraction between 0 and 1 (0.01 for 1%)"}
	case c.InterpretTimeout <= 0:
		return cli.UsageError{Msg: "--interpret-timeout must be positive"}
	}
	return cli.OneOf("interpreter", c.Interpreter, "rules", "openai", "exec")
}

// unmet lists the thresholds the run missed. A run that asked nothing has
// no precision and misses no precision threshold.
func (c *Options) unmet(s evalScore) []string {
	var out []string
	if p, ok := s.precision(); ok && p < c.MinPrecision {
		out = append(out, fmt.Sprintf("precision %s is below --min-precision %s", percent(p), percent(c.MinPrecision)))
	}
	if r, ok := s.asksOnClearRate(); ok && r > c.MaxAsksOnClear {
		out = append(out, fmt.Sprintf("asks on clear items %s is above --max-asks-on-clear %s", percent(r), percent(c.MaxAsksOnClear)))
	}
	return out
}

// evalItem is one line of a labelled file.
type evalItem struct {
	ID         string          `json:"id,omitempty"`
	Goal       string          `json:"goal"`
	Label      string          `json:"label"`
	Files      []string        `json:"files,omitempty"`
	Candidates []string        `json:"candidates,omitempty"`
	SpecSchema json.RawMessage `json:"specSchema,omitempty"`
	Profile    string          `json:"profile,omitempty"`
	Expect     *evalExpect     `json:"expect,omitempty"`
	Note       string          `json:"note,omitempty"`
	// Class and Checks are what a set may add for a test of its own
	// (rules/testdata/blind2.jsonl: the issue class an item measures and
	// what its plan must look like); eval reads neither.
	Class  int             `json:"class,omitempty"`
	Checks json.RawMessage `json:"checks,omitempty"`
}

// evalExpect is the question a thoughtful person would ask of an ask item.
type evalExpect struct {
	Type    askonce.QuestionType `json:"type,omitempty"`
	Options []string             `json:"options,omitempty"`
	Reason  string               `json:"reason,omitempty"`
}

const (
	labelAsk   = "ask"
	labelClear = "clear"
)

// maxEvalLine bounds one line: 1,000 candidates of 256 bytes fit many
// times over.
const maxEvalLine = 8 << 20

// readEvalFile reads a labelled file; the first bad line is an error
// naming path:line.
func readEvalFile(path string) ([]*evalItem, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, cli.UsageError{Msg: err.Error()}
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), maxEvalLine)
	var items []*evalItem
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 || line[0] == '#' || bytes.HasPrefix(line, []byte("//")) {
			continue
		}
		it, err := parseEvalLine(line)
		if err != nil {
			return nil, cli.UsageError{Msg: fmt.Sprintf("%s:%d: %v", path, n, err)}
		}
		items = append(items, it)
	}
	if err := sc.Err(); err != nil {
		return nil, cli.UsageError{Msg: fmt.Sprintf("%s: %v", path, err)}
	}
	if len(items) == 0 {
		return nil, cli.UsageError{Msg: fmt.Sprintf("%s: no labelled items", path)}
	}
	for i, it := range items {
		if it.ID == "" {
			it.ID = fmt.Sprintf("%s#%d", filepath.Base(path), i+1)
		}
	}
	return items, nil
}

func parseEvalLine(line []byte) (*evalItem, error) {
	var it evalItem
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&it); err != nil {
		return nil, fmt.Errorf("not a labelled item: %v", err)
	}
	if dec.More() {
		return nil, errors.New("text after the JSON object (one object a line)")
	}
	if bytes.Equal(bytes.TrimSpace(it.SpecSchema), []byte("null")) {
		it.SpecSchema = nil
	}
	switch {
	case strings.TrimSpace(it.Goal) == "":
		return nil, errors.New(`"goal" is missing or empty`)
	case it.Label != labelAsk && it.Label != labelClear:
		return nil, fmt.Errorf(`"label" is %q; want "ask" or "clear"`, it.Label)
	case it.Expect != nil && it.Label != labelAsk:
		return nil, errors.New(`"expect" is only for items labelled "ask"`)
	case it.Expect != nil && it.Expect.Type != "" && !it.Expect.Type.Valid():
		return nil, fmt.Errorf(`"expect.type" %q is not one of %v`, it.Expect.Type, askonce.QuestionTypes)
	case len(it.SpecSchema) > 0 && it.SpecSchema[0] != '{':
		return nil, errors.New(`"specSchema" must be a JSON object`)
	case len(it.Files) > askonce.MaxFiles:
		return nil, fmt.Errorf(`%d files; the limit is %d`, len(it.Files), askonce.MaxFiles)
	}
	for i, f := range it.Files {
		if _, err := askonce.ValidatePath(f); err != nil {
			return nil, fmt.Errorf("files[%d]: %v", i, err)
		}
	}
	if err := askonce.ValidateCandidates(it.Candidates); err != nil {
		return nil, err
	}
	return &it, nil
}

// evalResult is what the interpreter did with one item.
type evalResult struct {
	Item     *evalItem `json:"item"`
	Language string    `json:"language"`
	// Measured is false for an item an interrupt left unmeasured.
	Measured bool              `json:"measured"`
	Asked    bool              `json:"asked"`
	Question *askonce.Question `json:"question,omitempty"`
	// Right: asked on an ask item, with the expected type and options
	// where the item gives them.
	Right    bool          `json:"right"`
	Error    string        `json:"error,omitempty"`
	Usage    askonce.Usage `json:"usage"`
	Duration time.Duration `json:"durationNs"`
}

// runEval interprets every item, c.Concurrency at a time, until done or
// ctx ends; progress gets the results measured so far.
func runEval(ctx context.Context, in askonce.Interpreter, items []*evalItem, c *Options, progress func(done, asked, errs int)) []*evalResult {
	results := make([]*evalResult, len(items))
	for i, it := range items {
		results[i] = &evalResult{Item: it, Language: goalLanguage(it.Goal)}
	}
	var next atomic.Int64
	var mu sync.Mutex
	done, asked, errs := 0, 0, 0
	var wg sync.WaitGroup
	for range c.Concurrency {
		wg.Go(func() {
			for ctx.Err() == nil {
				i := int(next.Add(1)) - 1
				if i >= len(items) {
					return
				}
				r := results[i]
				interpretItem(ctx, in, i, c, r)
				if !r.Measured {
					return
				}
				mu.Lock()
				done++
				if r.Asked {
					asked++
				}
				if r.Error != "" {
					errs++
				}
				progress(done, asked, errs)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return results
}

// interpretItem makes the engine's first call for a job of the item's and
// reads the outcome as the engine does. A call cut short by ctx leaves r
// unmeasured.
func interpretItem(ctx context.Context, in askonce.Interpreter, i int, c *Options, r *evalResult) {
	it := r.Item
	req := &askonce.Request{
		JobID: fmt.Sprintf("eval-%d", i+1), Goal: it.Goal, Prompt: it.Goal, Profile: cmp(it.Profile, c.Profile),
		Files: it.Files, Candidates: it.Candidates, SpecSchema: it.SpecSchema,
		Attempt: 1, Reason: askonce.ReasonInitial,
	}
	cctx, cancel := context.WithTimeout(ctx, c.InterpretTimeout)
	defer cancel()
	start := time.Now()
	resp, err := in.Interpret(cctx, req)
	r.Duration = time.Since(start)
	if ctx.Err() != nil {
		return
	}
	r.Measured = true
	if resp != nil {
		r.Usage = resp.Usage
	}
	if err != nil {
		r.Error = err.Error()
		return
	}
	o, err := askonce.ParseOutcome(resp.Raw)
	if err != nil {
		r.Error = "invalid output: " + err.Error()
		return
	}
	if o.Question != nil {
		r.Asked, r.Question = true, o.Question
		r.Right = it.Label == labelAsk && it.Expect.matches(o.Question)
	}
}

func cmp(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// matches reports whether q is the expected question: its type, and its
// options as a set (case-insensitive), each where given. A question with
// fields is one ask, and matches when one of its fields does. No
// expectation matches any question.
func (e *evalExpect) matches(q *askonce.Question) bool {
	if e == nil {
		return true
	}
	if len(q.Fields) > 0 {
		return slices.ContainsFunc(q.Fields, func(f askonce.QuestionField) bool {
			return e.matches(&askonce.Question{Type: f.Type, Options: f.Options})
		})
	}
	if e.Type != "" && e.Type != q.Type {
		return false
	}
	return e.Options == nil || sameSet(e.Options, q.Options)
}

func sameSet(a, b []string) bool {
	norm := func(xs []string) []string {
		out := make([]string, 0, len(xs))
		for _, x := range xs {
			out = append(out, strings.ToLower(strings.TrimSpace(x)))
		}
		slices.Sort(out)
		return slices.Compact(out)
	}
	return slices.Equal(norm(a), norm(b))
}

// goalLanguage is the script most of s is written in: "ja" when Han and
// kana carry at least 80% of its letters, "en" when they carry at most
// 20%, "mixed" between. A Han or kana character weighs as three Latin
// letters (a word is about one or two of them against five letters), so
// that one stray character (mojibake) does not make English mixed.
func goalLanguage(s string) string {
	var latin, cjk int
	for _, r := range s {
		switch {
		case unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana):
			cjk++
		case unicode.IsLetter(r):
			latin++
		}
	}
	ja, en := 3*cjk, latin
	if ja+en == 0 {
		return "en"
	}
	switch share := float64(ja) / float64(ja+en); {
	case share >= 0.8:
		return "ja"
	case share <= 0.2:
		return "en"
	default:
		return "mixed"
	}
}
