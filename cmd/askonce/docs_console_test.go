package main_test

import (
	"bytes"
	"cmp"
	"context"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

var updateDocs = flag.Bool("update", false, "rewrite the console examples of README.md and docs/*.md that differ with what their commands print now")

// The console examples of README.md and docs/*.md are what the commands
// print: every fenced block that starts with "$ COMMAND" and runs offline
// (askonce's own commands, fed by echo or printf, not serve, mcp or bench,
// which run until stopped; curl to localhost:8080, piped to jq) is run, in
// order, with the built binary as askonce, in an empty folder and an empty
// user data folder of its doc's own (curl reaching an askonce serve of
// the doc's own, with the rules interpreter), and its text must be the
// commands and their output (stdout and stderr as a terminal shows them).
// Job ids, session ids and durations may differ; an id the doc shows in
// one output stands for the real one in the commands after it. A block
// that cannot run offline says why in a comment the line before it:
// <!-- not run: REASON -->. After a change to what a command prints,
//
//	go test ./cmd/askonce -run TestDocsConsoleExamplesAreWhatTheCommandsPrint -update
//
// rewrites the blocks that differ; review them with git diff.
func TestDocsConsoleExamplesAreWhatTheCommandsPrint(t *testing.T) {
	t.Parallel()
	bin := builtBinary(t)
	root := filepath.Join("..", "..")
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	docs = append([]string{filepath.Join(root, "README.md")}, docs...)
	covered := 0
	for _, doc := range docs {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(b), "\n")
		var runnable []consoleBlock
		for _, blk := range consoleBlocks(lines) {
			if blk.offline() {
				runnable = append(runnable, blk)
			}
		}
		if len(runnable) == 0 {
			continue
		}
		name, _ := filepath.Rel(root, doc)
		t.Run(strings.ReplaceAll(name, string(filepath.Separator), "_"), func(t *testing.T) {
			t.Parallel()
			env := newDocEnv(t, bin, root)
			changed := false
			// From the last block up, so that a rewritten block does not
			// move the lines of the ones still to rewrite.
			got := make([]string, len(runnable))
			for i, blk := range runnable {
				got[i] = env.run(t, blk)
			}
			for i := len(runnable) - 1; i >= 0; i-- {
				if docBlock(t, &lines, runnable[i].start, runnable[i].end, strings.TrimSuffix(got[i], "\n"), name+": the example is not what its commands print") {
					changed = true
				}
			}
			if changed {
				if err := os.WriteFile(doc, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
					t.Fatal(err)
				}
				t.Logf("rewrote %s", name)
			}
		})
		covered += len(runnable)
	}
	if covered < 6 {
		t.Errorf("ran %d console examples; the docs have more (docs/terminal.md's, docs/interpreters.md's eval)", covered)
	}
}

// consoleBlock is a fenced block of a doc whose first line is a command
// ("$ ..."): lines[start:end] is its text, between the fences.
type consoleBlock struct {
	start, end int
	steps      []consoleStep
}

// consoleStep is one command of a block (with its continuation lines)
// and the output the doc shows under it.
type consoleStep struct {
	command, output string
}

var fence = regexp.MustCompile("^```[a-z]*$")

