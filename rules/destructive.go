package rules

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/internal/lex"
)

// destructions is the destructive detector's result: the actions found,
// and whether the answer confirmed them (the planner cuts unconfirmed ones
// out of their steps).
type destructions struct {
	actions   []action
	confirmed bool
	asked
}

// action is one destructive action: goal bytes [start, end), which
// declining it removes, and the text the confirmation quotes (the bytes
// from its first word after the words that open its command).
type action struct {
	start, end int
	text       string
}

// action is the destructive action of goal tokens [t0, t1): their bytes,
// widened to whole code-like words and quoted or back-ticked spans at
// either end (the whole path /tmp/cache/*.tmp, the whole `rm -rf build/`,
// "old report.pdf" whole), and narrowed to the step that holds t0, so
// that declining it removes exactly that and nothing of the step after.
// Declining also removes the words that open its command before t0
// (from: "Please", "Then"), which the quote leaves out.
func (in *input) action(from, t0, t1 int) action {
	start, end := in.gt[t0].Start, in.gt[t1-1].End
	stepEnd, cut := len(in.goal), in.gt[from].Start
	if st, ok := in.stepOf(t0); ok {
		end, stepEnd, cut = min(end, st.end), st.end, max(cut, st.start)
		for start > st.start && in.code[start-1] {
			start--
		}
		for end < st.end && in.code[end] {
			end++
		}
	}
	if r, n := utf8.DecodeLastRuneInString(in.goal[start:end]); strings.ContainsRune(".,;:", r) && end-n > start {
		if p, _ := utf8.DecodeLastRuneInString(in.goal[start : end-n]); lex.IsWordRune(p) || strings.ContainsRune("`\"'”’)」/", p) {
			end -= n // the sentence's punctuation, not the command's
		}
	}
	end = in.listed(end)
	for _, pair := range [][2]string{{"(", ")"}, {"（", "）"}, {"[", "]"}, {"「", "」"}, {"“", "”"}} { // a pair it opens closes in it: (they're in /var/backups)
		span := in.goal[start:end]
		if strings.Count(span, pair[0]) > strings.Count(span, pair[1]) {
			if k := strings.Index(in.goal[end:stepEnd], pair[1]); k >= 0 {
				end += k + len(pair[1])
			}
		}
	}
	return action{start: min(cut, start), end: end, text: in.goal[start:end]}
}

// through is where the command whose tokens end before goal token end
// runs on to. Its clause runs on through a quotation or a bracket, where
// the lexer ends a clause (delete "old report.pdf"; the old backups
// (they're in /var/backups)), and through "and" to objects that start no
// command of their own (delete notes.md and todo.md; remove the `dist/`
// and `build/` folders), up to a sentence's end or a step separator.
func (in *input) through(end int) int {
	toks := in.gt
	stop := func(k int) bool { return toks[k].e.has(fConj) || in.c.phraseAt(toks, k, fStepSep) > 0 }
	for end > 0 && end < len(toks) && toks[end].Sentence == toks[end-1].Sentence && in.c.phraseAt(toks, end, fStepSep) == 0 {
		gap := in.goal[toks[end-1].End:toks[end].Start]
		sep := strings.Trim(gap, " \t`\"“”「」『』'‘’()（）[]")
		first := end // the segment after the break: its objects, or a command of its own
		if toks[end].e.has(fConj) && !toks[end].e.has(fOr) {
			first++
		}
		if sep != "" && sep != "," && sep != "、" && sep != ":" || strings.TrimSpace(gap) == "" && first == end || first >= len(toks) || stop(first) {
			return end
		}
		if t := &toks[first]; sep != "" && first == end && !t.code && !t.quoted && !t.e.has(fDet|fObject) {
			return end // after a comma or colon only more objects: not "delete notes.md, we don't use it"
		}
		to, verb := first, false
		for ; to < len(toks) && (to == first || toks[to].Clause == toks[to-1].Clause && !stop(to)); to++ {
			verb = verb || in.verbs[to] && !toks[to].code && !toks[to].quoted
		}
		if verb && !strings.ContainsAny(gap, "(（[") { // a parenthesis is the object's: the old backups (they're in /var/backups)
			return end
		}
		end = to
	}
	return end
}

