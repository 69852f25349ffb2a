package main_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

func runCLI(t *testing.T, stdin string, env []string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(builtBinary(t), args...)
	cmd.Env = withTestDB(t, append(os.Environ(), env...))
	cmd.Stdin = strings.NewReader(stdin)
	return runCmd(t, cmd)
}

// runCmd runs cmd and returns its stdout, its stderr and its exit code;
// a command that cannot start fails the test.
func runCmd(t *testing.T, cmd *exec.Cmd) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

// TestCLI: the command line: help, usage errors, hints, completion, and the
// messages of common failures.
func TestCLI(t *testing.T) {
	t.Parallel()
	t.Run("HelpAndUsageErrors", cliHelpAndUsageErrors)
	t.Run("HashKeyPrintsAKeysFileLine", cliHashKeyPrintsAKeysFileLine)
	t.Run("FlagsDocServeTableMatchesServeHelp", cliFlagsDocServeTableMatchesServeHelp)
	t.Run("UnknownFlagIsOneLineAndAHintToHelp", cliUnknownFlagIsOneLineAndAHintToHelp)
	t.Run("VersionPrintsTheStampedVersionAndRevision", cliVersionPrintsTheStampedVersionAndRevision)
	t.Run("EachJobsCommandListsItsOwnExitCodes", cliEachJobsCommandListsItsOwnExitCodes)
	t.Run("RunNotifyEmailIsStoredAndShownByJobsShow", cliRunNotifyEmailIsStoredAndShownByJobsShow)
	t.Run("HealthChecksTheServer", cliHealthChecksTheServer)
	t.Run("MemoryProjectRunListForget", cliMemoryProjectRunListForget)
	t.Run("ServeMemoryDefaults", cliServeMemoryDefaults)
	t.Run("MistypedCommandsAndFlagsSuggestTheClosest", cliMistypedCommandsAndFlagsSuggestTheClosest)
	t.Run("CompletionScriptsListTheCommandsAndFlags", cliCompletionScriptsListTheCommandsAndFlags)
	t.Run("BashCompletionCompletesCommandsAndFlags", cliBashCompletionCompletesCommandsAndFlags)
	t.Run("ZshCompletionOffersCommandsAndFlags", cliZshCompletionOffersCommandsAndFlags)
	t.Run("RunReadsTheGoalFromStdinOrAFile", cliRunReadsTheGoalFromStdinOrAFile)
	t.Run("CommonFailuresSayWhatToDo", cliCommonFailuresSayWhatToDo)
	t.Run("SQLiteFileWithoutPermissionSaysSo", cliSQLiteFileWithoutPermissionSaysSo)
	t.Run("ServeOnAPortInUseSaysWhy", cliServeOnAPortInUseSaysWhy)
	t.Run("JobsListTitlesUseTheTerminalWidthAndAreWholeWhenPiped", cliJobsListTitlesUseTheTerminalWidthAndAreWholeWhenPiped)
	t.Run("DashVIsVersion", cliDashVIsVersion)
	t.Run("FishCompletionCompletesCommandsAndFlags", cliFishCompletionCompletesCommandsAndFlags)
	t.Run("HashKeyRefusesAKeyUnder128BitsAndMakesANewOne", cliHashKeyRefusesAKeyUnder128BitsAndMakesANewOne)
}

func cliHelpAndUsageErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		env  []string
		code int
		want string
	}{
		{nil, nil, 2, "Usage:"},
		{[]string{"help"}, nil, 0, "askonce serve"},
		{[]string{"serve", "--help"}, nil, 0, "ASKONCE_DB"},
		{[]string{"bench", "--help"}, nil, 0, "loopback"},
		{[]string{"eval", "--help"}, nil, 0, "Usage: askonce eval [flags] FILE.jsonl"},
		{[]string{"eval", "--interpreter", "magic", "x.jsonl"}, nil, 2, "must be one of rules, openai, exec"},
		{[]string{"eval", "no-such-file.jsonl"}, nil, 2, "no-such-file.jsonl"},
		{[]string{"hash-key", "--help"}, nil, 0, "Usage: askonce hash-key TENANT"},
		{[]string{"help", "hash-key"}, nil, 0, "Usage: askonce hash-key TENANT"},
		{[]string{"hash-key"}, nil, 2, "usage: askonce hash-key [--new] TENANT"},
		{[]string{"frobnicate"}, nil, 2, `unknown command "frobnicate"`},
		{[]string{"serve", "--no-such-flag"}, nil, 2, "no-such-flag"},
		{[]string{"serve", "--builder", "carrier-pigeon"}, nil, 2, "must be one of none, webhook, command"},
		{[]string{"serve", "--builder", "webhook"}, nil, 2, "needs --webhook-url"},
		{[]string{"serve"}, []string{"ASKONCE_MAX_ATTEMPTS=lots"}, 2, "ASKONCE_MAX_ATTEMPTS"},
		{[]string{"serve", "stray"}, nil, 2, `unexpected argument "stray"`},
		{[]string{"serve", "--memory-scope", "galaxy"}, nil, 2, `--memory-scope "galaxy" is not one of session, project, tenant`},
		{[]string{"serve", "--memory-ttl", "900h", "--memory-max-ttl", "800h"}, nil, 2, "at most --memory-max-ttl"},
		{[]string{"memory"}, nil, 2, "askonce memory COMMAND"},
		{[]string{"memory", "list"}, nil, 2, "give --project NAME"},
		{[]string{"bench", "--server", "http://10.1.2.3:8080"}, nil, 2, "only targets loopback"},
	} {
		out, errs, code := runCLI(t, "", c.env, c.args...)
		if code != c.code || !strings.Contains(out+errs, c.want) {
			t.Errorf("askonce %v: exit %d, output %q; want exit %d containing %q", c.args, code, out+errs, c.code, c.want)
		}
	}
}

func cliHashKeyPrintsAKeysFileLine(t *testing.T) {
	t.Parallel()
	const key = "p4Lq0vR9sT2uW7xY1zA3bC5dE8fG6hJk"
	out, errs, code := runCLI(t, key+"\n", nil, "hash-key", "acme")
	sum := sha256.Sum256([]byte(key))
	if code != 0 || out != "acme "+hex.EncodeToString(sum[:])+"\n" {
		t.Fatalf("hash-key: exit %d out %q err %q", code, out, errs)
	}
}

// A key too short to carry 128 bits is refused, saying how to make one;
// --new makes one of 256 bits, on stderr, with its keys file line.
func cliHashKeyRefusesAKeyUnder128BitsAndMakesANewOne(t *testing.T) {
	t.Parallel()
	for _, short := range []string{"s3cret", "0123456789abcdef0123456789abcde", "Zm9vYmFyYmF6cXV4cXV1eA"[:21]} {
		out, errs, code := runCLI(t, short+"\n", nil, "hash-key", "acme")
		if code != 2 || out != "" || !strings.Contains(errs, "under the 128 an API key needs") || !strings.Contains(errs, "hash-key --new acme") {
			t.Errorf("hash-key of %q: exit %d out %q err %q; want exit 2 naming the 128 bits and --new", short, code, out, errs)
		}
	}
	out, errs, code := runCLI(t, "", nil, "hash-key", "--new", "acme")
	key := strings.SplitN(errs, "\n", 2)[0]
	sum := sha256.Sum256([]byte(key))
	if code != 0 || len(key) != 43 || out != "acme "+hex.EncodeToString(sum[:])+"\n" {
		t.Fatalf("hash-key --new: exit %d out %q err %q; want a 43-character key on stderr and its line on stdout", code, out, errs)
	}
	if out, errs, code := runCLI(t, key+"\n", nil, "hash-key", "acme"); code != 0 || !strings.HasPrefix(out, "acme ") {
		t.Fatalf("hash-key of the new key: exit %d out %q err %q", code, out, errs)
	}
}

// docs/flags.md's table of askonce serve lists exactly the flags serve
// --help prints, with their variables and defaults, so the reference
// matches what the binary says.
func cliFlagsDocServeTableMatchesServeHelp(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../../docs/flags.md")
	if err != nil {
		t.Fatal(err)
	}
	_, serve, _ := strings.Cut(string(doc), "## askonce serve\n")
	serve, _, _ = strings.Cut(serve, "\n## ")
	out, errs, _ := runCLI(t, "", nil, "serve", "--help")
	help := out + errs
	flagLine := regexp.MustCompile(`(?m)^  --([a-z-]+)  \((ASKONCE_[A-Z_]+), default (.*)\)$`)
	rowLine := regexp.MustCompile("(?m)^\\| `--([a-z-]+)` \\| `(ASKONCE_[A-Z_]+)` \\| `?([^|`]*)`? \\|")
	want := map[string]string{}
	for _, m := range flagLine.FindAllStringSubmatch(help, -1) {
		want[m[1]] = m[2] + " " + m[3]
	}
	got := map[string]string{}
	for _, m := range rowLine.FindAllStringSubmatch(serve, -1) {
		got[m[1]] = m[2] + " " + strings.TrimSpace(m[3])
	}
	if len(want) < 10 {
		t.Fatalf("could not read the flags from --help:\n%s", help)
	}
	for f, w := range want {
		if got[f] != w {
			t.Errorf("docs/flags.md row for --%s is %q; serve --help says %q", f, got[f], w)
		}
	}
	for f := range got {
		if _, ok := want[f]; !ok {
			t.Errorf("docs/flags.md documents --%s for serve, which askonce serve does not have", f)
		}
	}
}