// consoleBlocks finds the blocks of a doc that start with "$ ".
func consoleBlocks(lines []string) []consoleBlock {
	var out []consoleBlock
	for i := 0; i < len(lines); i++ {
		if !fence.MatchString(lines[i]) {
			continue
		}
		start, end := i+1, i+1
		for end < len(lines) && lines[end] != "```" {
			end++
		}
		i = end
		if start >= end || !strings.HasPrefix(lines[start], "$ ") {
			continue
		}
		if start >= 2 && strings.HasPrefix(lines[start-2], "<!-- not run: ") {
			continue
		}
		blk := consoleBlock{start: start, end: end}
		for j := start; j < end; j++ {
			if !strings.HasPrefix(lines[j], "$ ") {
				continue
			}
			cmd := strings.TrimPrefix(lines[j], "$ ")
			for strings.HasSuffix(cmd, `\`) && j+1 < end {
				j++
				cmd += "\n" + lines[j]
			}
			blk.steps = append(blk.steps, consoleStep{command: cmd})
		}
		// Each step's output: its lines up to the next command.
		step := -1
		for j := start; j < end; j++ {
			if strings.HasPrefix(lines[j], "$ ") {
				step++
				for strings.HasSuffix(lines[j], `\`) && j+1 < end {
					j++
				}
				continue
			}
			blk.steps[step].output += lines[j] + "\n"
		}
		out = append(out, blk)
	}
	return out
}

// offline reports whether every command of the block is askonce's own
// (fed by echo or printf) or curl to localhost:8080 (piped to jq), and
// none runs until it is stopped.
func (b consoleBlock) offline() bool {
	for _, s := range b.steps {
		askonce := false
		for _, part := range strings.Split(s.command, "|") {
			words := strings.Fields(part)
			if len(words) == 0 {
				return false
			}
			switch words[0] {
			case "echo", "printf", "jq":
			case "curl":
				if !strings.Contains(part, "localhost:8080") {
					return false
				}
				askonce = true
			case "askonce":
				if len(words) > 1 && (words[1] == "serve" || words[1] == "mcp" || words[1] == "bench") {
					return false
				}
				askonce = true
			default:
				return false
			}
		}
		if !askonce {
			return false
		}
	}
	return true
}

// docEnv is where one doc's examples run: the built binary first on
// PATH as askonce, an empty working folder, an empty home and user data
// folder, no ASKONCE_* settings from the caller.
type docEnv struct {
	root, cwd string
	env       []string
	server    string            // host:port of the doc's askonce serve, once a curl needs it
	ids       map[string]string // an id the doc shows -> the id it stands for in this run
}

func newDocEnv(t *testing.T, bin, root string) *docEnv {
	t.Helper()
	dir := t.TempDir()
	e := &docEnv{root: root, cwd: filepath.Join(dir, "work"), ids: map[string]string{}}
	home := filepath.Join(dir, "home")
	for _, d := range []string{e.cwd, home} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	// The binary as a file named askonce, whatever the tests named it.
	binDir := filepath.Join(dir, "bin")
	if err := os.Mkdir(binDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(bin, filepath.Join(binDir, "askonce")); err != nil {
		t.Fatal(err)
	}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "ASKONCE_") && !strings.HasPrefix(kv, "XDG_") && !strings.HasPrefix(kv, "HOME=") && !strings.HasPrefix(kv, "PATH=") {
			e.env = append(e.env, kv)
		}
	}
	e.env = append(e.env, "HOME="+home, "PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH"), "NO_COLOR=1")
	return e
}

// run runs a block's commands in order with bash and returns the block as
// they print it: each "$ command" line and its output.
func (e *docEnv) run(t *testing.T, b consoleBlock) string {
	t.Helper()
	var out strings.Builder
	for _, s := range b.steps {
		for _, tool := range []string{"curl", "jq"} {
			if !regexp.MustCompile(`(^|\|)\s*` + tool + `\s`).MatchString(s.command) {
				continue
			}
			if _, err := exec.LookPath(tool); err != nil {
				if os.Getenv("CI") != "" {
					t.Fatalf("%s is not installed: .ci/run installs it (CI never skips)", tool)
				}
				t.Skipf("skipping: the examples need %s (apt-get install %s; .ci/run does)", tool, tool)
			}
		}
		e.linkRepoPaths(t, s.command)
		command := uuidPattern.ReplaceAllStringFunc(s.command, func(id string) string { return cmp.Or(e.ids[id], id) })
		run := command
		if strings.Contains(command, "localhost:8080") {
			if e.server == "" {
				e.server = strings.TrimPrefix(start(t, []string{"ASKONCE_DB=" + filepath.Join(filepath.Dir(e.cwd), "serve.db")}).base, "http://")
			}
			run = strings.ReplaceAll(command, "localhost:8080", e.server)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		cmd := exec.CommandContext(ctx, "bash", "-c", "set -o pipefail; "+run)
		cmd.Dir, cmd.Env = e.cwd, e.env
		printed, err := cmd.CombinedOutput()
		timedOut := ctx.Err() != nil
		cancel()
		if timedOut {
			t.Fatalf("%s: did not end within 2 minutes\n%s", s.command, printed)
		}
		// An exit status is part of the example (a mistyped command exits
		// 2); what it printed is what the doc shows.
		if _, ok := err.(*exec.ExitError); err != nil && !ok {
			t.Fatalf("%s: %v", s.command, err)
		}
		if e.server != "" {
			printed = bytes.ReplaceAll(printed, []byte(e.server), []byte("127.0.0.1:8080"))
		}
		// The ids the doc shows stand for this run's in later commands.
		if shown, got := uuidPattern.FindAllString(s.output, -1), uuidPattern.FindAllString(string(printed), -1); len(shown) == len(got) {
			for i := range shown {
				e.ids[shown[i]] = got[i]
			}
		}
		out.WriteString("$ " + command + "\n")
		out.Write(printed)
		if len(printed) > 0 && printed[len(printed)-1] != '\n' {
			out.WriteString("\n")
		}
		if strings.HasSuffix(s.output, "\n\n") { // the doc's blank line before the next command
			out.WriteString("\n")
		}
	}
	return out.String()
}

// linkRepoPaths makes the repository's files that a command names by a
// relative path (rules/testdata/test.jsonl) reachable from the working
// folder, as they are from a checkout's root.
func (e *docEnv) linkRepoPaths(t *testing.T, command string) {
	t.Helper()
	for _, w := range strings.Fields(command) {
		top, _, found := strings.Cut(w, "/")
		if !found || top == "" || strings.HasPrefix(top, ".") {
			continue
		}
		if _, err := os.Stat(filepath.Join(e.root, w)); err != nil {
			continue
		}
		if _, err := os.Lstat(filepath.Join(e.cwd, top)); err == nil {
			continue
		}
		abs, err := filepath.Abs(filepath.Join(e.root, top))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(abs, filepath.Join(e.cwd, top)); err != nil {
			t.Fatal(err)
		}
	}
}

// docBlock compares lines[start:end], a block of a doc, with got, what
// the test made of it now, ids and durations aside. When they differ it
// replaces the block with got under -update and reports true, and else
// fails the test with both.
func docBlock(t *testing.T, lines *[]string, start, end int, got, problem string) bool {
	t.Helper()
	want := strings.Join((*lines)[start:end], "\n")
	if normalizeConsole(want) == normalizeConsole(got) {
		return false
	}
	if !*updateDocs {
		t.Errorf("%s (line %d; go test ./cmd/askonce -run '%s' -update rewrites it)\n--- the doc:\n%s\n--- now:\n%s", problem, start+1, t.Name(), want, got)
		return false
	}
	*lines = append((*lines)[:start], append(strings.Split(got, "\n"), (*lines)[end:]...)...)
	return true
}

var (
	uuidPattern     = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	durationPattern = regexp.MustCompile(`\b[0-9]+(\.[0-9]+)?(ns|µs|ms|s)\b`)
)

// normalizeConsole is a block's text with what differs from run to run
// (ids, durations) made the same.
func normalizeConsole(s string) string {
	s = uuidPattern.ReplaceAllString(s, "<id>")
	return durationPattern.ReplaceAllString(s, "<duration>")
}
