package main_test

import (
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

func cliMistypedCommandsAndFlagsSuggestTheClosest(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"srve"}, `unknown command "srve": did you mean serve?`},
		{[]string{"jbos", "list"}, `unknown command "jbos": did you mean jobs?`},
		{[]string{"versoin"}, `did you mean version?`},
		{[]string{"jobs", "lsit"}, `unknown jobs command "lsit": did you mean list?`},
		{[]string{"serve", "--adr", "x"}, `unknown flag --adr: did you mean --addr?`},
		{[]string{"run", "--dbb", "x", "goal"}, `unknown flag --dbb: did you mean --db?`},
		{[]string{"jobs", "list", "--sesion", "x"}, `unknown flag --sesion: did you mean --session?`},
		{[]string{"completion", "bahs"}, `unknown shell "bahs": did you mean bash?`},
	} {
		out, errs, code := runCLI(t, "", noServer, c.args...)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("askonce %v: exit %d, stderr %q; want exit 2 and %q", c.args, code, errs, c.want)
		}
		if out != "" {
			t.Errorf("askonce %v: stdout %q, want nothing", c.args, out)
		}
	}
	// Nothing close: no guess, the usage.
	_, errs, code := runCLI(t, "", noServer, "frobnicate")
	if code != 2 || strings.Contains(errs, "did you mean") || !strings.Contains(errs, "Usage:") {
		t.Errorf("askonce frobnicate: exit %d, stderr %q", code, errs)
	}
}

// completionScript is askonce completion SHELL, saved to a file.
func completionScript(t *testing.T, shell string) string {
	t.Helper()
	out, errs, code := runCLI(t, "", noServer, "completion", shell)
	if code != 0 {
		t.Fatalf("completion %s: exit %d: %s", shell, code, errs)
	}
	f := filepath.Join(t.TempDir(), "askonce."+shell)
	if err := os.WriteFile(f, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

// Every command of the usage, and each command's flags, are in each
// script; bash's completes for real.
func cliCompletionScriptsListTheCommandsAndFlags(t *testing.T) {
	t.Parallel()
	usage, _, _ := runCLI(t, "", noServer, "help")
	commands := regexp.MustCompile(`(?m)^  askonce ([a-z-]+)`).FindAllStringSubmatch(usage, -1)
	if len(commands) < 10 {
		t.Fatalf("the usage lists %d commands:\n%s", len(commands), usage)
	}
	for _, shell := range []string{"bash", "zsh", "fish"} {
		t.Run(shell, func(t *testing.T) {
			t.Parallel()
			f := completionScript(t, shell)
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			script := string(b)
			for _, c := range commands {
				if !regexp.MustCompile(`\b` + regexp.QuoteMeta(c[1]) + `\b`).MatchString(script) {
					t.Errorf("the %s script lacks the command %s", shell, c[1])
				}
			}
			for _, w := range []string{"addr", "api-keys-file", "no-input", "follow", "history", "decline"} {
				if !strings.Contains(script, w) {
					t.Errorf("the %s script lacks %q", shell, w)
				}
			}
			if _, err := exec.LookPath(shell); err != nil {
				if shell == "bash" || os.Getenv("CI") != "" {
					t.Fatalf("%s is missing; .ci/run installs it", shell)
				}
				t.Logf("%s is not installed: its script's syntax is not checked", shell)
				return
			}
			if out, err := exec.Command(shell, "-n", f).CombinedOutput(); err != nil {
				t.Fatalf("%s -n: %v\n%s", shell, err, out)
			}
		})
	}
}

// completion is a command line typed so far and what the completion
// offers for its last word.
type completion struct{ words, want string }

// completionCases are what bash's and zsh's completions offer.
var completionCases = []completion{
	{"askonce jo", "jobs"},
	{"askonce se", "serve"},
	{"askonce jobs hi", "history"},
	{"askonce jobs list --ses", "--session"},
	{"askonce serve --api-k", "--api-keys-file"},
	{"askonce run --no-i", "--no-input"},
	{"askonce run --no-", "--no-input --no-remember"},
	{"askonce completion z", "zsh"},
	{"askonce run notes.md --fi", "--files"},
}

// requireShell skips the test when the shell is missing, except in CI
// (CI set), where that is a failure: .ci/run installs zsh and fish.
func requireShell(t *testing.T, shell string) {
	t.Helper()
	if _, err := exec.LookPath(shell); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is not installed; .ci/run installs it", shell)
		}
		t.Skipf("%s is not installed: its completion is checked only by listing (.ci/run installs it; CI never skips)", shell)
	}
}

// completes runs each case's command (built by shell from its words)
// and checks that it prints what the case wants offered.
func completes(t *testing.T, cases []completion, shell func(words string) *exec.Cmd) {
	t.Helper()
	for _, c := range cases {
		out, err := shell(c.words).CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", c.words, err, out)
		}
		if got := strings.TrimSpace(string(out)); got != c.want {
			t.Errorf("completing %q: %q, want %q", c.words, got, c.want)
		}
	}
}

