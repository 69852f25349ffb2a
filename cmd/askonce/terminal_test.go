package main_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

// The terminal client without a terminal: askonce run, jobs and repl as
// scripts use them, against a real askonce serve and the embedded engine.

// noServer keeps a caller's ASKONCE_SERVER or ASKONCE_API_KEY out of the tests.
var noServer = []string{"ASKONCE_SERVER=", "ASKONCE_API_KEY=", "ASKONCE_DB="}

func cli(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	return runCLI(t, stdin, noServer, args...)
}

func want(t *testing.T, what, out, errs string, code, wantCode int, contains ...string) {
	t.Helper()
	if code != wantCode {
		t.Fatalf("%s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", what, code, wantCode, out, errs)
	}
	for _, c := range contains {
		if !strings.Contains(out+errs, c) {
			t.Fatalf("%s: output lacks %q\nstdout:\n%s\nstderr:\n%s", what, c, out, errs)
		}
	}
}

var jobIDRe = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// TestTerminal: the terminal client (run, jobs, repl) without a terminal,
// against a server and the embedded engine.
func TestTerminal(t *testing.T) {
	t.Parallel()
	t.Run("RunShowsTheStageWhilePlanning", terminalRunShowsTheStageWhilePlanning)
	t.Run("RunWithoutATerminal", terminalRunWithoutATerminal)
	t.Run("RunExitsSixWhenTheJobFails", terminalRunExitsSixWhenTheJobFails)
	t.Run("Jobs", terminalJobs)
	t.Run("Repl", terminalRepl)
	t.Run("Embedded", terminalEmbedded)
	t.Run("ReadOnlyJobsCommandsNeverCreateADatabase", terminalReadOnlyJobsCommandsNeverCreateADatabase)
	t.Run("RunOffersTheWorkingTreeFiles", terminalRunOffersTheWorkingTreeFiles)
	t.Run("EmbeddedDatabaseLivesInTheUserDataFolder", terminalEmbeddedDatabaseLivesInTheUserDataFolder)
}

// Without --server and --db, askonce run keeps its database in the user's
// data folder ($XDG_DATA_HOME/askonce, else ~/.local/share/askonce, made
// 0700), never in the directory it runs in, and askonce jobs finds it
// there; --db still wins.
func terminalEmbeddedDatabaseLivesInTheUserDataFolder(t *testing.T) {
	t.Parallel()
	inDir := func(t *testing.T, dir string, env []string, args ...string) (string, string, int) {
		t.Helper()
		cmd := exec.Command(builtBinary(t), args...)
		cmd.Dir = dir
		cmd.Env = append(append(os.Environ(), noServer...), env...)
		return runCmd(t, cmd)
	}
	empty := func(t *testing.T, dir string) {
		t.Helper()
		if names, err := os.ReadDir(dir); err != nil || len(names) > 0 {
			t.Errorf("%s after askonce run: %v, %v; want it empty", dir, names, err)
		}
	}
	private := func(t *testing.T, dir string) {
		t.Helper()
		st, err := os.Stat(dir)
		if err != nil || st.Mode().Perm() != 0o700 {
			t.Errorf("%s: %v, %v; want a folder of mode 0700", dir, st, err)
		}
	}
	for _, c := range []struct {
		name string
		env  func(home, data string) []string
		db   func(home, data string) string
	}{
		{"XDG_DATA_HOME", func(home, data string) []string { return []string{"HOME=" + home, "XDG_DATA_HOME=" + data} },
			func(home, data string) string { return filepath.Join(data, "askonce", "askonce.db") }},
		{"HomeWithoutXDG", func(home, data string) []string { return []string{"HOME=" + home, "XDG_DATA_HOME="} },
			func(home, data string) string { return filepath.Join(home, ".local", "share", "askonce", "askonce.db") }},
		{"RelativeXDGIsIgnored", func(home, data string) []string { return []string{"HOME=" + home, "XDG_DATA_HOME=data"} },
			func(home, data string) string { return filepath.Join(home, ".local", "share", "askonce", "askonce.db") }},
	} {
		t.Run(c.name, func(t *testing.T) {
			project, home, data := t.TempDir(), t.TempDir(), t.TempDir()
			env := c.env(home, data)
			out, errs, code := inDir(t, project, env, "run", "--no-input", "--session", "xdg", "write the README then add tests")
			want(t, "askonce run", out, errs, code, 0, "Write the README")
			empty(t, project)
			db := c.db(home, data)
			if _, err := os.Stat(db); err != nil {
				t.Fatalf("the database is not at %s: %v", db, err)
			}
			private(t, filepath.Dir(db))
			out, errs, code = inDir(t, t.TempDir(), env, "jobs", "list", "--session", "xdg")
			want(t, "askonce jobs list elsewhere", out, errs, code, 0, "success", "xdg", "Write the README then add tests")
		})
	}
	t.Run("DBFlagWins", func(t *testing.T) {
		project, home, data := t.TempDir(), t.TempDir(), t.TempDir()
		env := []string{"HOME=" + home, "XDG_DATA_HOME=" + data}
		out, errs, code := inDir(t, project, env, "run", "--no-input", "--db", "mine.db", "write the README then add tests")
		want(t, "askonce run --db mine.db", out, errs, code, 0, "Write the README")
		if _, err := os.Stat(filepath.Join(project, "mine.db")); err != nil {
			t.Errorf("--db mine.db: %v", err)
		}
		empty(t, data)
	})
	t.Run("HelpSaysWhere", func(t *testing.T) {
		for _, cmd := range [][]string{{"run"}, {"repl"}, {"jobs", "list"}, {"memory", "list"}, {"mcp"}} {
			out, errs, _ := runCLI(t, "", noServer, append(cmd, "--help")...)
			if !strings.Contains(out+errs, "--db  (ASKONCE_DB, default $XDG_DATA_HOME/askonce/askonce.db, else ~/.local/share/askonce/askonce.db)") {
				t.Errorf("askonce %v --help does not say where the database is:\n%s", cmd, out+errs)
			}
		}
	})
}

