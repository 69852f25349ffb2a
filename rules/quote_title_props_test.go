package rules_test

import (
	"bufio"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/askonce/askonce"
)

// destructiveShape is one generated goal with a destructive step: the
// goal, the command or path the confirmation must quote whole, and the
// other steps' texts, which "no" must leave as they are.
type destructiveShape struct {
	goal, whole string
	others      []string
}

// destructiveShapes generates goals that destroy something in many
// shapes: English, Japanese and mixed; a path in back-ticks, in double
// quotes or 「」, a glob, a command with flags, SQL, a list of files;
// joined to the steps around it by "then", a sentence break, a line
// break (also CRLF), a list, or Japanese connectives.
func destructiveShapes() []destructiveShape {
	type act struct{ text, whole string }
	en := []act{
		{"delete /tmp/cache/*.tmp", "/tmp/cache/*.tmp"},
		{"Delete `build/`", "`build/`"},
		{"delete \"old report.pdf\"", "\"old report.pdf\""},
		{"Delete “old report.pdf”", "“old report.pdf”"},
		{"remove 'my notes.txt'", "'my notes.txt'"},
		{"delete notes.md", "notes.md"},
		{"Delete notes.md, todo.md and draft.md", "notes.md, todo.md and draft.md"},
		{"rm -rf ./build", "rm -rf ./build"},
		{"run `rm -rf build/`", "`rm -rf build/`"},
		{"rm -rf \"my folder\"", "rm -rf \"my folder\""},
		{"git reset --hard HEAD~2", "git reset --hard HEAD~2"},
		{"git push --force", "git push --force"},
		{"git push --force origin main", "git push --force origin main"},
		{"DROP TABLE users;", "DROP TABLE users"},
		{"kubectl delete namespace staging", "kubectl delete namespace staging"},
		{"drop the users table", "drop the users table"},
		{"delete the staging branch", "delete the staging branch"},
		{"Permanently delete the file `config/old settings.yaml`", "`config/old settings.yaml`"},
		{"wipe the staging database", "wipe the staging database"},
		{"remove these files: a.txt, b.txt", "remove these files: a.txt, b.txt"},
		{"delete the old backups (they're in /var/backups)", "delete the old backups (they're in /var/backups)"},
		{"delete `a.log`, `b.log` and `c.log`", "`a.log`, `b.log` and `c.log`"},
		{"remove the `dist/` and `build/` folders", "remove the `dist/` and `build/` folders"},
		{"go ahead and delete the staging branch", "delete the staging branch"},
		{"delete rows older than 30 days from the events table", "delete rows older than 30 days from the events table"},
		// Shell commands in prose and code spans, and plain verbs.
		{"run rm ./*.orig", "rm ./*.orig"},
		{"find . -name '*.bak' -delete", "find . -name '*.bak' -delete"},
		{"clean up with `find . -name '*.bak' -delete`", "`find . -name '*.bak' -delete`"},
		{"git branch -D old-feature", "git branch -D old-feature"},
		{"git push origin --delete old-feature", "git push origin --delete old-feature"},
		{"run `truncate -s 0 app.log`", "`truncate -s 0 app.log`"},
		{"Run DROP TABLE sessions", "DROP TABLE sessions"},
		{"clear out the downloads folder", "clear out the downloads folder"},
		{"purge the old logs", "purge the old logs"},
		{"empty the Downloads folder", "empty the Downloads folder"},
	}
	ja := []act{
		{"/tmp/cache/*.tmp を削除して", "/tmp/cache/*.tmp"},
		{"`build/`を削除して", "`build/`"},
		{"「古いログ.txt」を削除して", "「古いログ.txt」"},
		{"\"old report.pdf\" を消して", "\"old report.pdf\""},
		{"logs/ を全部削除して", "logs/"},
		{"ログファイル（logs/*.log）をすべて消して", "ログファイル（logs/*.log）"},
		{"`rm -rf node_modules` を実行して", "`rm -rf node_modules`"},
		{"git reset --hard HEAD~2 を実行して", "git reset --hard HEAD~2"},
		{"node_modulesを消しといて", "node_modulesを消しといて"},
		{"~/Downloads/*.zip を削除", "~/Downloads/*.zip を削除"},
		{"`logs/` 配下を全部消して", "`logs/` 配下を全部消して"},
		{"古いログを削除しちゃって", "古いログを削除しちゃって"},
		{"`git branch -D old` を実行して", "`git branch -D old`"},
	}
	var out []destructiveShape
	for _, a := range en {
		for _, f := range []struct{ before, join, after string }{
			{"", ", then ", "rebuild the site."},
			{"", " and then ", "email the team"},
			{"Run the tests. ", ". Then ", "commit the change."},
			{"", "\nthen ", "rebuild the site"},
			{"", "\r\nThen ", "rebuild the site"},
			{"- ", "\n- ", "rebuild the site"},
			{"1. run the tests\n2. ", "\n3. ", "push the tag"},
			{"First ", ". Finally, ", "deploy."},
			{"Please ", ". Next, ", "merge main."},
			{"Step 1: ", "\nStep 2: ", "rebuild the site"},
			{"\t", "\n\tthen ", "rebuild the site"},
			{"", "", ""},
		} {
			text := a.text
			if strings.HasPrefix(f.before, "Please") || strings.HasPrefix(f.before, "First") {
				text = strings.ToLower(text[:1]) + text[1:]
			}
			if strings.HasSuffix(text, ";") && f.join != "" && !strings.HasPrefix(f.join, "\n") {
				continue // DROP TABLE users; then …: the semicolon joins already
			}
			var others []string
			if b := strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(f.before, "- "), "\t")); strings.Contains(b, " ") && !strings.HasPrefix(b, "Step") && b != "Please" && b != "First" {
				others = append(others, strings.TrimSuffix(strings.TrimPrefix(b, "1. "), "\n2."))
			}
			if f.after != "" {
				others = append(others, f.after)
			}
			out = append(out, destructiveShape{goal: f.before + text + f.join + f.after, whole: a.whole, others: others})
		}
	}
	for _, a := range ja {
		for _, f := range []struct{ join, after string }{
			{"。次に", "ビルドして"},
			{"、それから", "テストを実行して"},
			{"。そして", "サーバーを再起動して"},
			{"\n最後に", "デプロイして"},
			{"\r\n", "ビルドして"},
			{"", ""},
		} {
			var others []string
			if f.after != "" {
				others = append(others, f.after)
			}
			out = append(out, destructiveShape{goal: a.text + f.join + f.after, whole: a.whole, others: others})
		}
	}
	out = append(out, destructiveShape{goal: "Find the old logs in /var/log and delete them, then restart.", whole: "delete them", others: []string{"Find the old logs in /var/log", "restart."}},
		destructiveShape{goal: "List the stale branches. Then delete them.\nFinally, push.", whole: "delete them", others: []string{"List the stale branches.", "push."}})
	for _, list := range []string{"- ", "1. ", "* "} { // the objects listed under the command's colon
		out = append(out, destructiveShape{goal: "Delete the following files:\n" + list + "a.txt\n" + list + "b.txt\nThen commit.", whole: "a.txt", others: []string{"Then commit."}},
			destructiveShape{goal: "以下を削除して：\n" + list + "a.txt\n" + list + "b.txt\n次にビルドして", whole: "a.txt", others: []string{"次にビルドして"}})
	}
	return out
}

