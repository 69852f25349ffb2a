package rules

import "testing"

func TestDestructiveAsksOnlyForDataThatCannotBeRestored(t *testing.T) {
	t.Parallel()
	confirm := asks("yes", "no")
	runDetector(t, func(in *input) *asked { r := detectDestructive(in); return &r.asked }, []detectorCase{
		{goal: "delete notes.md and update the readme", options: confirm, text: "“delete notes.md”"},
		{goal: "drop the users table", options: confirm},
		{goal: "wipe the staging database", options: confirm},
		{goal: "remove the inactive user accounts", options: confirm},
		{goal: "git push --force to main", options: confirm},
		{goal: "rm -rf build and rebuild", options: confirm},
		{goal: "destroy the test cluster", options: confirm},
		{goal: "ログを削除して", options: confirm, text: "「ログを削除して」"},
		{goal: "delete the cache", answer: "notes.md", options: confirm},
		{goal: "delete the cache", answer: "no backups needed", options: confirm},
		{goal: "delete the cache", answer: "yes, no, wait", options: confirm},
		{goal: "please delete the old backups, then rebuild", options: confirm},
		{goal: "notes.mdを削除して", options: confirm, text: "実行しますか"},
		// The whole command or path is quoted: a list of files, a Japanese
		// form that runs the command (を実行して), a compound (全部削除).
		{goal: "Delete notes.md, todo.md and draft.md, then commit.", options: confirm, text: "“Delete notes.md, todo.md and draft.md”"},
		{goal: "rm /tmp/cache/*.tmp を実行して", options: confirm, text: "“rm /tmp/cache/*.tmp を実行して”"},
		{goal: "`git clean -fdx` を実行してからビルドして", options: confirm, text: "「`git clean -fdx` を実行してから」"},
		{goal: "ログファイル（logs/*.log）を全部削除して、サーバーを再起動して", options: confirm, text: "「ログファイル（logs/*.log）を全部削除して」"},
		{goal: "git reset --hard HEAD~1 and push", options: confirm, text: "“git reset --hard HEAD~1”"},
		{goal: "Delete 'my notes.txt' then archive the folder.", options: confirm, text: "“Delete 'my notes.txt'”"},
		{goal: "Delete everything in /var/log.", options: confirm},
		{goal: "Permanently delete my account.", options: confirm},
		{goal: "Clean the workspace with git clean -fdx.", options: confirm},
		{goal: "helm uninstall my-release", options: confirm},
		{goal: "キャッシュをクリアして", options: confirm},
		{goal: "Explain what git clean -fdx does."},
		{goal: "Clean up the code with gofmt -w ."},
		{goal: "Update everything in package.json."},
		{goal: "Quickly empty the dishwasher."},
		// Settled by a reply.
		{goal: "delete the cache", answer: "yes"},
		{goal: "delete the cache", answer: "sure"},
		{goal: "delete the cache", answer: "no"},
		// No data is lost.
		{goal: "take the kettle off the stove"},
		{goal: "wipe the counter"},
		{goal: "wipe down the kitchen table"},
		{goal: "remove the stain from the shirt"},
		{goal: "remove the unused imports from main.go"},
		{goal: "clear the search box when the user presses Escape"},
		{goal: "don't delete anything, just summarise notes.md"},
		{goal: "未使用のインポートを削除して"},
		{goal: "don't delete notes.md, just summarise it"},
		// A destructive word that is not the command's main verb.
		{goal: "write a blog post about why you deleted your account"},
		{goal: "summarise how the team is migrating the service and dropping the old database"},
		{goal: "describe a user who signed up and removed their account the same day"},
		{goal: "write a post about the release and delete the draft branch", options: confirm},
		{goal: "put the leftovers in an empty glass container"},
		{goal: "remove the baking sheet from the oven"},
		{goal: "How do I delete a branch in git?"},
		{goal: "explain what git push --force does"},
		{goal: "clear the table after dinner"},
		// A Japanese destructive word that is no command: a modifier or a topic.
		{goal: "アカウントを削除した理由についてブログ記事を書いて"},
		{goal: "古いブランチを削除する方法を説明して"},
		{goal: "データベースの削除について説明して"},
		{goal: "ログファイルの削除を説明して"},
		// Japanese commands in other forms.
		{goal: "一時ファイルを削除してからビルドして", options: confirm},
		{goal: "キャッシュを消去してください", options: confirm},
		{goal: "ログをリセットして", options: confirm},
		{goal: "古いログを消す", options: confirm},
		{goal: "古いバックアップの削除をお願いします", options: confirm},
		// A command in Latin letters inside a Japanese sentence.
		{goal: "git push --forceして", options: confirm},
		{goal: "rm -rf buildを実行して", options: confirm},
		{goal: "rm -rf buildの意味を教えて"},
		{goal: "terraform destroyが何をするか説明して"},
	})
}