// listed is where the objects a command lists under its colon end, the
// command ending at goal byte end: when a colon ends its line, the rest
// of its step and the list items and code blocks that follow it
// ("Delete these files:\n- a.txt\n- b.txt"); else end.
func (in *input) listed(end int) int {
	steps := in.goalSteps()
	si := sort.Search(len(steps), func(k int) bool { return steps[k].end >= end })
	if si == len(steps) || steps[si].start >= end {
		return end
	}
	rest := strings.TrimLeft(in.goal[end:steps[si].end], " \t")
	colon := strings.TrimPrefix(strings.TrimPrefix(rest, ":"), "：")
	if len(colon) == len(rest) || strings.TrimLeft(colon, " \t\r") != "" && !strings.HasPrefix(strings.TrimLeft(colon, " \t\r"), "\n") {
		return end
	}
	end = steps[si].end
	for _, st := range steps[si+1:] {
		if !slices.ContainsFunc(in.blocks, func(b block) bool { return b.kind != proseBlock && b.start <= st.start && st.end <= b.end }) {
			break
		}
		end = st.end
	}
	return end
}

// stepOf is the step that holds goal token v (a list marker is in none).
func (in *input) stepOf(v int) (step, bool) {
	steps := in.goalSteps()
	i := sort.Search(len(steps), func(k int) bool { return steps[k].t1 > v })
	if i == len(steps) || steps[i].t0 > v {
		return step{}, false
	}
	return steps[i], true
}

// wholeStep is the step that holds goal token v, as an action.
func (in *input) wholeStep(v int) action {
	if st, ok := in.stepOf(v); ok {
		return action{start: st.start, end: st.end, text: in.goal[st.start:st.end]}
	}
	return in.action(v, v, v+1)
}

// runsCode reports whether the step that holds the code at goal token v
// runs it: the command that introduces it has a verb that runs code
// ("run this:"), or nothing introduces it. Code added to a file ("add
// this to the Makefile:") is not run.
func (in *input) runsCode(v int) bool {
	st, ok := in.stepOf(v)
	for _, c := range in.cmds {
		if ok && c.verb >= st.t0 && c.verb < v && !in.gt[c.verb].code {
			return vocab.has("runVerbs", in.gt[c.verb].Text)
		}
	}
	return true
}

// commandAt reports whether a destructive command (rm, git branch -D,
// -delete) starts at goal token k, read in code too, where a word has no
// entry of its own and a destructive verb is a program (`truncate -s 0
// app.log`).
func (in *input) commandAt(k int) bool {
	return in.c.phraseAt(in.gt, k, fCommand) > 0 || in.gt[k].code && in.c.lex[in.gt[k].Text].has(fCommand|fDestructive)
}

// appendAction appends a unless an action already covers it.
func appendAction(as []action, a action) []action {
	if slices.ContainsFunc(as, func(b action) bool { return b.start <= a.start && a.end <= b.end }) {
		return as
	}
	return append(as, a)
}