// balanced reports whether s opens and closes its back-ticks, double
// quotes and brackets in pairs.
func balanced(s string) bool {
	if strings.Count(s, "`")%2 != 0 || strings.Count(s, "\"")%2 != 0 {
		return false
	}
	for _, p := range []string{"“”", "「」", "『』", "（）", "()"} {
		o, c := string([]rune(p)[0]), string([]rune(p)[1])
		if strings.Count(s, o) != strings.Count(s, c) {
			return false
		}
	}
	return true
}

// quotedIn are the spans a question quotes: “…” or 「…」, the outermost
// pairs.
func quotedIn(q string) []string {
	var out []string
	for _, p := range [][2]string{{"“", "”"}, {"「", "」"}} {
		rest := q
		for {
			i := strings.Index(rest, p[0])
			if i < 0 {
				break
			}
			j := strings.LastIndex(rest, p[1])
			if j < i {
				break
			}
			out = append(out, rest[i+len(p[0]):j])
			rest = rest[j+len(p[1]):]
		}
		if len(out) > 0 {
			return out
		}
	}
	return out
}

// A destructive step, whatever its shape, is asked about; the
// confirmation quotes the whole command or path and breaks no quote or
// back-tick pair; "no" removes exactly that step (every other step stays
// as written, none holds the path) and "yes" keeps it.
func TestRule14_DestructiveShapesQuoteTheWholeCommandAndNoRemovesExactlyIt(t *testing.T) {
	t.Parallel()
	in := newInterpreter(t)
	for _, s := range destructiveShapes() {
		t.Run(s.goal, func(t *testing.T) {
			o := interpret(t, in, req{goal: s.goal})
			q := o.Question
			if q == nil || q.Type != askonce.QuestionConfirm {
				t.Fatalf("no confirmation: %+v", o)
			}
			quotes := quotedIn(q.Text)
			if !slices.ContainsFunc(quotes, func(x string) bool { return strings.Contains(x, s.whole) }) {
				t.Errorf("the confirmation %q does not quote %q whole", q.Text, s.whole)
			}
			for _, x := range quotes {
				if !balanced(x) {
					t.Errorf("the confirmation %q breaks a pair in %q", q.Text, x)
				}
			}
			no := taskTexts(interpret(t, in, req{goal: s.goal, answer: "no"}).Plan)
			core := strings.Trim(s.whole, "`\"“”'「」")
			for _, task := range no {
				if strings.Contains(task, core) {
					t.Errorf("after no a task still holds %q: %q", core, no)
				}
			}
			if len(s.others) > 0 && len(no) != len(s.others) {
				t.Errorf("after no the tasks are %q, want the %d other steps %q", no, len(s.others), s.others)
			}
			for _, other := range s.others {
				if !slices.ContainsFunc(no, func(x string) bool { return strings.Contains(x, other) }) {
					t.Errorf("after no no task holds %q: %q", other, no)
				}
			}
			yes := taskTexts(interpret(t, in, req{goal: s.goal, answer: "yes"}).Plan)
			if !slices.ContainsFunc(yes, func(x string) bool { return strings.Contains(x, core) }) {
				t.Errorf("after yes no task holds %q: %q", core, yes)
			}
		})
	}
}