func terminalRunWithoutATerminal(t *testing.T) {
	t.Parallel()
	in := start(t, nil, "--db", filepath.Join(t.TempDir(), "a.db"))
	run := []string{"run", "--server", in.base}

	// Numbered options; "2" on stdin picks frozen.
	out, errs, code := cli(t, "2\n", append(run, "--session", "S", "hot frozen cheese")...)
	want(t, "run with a numbered answer", out, errs, code, 0, "1) hot", "2) frozen", "Frozen cheese", "answer: frozen (from user)", "└── t1  Frozen cheese")
	if !jobIDRe.MatchString(out) {
		t.Fatalf("no job id in %q", out)
	}
	// A number that is no option is refused and asked again, never taken
	// as text of one's own (docs/terminal.md); --answer 9 is invalid.
	out, errs, code = cli(t, "9\n2\n", append(run, "hot frozen cheese")...)
	want(t, "run with a number past the options", out, errs, code, 0, "9 is not one of the choices: pick 1 to 2", "answer: frozen (from user)")
	out, errs, code = cli(t, "", append(run, "hot frozen cheese", "--answer", "9")...)
	want(t, "run --answer past the options", out, errs, code, 5, "9 is not one of the choices", "still pending")
	// The same goal in the same session: the repeat guard answers, no question.
	out, errs, code = cli(t, "", append(run, "--no-input", "--session", "S", "hot frozen cheese")...)
	want(t, "repeat", out, errs, code, 0, `[auto-resolved] The goal says both “hot” and “frozen”. Which should it be? -> frozen (from history)`)
	if strings.Contains(out, "1) hot") {
		t.Fatalf("repeat showed the question again:\n%s", out)
	}

	// --answer up front; the flag may follow the goal.
	out, errs, code = cli(t, "", append(run, "deploy to staging or production", "--answer", "production")...)
	want(t, "run --answer", out, errs, code, 0, "answer: production (from user)")
	if strings.Contains(out, "1) staging") {
		t.Fatalf("--answer still showed the question:\n%s", out)
	}
	// A text answer on stdin, and a plan with dependencies drawn as a tree.
	out, errs, code = cli(t, "no\n", append(run, "delete the build folder")...)
	want(t, "confirm no", out, errs, code, 0, "1) yes", "2) no", "answer: no (from user)")
	out, errs, code = cli(t, "", append(run, "write the README then add tests")...)
	want(t, "plan without a question", out, errs, code, 0, "└── t1  Write the README", "└── t2  Add tests  (after t1)")

	// An answer the question does not allow (blank, whether or not it
	// takes answers of one's own): the server's error, exit 5.
	out, errs, code = cli(t, "   \n", append(run, "hot frozen cheese")...)
	want(t, "invalid answer", out, errs, code, 5, "allowed: hot, frozen", "still pending")
	// No answer at all: exit 7, the job stays pending.
	out, errs, code = cli(t, "", append(run, "--profile", "minecraft-mod", "make a mod")...)
	want(t, "no answer", out, errs, code, 7, "no answer on stdin", "askonce jobs answer")
	// FREE_TEXT over 4 KiB: the server's error.
	out, errs, code = cli(t, "", append(run, "--profile", "minecraft-mod", "make a mod", "--answer", strings.Repeat("x", 4097))...)
	want(t, "long answer", out, errs, code, 5, "answer is 4097 bytes; the limit is 4096")

	// --json: stdout is the job alone, the auto-resolved line goes to stderr.
	out, errs, code = cli(t, "", append(run, "--json", "--session", "S", "hot frozen cheese")...)
	var j map[string]any
	if err := json.Unmarshal([]byte(out), &j); err != nil || code != 0 {
		t.Fatalf("run --json: exit %d, %v\nstdout:\n%s\nstderr:\n%s", code, err, out, errs)
	}
	if j["status"] != "success" || j["clarificationSource"] != "history" || !strings.Contains(errs, "[auto-resolved]") {
		t.Fatalf("run --json: %v\nstderr: %s", j, errs)
	}
	out, errs, code = cli(t, "1\n", append(run, "--json", "--files", "a.md,b.md", "fix the typo in the file")...)
	if err := json.Unmarshal([]byte(out), &j); err != nil || code != 0 || j["clarificationAnswer"] != "a.md" || !strings.Contains(errs, "1) a.md") {
		t.Fatalf("run --json with a question: exit %d, %v\nstdout:\n%s\nstderr:\n%s", code, err, out, errs)
	}

	// Usage errors.
	_, _, code = cli(t, "", run...)
	if code != 2 {
		t.Fatalf("run without a goal: exit %d", code)
	}
	out, errs, code = cli(t, "", "run", "--server", "localhost:1", "x")
	want(t, "bad server", out, errs, code, 2, "--server")
	out, errs, code = cli(t, "", "run", "--help")
	want(t, "run --help", out, errs, code, 0, "ASKONCE_SERVER", "Exit codes:", "6  the job ended without success")
	// An unknown profile is invalid input.
	out, errs, code = cli(t, "", append(run, "--profile", "nope", "x")...)
	want(t, "unknown profile", out, errs, code, 5)
}