func cliBashCompletionCompletesCommandsAndFlags(t *testing.T) {
	t.Parallel()
	f := completionScript(t, "bash")
	completes(t, completionCases, func(words string) *exec.Cmd {
		n := len(strings.Fields(words))
		return exec.Command("bash", "-c", "source "+shellQuote(f)+"\nCOMP_WORDS=("+words+")\nCOMP_CWORD="+strconv.Itoa(n-1)+"\n_askonce\necho \"${COMPREPLY[*]}\"\n")
	})
}

// zsh's script, run by zsh with compadd (zsh's builtin that filters the
// offered words by the typed prefix) standing in as a function that does
// the same and prints what it keeps, and compdef and _files as no-ops.
func cliZshCompletionOffersCommandsAndFlags(t *testing.T) {
	t.Parallel()
	requireShell(t, "zsh")
	f := completionScript(t, "zsh")
	completes(t, completionCases, func(words string) *exec.Cmd {
		w := strings.Fields(words)
		return exec.Command("zsh", "-f", "-c", "compdef() { : }\n_files() { print -r -- FILES }\n"+
			"compadd() { [[ $1 == -a ]] && print -r -- ${(M)${(P)2}:#${PREFIX}*} }\n"+
			"source "+shellQuote(f)+"\n"+
			"words=("+words+")\nCURRENT="+strconv.Itoa(len(w))+"\nPREFIX="+shellQuote(w[len(w)-1])+"\n_askonce\n")
	})
}

func cliRunReadsTheGoalFromStdinOrAFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "a.db")
	out, errs, code := cli(t, "delete the build folder\n", "run", "--db", db, "--answer", "yes", "-")
	want(t, "run -", out, errs, code, 0, "Delete the build folder", "answer: yes (from user)")

	goal := filepath.Join(dir, "goal.txt")
	if err := os.WriteFile(goal, []byte("write the README\nthen add tests\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errs, code = cli(t, "", "run", "--db", db, "--json", "--goal-file", goal)
	want(t, "run --goal-file", out, errs, code, 0, `"goal": "write the README\nthen add tests"`)

	out, errs, code = cli(t, "", "run", "--db", db, "--goal-file", filepath.Join(dir, "missing.txt"))
	want(t, "a missing --goal-file", out, errs, code, 2, "--goal-file", "no such file")
	out, errs, code = cli(t, "", "run", "--db", db, "--goal-file", goal, "more words")
	want(t, "--goal-file and a goal", out, errs, code, 2, `unexpected argument "more words"`)
	out, errs, code = cli(t, "", "run", "--db", db, "-")
	want(t, "an empty stdin", out, errs, code, 2, "give a goal")
}

func cliCommonFailuresSayWhatToDo(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	folder := filepath.Join(dir, "folder")
	if err := os.Mkdir(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"a mysql URL", []string{"jobs", "list", "--db", "mysql://u:p@127.0.0.1/x"}, 2, "--db mysql://…: not a database askonce opens; give a SQLite file path or a postgres:// URL"},
		{"a mysql URL to serve", []string{"serve", "--addr", "127.0.0.1:0", "--db", "mysql://u:p@127.0.0.1/x"}, 2, "not a database askonce opens"},
		{"a missing folder", []string{"run", "--db", filepath.Join(dir, "nope", "a.db"), "delete the build folder"}, 1, "the folder " + filepath.Join(dir, "nope") + " does not exist"},
		{"a folder", []string{"run", "--db", folder, "delete the build folder"}, 1, folder + " is a folder: give --db a file path"},
		{"no server", []string{"jobs", "list", "--server", "http://" + refusingAddr(t)}, 1, "is `askonce serve` running at http://"},
	}
	for _, c := range cases {
		out, errs, code := cli(t, "", c.args...)
		want(t, c.name, out, errs, code, c.code, c.want)
		if strings.Contains(errs, "u:p@") {
			t.Errorf("%s: the password is shown: %s", c.name, errs)
		}
	}
	// Nothing was created where the database could not be.
	if _, err := os.Stat(filepath.Join(dir, "nope")); !os.IsNotExist(err) {
		t.Errorf("the missing folder was created: %v", err)
	}
	if _, err := os.Stat("mysql:"); !os.IsNotExist(err) {
		t.Errorf("a mysql: file was created: %v", err)
	}
}