// Clear goals that only mention a destructive word, or destroy nothing
// that cannot be restored (an edit inside a file, a name in code, a
// quoted label, a question), are not asked about.
func TestRule14_ClearGoalsThatMentionDestructiveWordsAreNotAsked(t *testing.T) {
	t.Parallel()
	in := newInterpreter(t)
	for _, goal := range []string{
		"remove the t.Skip guard in foo_test.go",
		"Remove the t.Skip call from the parser test.",
		"remove the os.Exit call",
		"Delete the typo in the README title.",
		"Remove the deprecated --legacy flag from the CLI.",
		"remove the unused imports from main.go",
		"Add a button labelled \"Delete account\" to the settings page.",
		"Fix the typo in the \"Drop database\" docs heading.",
		"Add a confirm dialog before \"rm -rf\" runs in the script.",
		"Rename the menu item \"Remove all\" to \"Clear list\".",
		"Explain what git push --force does.",
		"How do I delete a branch in git?",
		"rm -rf の意味を教えて",
		"「全部削除」ボタンを追加して",
		"Write a blog post titled \"Why I deleted my account\".",
		"delete the blank line at the end of README.md",
		"Remove the debug print statements from utils.py, then run the tests.",
		"削除されてしまったファイルを復元して",
		"Take the pan out of the oven and remove it from the tray.",
		"Read notes.md and summarise it.",
		"Take the kettle off the stove and empty it.",
		"データベースの削除について説明して",
		"clear the screen",
		"Clear the terminal and run the tests.",
		"clear out of the way",
		"find . -name '*.go' | xargs gofmt -l",
		"cd .. and run the tests",
		"run prettier and then commit",
		"Explain what `rm -rf` does.",
		"Explain what find . -delete does.",
		"When does the store close?",
		"Wipe the mirror and empty the trash bin.",
		"Empty the coffee mug into the trash can.",
		"Clear out the fridge and wipe the shelves.",
	} {
		t.Run(goal, func(t *testing.T) {
			if q := interpret(t, in, req{goal: goal}).Question; q != nil {
				t.Errorf("asked %q on a clear goal", q.Text)
			}
		})
	}
}

