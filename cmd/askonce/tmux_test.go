package main_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/client"
)

// The pickers in a real terminal: tmux runs askonce run against a real
// server, the test types keys (send-keys) and reads the screen
// (capture-pane).

// pane is one tmux session on a private server socket, 120x40.
type pane struct {
	t    *testing.T
	sock string
}

var (
	sockName = regexp.MustCompile(`[^A-Za-z0-9]+`)
	// panes numbers the panes, so that every one has a tmux server of its
	// own even when a test opens two or runs with -count.
	panes atomic.Int64
)

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// newPane runs askonce with args in a new terminal; the pane stays after
// the command ends, showing EXIT=<code>.
func newPane(t *testing.T, dir string, args ...string) *pane {
	t.Helper()
	return newPaneEnv(t, dir, nil, args...)
}

// requireTmux skips a test of the terminal in tmux under -short, and when
// tmux is not installed.
func requireTmux(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: skipping a terminal test (askonce in a real terminal, tmux; go test without -short runs it; CI does)")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed: skipping the terminal tests (CI installs it)")
	}
}

// newPaneEnv is newPane with extra NAME=value environment variables.
func newPaneEnv(t *testing.T, dir string, env []string, args ...string) *pane {
	t.Helper()
	requireTmux(t)
	p := &pane{t: t, sock: fmt.Sprintf("askonce-%d-%d-%s", os.Getpid(), panes.Add(1), sockName.ReplaceAllString(t.Name(), "-"))}
	line := "cd " + shellQuote(dir) + " && env ASKONCE_SERVER= ASKONCE_API_KEY="
	for _, kv := range env {
		line += " " + shellQuote(kv)
	}
	line += " " + shellQuote(builtBinary(t))
	for _, a := range args {
		line += " " + shellQuote(a)
	}
	line += "; echo EXIT=$?; sleep 120"
	p.tmux("-f", "/dev/null", "new-session", "-d", "-x", "120", "-y", "40", line)
	t.Cleanup(func() { exec.Command("tmux", "-L", p.sock, "kill-server").Run() })
	return p
}