func terminalRunExitsSixWhenTheJobFails(t *testing.T) {
	t.Parallel()
	env := []string{`ASKONCE_EXEC_COMMAND=["false"]`}
	in := start(t, env, "--db", filepath.Join(t.TempDir(), "a.db"), "--interpreter", "exec", "--max-attempts", "1")
	out, errs, code := cli(t, "", "run", "--server", in.base, "anything")
	want(t, "failed job", out, errs, code, 6, "failed", "error: interpreter error")
}

func terminalJobs(t *testing.T) {
	t.Parallel()
	in := start(t, nil, "--db", filepath.Join(t.TempDir(), "a.db"))
	env := append(noServer[:len(noServer):len(noServer)], "ASKONCE_SERVER="+in.base)
	jobsCLI := func(stdin string, args ...string) (string, string, int) {
		t.Helper()
		return runCLI(t, stdin, env, append([]string{"jobs"}, args...)...)
	}
	// Two pending jobs in session J.
	_, _, code := runCLI(t, "", env, "run", "--session", "J", "hot frozen cheese")
	_, _, code2 := runCLI(t, "", env, "run", "--session", "J", "--profile", "minecraft-mod", "make a mod")
	if code != 7 || code2 != 7 {
		t.Fatalf("pending runs: exit %d, %d", code, code2)
	}
	out, errs, code := jobsCLI("", "list", "--session", "J", "--json")
	var l struct {
		Jobs []struct{ JobID, Goal, Status string }
	}
	if err := json.Unmarshal([]byte(out), &l); err != nil || code != 0 || len(l.Jobs) != 2 {
		t.Fatalf("jobs list --json: exit %d %v\n%s%s", code, err, out, errs)
	}
	cheese, vague := l.Jobs[1].JobID, l.Jobs[0].JobID
	if l.Jobs[1].Goal != "hot frozen cheese" {
		t.Fatalf("list order: %+v", l.Jobs)
	}
	out, errs, code = jobsCLI("", "list", "--status", "pending")
	want(t, "jobs list", out, errs, code, 0, "ID", "STATUS", "TITLE", cheese, vague, "pending")

	out, errs, code = jobsCLI("", "show", cheese)
	want(t, "jobs show", out, errs, code, 0, "Question", `Which should it be? [Pick one]`, "hot, frozen")
	out, errs, code = jobsCLI("", "show", "01a1fcb1-0000-7000-8000-000000000000")
	want(t, "jobs show unknown", out, errs, code, 3, "not found")

	out, errs, code = jobsCLI("", "answer", cheese, strings.Repeat("x", 4097))
	want(t, "jobs answer invalid", out, errs, code, 5, "allowed: hot, frozen")
	out, errs, code = jobsCLI("", "answer", cheese, "1")
	want(t, "jobs answer", out, errs, code, 0, "Hot cheese", "answer: hot (from user)")
	out, errs, code = jobsCLI("", "answer", cheese, "frozen")
	want(t, "jobs answer twice", out, errs, code, 4, "cannot answer")
	out, errs, code = jobsCLI("", "cancel", cheese)
	want(t, "jobs cancel settled", out, errs, code, 4)

	out, errs, code = jobsCLI("", "cancel", vague, "--json")
	if err := json.Unmarshal([]byte(out), new(map[string]any)); err != nil || code != 0 || !strings.Contains(out, `"cancelled"`) {
		t.Fatalf("jobs cancel: exit %d %v\n%s%s", code, err, out, errs)
	}
	out, errs, code = jobsCLI("", "answer", vague, "something")
	want(t, "answer cancelled", out, errs, code, 4)

	out, errs, code = jobsCLI("", "events", cheese)
	want(t, "jobs events", out, errs, code, 0, "TYPE", "created", "asked", "answered", "planned")
	out, errs, code = jobsCLI("", "events", "--follow", cheese)
	want(t, "jobs events --follow", out, errs, code, 0, "created", "planned")
	out, errs, code = jobsCLI("", "events", "nope")
	want(t, "events unknown", out, errs, code, 3)
	out, errs, code = jobsCLI("", "history", "J")
	want(t, "jobs history", out, errs, code, 0, "-> hot")

	out, errs, code = jobsCLI("", "--help")
	want(t, "jobs --help", out, errs, code, 0, "Exit codes:", "3  not found", "4  conflict", "5  invalid input")
	_, _, code = jobsCLI("")
	if code != 2 {
		t.Fatalf("jobs without a command: exit %d", code)
	}
	_, _, code = jobsCLI("", "frob")
	if code != 2 {
		t.Fatalf("jobs frob: exit %d", code)
	}
	_, _, code = jobsCLI("", "show")
	if code != 2 {
		t.Fatalf("jobs show without an id: exit %d", code)
	}
	// A server that is not there: exit 1.
	_, errs, code = runCLI(t, "", []string{"ASKONCE_SERVER=http://" + deadServer(t)}, "jobs", "list")
	if code != 1 || errs == "" {
		t.Fatalf("no server: exit %d %q", code, errs)
	}
}