// Declining a destructive step drops the words that only led on to it (a
// condition, a place: "If the build passes,", ビルドが通ったら、), so no
// task is left that says nothing to do; a condition that also leads on to
// a step after it stays, as a step that step depends on.
func TestDecliningAStepDropsTheWordsThatOnlyLedToIt(t *testing.T) {
	t.Parallel()
	in := newInterpreter(t)
	for _, tc := range []struct {
		goal  string
		tasks []string
	}{
		{"If the build passes, delete the dist folder.", nil},
		{"Once the backup finishes, delete the old logs.", nil},
		{"After the tests pass, rm -rf build/", nil},
		{"In the repo, run `git clean -fdx`.", nil},
		{"ビルドが通ったら、ログを削除して", nil},
		{"Build it. If it passes, delete the dist folder.", []string{"Build it."}},
		{"ビルドして、ログを削除して", []string{"ビルドして"}},
		{"When the tests pass, delete the build folder and deploy.", []string{"When the tests pass", "deploy."}},
	} {
		t.Run(tc.goal, func(t *testing.T) {
			o := interpret(t, in, req{goal: tc.goal, answer: "no"})
			got := taskTexts(o.Plan)
			if tc.tasks == nil {
				if len(o.Plan.Tasks) != 1 || !strings.Contains(o.Plan.Tasks[0].Instruction, "not confirmed") {
					t.Errorf("tasks %q, want only the task that does nothing", got)
				}
				return
			}
			if !slices.Equal(got, tc.tasks) {
				t.Errorf("tasks %q, want %q", got, tc.tasks)
			}
		})
	}
}

// titleShape is a generated goal of steps joined by joining words, and
// the titles its tasks must have.
type titleShape struct {
	goal   string
	titles []string
}

