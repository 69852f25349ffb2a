package rules_test

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// docPlan is one plan printed in an example of docs/terminal.md: the goal
// it was made for, the answer given, its title and its tasks' titles.
type docPlan struct {
	goal, answer, title string
	tasks               []string
}

var (
	docRun    = regexp.MustCompile(`askonce run [^"]*"([^"]+)"`)
	docRepl   = regexp.MustCompile(`printf '([^']*)' \| askonce repl`)
	docJob    = regexp.MustCompile(`^  job \S+ · `)
	docAnswer = regexp.MustCompile(`(?:^  answer: | -> )(.+?) \(from `)
	docTask   = regexp.MustCompile(`^[\s│├└─]*t\d+  (.+?)(?:  \(after [^)]*\))?$`)
)

// docPlans reads the plans printed in the text blocks of a Markdown
// file: each block's goals come from its askonce run or repl command
// line, in order, and each plan is a title line over a "job" line, the
// answer under it (or the auto-resolved line before it) and its tree of
// tasks.
func docPlans(t *testing.T, file string) []docPlan {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var out []docPlan
	for i, block := range strings.Split(string(b), "```text\n") {
		if i == 0 {
			continue
		}
		block, _, _ = strings.Cut(block, "```")
		lines := strings.Split(block, "\n")
		var goals []string
		answer := ""
		for k, line := range lines {
			if m := docRun.FindStringSubmatch(line); m != nil {
				goals = append(goals, m[1])
			}
			if m := docRepl.FindStringSubmatch(line); m != nil {
				for g := range strings.SplitSeq(m[1], `\n`) {
					if g != "" && !strings.HasPrefix(g, "/") {
						goals = append(goals, g)
					}
				}
			}
			if m := docAnswer.FindStringSubmatch(line); m != nil {
				answer = m[1]
			}
			if !docJob.MatchString(line) || k == 0 || len(goals) == 0 {
				continue
			}
			p := docPlan{goal: goals[0], answer: answer, title: lines[k-1]}
			goals, answer = goals[1:], ""
			for _, l := range lines[k+1:] {
				if m := docAnswer.FindStringSubmatch(l); m != nil && p.answer == "" {
					p.answer = m[1]
					continue
				}
				m := docTask.FindStringSubmatch(l)
				if m == nil {
					break
				}
				p.tasks = append(p.tasks, m[1])
			}
			out = append(out, p)
		}
	}
	return out
}

// The terminal's documentation shows the titles the rules interpreter
// gives today: each plan printed in docs/terminal.md is made again from
// its goal and answer, and its title and task titles must match.
func TestTerminalDocShowsTheTitlesOfTodaysPlans(t *testing.T) {
	t.Parallel()
	in := newInterpreter(t)
	plans := docPlans(t, "../docs/terminal.md")
	if len(plans) < 3 {
		t.Fatalf("found %d plans in docs/terminal.md; the examples are no longer read", len(plans))
	}
	for _, p := range plans {
		o := interpret(t, in, req{goal: p.goal, answer: p.answer})
		if o.Plan == nil {
			t.Errorf("%q answered %q asks %q; the doc shows a plan", p.goal, p.answer, o.Question.Text)
			continue
		}
		var tasks []string
		for _, task := range o.Plan.Tasks {
			tasks = append(tasks, task.Title)
		}
		if o.Plan.Title != p.title || !slices.Equal(tasks, p.tasks) {
			t.Errorf("%q answered %q plans %q with tasks %q; docs/terminal.md shows %q with %q", p.goal, p.answer, o.Plan.Title, tasks, p.title, p.tasks)
		}
	}
}
