package rules_test

import (
	"slices"
	"testing"
)

// Rule 16 with blocks: a code block, fenced or indented, is one opaque
// part of the step that introduces it, never steps of its own, and it
// plans without losing a byte when its fence never closes, nests, or
// the lines are indented with tabs or end in CRLF.
func TestRule16_CodeBlockIsOnePartOfTheStepThatIntroducesIt(t *testing.T) {
	t.Parallel()
	in := newInterpreter(t)
	for _, tc := range []struct {
		name, goal string
		tasks      []string
	}{
		{"fenced yaml", "Add this to .github/workflows/ci.yml:\n```yaml\n- name: test\n  run: go test ./...\n- name: lint\n  run: golangci-lint run\n```\nThen open a pull request.",
			[]string{"Add this to .github/workflows/ci.yml:\n```yaml\n- name: test\n  run: go test ./...\n- name: lint\n  run: golangci-lint run\n```", "Then open a pull request."}},
		{"indented lines that start with a dash", "Add this to .github/workflows/ci.yml:\n\n    - name: test\n      run: go test ./...\n    - name: lint\n      run: make lint\n",
			[]string{"Add this to .github/workflows/ci.yml:\n\n    - name: test\n      run: go test ./...\n    - name: lint\n      run: make lint"}},
		{"indented right after a colon", "Fix the CI. Put this in the Makefile:\n\tlint:\n\t\tgolangci-lint run; go vet ./...",
			[]string{"Fix the CI.", "Put this in the Makefile:\n\tlint:\n\t\tgolangci-lint run; go vet ./..."}},
		{"a fence that never closes", "Run this script:\n```sh\nrm -f a.txt; echo done. Then stop\n\nmake all",
			[]string{"Run this script:\n```sh\nrm -f a.txt; echo done. Then stop\n\nmake all"}},
		{"a fence inside a longer fence", "Write this README section:\n````md\n```go\nfmt.Println(1)\n```\n- not a step\n````\nand commit it.",
			[]string{"Write this README section:\n````md\n```go\nfmt.Println(1)\n```\n- not a step\n````", "and commit it."}},
		{"CRLF line ends", "Update config.toml:\r\n```toml\r\n[server]\r\nport = 8080\r\n```\r\nRestart the service.\r\n",
			[]string{"Update config.toml:\r\n```toml\r\n[server]\r\nport = 8080\r\n```", "Restart the service."}},
		{"triple back-ticks on one line are inline code", "Run ```go test``` then deploy.",
			[]string{"Run ```go test```", "then deploy."}},
		{"code under a list item", "Do these:\n1. add the job:\n   ```yaml\n   - run: make\n   ```\n2. push it",
			[]string{"Do these:", "add the job:\n   ```yaml\n   - run: make\n   ```", "push it"}},
		{"a block first belongs to the step after it", "```yaml\n- run: make\n```\nAdd the above to ci.yml. Then push.",
			[]string{"```yaml\n- run: make\n```\nAdd the above to ci.yml.", "Then push."}},
		{"lines without a prose word", "Set config.json to:\n{\n  \"port\": 8080,\n  \"debug\": true\n}\nThen restart it.",
			[]string{"Set config.json to:\n{\n  \"port\": 8080,\n  \"debug\": true\n}", "Then restart it."}},
		{"code alone is one step", "```\nmake release\n```\n\n    make notes\n", []string{"```\nmake release\n```\n\n    make notes"}},
		{"indented under a sentence", "Replace the config with\n    port: 8080\n    host: example.com\nand restart.",
			[]string{"Replace the config with\n    port: 8080\n    host: example.com", "and restart."}},
		{"a list whose first item is code", "Add these lines to requirements.txt:\n  - flask==3.0\n  - gunicorn\nThen reinstall.",
			[]string{"Add these lines to requirements.txt:\n  - flask==3.0\n  - gunicorn", "Then reinstall."}},
		{"key: value lines under a colon", "In config.yaml set:\n  cache: true\n  mode: fast\n\nRestart the app.",
			[]string{"In config.yaml set:\n  cache: true\n  mode: fast", "Restart the app."}},
		{"instructions with upper-case keywords", "Update the Dockerfile:\nFROM golang:1.22 AS build\nRUN go build -o /app\nFROM scratch\nCOPY --from=build /app /app",
			[]string{"Update the Dockerfile:\nFROM golang:1.22 AS build\nRUN go build -o /app\nFROM scratch\nCOPY --from=build /app /app"}},
		{"a statement that opens a block", "Add this function to utils.py:\ndef add(a, b):\n    return a + b\n\nThen write a test for it.",
			[]string{"Add this function to utils.py:\ndef add(a, b):\n    return a + b", "Then write a test for it."}},
		{"a sentence that names a call is no code", "Do the following:\nFix parse():\n- handle nil",
			[]string{"Do the following:", "Fix parse():", "handle nil"}},
		{"a heading with a colon still introduces a list", "Checklist:\n- Deadline: Friday\n- tag v2",
			[]string{"Checklist:", "Deadline: Friday", "tag v2"}},
		{"a YAML sequence of mappings", "Add this to the workflow:\n- name: Clean\n  run: rm -rf node_modules\n- name: Install\n  run: npm ci\n\nThen push.",
			[]string{"Add this to the workflow:\n- name: Clean\n  run: rm -rf node_modules\n- name: Install\n  run: npm ci", "Then push."}},
		{"a YAML sequence whose first mapping's value is prose", "Add this to .github/workflows/ci.yml:\n- name: Run the tests\n  run: go test ./...\n- name: Lint the code\n  run: make lint\nThen push.",
			[]string{"Add this to .github/workflows/ci.yml:\n- name: Run the tests\n  run: go test ./...\n- name: Lint the code\n  run: make lint", "Then push."}},
		{"a YAML sequence indented with tabs and CRLF", "Add this to ci.yml:\r\n\t- name: Run the tests\r\n\t  run: go test ./...\r\n\t- name: Lint\r\n\t  run: make lint\r\n",
			[]string{"Add this to ci.yml:\r\n\t- name: Run the tests\r\n\t  run: go test ./...\r\n\t- name: Lint\r\n\t  run: make lint"}},
		{"unindented lines under a line naming a file", "Add this to /etc/ssh/sshd_config:\nPermitRootLogin no\nPasswordAuthentication no\nThen restart sshd.",
			[]string{"Add this to /etc/ssh/sshd_config:\nPermitRootLogin no\nPasswordAuthentication no", "Then restart sshd."}},
		{"a list of package names under requirements.txt", "Add these to requirements.txt:\n- flask\n- gunicorn\n- requests\nThen reinstall.",
			[]string{"Add these to requirements.txt:\n- flask\n- gunicorn\n- requests", "Then reinstall."}},
		{"shell lines indented under a line naming no file", "Run these commands:\n  cd app\n  npm ci && npm test\nThen deploy.",
			[]string{"Run these commands:\n  cd app\n  npm ci && npm test", "Then deploy."}},
		{"shell lines with a flag indented under a colon", "Run these:\n  npm ci --silent\n  npm test\nThen deploy.",
			[]string{"Run these:\n  npm ci --silent\n  npm test", "Then deploy."}},
		{"a YAML sequence with prose values under a line naming no file", "Add these steps:\n- name: Run the tests\n  run: go test ./...\nThen push.",
			[]string{"Add these steps:\n- name: Run the tests\n  run: go test ./...", "Then push."}},
		{"a script opened by #!", "Create a script:\n#!/bin/bash\necho hello\nmkdir out\nThen commit it.",
			[]string{"Create a script:\n#!/bin/bash\necho hello\nmkdir out", "Then commit it."}},
		{"a file named without a dot", "Put this in the Gemfile:\ngem 'rails'\ngem 'puma'\nThen run bundle.",
			[]string{"Put this in the Gemfile:\ngem 'rails'\ngem 'puma'", "Then run bundle."}},
		{"a file named in capitals", "Add to the LICENSE:\nCopyright 2026 Ana\n\nThen push.",
			[]string{"Add to the LICENSE:\nCopyright 2026 Ana", "Then push."}},
		{"mappings whose values are commands under a file", "Add these steps to ci.yml:\n- run: go test ./...\n- run: go vet ./...\nThen push.",
			[]string{"Add these steps to ci.yml:\n- run: go test ./...\n- run: go vet ./...", "Then push."}},
		{"Key value lines indented under a config file", "Add to /etc/ssh/sshd_config:\n  PermitRootLogin no\n  PasswordAuthentication no\nThen restart sshd.",
			[]string{"Add to /etc/ssh/sshd_config:\n  PermitRootLogin no\n  PasswordAuthentication no", "Then restart sshd."}},
		{"Key value lines indented with a tab and CRLF", "Add this to ~/.ssh/config:\r\n\tHost github.com\r\n\t\tUser git\r\n\r\nThen test the connection.\r\n",
			[]string{"Add this to ~/.ssh/config:\r\n\tHost github.com\r\n\t\tUser git", "Then test the connection."}},
		{"text indented under a file is what goes in it", "Append to notes.md:\n  Remember the milk\n  Call the vet\nThen save it.",
			[]string{"Append to notes.md:\n  Remember the milk\n  Call the vet", "Then save it."}},
		{"shell lines indented under a file", "Add to deploy.sh:\n  npm ci\n  npm run build\nThen run it.",
			[]string{"Add to deploy.sh:\n  npm ci\n  npm run build", "Then run it."}},
		{"mappings to words under a file", "Add this to ci.yml:\n- run: npm ci\n- run: npm test\nThen push.",
			[]string{"Add this to ci.yml:\n- run: npm ci\n- run: npm test", "Then push."}},
		{"lines indented under a full-width colon", "~/.ssh/config に追加して：\n  Host github.com\n  User git",
			[]string{"~/.ssh/config に追加して：\n  Host github.com\n  User git"}},
		{"key = value lines and a section under a file", "Add to config.ini:\n[server]\nport = 8080\nhost = localhost\nThen restart the server.",
			[]string{"Add to config.ini:\n[server]\nport = 8080\nhost = localhost", "Then restart the server."}},
		{"shell lines after a prompt", "Run this:\n$ npm ci\n$ npm test\nThen deploy.",
			[]string{"Run this:\n$ npm ci\n$ npm test", "Then deploy."}},
		{"a shell line that goes on in the next", "Run:\n  docker run \\\n    -p 80:80 nginx\nThen open the page.",
			[]string{"Run:\n  docker run \\\n    -p 80:80 nginx", "Then open the page."}},
		{"shell lines in a fence that never closes, with CRLF", "Run these:\r\n```sh\r\nnpm ci\r\n- npm test\r\n",
			[]string{"Run these:\r\n```sh\r\nnpm ci\r\n- npm test"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			o := interpret(t, in, req{goal: tc.goal, directive: fallback})
			if got := taskTexts(o.Plan); !slices.Equal(got, tc.tasks) {
				t.Errorf("tasks %q, want %q", got, tc.tasks)
			}
			checkQuotesAllButMarkers(t, tc.goal, o.Plan)
		})
	}
}