// titleShapes joins steps with the joining words of English and
// Japanese ("then", "and then", "so then", "next", "after that",
// "finally", "also", "please", "Step 3:", 次に, そして, それから, 最後に),
// in sentences, lines (also CRLF and tabs) and lists.
func titleShapes() []titleShape {
	steps := [][2]string{{"build the image", "Build the image"}, {"push it to the registry", "Push it to the registry"},
		{"tag the release", "Tag the release"}, {"update `CHANGELOG.md`", "Update `CHANGELOG.md`"}}
	var out []titleShape
	for _, join := range []string{"then", "and then", "so then", "next,", "after that,", "finally,", "also", "please", "then please", "and finally", "afterwards,", "additionally,", "Then", "And then", "Next,", "After that,", "Finally,", "Also,", "Please"} {
		for _, sep := range []string{". ", "\n", "\r\n", ";\n", ".\n\n"} {
			for n := 2; n <= 3; n++ {
				var b strings.Builder
				var titles []string
				for i, st := range steps[:n] {
					if i > 0 {
						b.WriteString(sep)
						b.WriteString(join + " ")
					}
					b.WriteString(st[0])
					titles = append(titles, st[1])
				}
				out = append(out, titleShape{goal: b.String() + ".", titles: titles})
			}
		}
		if strings.HasSuffix(join, ",") && join != "next," && join != "finally," || join == "please" || join == "Please" {
			continue
		}
		out = append(out, titleShape{goal: "build the image, " + join + " push it to the registry",
			titles: []string{"Build the image", "Push it to the registry"}})
	}
	out = append(out,
		titleShape{"Step 1: build the image\nStep 2: then push it to the registry\nStep 3: finally tag the release", []string{"Build the image", "Push it to the registry", "Tag the release"}},
		titleShape{"Step 1: build the image\r\nStep 2: and then push it to the registry", []string{"Build the image", "Push it to the registry"}},
		titleShape{"Step 1 - build the image. Step 2 - next, push it to the registry.", []string{"Build the image", "Push it to the registry"}},
	)
	for _, list := range []string{"- ", "1. ", "* ", "- [ ] "} {
		out = append(out, titleShape{goal: list + "build the image\n" + list + "then push it to the registry\n" + list + "and finally tag the release",
			titles: []string{"Build the image", "Push it to the registry", "Tag the release"}})
	}
	ja := [][2]string{{"テストを実行して", "テストを実行して"}, {"ビルドして", "ビルドして"}, {"サーバーを再起動して", "サーバーを再起動して"}}
	for _, join := range []string{"次に", "そして", "それから", "最後に", "その後"} {
		for _, sep := range []string{"。", "。\n", "\n", "\r\n"} {
			out = append(out, titleShape{goal: "まず" + ja[0][0] + sep + join + ja[1][0] + sep + join + ja[2][0],
				titles: []string{ja[0][1], ja[1][1], ja[2][1]}})
		}
	}
	out = append(out,
		titleShape{"Build the image, then `make release`.", []string{"Build the image", "`make release`"}},
		titleShape{"build the site、次に deploy it", []string{"Build the site", "Deploy it"}},
		titleShape{"Please run `go vet ./...`, then run go test ./...", []string{"Run `go vet ./...`", "Run go test ./..."}},
		titleShape{"Step one: build it\nStep two: deploy it", []string{"Build it", "Deploy it"}},
		titleShape{"a) build it\nb) then deploy it", []string{"Build it", "Deploy it"}},
		titleShape{"(1) build it\n(2) and then deploy it", []string{"Build it", "Deploy it"}},
		titleShape{"Build it.\nNext up: write the docs", []string{"Build it", "Write the docs"}},
		titleShape{"Build it — then deploy it.", []string{"Build it", "Deploy it"}},
		titleShape{"Build it. Don't forget to update the docs.", []string{"Build it", "Update the docs"}},
		titleShape{"Build it. Subsequently, deploy it.", []string{"Build it", "Deploy it"}},
		titleShape{"ビルドして。その次にテストして", []string{"ビルドして", "テストして"}},
		titleShape{"ビルドして。あとはデプロイして", []string{"ビルドして", "デプロイして"}},
		titleShape{"ビルドして、そしてデプロイして", []string{"ビルドして", "デプロイして"}},
		titleShape{"Build the image, then push it, and finally deploy it.", []string{"Build the image", "Push it", "Deploy it"}},
		titleShape{"build it, also deploy it", []string{"Build it", "Deploy it"}},
		titleShape{"build it, and also deploy it", []string{"Build it", "Deploy it"}},
		titleShape{"Build the site, next deploy it, finally tell the team.", []string{"Build the site", "Deploy it", "Tell the team"}},
		titleShape{"rm -rf build, then rebuild", []string{"rm -rf build", "Rebuild"}},
		titleShape{"notes.mdを更新して、次にコミットして", []string{"notes.mdを更新して", "コミットして"}},
	)
	return out
}