// detectDestructive finds the commands whose loss cannot be undone: a
// destructive command itself ("rm -rf build", "git push --force"), also
// as code a command runs ("run `rm -rf build/`"; in a code block the
// whole step that holds it is the action); or a
// destructive main verb ("delete", "drop"; 削除, last in Japanese) whose
// object is data: a path, a request's file or a data word (file, branch,
// database, account, ...; a table only when dropped or truncated). Not a
// topic ("write about why you deleted your account"), an adjective ("an
// empty jar"), a negated, questioned or advice-seeking verb ("don't
// delete notes.md", "should I delete the logs?") or a thing moved
// ("remove the baking sheet from the oven").
//
// It asks CONFIRM (reason target_file_exists, default "no"): yes keeps
// the actions; no, or no reply under a directive, drops them from the
// plan with an assumption.
func detectDestructive(in *input) destructions {
	var d destructions
	toks := in.gt
	for _, cmd := range in.cmds {
		v := cmd.verb
		if toks[v].quoted {
			continue // a title or a literal: "Drop database", "rm -rf"
		}
		cmd.end = in.through(cmd.end)
		n := in.c.phraseAt(toks, v, fCommand)
		run, means, line := vocab.has("runVerbs", toks[v].Text), false, true
		for k := v + 1; k < cmd.end && n == 0; k++ {
			// run `rm -rf build/`; clean it with git clean -fdx; a shell
			// line, the command right after its first word or after code
			// alone: git reset --hard, run rm ./*.orig, find . -name '*.bak' -delete
			means = means || vocab.has("meansPrepositions", toks[k-1].Text)
			if (run && (toks[k].code || toks[k].quoted) || means || line) && in.commandAt(k) {
				n = k + 1 - v
			}
			line = line && toks[k].code
		}
		if n > 0 && !jaCommandAfter(toks, v+n) {
			continue // git push --forceが危険な理由: the command is a topic
		}
		block := n > 0 && in.inBlock[toks[v+n-1].Start]
		shown := block || n > 0 && in.code[toks[v].Start] && strings.HasSuffix(strings.TrimRight(in.goal[:toks[v].Start], " \t\r\n`\"'“"), ":")
		switch {
		case shown && !in.runsCode(v):
			// code shown after a colon, in a block or not, and not run: "add this to package.json: `rm -rf dist`"
		case block:
			d.actions = appendAction(d.actions, in.wholeStep(v)) // a code block is part of its step: the step goes with it
		case n > 0:
			e := cmd.end
			for k := v + n; k < e; k++ {
				if lex.IsJapanese(toks[k].Text) { // `rm -rf node_modules` して、...: the command and the form that runs it (を実行して)
					e = max(k, jaCommandEnd(toks, k))
				}
			}
			a := in.action(cmd.start, v, e)
			if strings.HasPrefix(in.goal[a.end:], ";") { // the statement's end: DROP TABLE users;
				a.end++
				a.text = in.goal[a.end-len(a.text)-1 : a.end]
			}
			d.actions = appendAction(d.actions, a)
		default:
			if n = in.c.phraseAt(toks, v, fDestructive); n > 0 && (objectOf(in, v, n, cmd.end) >= 0 || in.listsData(toks[cmd.end-1].End)) {
				d.actions = appendAction(d.actions, in.action(cmd.start, v, cmd.end))
			}
		}
	}
	for i := range toks { // Japanese: the verb ends its clause, the object comes first (ログを削除して)
		t := &toks[i]
		if t.neg || !lex.IsJapanese(t.Text) || !t.e.has(fDestructive) || !jaCommand(toks, i) || in.c.asksAgent(in.goal, toks, i) {
			continue
		}
		o := objectOf(in, i, 1, len(toks))
		if o < 0 && in.listsData(toks[max(i, jaCommandEnd(toks, i))-1].End) {
			o = i // its objects listed under its colon: 以下を削除して：\n- a.txt
		}
		if o >= 0 {
			for o > 0 && toks[o-1].Sentence == t.Sentence && !strings.ContainsAny(in.goal[toks[o-1].End:toks[o].Start], "、，,;；") && !(lex.IsJapanese(toks[o-1].Text) && jaCommand(toks, o-1)) {
				o-- // the object's whole phrase: `dist/` フォルダを
			}
			q := o
			for q < i && in.c.openingAt(toks, q) > 0 {
				q += in.c.openingAt(toks, q) // quoted from its object: まず「メモ.txt」を削除して
			}
			d.actions = appendAction(d.actions, in.action(o, q, jaCommandEnd(toks, i)))
		}
	}
	if len(d.actions) == 0 {
		return d
	}
	texts := make([]string, len(d.actions))
	for i, a := range d.actions {
		texts[i] = a.text
	}
	list := in.quoteList(texts, "and")
	yes, no := lex.Replies(lex.Split(in.answer, nil))
	switch {
	case yes && !no:
		d.confirmed = true
		return d
	case no && !yes:
		d.assumptions = append(d.assumptions, fmt.Sprintf("Skipped %s: the destructive action was declined.", list))
	default:
		text := in.say("The goal asks to %s, which cannot be undone. Proceed?", "%sは元に戻せません。実行しますか？", list)
		d.q = &askonce.Question{Type: askonce.QuestionConfirm, Text: text, Options: []string{"yes", "no"}, Reason: "target_file_exists", Default: "no"}
		d.assumptions = append(d.assumptions, fmt.Sprintf("Skipped %s: a destructive action needs an explicit yes, and none was given.", list))
	}
	return d
}