// A mistyped flag is one error line naming the flag and one line pointing
// at --help, with exit code 2, for every command that takes flags.
func cliUnknownFlagIsOneLineAndAHintToHelp(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"serve"}, {"run", "a goal"}, {"repl"}, {"mcp"}, {"bench"},
		{"jobs", "list"}, {"jobs", "show", "x"}, {"jobs", "answer", "x", "y"},
		{"jobs", "cancel", "x"}, {"jobs", "decline", "x"}, {"jobs", "events", "x"}, {"jobs", "history", "x"},
	} {
		args := append(args, "--no-such-flag")
		out, errs, code := runCLI(t, "", nil, args...)
		lines := strings.Split(strings.TrimSuffix(errs, "\n"), "\n")
		name := args[0]
		if name == "jobs" {
			name += " " + args[1]
		}
		if code != 2 || out != "" || len(lines) != 2 ||
			!strings.Contains(lines[0], "unknown flag --no-such-flag") ||
			!strings.Contains(lines[1], "askonce "+name+" --help") {
			t.Errorf("askonce %v: exit %d, stdout %q, stderr %q; want exit 2 and two lines: the flag, then 'askonce %s --help'", args, code, out, errs, name)
		}
	}
}

// askonce version prints the version stamped by a release build and the
// module path and, when the binary was built from a VCS checkout, the
// revision that go version -m reads from the same binary.
func cliVersionPrintsTheStampedVersionAndRevision(t *testing.T) {
	t.Parallel()
	out, errs, code := runCLI(t, "", nil, "version")
	if want := "askonce " + stampedVersion + " (github.com/askonce/askonce)\n"; code != 0 || !strings.HasPrefix(out, want) {
		t.Fatalf("askonce version: exit %d, stdout %q, stderr %q; want it to start %q", code, out, errs, want)
	}
	meta, err := exec.Command("go", "version", "-m", builtBinary(t)).Output()
	if err != nil {
		t.Fatalf("go version -m: %v", err)
	}
	if m := regexp.MustCompile(`(?m)^\s*build\s+vcs\.revision=(\S+)$`).FindSubmatch(meta); m != nil {
		if !strings.Contains(out, "revision "+string(m[1])) {
			t.Errorf("askonce version %q does not show the revision %s it was built from", out, m[1])
		}
	} else if strings.Contains(out, "revision") {
		t.Errorf("askonce version %q shows a revision, but the binary has none", out)
	}
}

// askonce -v is askonce --version is askonce version.
func cliDashVIsVersion(t *testing.T) {
	t.Parallel()
	want, _, _ := runCLI(t, "", nil, "version")
	for _, flag := range []string{"-v", "--version"} {
		out, errs, code := runCLI(t, "", nil, flag)
		if code != 0 || out != want || !strings.HasPrefix(out, "askonce "+stampedVersion) {
			t.Errorf("askonce %s: exit %d, stdout %q, stderr %q; want exit 0 and %q", flag, code, out, errs, want)
		}
	}
}

// Each jobs command's --help lists the exit codes that command can return,
// not the whole table: only commands given a job id report "not found",
// only those that change a job report a conflict, only answer checks the
// answer and waits for the job's outcome.
func cliEachJobsCommandListsItsOwnExitCodes(t *testing.T) {
	t.Parallel()
	codeLine := regexp.MustCompile(`(?m)^  (\d)  `)
	for sub, codes := range map[string]string{
		"list": "012", "history": "012", "show": "0123", "events": "0123",
		"cancel": "01234", "decline": "01234", "answer": "0123456",
	} {
		out, errs, code := runCLI(t, "", nil, "jobs", sub, "--help")
		help := out + errs
		_, section, ok := strings.Cut(help, "Exit codes:\n")
		section, _, _ = strings.Cut(section, "\n\n")
		got := ""
		for _, m := range codeLine.FindAllStringSubmatch(section, -1) {
			got += m[1]
		}
		if code != 0 || !ok || got != codes {
			t.Errorf("askonce jobs %s --help: exit %d, exit codes %q, want %q:\n%s", sub, code, got, codes, help)
		}
	}
}