// The confirmation quotes the whole command or path (a glob written
// before Japanese, a back-ticked command a step runs), and "no" removes
// exactly that action: nothing of it is left as a stray task, and the
// step after it stays.
func TestDestructiveQuotesTheWholeCommandAndNoRemovesExactlyIt(t *testing.T) {
	t.Parallel()
	confirm := asks("yes", "no")
	runDetector(t, func(in *input) *asked { r := detectDestructive(in); return &r.asked }, []detectorCase{
		{goal: "/tmp/cache/*.tmp を削除して", options: confirm, text: "/tmp/cache/*.tmp を削除して"},
		{goal: "`build/`を削除して", options: confirm, text: "「`build/`を削除して」"},
		{goal: "Run `rm -rf build/` and redeploy.", options: confirm, text: "“Run `rm -rf build/`”"},
		{goal: "`rm -rf build/`, then deploy `make release`.", options: confirm, text: "“`rm -rf build/`”"},
		{goal: "Delete `build/`. Then run `make test`.", options: confirm, text: "“Delete `build/`”"},
		{goal: "Run this:\n```sh\nrm -rf build\n```\nThen deploy.", options: confirm, text: "rm -rf build\n```”"},
		{goal: "`dist/` フォルダを削除してから `npm run build` を実行して", options: confirm, text: "「`dist/` フォルダを削除してから」"},
		{goal: "ログファイル（logs/*.txt）をすべて消して", options: confirm, text: "「ログファイル（logs/*.txt）をすべて消して」"},
		{goal: "`rm -rf node_modules` して、`npm install` して", options: confirm, text: "“`rm -rf node_modules` して”"},
		{goal: "Explain why `rm -rf /` is dangerous"},
		{goal: "Add this target to the Makefile:\n```make\nclean:\n\trm -rf build\n```"},
		// Code after a colon is shown like a block: run only when the
		// command that introduces it runs code.
		{goal: "Add this script to package.json: \"clean\": \"rm -rf dist\""},
		{goal: "Document how to clear the cache: `rm -rf ~/.cache/app`"},
		{goal: "Add this to the workflow:\n- name: Clean\n  run: rm -rf node_modules"},
		{goal: "Run this: `rm -rf build/`", options: confirm},
		// Lines indented under a sentence that names no file are prose;
		// under a file, what goes in it.
		{goal: "Before you leave:\n  delete notes.md\n  lock the door", options: confirm, text: "“delete notes.md”"},
		{goal: "Add to cleanup.sh:\n  rm -rf /tmp/cache"},
		// A command written in prose or a code span, and a condition
		// before it: "when" that opens a condition asks nothing.
		{goal: "run rm ./*.orig and then commit", options: confirm, text: "“run rm ./*.orig”"},
		{goal: "find . -name '*.bak' -delete", options: confirm, text: "“find . -name '*.bak' -delete”"},
		{goal: "Run `truncate -s 0 app.log` then restart.", options: confirm, text: "“Run `truncate -s 0 app.log`”"},
		{goal: "When the tests pass, run `rm -rf build/` and deploy.", options: confirm, text: "“run `rm -rf build/`”"},
		{goal: "When the tests pass, delete the build folder.", options: confirm, text: "“delete the build folder”"},
		// A path on the line after its preposition is the command's.
		{goal: "Delete every file in\n/tmp/cache and then restart", options: confirm, text: "in\n/tmp/cache”"},
		{goal: "古いバックアップを\n全部削除して", options: confirm, text: "「古いバックアップを\n全部削除して」"},
		// A file name in Japanese, not quoted, is code.
		{goal: "ログ.txt を削除して", options: confirm, text: "「ログ.txt を削除して」"},
		{goal: "古いログ.txt を削除して", options: confirm, text: "ログ.txt"},
		{goal: "議事録.mdを消して、その後ビルドして", options: confirm, text: "「議事録.mdを消して」"},
	})
}