// A task's text is the verbatim span; its title drops the joining word
// that opens it and the punctuation that ends it, and starts with a
// capital where the script has case.
func TestRule16_TitlesDropTheJoiningWordInEveryShape(t *testing.T) {
	t.Parallel()
	in := newInterpreter(t)
	for _, s := range titleShapes() {
		t.Run(s.goal, func(t *testing.T) {
			o := interpret(t, in, req{goal: s.goal})
			if q := o.Question; q != nil && q.Type == askonce.QuestionConfirm { // a destructive step, confirmed
				o = interpret(t, in, req{goal: s.goal, answer: "yes"})
			}
			p := o.Plan
			if p == nil {
				t.Fatal("no plan")
			}
			var titles []string
			for _, task := range p.Tasks {
				titles = append(titles, task.Title)
				if !strings.Contains(s.goal, task.Instruction) {
					t.Errorf("task text %q is not a span of the goal", task.Instruction)
				}
			}
			if !slices.Equal(titles, s.titles) {
				t.Errorf("titles %q, want %q", titles, s.titles)
			}
		})
	}
}

// contradictionShapes are goals that say both sides of a contradiction in
// the shapes a person writes them (side by side, joined by and/or/but,
// set off by a comma), with the side chosen and the plan title it must
// then have.
func contradictionShapes() []struct{ goal, answer, title string } {
	return []struct{ goal, answer, title string }{
		{"hot frozen cheese", "frozen", "Frozen cheese"},
		{"a hot and frozen cheese", "frozen", "A frozen cheese"},
		{"a hot and frozen cheese", "hot", "A hot cheese"},
		{"Make the bucket private and public.", "private", "Make the bucket private"},
		{"Make the bucket private and public.", "public", "Make the bucket public"},
		{"Make the repo public but private, then add a README.", "public", "Make the repo public, then add a README"},
		{"Write a daily and weekly report.", "weekly", "Write a weekly report"},
		{"Write a daily but weekly report.", "daily", "Write a daily report"},
		{"Build the images in parallel and one at a time.", "one at a time", "Build the images one at a time"},
		{"Cook a vegetarian meat lasagna.", "vegetarian", "Cook a vegetarian lasagna"},
		{"Make a read-only, writable volume.", "writable", "Make a writable volume"},
		{"冷たい熱いスープを作って", "熱い", "熱いスープを作って"},
		{"熱くて冷たいスープを作って", "冷たい", "冷たいスープを作って"},
		{"Run the tests in parallel, one at a time.", "in parallel", "Run the tests in parallel"},
		{"Cook a vegetarian lasagna with meat.", "vegetarian", "Cook a vegetarian lasagna"},
		{"I want a hot, frozen cheese.", "frozen", "I want a frozen cheese"},
		{"Make it read-only but writable.", "writable", "Make it writable"},
		{"hot frozen cheese, then serve it", "frozen", "Frozen cheese, then serve it"},
		// A side word about another thing stays.
		{"Make the repo private and public. Keep the public docs site.", "private", "Make the repo private. Keep the public docs site"},
		{"Run the tests in parallel and one at a time; the parallel runner is fine.", "one at a time", "Run the tests one at a time; the parallel runner is fine"},
	}
}

// A settled contradiction leaves the dropped side out of the plan's
// title with the word or comma that joined it, and nothing else.
func TestPlanTitleReflectsTheSettledContradictionInEveryShape(t *testing.T) {
	t.Parallel()
	in := newInterpreter(t)
	for _, s := range contradictionShapes() {
		t.Run(s.goal+" / "+s.answer, func(t *testing.T) {
			if q := interpret(t, in, req{goal: s.goal}).Question; q == nil {
				t.Fatalf("no question on %q", s.goal)
			}
			o := interpret(t, in, req{goal: s.goal, answer: s.answer})
			title(s.title)(t, o)
		})
	}
}