func (p *pane) tmux(args ...string) string {
	p.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", p.sock}, args...)...).CombinedOutput()
	if err != nil {
		p.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func (p *pane) screen() string { return p.tmux("capture-pane", "-p") }

// waitFor polls the screen until it shows every text, for at most 45 s:
// some screens wait for a plug-in interpreter's several attempts (a
// process each), which take seconds when the test binaries of every
// package share the machine's two cores.
func (p *pane) waitFor(texts ...string) string {
	p.t.Helper()
	deadline := time.Now().Add(45 * time.Second)
	for {
		s := p.screen()
		missing := ""
		for _, text := range texts {
			if !strings.Contains(s, text) {
				missing = text
				break
			}
		}
		if missing == "" {
			return s
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("the screen never showed %q:\n%s", missing, s)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// keys sends key names (Enter, Down, ...).
func (p *pane) keys(k ...string) { p.tmux(append([]string{"send-keys"}, k...)...) }

// typeText sends literal text.
func (p *pane) typeText(s string) { p.tmux("send-keys", "-l", s) }

// settle waits until the screen stops changing, so that every typed key
// reached the program before the next one is sent (at most 10 s).
func (p *pane) settle() {
	p.t.Helper()
	prev := p.screen()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		time.Sleep(250 * time.Millisecond)
		cur := p.screen()
		if cur == prev {
			return
		}
		prev = cur
	}
}

// pickerRows are the rows of a select picker between its label (the
// line under the question's type and job, the filter while filtering) and
// its help line.
func pickerRows(screen string) []string {
	var rows []string
	in, label := false, false
	for _, l := range strings.Split(screen, "\n") {
		switch {
		case strings.Contains(l, " · job "):
			in = true
		case in && !label && strings.HasPrefix(l, "┃"):
			label = true
		case in && strings.HasPrefix(l, "┃"):
			if r := strings.TrimSpace(strings.TrimPrefix(l, "┃")); r != "" {
				rows = append(rows, r)
			}
		case in:
			return rows
		}
	}
	return rows
}

// lineOf is the number of the screen's first line containing text, or -1.
func lineOf(screen, text string) int {
	for i, l := range strings.Split(screen, "\n") {
		if strings.Contains(l, text) {
			return i
		}
	}
	return -1
}

// wantRows checks that the picker on the screen lists exactly the options
// of the job it shows, then "Other…" when the job's question allows an
// answer of one's own; a TARGET_FILE picker adds the project root and
// "Another path…". The first row is the cursor's.
func wantRows(t *testing.T, cl *client.Client, screen string, options ...string) {
	t.Helper()
	m := regexp.MustCompile(` · job (` + jobIDRe.String() + `)`).FindStringSubmatch(screen)
	if m == nil {
		t.Fatalf("no job id on the screen:\n%s", screen)
	}
	j, err := cl.Get(context.Background(), m[1])
	if err != nil {
		t.Fatal(err)
	}
	want := "> " + strings.Join(options, "|")
	if j.ClarificationAllowOther {
		want += "|Other…"
	}
	if j.ClarificationType == askonce.QuestionTargetFile {
		want += "|. (the project root)|Another path…"
	}
	if rows := strings.Join(pickerRows(screen), "|"); rows != want {
		t.Fatalf("picker rows %q, want %q:\n%s", rows, want, screen)
	}
}

// TestTmux: the pickers in a real terminal (tmux).
func TestTmux(t *testing.T) {
	t.Parallel()
	t.Run("Pickers", tmuxPickers)
	t.Run("OtherAnswer", tmuxOtherAnswer)
	t.Run("TypedPickers", tmuxTypedPickers)
	t.Run("ReplCtrlDEndsTheLine", tmuxReplCtrlDEndsTheLine)
}

func tmuxPickers(t *testing.T) {
	t.Parallel()
	requireTmux(t)
	in := start(t, nil, "--db", filepath.Join(t.TempDir(), "a.db"))
	cl, err := client.New(in.base)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	run := func(t *testing.T, args ...string) *pane {
		return newPane(t, dir, append([]string{"run", "--server", in.base}, args...)...)
	}

	t.Run("select_one_then_auto_resolved", func(t *testing.T) {
		t.Parallel()
		p := run(t, "--session", "S1", "hot frozen cheese")
		s := p.waitFor("Which should it be?", "Pick one · job", "> hot")
		// Exactly the options: nothing else can be picked (but Other…,
		// when the question allows it).
		wantRows(t, cl, s, "hot", "frozen")
		p.keys("Down")
		p.waitFor("> frozen")
		p.keys("Enter")
		s = p.waitFor("EXIT=0")
		for _, w := range []string{"Which should it be? › frozen", "Frozen cheese", "answer: frozen (from user)", "└── t1  Frozen cheese"} {
			if !strings.Contains(s, w) {
				t.Fatalf("screen lacks %q:\n%s", w, s)
			}
		}
		// The same goal in the same session: no picker, one line.
		p2 := run(t, "--session", "S1", "hot frozen cheese")
		s = p2.waitFor("EXIT=0")
		if !strings.Contains(s, `[auto-resolved] The goal says both “hot” and “frozen”. Which should it be? -> frozen (from history)`) || strings.Contains(s, "Pick one") {
			t.Fatalf("second run:\n%s", s)
		}
	})

	t.Run("confirm_buttons_under_the_question", func(t *testing.T) {
		t.Parallel()
		p := run(t, "delete the build folder")
		s := p.waitFor("Yes or no · job", "Yes", "No")
		// Yes and No on one line below the question, from its left edge
		// (huh centres them under the question's width by default).
		q, buttons := lineOf(s, "which cannot be undone. Proceed?"), slices.IndexFunc(strings.Split(s, "\n"), regexp.MustCompile(`^┃ {1,4}Yes +No *$`).MatchString)
		if q < 0 || buttons <= q {
			t.Fatalf("Yes/No should sit on a line under the question, at its left:\n%s", s)
		}
		p.keys("n") // picks No and submits; y would pick Yes
		s = p.waitFor("EXIT=0")
		if !strings.Contains(s, "answer: no (from user)") {
			t.Fatalf("confirm:\n%s", s)
		}
	})

	t.Run("filtering_keeps_the_question", func(t *testing.T) {
		t.Parallel()
		p := run(t, "deploy to staging or production")
		s := p.waitFor("Pick one · job", "> staging")
		question := strings.TrimSpace(strings.Split(s, "\n")[lineOf(s, "Pick one · job")-1])
		if !strings.Contains(question, "staging") {
			t.Fatalf("no question above the type line:\n%s", s)
		}
		// The filter opens before the text is typed: keys that arrive in
		// one read are one key press to huh, and "/prod" opens nothing.
		p.keys("/")
		p.waitFor("esc set filter")
		p.typeText("prod")
		p.waitFor("/prod")
		p.settle()
		s = p.screen()
		if !strings.Contains(s, question) || lineOf(s, question) > lineOf(s, "/prod") {
			t.Fatalf("the question %q should stay above the filter while filtering:\n%s", question, s)
		}
		if rows := strings.Join(pickerRows(s), "|"); rows != "> production" {
			t.Fatalf("filtered rows %q, want only production:\n%s", rows, s)
		}
		p.keys("Enter")
		s = p.waitFor("EXIT=")
		if !strings.Contains(s, "EXIT=0") || !strings.Contains(s, "answer: production (from user)") {
			t.Fatalf("filtered pick:\n%s", s)
		}
	})

	t.Run("target_file", func(t *testing.T) {
		t.Parallel()
		p := run(t, "--files", "a.md,b.md", "fix the typo in the file")
		s := p.waitFor("Which file? · job", "> a.md")
		wantRows(t, cl, s, "a.md", "b.md")
		p.keys("Down")
		p.waitFor("> b.md")
		p.keys("Enter")
		s = p.waitFor("EXIT=0")
		if !strings.Contains(s, "answer: b.md (from user)") {
			t.Fatalf("target file:\n%s", s)
		}
	})

	t.Run("target_file_the_project_root", func(t *testing.T) {
		t.Parallel()
		p := run(t, "--files", "a.md,b.md", "fix the typo in the file")
		p.waitFor("Which file? · job", "> a.md")
		p.keys("Down")
		p.waitFor("> b.md")
		p.keys("Down")
		p.waitFor("> . (the project root)")
		p.keys("Enter")
		s := p.waitFor("EXIT=")
		if !strings.Contains(s, "EXIT=0") || !strings.Contains(s, "answer: . (from user)") {
			t.Fatalf("the project root:\n%s", s)
		}
	})

	t.Run("target_file_a_typed_path", func(t *testing.T) {
		t.Parallel()
		p := run(t, "--files", "a.md,b.md", "fix the typo in the file")
		p.waitFor("Which file? · job", "> a.md")
		p.keys("Down", "Down", "Down")
		p.waitFor("> Another path…")
		p.keys("Enter")
		p.waitFor("a path inside the project")
		// A path outside the project is refused in place.
		p.typeText("../etc/passwd")
		p.waitFor("../etc/passwd")
		p.keys("Enter")
		p.waitFor("leaves the project root")
		p.keys("C-u")
		p.typeText("docs/new.md")
		p.waitFor("docs/new.md")
		p.settle()
		p.keys("Enter")
		s := p.waitFor("EXIT=")
		if !strings.Contains(s, "EXIT=0") || !strings.Contains(s, "answer: docs/new.md (from user)") {
			t.Fatalf("a typed path:\n%s", s)
		}
	})

	t.Run("free_text", func(t *testing.T) {
		t.Parallel()
		p := run(t, "--session", "F1", "--profile", "minecraft-mod", "make a mod")
		p.waitFor("In your own words · job")
		p.typeText("a glowing lamp block")
		p.waitFor("a glowing lamp block")
		p.keys("Enter")
		s := p.waitFor("EXIT=0")
		if !strings.Contains(s, "Glowing lamp block") {
			t.Fatalf("free text:\n%s", s)
		}
	})

	t.Run("free_text_over_the_limit_cannot_be_typed", func(t *testing.T) {
		t.Parallel()
		p := run(t, "--session", "F2", "--profile", "minecraft-mod", "make a mod")
		p.waitFor("In your own words · job")
		p.typeText(strings.Repeat("x", 4200))
		p.waitFor("xxxxxxxxxx")
		p.settle()
		p.keys("Enter")
		p.waitFor("EXIT=0")
		l, err := cl.List(context.Background(), client.ListOptions{SessionID: "F2"})
		if err != nil || len(l.Jobs) != 1 {
			t.Fatalf("list: %+v %v", l, err)
		}
		if a := l.Jobs[0].ClarificationAnswer; a != strings.Repeat("x", 4096) {
			t.Fatalf("the answer has %d characters; the picker should stop at 4096", len(a))
		}
	})

	t.Run("free_text_over_the_byte_limit_is_refused_in_the_picker", func(t *testing.T) {
		t.Parallel()
		// 2100 two-byte characters fit the picker's 4096-character limit
		// but not the server's 4096 bytes: the picker checks the answer
		// as the server does, shows why under the input and asks again;
		// leaving then keeps the job pending.
		p := run(t, "--session", "F3", "--profile", "minecraft-mod", "make a mod")
		p.waitFor("In your own words · job")
		p.typeText(strings.Repeat("é", 2100))
		p.waitFor("éééééééééé")
		p.settle()
		p.keys("Enter")
		s := p.waitFor("the limit is 4096")
		if strings.Contains(s, "EXIT=") {
			t.Fatalf("the picker ended on a refused answer:\n%s", s)
		}
		p.keys("C-c")
		if s = p.waitFor("EXIT=7"); !strings.Contains(s, "still pending") {
			t.Fatalf("after the refusal:\n%s", s)
		}
	})

	t.Run("ctrl_c_leaves_the_job_pending", func(t *testing.T) {
		t.Parallel()
		p := run(t, "deploy to staging or production")
		s := p.waitFor("Pick one · job", "> staging")
		wantRows(t, cl, s, "staging", "production")
		p.keys("C-c")
		s = p.waitFor("EXIT=7")
		if !strings.Contains(s, "still pending") {
			t.Fatalf("abort:\n%s", s)
		}
	})

	// Esc leaves every picker as ctrl+c does (docs/terminal.md): the job
	// stays pending and unanswered, and an Enter after it answers nothing.
	for _, c := range []struct{ name, goal, shown string }{
		{"escape_leaves_a_confirm", "delete the build folder", "Yes or no · job"},
		{"escape_leaves_a_select", "deploy to staging or production", "Pick one · job"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			p := run(t, c.goal)
			s := p.waitFor(c.shown)
			id := jobIDRe.FindString(s[strings.Index(s, c.shown):])
			p.keys("Escape")
			s = p.waitFor("EXIT=")
			p.keys("Enter")
			if !strings.Contains(s, "EXIT=7") || !strings.Contains(s, "still pending") {
				t.Fatalf("Esc should leave the picker with exit 7:\n%s", s)
			}
			j, err := cl.Get(context.Background(), id)
			if err != nil || j.Status != askonce.StatusPending || j.ClarificationAnswer != "" {
				t.Fatalf("after Esc the job %s should be pending and unanswered: %+v %v", id, j, err)
			}
		})
	}

	t.Run("escape_while_filtering_clears_the_filter_first", func(t *testing.T) {
		t.Parallel()
		p := run(t, "deploy to staging or production")
		p.waitFor("Pick one · job", "> staging")
		p.keys("/")
		p.waitFor("esc set filter")
		p.typeText("prod")
		p.waitFor("/prod")
		p.settle()
		p.keys("Escape")
		p.waitFor("esc clear filter")
		s := p.screen()
		if strings.Contains(s, "EXIT=") {
			t.Fatalf("the first Esc should only set the filter:\n%s", s)
		}
		p.keys("Escape")
		p.waitFor("> staging")
		p.settle()
		p.keys("Escape")
		if s = p.waitFor("EXIT="); !strings.Contains(s, "EXIT=7") {
			t.Fatalf("Esc after the filter should leave:\n%s", s)
		}
	})
}

// A SELECT_ONE question that allows other answers offers "Other…" after
// its options; it opens a text input whose answer is the user's own. A
// blank answer cannot be submitted.
func tmuxOtherAnswer(t *testing.T) {
	t.Parallel()
	requireTmux(t)
	in := start(t, writePlugin(t, otherPlugin), "--db", filepath.Join(t.TempDir(), "a.db"), "--interpreter", "exec")
	cl, err := client.New(in.base)
	if err != nil {
		t.Fatal(err)
	}
	p := newPane(t, t.TempDir(), "run", "--server", in.base, "hot frozen cheese")
	s := p.waitFor("Hot or frozen?", "Pick one · job", "> hot")
	if rows := strings.Join(pickerRows(s), "|"); rows != "> hot|frozen|Other…" {
		t.Fatalf("picker rows %q:\n%s", rows, s)
	}
	wantRows(t, cl, s, "hot", "frozen")
	p.keys("Down")
	p.waitFor("> frozen")
	p.keys("Down")
	p.waitFor("> Other…")
	p.keys("Enter")
	p.waitFor("your own answer")
	p.typeText("   ")
	p.settle()
	p.keys("Enter")
	p.waitFor("type an answer")
	p.keys("BSpace", "BSpace", "BSpace")
	p.typeText("banana")
	p.waitFor("banana")
	p.keys("Enter")
	s = p.waitFor("EXIT=")
	for _, w := range []string{"EXIT=0", "Hot or frozen? › banana", "answer: banana (from user)"} {
		if !strings.Contains(s, w) {
			t.Fatalf("screen lacks %q:\n%s", w, s)
		}
	}
	// An option is still picked as the option.
	p = newPane(t, t.TempDir(), "run", "--server", in.base, "hot frozen cheese")
	p.waitFor("Pick one · job", "> hot")
	p.keys("Down")
	p.waitFor("> frozen")
	p.keys("Enter")
	if s = p.waitFor("EXIT="); !strings.Contains(s, "answer: frozen (from user)") {
		t.Fatalf("option:\n%s", s)
	}
}

// Ctrl-D at the repl's prompt leaves the repl with the prompt's line ended,
// so what the shell prints next starts on a line of its own.
func tmuxReplCtrlDEndsTheLine(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := newPane(t, dir, "repl", "--db", filepath.Join(dir, "a.db"))
	p.waitFor("/help for commands\n>")
	p.keys("C-d")
	s := p.waitFor("EXIT=")
	if !regexp.MustCompile(`(?m)^> *$`).MatchString(s) || !regexp.MustCompile(`(?m)^EXIT=0$`).MatchString(s) {
		t.Fatalf("after Ctrl-D the prompt's line should end and the repl exit 0:\n%s", s)
	}
}