// jaCommand reports whether the Japanese destructive word at toks[i] is
// the verb of a command: in a command form (jaCommandForms: 削除して, 削除しろ) or another
// request's て form (消しといて), plain at the end of its clause (ログを消す, *.zip を削除), or a
// noun a support verb (jaSupportVerbs) takes (削除をお願いします). Used as a modifier
// (削除した理由, 削除する方法) or as the topic of another verb
// (削除について書いて, 削除を説明して), it is none. A katakana word
// (リセット) inflects in the token after it.
func jaCommand(toks []token, i int) bool {
	return jaCommandEnd(toks, i) > i
}

// jaCommandEnd is the end (a token index) of the command form jaCommand
// reads at toks[i] (を実行して is two tokens), or -1.
func jaCommandEnd(toks []token, i int) int {
	at := func(k int) string {
		if k < len(toks) && toks[k].Clause == toks[i].Clause {
			return toks[k].Text
		}
		return ""
	}
	form, last := toks[i].Text, i
	if !lex.IsHanStart(form) && lex.IsJapanese(at(i+1)) {
		form, last = form+at(i+1), i+1
	}
	kana, _ := utf8.DecodeRuneInString(strings.TrimPrefix(form, lex.HanStem(form))) // what follows the kanji
	switch {
	case slices.ContainsFunc(vocab.lists["jaCommandForms"], func(c string) bool { return strings.Contains(form, c) }):
		return last + 1
	case (strings.HasSuffix(form, "て") || strings.HasSuffix(form, "で")) && !strings.HasSuffix(form, "れて") && !vocab.has("leadOn", string(kana)):
		return last + 1 // a request's て form: 消しといて, 削除しちゃって (not the passive 削除されて, not a particle: 削除について)
	case lex.IsHanStart(form) && form == lex.HanStem(form) && at(last+1) == "" && i > 0 && strings.HasSuffix(toks[i-1].Text, "を"): // a noun ending the clause after its object: *.zip を削除
		return last + 1
	case strings.HasSuffix(form, "す") || strings.HasSuffix(form, "する"):
		if at(last+1) == "" {
			return last + 1
		}
	case strings.Contains(form, "を"): // 削除を実行して; 削除をお|願いします splits at the kanji
		_, after, _ := strings.Cut(form+at(last+1), "を")
		if slices.ContainsFunc(vocab.lists["jaSupportVerbs"], func(s string) bool { return strings.HasPrefix(after, s) }) {
			return min(last+2, len(toks))
		}
	}
	return -1
}

// jaCommandAfter reports whether a command written in Latin letters,
// ending before toks[k] (its arguments may follow), is the one the
// sentence asks for: nothing Japanese follows it in its clause, or the
// Japanese that does is a command form as jaCommand reads it
// (git push --forceして, rm -rf buildを実行して). Followed by a particle
// that makes it a subject, topic or modifier (が, は, の), it is none.
func jaCommandAfter(toks []token, k int) bool {
	for k < len(toks) && toks[k].Clause == toks[k-1].Clause && !lex.IsJapanese(toks[k].Text) {
		k++ // the command's arguments: rm -rf build
	}
	return k >= len(toks) || toks[k].Clause != toks[k-1].Clause || jaCommand(toks, k)
}