func cliSQLiteFileWithoutPermissionSaysSo(t *testing.T) {
	t.Parallel()
	dir, bin := t.TempDir(), builtBinary(t)
	var as *syscall.Credential
	if os.Geteuid() == 0 {
		// Root writes everywhere, so the CLI runs as nobody, from a
		// folder nobody may read.
		var err error
		if dir, err = os.MkdirTemp("", "askonce-perm"); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
		if err := os.Chmod(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		bin = filepath.Join(dir, "askonce")
		if err := copyFile(builtBinary(t), bin, 0o755); err != nil {
			t.Fatal(err)
		}
		as = &syscall.Credential{Uid: 65534, Gid: 65534}
	}
	locked := filepath.Join(dir, "locked")
	if err := os.Mkdir(locked, 0o555); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "run", "--db", filepath.Join(locked, "a.db"), "delete the build folder")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: as}
	out, errs, code := runCmd(t, cmd)
	want(t, "a folder without write permission", out, errs, code, 1, "no permission to create a file in "+locked)
}

// copyFile copies the file src to dst with mode perm.
func copyFile(src, dst string, perm os.FileMode) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, b, perm)
}

func cliServeOnAPortInUseSaysWhy(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	out, errs, code := cli(t, "", "serve", "--addr", ln.Addr().String(), "--db", filepath.Join(t.TempDir(), "a.db"))
	want(t, "serve on a port in use", out, errs, code, 1, "listen on "+ln.Addr().String()+": address already in use: is another askonce serve running? choose --addr")
}

// refusingAddr is a loopback address that refuses connections
// (ECONNREFUSED, what the CLI's "is askonce serve running" hint is for)
// for as long as the test runs: a socket is bound to it and never
// listens, so no other process can take the port meanwhile, as it could
// one picked and closed (closedPort). deadServer accepts and closes,
// which is no refusal.
func refusingAddr(t *testing.T) string {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(sa.(*syscall.SockaddrInet4).Port))
}

// closedPort is a loopback address nothing listens on, picked and
// closed: for a server to listen on, not to stand for one that is down
// (another process may take it meanwhile; see refusingAddr).
func closedPort(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// jobs list fits a terminal, and prints every title whole into a pipe.
func cliJobsListTitlesUseTheTerminalWidthAndAreWholeWhenPiped(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "a.db")
	goal := "delete the build folder and then write a long report about everything that happened in the old build folder for the team"
	if out, errs, code := cli(t, "", "run", "--db", db, "--answer", "yes", goal); code != 0 {
		t.Fatalf("run: %d\n%s%s", code, out, errs)
	}
	titleLen := func(out string) int {
		lines := strings.Split(strings.TrimSpace(out), "\n")
		col := strings.Index(lines[0], "TITLE")
		if len(lines) != 2 || col < 0 {
			t.Fatalf("jobs list:\n%s", out)
		}
		return len([]rune(lines[1])) - col
	}
	// Piped (stdout is not a terminal), the title is whole whatever
	// COLUMNS says: the program reading it gets all of it.
	asJSON, errs, code := runCLI(t, "", noServer, "jobs", "list", "--json", "--db", db)
	var l struct{ Jobs []struct{ Title string } }
	if err := json.Unmarshal([]byte(asJSON), &l); code != 0 || err != nil || len(l.Jobs) != 1 || len([]rune(l.Jobs[0].Title)) < 60 {
		t.Fatalf("jobs list --json: exit %d, %v, %s%s; want one job with a long title", code, err, asJSON, errs)
	}
	title := l.Jobs[0].Title
	for _, columns := range []string{"COLUMNS=", "COLUMNS=40"} {
		piped, errs, code := runCLI(t, "", append(noServer, columns), "jobs", "list", "--db", db)
		if code != 0 {
			t.Fatalf("jobs list: %d %s", code, errs)
		}
		if titleLen(piped) != len([]rune(title)) || !strings.HasSuffix(piped, "  "+title+"\n") {
			t.Fatalf("jobs list | (with %s): the title %q is not whole:\n%s", columns, title, piped)
		}
	}

	// In a real terminal of 120 columns, the row fits it.
	p := newPaneEnv(t, t.TempDir(), []string{"COLUMNS="}, "jobs", "list", "--db", db)
	s := p.waitFor("EXIT=0")
	line := ""
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, "success") {
			line = strings.TrimRight(l, " ")
		}
	}
	if n := len([]rune(line)); n <= 80 || n > 120 {
		t.Fatalf("in a 120-column terminal the row is %d columns, want 81-120:\n%s", n, s)
	}
}

func cliFishCompletionCompletesCommandsAndFlags(t *testing.T) {
	t.Parallel()
	requireShell(t, "fish")
	f := completionScript(t, "fish")
	completes(t, []completion{
		{"askonce jo", "jobs"},
		{"askonce jobs hi", "history"},
		{"askonce jobs list --ses", "--session"},
		{"askonce serve --ad", "--addr"},
	}, func(line string) *exec.Cmd {
		return exec.Command("fish", "--no-config", "-c", "source "+shellQuote(f)+"; complete -C "+shellQuote(line))
	})
}
