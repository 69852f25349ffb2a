package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The captured terminals of docs/terminal.md are what askonce run draws:
// each block after a <!-- screen: NAME --> line is the screen of that
// name, captured here in tmux (120 columns) from askonce run on the
// embedded engine, and must match it (job ids aside). -update rewrites
// the blocks that differ, as for the console examples:
//
//	go test ./cmd/askonce -run TestDocsTerminalScreensAreWhatRunDraws -update
func TestDocsTerminalScreensAreWhatRunDraws(t *testing.T) {
	t.Parallel()
	requireTmux(t)
	doc := filepath.Join("..", "..", "docs", "terminal.md")
	home := t.TempDir()
	env := []string{"HOME=" + home, "XDG_DATA_HOME=" + filepath.Join(home, "data"), "NO_COLOR=1"}
	dir := t.TempDir()
	run := func(args ...string) *pane {
		return newPaneEnv(t, dir, env, append([]string{"run"}, args...)...)
	}
	screens := map[string]string{}

	p := run("--session", "demo", "hot frozen cheese")
	p.waitFor("Which should it be?", "> hot", "enter submit")
	p.settle()
	screens["select"] = p.screen()
	p.keys("Down")
	p.waitFor("> frozen")
	p.keys("Enter")
	screens["select-answered"] = strings.TrimSuffix(strings.TrimRight(p.waitFor("EXIT=0"), "\n "), "EXIT=0")

	p = run("--session", "filter", "hot frozen cheese")
	p.waitFor("> hot", "enter submit")
	// The filter opens before the text is typed (keys that arrive in one
	// read are one key press to huh).
	p.keys("/")
	p.waitFor("esc set filter")
	p.typeText("fro")
	p.waitFor("┃ /fro", "> frozen")
	p.settle()
	screens["select-filter"] = p.screen()

	p = run("delete the build folder")
	p.waitFor("Yes or no · job", "toggle")
	p.settle()
	screens["confirm"] = p.screen()

	b, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	changed, found := false, 0
	for i := 0; i+1 < len(lines); i++ {
		name, ok := strings.CutPrefix(lines[i], "<!-- screen: ")
		if !ok {
			continue
		}
		name = strings.TrimSuffix(name, " -->")
		got, ok := screens[name]
		if !ok {
			t.Errorf("docs/terminal.md:%d: no screen named %q", i+1, name)
			continue
		}
		found++
		start, end := i+2, i+2
		for end < len(lines) && lines[end] != "```" {
			end++
		}
		if docBlock(t, &lines, start, end, trimScreen(got), "docs/terminal.md: the "+name+" screen is not what askonce run draws") {
			changed = true
		}
	}
	if found != len(screens) {
		t.Errorf("docs/terminal.md shows %d of the %d screens", found, len(screens))
	}
	if changed {
		if err := os.WriteFile(doc, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// trimScreen drops a captured screen's trailing spaces and blank lines.
func trimScreen(s string) string {
	lines := strings.Split(s, "\n")
	for i := range lines {
		lines[i] = strings.TrimRight(lines[i], " ")
	}
	return strings.TrimRight(strings.Join(lines, "\n"), "\n")
}