func terminalRepl(t *testing.T) {
	t.Parallel()
	in := start(t, nil, "--db", filepath.Join(t.TempDir(), "a.db"))
	script := strings.Join([]string{
		"hot frozen cheese",
		"/answer 2",
		"hot frozen cheese",
		"/answer hot",
		"/jobs",
		"/bogus",
		"/quit",
		"write the README then add tests",
	}, "\n") + "\n"
	out, errs, code := cli(t, script, "repl", "--server", in.base, "--session", "R")
	want(t, "repl", out, errs, code, 0, "session R", "1) hot", "2) frozen", "/answer", "answer: frozen (from user)",
		`[auto-resolved] The goal says both “hot” and “frozen”. Which should it be? -> frozen (from history)`,
		"no pending question", "unknown command /bogus", "STATUS", "answered (history)")
	if strings.Count(out, "1) hot") != 1 {
		t.Fatalf("the question was shown more than once:\n%s", out)
	}
	if strings.Contains(out, "Write the README") {
		t.Fatalf("repl went on after /quit:\n%s", out)
	}
}

// With no --server, run, jobs and repl use the embedded engine on --db.
func terminalEmbedded(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "e.db")
	out, errs, code := cli(t, "1\n", "run", "--db", db, "--session", "E", "hot frozen cheese")
	want(t, "embedded run", out, errs, code, 0, "Hot cheese", "answer: hot (from user)")
	out, errs, code = runCLI(t, "", append(noServer, "ASKONCE_DB="+db), "run", "--session", "E", "hot frozen cheese")
	want(t, "embedded repeat (ASKONCE_DB)", out, errs, code, 0, "[auto-resolved]", "-> hot (from history)")
	out, errs, code = cli(t, "", "jobs", "list", "--db", db)
	want(t, "embedded jobs list", out, errs, code, 0, "answered (user)", "answered (history)")
	id := jobIDRe.FindString(out)
	out, errs, code = cli(t, "", "jobs", "events", "--follow", "--db", db, id)
	want(t, "embedded events --follow", out, errs, code, 0, "created", "planned")
	out, errs, code = cli(t, "make a mod\n/answer a glowing lamp block\n/jobs\n", "repl", "--db", db, "--session", "E", "--profile", "minecraft-mod")
	want(t, "embedded repl", out, errs, code, 0, "Glowing lamp block", "answered (history)")
}