// Rule 16 with sentences: a sentence that goes on across one line break
// (the line ends with a comma, an article, a conjunction or a
// preposition, or in Japanese with a particle or 、, and the next line
// opens no list item, fence, indented block or capitalised sentence) is
// one step, and a code block it introduces is part of that step, in
// English and Japanese, with CRLF, tabs or a fence that never closes.
// A line that can end a sentence ("Build it", a request's て form) still
// ends its step.
func TestRule16_ASentenceGoesOnAcrossALineBreak(t *testing.T) {
	t.Parallel()
	in := newInterpreter(t)
	for _, tc := range []struct {
		goal   string
		tasks  []string
		title0 string
	}{
		{"`.github/workflows/ci.yml` に\n次のジョブを追加して:\n```yaml\njobs:\n  test: x\n```",
			[]string{"`.github/workflows/ci.yml` に\n次のジョブを追加して:\n```yaml\njobs:\n  test: x\n```"}, "`.github/workflows/ci.yml` に次のジョブを追加して"},
		{"`ci.yml` に\r\n次のジョブを追加して:\r\n```yaml\r\njobs: x\r\n```\r\nその後プッシュして",
			[]string{"`ci.yml` に\r\n次のジョブを追加して:\r\n```yaml\r\njobs: x\r\n```", "その後プッシュして"}, "`ci.yml` に次のジョブを追加して"},
		{"Makefile に\n次の行を追加して:\n\tlint:\n\t\tgo vet ./...",
			[]string{"Makefile に\n次の行を追加して:\n\tlint:\n\t\tgo vet ./..."}, "Makefile に次の行を追加して"},
		{"Add the following job to\nci.yml:\n```yaml\n- name: test\n  run: go test ./...\n```\nThen push.",
			[]string{"Add the following job to\nci.yml:\n```yaml\n- name: test\n  run: go test ./...\n```", "Then push."}, "Add the following job to ci.yml"},
		{"Add the following job to\r\nci.yml:\r\n```yaml\r\n- name: test\r\n  run: go test ./...",
			[]string{"Add the following job to\r\nci.yml:\r\n```yaml\r\n- name: test\r\n  run: go test ./..."}, "Add the following job to ci.yml"},
		{"Add the following job to\nci.yml:\n\t- name: test\n\t  run: go test ./...\n",
			[]string{"Add the following job to\nci.yml:\n\t- name: test\n\t  run: go test ./..."}, "Add the following job to ci.yml"},
		{"Add the following job to\nci.yml:\n\n    - name: test\n      run: make\n",
			[]string{"Add the following job to\nci.yml:\n\n    - name: test\n      run: make"}, "Add the following job to ci.yml"},
		{"Open the config file and\nchange the port to 8080.\nThen restart the server.",
			[]string{"Open the config file and\nchange the port to 8080.", "Then restart the server."}, "Open the config file and change the port to 8080"},
		{"設定ファイルを開いて、\nポートを8080に変更して。\nそれからサーバーを再起動して。",
			[]string{"設定ファイルを開いて、\nポートを8080に変更して。", "それからサーバーを再起動して。"}, "設定ファイルを開いて、ポートを8080に変更して"},
		{"README.md を読んでから\nテストを実行して", []string{"README.md を読んでから\nテストを実行して"}, "README.md を読んでからテストを実行して"},
		{"Take the pan off the heat,\nthen stir in the butter.", []string{"Take the pan off the heat,", "then stir in the butter."}, "Take the pan off the heat"},
		{"Build it\nDeploy it", []string{"Build it", "Deploy it"}, "Build it"},
		{"Turn the oven on\nPreheat it to 200C", []string{"Turn the oven on", "Preheat it to 200C"}, "Turn the oven on"},
		{"Log in\ncheck the dashboard", []string{"Log in", "check the dashboard"}, "Log in"},
		{"Turn it on\nwait 5 minutes", []string{"Turn it on", "wait 5 minutes"}, "Turn it on"},
		{"Tom told Sam that he should review the patch, so assign it to him", []string{"Tom told Sam that he should review the patch, so assign it to him"}, "Tom told Sam that he should review the patch, so assign it to him"},
		{"次の動物を分類して：コウモリ、ペンギン", []string{"次の動物を分類して：コウモリ、ペンギン"}, "次の動物を分類して：コウモリ、ペンギン"},
		{"Move every file in\n/tmp/cache to the archive", []string{"Move every file in\n/tmp/cache to the archive"}, "Move every file in /tmp/cache to the archive"},
		{"Copy the file to\nthe backup folder", []string{"Copy the file to\nthe backup folder"}, "Copy the file to the backup folder"},
		{"ビルドして\nデプロイして", []string{"ビルドして", "デプロイして"}, "ビルドして"},
		{"After the tests pass:\n- tag v2\n- publish", []string{"After the tests pass:", "tag v2", "publish"}, "After the tests pass"},
	} {
		t.Run(tc.goal, func(t *testing.T) {
			t.Parallel()
			o := interpret(t, in, req{goal: tc.goal})
			if o.Plan == nil {
				t.Fatalf("asked %+v", o.Question)
			}
			if got := taskTexts(o.Plan); !slices.Equal(got, tc.tasks) {
				t.Errorf("tasks %q, want %q", got, tc.tasks)
			}
			if got := o.Plan.Tasks[0].Title; got != tc.title0 {
				t.Errorf("first title %q, want %q", got, tc.title0)
			}
			checkQuotesAllButMarkers(t, tc.goal, o.Plan)
		})
	}
}