// Every goal of the labelled sets one may read (dev, test, holdout):
// every task's text is a span of the goal; every title starts with a
// capital where its script has case (code keeps its own), opens with no
// joining word and ends with no comma, colon or semicolon; a destructive
// confirmation quotes without breaking a pair; "no" leaves the other
// steps as "yes" has them and no task that is only a label.
func TestLabelledGoalsKeepQuotesAndTitles(t *testing.T) {
	t.Parallel()
	in := newInterpreter(t)
	joining := []string{"then ", "and ", "so then ", "next, ", "after that", "finally", "also ", "please ", "step ", "次に", "そして", "それから", "最後に", "まず"}
	for _, set := range []string{"dev", "test", "holdout"} {
		for _, goal := range labelledGoals(t, "testdata/"+set+".jsonl") {
			o := interpret(t, in, req{goal: goal})
			checkTitles := func(p *askonce.Plan) {
				for _, task := range p.Tasks {
					low := strings.ToLower(task.Title)
					if slices.ContainsFunc(joining, func(j string) bool { return strings.HasPrefix(low, j) }) && task.Instruction != "" && !strings.HasPrefix(strings.ToLower(task.Instruction), low) {
						t.Errorf("%s: title %q opens with a joining word", set, task.Title)
					}
					if strings.HasSuffix(task.Title, ",") || strings.HasSuffix(task.Title, ";") || strings.HasSuffix(task.Title, ":") {
						t.Errorf("%s: title %q ends with punctuation", set, task.Title)
					}
					if r, _ := utf8.DecodeRuneInString(task.Title); unicode.IsLower(r) && !codeStart(task.Title) {
						t.Errorf("%s: title %q starts with a lower-case letter", set, task.Title)
					}
				}
			}
			if o.Plan != nil {
				checkTitles(o.Plan)
				for _, task := range o.Plan.Tasks {
					if !strings.Contains(goal, task.Instruction) {
						t.Errorf("%s: task %q is not a span of %q", set, task.Instruction, goal)
					}
				}
			}
			q := o.Question
			if q == nil || q.Type != askonce.QuestionConfirm {
				continue
			}
			for _, x := range quotedIn(q.Text) {
				if !balanced(x) && balanced(goal) {
					t.Errorf("%s: the confirmation %q breaks a pair", set, q.Text)
				}
			}
			yes := taskTexts(interpret(t, in, req{goal: goal, answer: "yes"}).Plan)
			noPlan := interpret(t, in, req{goal: goal, answer: "no"}).Plan
			checkTitles(noPlan)
			for _, task := range taskTexts(noPlan) {
				if !slices.ContainsFunc(yes, func(y string) bool { return strings.Contains(y, task) }) && task != noPlan.Tasks[0].Instruction {
					t.Errorf("%s: after no, task %q is no part of the plan after yes %q", set, task, yes)
				}
				if strings.IndexFunc(strings.TrimSpace(stepLabelOf(task)), unicode.IsLetter) < 0 && len(yes) > 1 {
					t.Errorf("%s: after no, task %q is only a label", set, task)
				}
			}
		}
	}
}

// stepLabelOf is task without a "Step N" label: what is left of it.
func stepLabelOf(task string) string {
	low := strings.ToLower(strings.TrimSpace(task))
	if rest, ok := strings.CutPrefix(low, "step "); ok {
		return strings.TrimLeft(rest, "0123456789:.)- ")
	}
	return task
}

// codeStart reports a title that opens with code, which keeps its case:
// a path or file name, or a command with its flags (rm -rf build).
func codeStart(s string) bool {
	words := strings.Fields(s)
	return len(words) > 0 && strings.ContainsAny(words[0], "./_`~$") || slices.ContainsFunc(words[min(1, len(words)):min(3, len(words))], func(w string) bool { return strings.HasPrefix(w, "-") })
}

// labelledGoals reads the goals of a labelled set.
func labelledGoals(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		var it struct {
			Goal string `json:"goal"`
		}
		if err := json.Unmarshal([]byte(line), &it); err != nil {
			t.Fatal(err)
		}
		out = append(out, strings.TrimSpace(it.Goal))
	}
	return out
}