// allOf reports whether toks are a universal object that a preposition
// after them narrows: "everything", "all of".
func allOf(toks []token) bool {
	return len(toks) > 0 && !slices.ContainsFunc(toks, func(t token) bool {
		return !t.e.has(fDet|fPlaceholder) || vocab.has("singularPronouns", t.Text) || vocab.has("pluralPronouns", t.Text) || t.Text == "this" || t.Text == "that"
	})
}

// objectOf finds the data object of the destructive verb at toks[i:i+n]:
// a data word, code that names data (dataName: notes.md, src/), a request's file or a pronoun for
// data its sentence or the one before names, in the next six tokens before
// end, before any preposition or conjunction (for a Japanese verb, the
// four tokens before it). It returns the object's token or -1.
func objectOf(in *input, i, n, end int) int {
	toks := in.gt
	data := func(k int) bool {
		t := &toks[k]
		switch {
		case t.idiom:
			return false
		case t.quoted: // a title or a literal; a quoted file name is data: "old report.pdf"
			return codeLike(t.Text)
		case vocab.has("tableObjects", t.Text): // a table is data when it is dropped or truncated
			return vocab.has("tableVerbs", toks[i].Text)
		}
		return t.e.has(fObject) || t.code && dataName(in.goal[t.Start:t.End]) || slices.ContainsFunc(in.files, func(f string) bool { return strings.EqualFold(f, t.Text) })
	}
	said := func(k int) bool { // a pronoun for data named in its sentence or the one before: "find the old logs in /var/log and delete them"
		if !vocab.has("singularPronouns", toks[k].Text) && !vocab.has("pluralPronouns", toks[k].Text) || k+1 < len(toks) && sourceWords(toks, k+1) > 0 {
			return false // not a pronoun, or a thing moved: "remove it from the oven"
		}
		for a := i - 1; a >= 0 && toks[a].Sentence+1 >= toks[k].Sentence; a-- {
			if data(a) {
				return true
			}
		}
		return false
	}
	if lex.IsJapanese(toks[i].Text) {
		for k := i - 1; k >= 0 && k >= i-4 && toks[k].Sentence == toks[i].Sentence; k-- { // across brackets: ログ（logs/*.txt）を
			if data(k) {
				return k
			}
		}
		return -1
	}
	for k := i + n; k < end && k < i+n+6; k++ {
		// The direct object comes before a preposition or condition:
		// "remove the imports from main.go" removes imports; "everything
		// in /var/log" is what the preposition names.
		if toks[k].e.has(fConj) || toks[k].e.has(fPrep) && !allOf(toks[i+n:k]) || toks[k].e.has(fCondition) {
			break
		}
		if data(k) || said(k) {
			return k
		}
	}
	return -1
}

// dataName reports whether code-like text names data a command can
// destroy: a path or glob (src/, *.tmp, ~/.cache), a file name (its
// extension lower case: notes.md) or a bare name (`staging`); not a flag
// (--legacy) or a name inside code (t.Skip, os.Exit), which removing
// edits a file rather than loses one.
func dataName(raw string) bool {
	raw = strings.Trim(raw, "`")
	switch {
	case strings.IndexFunc(raw, unicode.IsLetter) < 0 || strings.HasPrefix(raw, "-"):
		return false
	case strings.ContainsAny(raw, "/\\*~"):
		return true
	}
	if i := strings.LastIndexByte(raw, '.'); i >= 0 {
		ext := raw[i+1:]
		return ext == strings.ToLower(ext)
	}
	return true
}

// listsData reports whether the objects listed under the colon after goal
// byte end (listed) name data: "Delete these:\n1. old.log\n2. tmp/".
func (in *input) listsData(end int) bool {
	to := in.listed(end)
	return to > end && slices.ContainsFunc(in.gt, func(t token) bool {
		return t.Start >= end && t.End <= to && t.code && dataName(in.goal[t.Start:t.End])
	})
}