// Rule 16 with lists: the line that introduces a list is kept, as a step
// of its own before the items (which depend on it), whether it states a
// condition or only names the list; prose after the list is steps again.
func TestRule16_TheLineThatIntroducesAListIsKept(t *testing.T) {
	t.Parallel()
	in := newInterpreter(t)
	for _, tc := range []struct {
		goal  string
		tasks []string
		deps  []string
	}{
		{"After the tests pass:\n- tag v2\n- publish", []string{"After the tests pass:", "tag v2", "publish"}, []string{"t1:", "t2:t1", "t3:t2"}},
		{"Checklist:\n- tag v2\n- publish", []string{"Checklist:", "tag v2", "publish"}, []string{"t1:", "t2:t1", "t3:t2"}},
		{"Once the build is green:\n- tag v2", []string{"Once the build is green:", "tag v2"}, []string{"t1:", "t2:t1"}},
		{"Before you leave:\n  turn off the lights\n  lock the door", []string{"Before you leave:", "turn off the lights", "lock the door"}, []string{"t1:", "t2:t1", "t3:t2"}},
		{"Before you leave:\n  water plants\n  feed cat", []string{"Before you leave:", "water plants", "feed cat"}, []string{"t1:", "t2:t1", "t3:t2"}},
		{"After the tests pass:\n  - tag v2\n  - publish", []string{"After the tests pass:", "tag v2", "publish"}, []string{"t1:", "t2:t1", "t3:t2"}},
		{"Edit notes.md:\n- fix the typo\n- add a summary", []string{"Edit notes.md:", "fix the typo", "add a summary"}, []string{"t1:", "t2:t1", "t3:t2"}},
		{"Packing list:\n- passport\n- charger", []string{"Packing list:", "passport", "charger"}, []string{"t1:", "t2:t1", "t3:t2"}},
		{"Before you go:\n  feed the cat\n  lock the door", []string{"Before you go:", "feed the cat", "lock the door"}, []string{"t1:", "t2:t1", "t3:t2"}},
		{"Update README.md:\nFix the typo.\nThen push.", []string{"Update README.md:", "Fix the typo.", "Then push."}, []string{"t1:", "t2:t1", "t3:t2"}},
		{"Checklist:\n- note: call the vet\n  then feed the cat\n- tag v2", []string{"Checklist:", "note: call the vet\n  then feed the cat", "tag v2"}, []string{"t1:", "t2:t1", "t3:t2"}},
		{"Before the release:\n1. bump the version\n   in package.json\n2. write the notes\n\nThen announce it.",
			[]string{"Before the release:", "bump the version\n   in package.json", "write the notes", "Then announce it."}, []string{"t1:", "t2:t1", "t3:t2", "t4:t3"}},
	} {
		t.Run(tc.goal, func(t *testing.T) {
			t.Parallel()
			o := interpret(t, in, req{goal: tc.goal})
			deps(tc.deps...)(t, o)
			if got := taskTexts(o.Plan); !slices.Equal(got, tc.tasks) {
				t.Errorf("tasks %q, want %q", got, tc.tasks)
			}
			checkQuotesAllButMarkers(t, tc.goal, o.Plan)
		})
	}
}