// The commands that only read (jobs list, show, events, history) never
// create a database: on a missing --db file they say so and exit 1, and
// the file is still missing afterwards.
func terminalReadOnlyJobsCommandsNeverCreateADatabase(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "missing.db")
	for _, args := range [][]string{
		{"jobs", "list"}, {"jobs", "show", "x"}, {"jobs", "events", "x"},
		{"jobs", "events", "--follow", "x"}, {"jobs", "history", "S"},
	} {
		out, errs, code := cli(t, "", append(args, "--db", db)...)
		want(t, strings.Join(args, " ")+" on a missing --db", out, errs, code, 1, "no database at "+db)
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		if len(entries) != 0 {
			t.Fatalf("askonce %v created %v", args, entries)
		}
	}
}

// TestRun: askonce run: answers, candidates and hostile text, without a
// terminal.
func TestRun(t *testing.T) {
	t.Parallel()
	t.Run("OtherAnswerWithoutATerminal", runOtherAnswerWithoutATerminal)
	t.Run("BidiControlsAreEscapedByEveryCommand", runBidiControlsAreEscapedByEveryCommand)
	t.Run("CandidatesReachTheJobAndJobsShowListsThem", runCandidatesReachTheJobAndJobsShowListsThem)
	t.Run("BadCandidatesAreAUsageErrorNamingTheLine", runBadCandidatesAreAUsageErrorNamingTheLine)
	t.Run("WithExecInterpreter", runWithExecInterpreter)
	t.Run("HostileQuestionTextIsEscaped", runHostileQuestionTextIsEscaped)
}

