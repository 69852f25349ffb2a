package main_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func TestCLI_MistypedCommandsAndFlagsSuggestTheClosest(t *testing.T) {
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
func TestCLI_CompletionScriptsListTheCommandsAndFlags(t *testing.T) {
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
				if shell == "bash" {
					t.Fatal("bash is missing")
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

func TestCLI_BashCompletionCompletesCommandsAndFlags(t *testing.T) {
	t.Parallel()
	f := completionScript(t, "bash")
	for _, c := range []struct{ words, want string }{
		{"askonce jo", "jobs"},
		{"askonce se", "serve"},
		{"askonce jobs hi", "history"},
		{"askonce jobs list --ses", "--session"},
		{"askonce serve --api-k", "--api-keys-file"},
		{"askonce run --no-", "--no-input"},
		{"askonce completion z", "zsh"},
	} {
		words := strings.Fields(c.words)
		script := "source " + shellQuote(f) + "\nCOMP_WORDS=(" + c.words + ")\nCOMP_CWORD=" + strconv.Itoa(len(words)-1) + "\n_askonce\necho \"${COMPREPLY[*]}\"\n"
		out, err := exec.Command("bash", "-c", script).CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", c.words, err, out)
		}
		if got := strings.TrimSpace(string(out)); got != c.want {
			t.Errorf("completing %q: %q, want %q", c.words, got, c.want)
		}
	}
}