// A task's title drops the joining word that opens its text and starts
// with a capital, and a plan's title leaves out the side a settled
// contradiction dropped (a plan's title is its goal's first line); the
// text stays the span as written.
func TestTitlesReadLikeAPersonWroteThem(t *testing.T) {
	t.Parallel()
	in := newInterpreter(t)
	for _, tc := range []struct {
		r      req
		title  string
		titles []string
		texts  []string
	}{
		{req{goal: "write the changelog then tag the release"}, "Write the changelog then tag the release",
			[]string{"Write the changelog", "Tag the release"}, []string{"write the changelog", "then tag the release"}},
		{req{goal: "Run the tests, and then open a pull request. Finally, merge it."}, "Run the tests, and then open a pull request. Finally, merge it",
			[]string{"Run the tests", "Open a pull request", "Merge it"}, []string{"Run the tests,", "and then open a pull request.", "Finally, merge it."}},
		{req{goal: "hot frozen cheese", answer: "frozen"}, "Frozen cheese", []string{"Frozen cheese"}, []string{"hot frozen cheese"}},
		{req{goal: "Add this to ci.yml:\n```yaml\n- run: make\n```"}, "Add this to ci.yml",
			[]string{"Add this to ci.yml"}, []string{"Add this to ci.yml:\n```yaml\n- run: make\n```"}},
		{req{goal: "```yaml\n- run: make\n```\nAdd the above to ci.yml"}, "Add the above to ci.yml",
			[]string{"Add the above to ci.yml"}, []string{"```yaml\n- run: make\n```\nAdd the above to ci.yml"}},
		{req{goal: "Build the site and deploy it afterwards."}, "Build the site and deploy it afterwards",
			[]string{"Build the site and deploy it afterwards"}, []string{"Build the site and deploy it afterwards."}},
		{req{goal: "Can you tag the release?"}, "Tag the release", []string{"Tag the release"}, []string{"Can you tag the release?"}},
		{req{goal: "So, I need you to rename the config file."}, "Rename the config file", []string{"Rename the config file"}, []string{"So, I need you to rename the config file."}},
		{req{goal: "Step 1: build the image\nStep 2: push it"}, "Build the image", []string{"Build the image", "Push it"}, []string{"Step 1: build the image", "Step 2: push it"}},
		{req{goal: "まずテストを実行して、次にリリースをタグ付けして"}, "テストを実行して、次にリリースをタグ付けして",
			[]string{"テストを実行して", "リリースをタグ付けして"}, []string{"まずテストを実行して、", "次にリリースをタグ付けして"}},
		{req{goal: "- [ ] write the tests\n- [x] fix the bug\n\nAfter that, deploy."}, "Write the tests",
			[]string{"Write the tests", "Fix the bug", "Deploy"}, []string{"[ ] write the tests", "[x] fix the bug", "After that, deploy."}},
		{req{goal: "so then restart nginx"}, "Restart nginx", []string{"Restart nginx"}, []string{"so then restart nginx"}},
		{req{goal: "please, then deploy"}, "Deploy", []string{"Deploy"}, []string{"please, then deploy"}},
		{req{goal: "Step 3: then deploy"}, "Deploy", []string{"Deploy"}, []string{"Step 3: then deploy"}},
		{req{goal: "Additionally, add tests."}, "Add tests", []string{"Add tests"}, []string{"Additionally, add tests."}},
		{req{goal: "\"then\" is a keyword; explain it"}, "\"then\" is a keyword; explain it",
			[]string{"\"then\" is a keyword", "Explain it"}, []string{"\"then\" is a keyword;", "explain it"}},
		{req{goal: "iOS: then update the app"}, "iOS: then update the app", []string{"iOS", "Update the app"}, []string{"iOS:", "then update the app"}},
		{req{goal: "Run `go vet ./...`. Then run go test ./..."}, "Run `go vet ./...`. Then run go test ./...",
			[]string{"Run `go vet ./...`", "Run go test ./..."}, []string{"Run `go vet ./...`.", "Then run go test ./..."}},
	} {
		t.Run(tc.r.goal, func(t *testing.T) {
			t.Parallel()
			o := interpret(t, in, tc.r)
			title(tc.title)(t, o)
			var titles []string
			for _, task := range o.Plan.Tasks {
				titles = append(titles, task.Title)
			}
			if !slices.Equal(titles, tc.titles) {
				t.Errorf("task titles %q, want %q", titles, tc.titles)
			}
			if got := taskTexts(o.Plan); !slices.Equal(got, tc.texts) {
				t.Errorf("tasks %q, want %q", got, tc.texts)
			}
		})
	}
}