// Hostile text from an interpreter (escape sequences in a question and its
// options) reaches the terminal as visible escapes, never as control
// characters; --json stays valid JSON with the text intact.
func runHostileQuestionTextIsEscaped(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	plugin := filepath.Join(dir, "hostile.py")
	os.WriteFile(plugin, []byte(`import json, sys
req = json.load(sys.stdin)
if "Clarification Answer:" in req["prompt"]:
    print(json.dumps({"plan": {"title": "T\u001b[31m", "tasks": [{"id": "a", "title": "do \u001b]0;pwned\u0007 it"}]}}))
else:
    print(json.dumps({"question": {"type": "SELECT_ONE", "text": "Pick\u001b[2J\rone\u009b", "options": ["a\u001b[8m", "b"]}}))
`), 0o755)
	env := []string{`ASKONCE_EXEC_COMMAND=["python3", "` + plugin + `"]`}
	db := filepath.Join(dir, "a.db")
	out, errs, code := runCLI(t, "1\n", env, "run", "--no-input", "--db", db, "--interpreter", "exec", "anything")
	all := out + errs
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, all)
	}
	if strings.ContainsAny(all, "\x1b\x07\r\u009b") {
		t.Fatalf("a control character reached the terminal: %q", all)
	}
	for _, want := range []string{`Pick\u001b[2J\u000done\u009b`, `a\u001b[8m`, `do \u001b]0;pwned\u0007 it`} {
		if !strings.Contains(all, want) {
			t.Errorf("output lacks the visible escape %q:\n%s", want, all)
		}
	}
	jsonOut, _, code := runCLI(t, "", env, "jobs", "list", "--json", "--db", db, "--interpreter", "exec")
	var v any
	if code != 0 || json.Unmarshal([]byte(jsonOut), &v) != nil || !strings.Contains(jsonOut, `T\u001b[31m`) {
		t.Fatalf("--json output is not valid JSON with the text escaped (exit %d): %s", code, jsonOut)
	}
}

// askonce run with no --files sends the project's files as the job's
// files: in a git repository those .gitignore does not exclude, tracked or
// not; elsewhere the files found walking the directory. --files wins.
func terminalRunOffersTheWorkingTreeFiles(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	write := func(dir string, files map[string]string) {
		for name, body := range files {
			if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	files := func(dir string, args ...string) []string {
		t.Helper()
		cmd := exec.Command(builtBinary(t), append([]string{"run", "--db", filepath.Join(t.TempDir(), "a.db"), "--json", "--no-input"}, args...)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), noServer...)
		cmd.Stdin = strings.NewReader("")
		out, err := cmd.Output()
		var j struct{ Files []string }
		if jerr := json.Unmarshal(out, &j); jerr != nil {
			t.Fatalf("askonce run %v in %s: %v, %v\n%s", args, dir, err, jerr, out)
		}
		sort.Strings(j.Files)
		return j.Files
	}
	repo := t.TempDir()
	if out, err := exec.Command("git", "-C", repo, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	write(repo, map[string]string{".gitignore": "*.log\nbuild/\n", "main.go": "package main", "docs/guide.md": "#", "debug.log": "x", "build/out.bin": "x"})
	if got, want := files(repo, "write the README then add tests"), []string{".gitignore", "docs/guide.md", "main.go"}; !slices.Equal(got, want) {
		t.Errorf("in a git repository: files %q, want %q (what .gitignore does not exclude)", got, want)
	}
	// The embedded engine's database in the project (run's default
	// --db askonce.db) is askonce's state, not a file a goal is about.
	if got, want := files(repo, "--db", "askonce.db", "write the README then add tests"), []string{".gitignore", "docs/guide.md", "main.go"}; !slices.Equal(got, want) {
		t.Errorf("with the database in the repository: files %q, want %q", got, want)
	}
	plain := t.TempDir()
	write(plain, map[string]string{"a.txt": "a", "src/b.go": "b", "state/.keep": ""})
	if got, want := files(plain, "--db", "state/askonce.db", "write the README then add tests"), []string{"a.txt", "src/b.go"}; !slices.Equal(got, want) {
		t.Errorf("outside git: files %q, want %q", got, want)
	}
	if got, want := files(repo, "--files", "x.go", "write the README then add tests"), []string{"x.go"}; !slices.Equal(got, want) {
		t.Errorf("with --files: files %q, want %q", got, want)
	}
}