// Declining a destructive action removes exactly it: the path or
// command whole, no stray task, and the steps around it stay.
func TestDecliningADestructiveActionRemovesExactlyIt(t *testing.T) {
	t.Parallel()
	in := newInterpreter(t)
	for _, tc := range []struct {
		goal  string
		tasks []string
	}{
		{"/tmp/cache/*.tmp を削除して。次にビルドして", []string{"次にビルドして"}},
		{"Run `rm -rf build/` and redeploy.", []string{"redeploy."}},
		{"Delete `build/`. Then run `make test`.", []string{"Then run `make test`."}},
		{"Run this:\n```sh\nrm -rf build\n```\nThen deploy.", []string{"Then deploy."}},
		{"delete notes.md and update the readme", []string{"update the readme"}},
		{"`dist/` フォルダを削除してから `npm run build` を実行して", []string{"`npm run build` を実行して"}},
		{"`rm -rf node_modules` して、`npm install` して", []string{"`npm install` して"}},
		{"rm /tmp/cache/*.tmp を実行して、ビルドして", []string{"ビルドして"}},
		{"`git clean -fdx` を実行してからビルドして", []string{"ビルドして"}},
		{"Delete notes.md, todo.md and draft.md, then commit.", []string{"then commit."}},
		{"ログファイル（logs/*.log）を全部削除して、サーバーを再起動して", []string{"サーバーを再起動して"}},
		{"git reset --hard HEAD~1 and push", []string{"push"}},
	} {
		t.Run(tc.goal, func(t *testing.T) {
			t.Parallel()
			o := interpret(t, in, req{goal: tc.goal, answer: "no"})
			if got := taskTexts(o.Plan); !slices.Equal(got, tc.tasks) {
				t.Errorf("tasks %q, want %q", got, tc.tasks)
			}
		})
	}
}
