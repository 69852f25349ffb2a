package rules

import (
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/internal/lex"
)

// A plan quotes the user (docs/protocol.md rule 16): every task's text is
// a span of the goal or the answer, cut only where a reader sees a step
// boundary. Nothing here rebuilds text from tokens.

// layout is a text as a reader sees it, read once: its blocks (blocks),
// and by byte which are code and so opaque, and which are quoted.
type layout struct {
	blocks                []block
	code, quoted, inBlock []bool
}

// layoutOf reads src's blocks and marks the bytes that are code: code
// blocks, back-ticked spans, quoted strings, and words that are paths,
// globs, flags, KEY=value, URLs, versions, file names or identifiers. No
// step boundary falls inside code and no detector reads inside it as
// words. quoted marks the quoted strings alone, marks included: their
// words keep their roles, as a title's or a literal's.
func layoutOf(src string) layout {
	n := len(src)
	marks := make([]bool, 3*n) // the three by byte, in one allocation
	l := layout{blocks: blocks(src), code: marks[:n:n], quoted: marks[n : 2*n : 2*n], inBlock: marks[2*n:]}
	code, quoted := l.code, l.quoted
	mark := func(m []bool, s, e int) {
		for i := s; i < e; i++ {
			m[i] = true
		}
	}
	for _, b := range l.blocks {
		if b.kind == codeBlock {
			mark(code, b.start, b.end)
			mark(l.inBlock, b.start, b.end)
		}
	}
	for i := 0; i < len(src); {
		if code[i] {
			i++ // inside a code block: its back-ticks are its own
			continue
		}
		j := strings.IndexByte(src[i:], '`')
		if j < 0 {
			break
		}
		open := i + j
		k := strings.IndexByte(src[open+1:], '`')
		if k < 0 {
			break // an unbalanced back-tick opens nothing
		}
		i = open + 1 + k + 1
		mark(code, open, i)
	}
	for _, q := range quotedRanges(src) {
		if code[q[0]] {
			continue // a quote inside code (a block, back-ticks) is code
		}
		_, n := utf8.DecodeRuneInString(src[q[1]:])
		mark(code, q[0], q[1]+n)
		mark(quoted, q[0], q[1]+n)
	}
	for start := 0; start < len(src); {
		start += len(src[start:]) - len(strings.TrimLeftFunc(src[start:], separator))
		end := len(src)
		if n := strings.IndexFunc(src[start:], separator); n >= 0 {
			end = start + n
		}
		s, e := coreOf(src, start, end)
		if e > s && src[s] == '.' { // a file name in Japanese: ログ.txt, 議事録.md
			r, _ := utf8.DecodeLastRuneInString(src[:s])
			for sc := lex.ScriptOf(r); sc != lex.ScriptOther && lex.IsWordRune(r) && lex.ScriptOf(r) == sc; r, _ = utf8.DecodeLastRuneInString(src[:s]) {
				s -= utf8.RuneLen(r)
			}
		}
		if e > s && codeLike(src[s:e]) {
			mark(code, s, e)
		}
		start = end
	}
	return l
}

func isSpaceAt(s string, i int) bool {
	r, _ := utf8.DecodeRuneInString(s[i:])
	return unicode.IsSpace(r)
}

// separator reports white space or Japanese, its punctuation too:
// Japanese, written without spaces, ends a word of code (notes.mdを削除して,
// `rm -rf x` して、`make`).
func separator(r rune) bool {
	if r < utf8.RuneSelf { // white space alone, as unicode.IsSpace has it: \t \n \v \f \r and ' '
		return r == ' ' || '\t' <= r && r <= '\r'
	}
	return unicode.IsSpace(r) || lex.ScriptOf(r) != lex.ScriptOther || r >= 0x2E80 && unicode.IsPunct(r) // 、。「」（）
}

// coreOf is a white-space-delimited word src[start:end] without the
// punctuation a sentence puts around it: opening brackets and quotes, and
// closing ones, commas, colons and one sentence-ending mark after a
// letter or digit ("notes.md." is notes.md; "./..." keeps its dots).
func coreOf(src string, start, end int) (int, int) {
	for start < end && wordOpener(src[start]) {
		start++
	}
	for end > start {
		r, n := utf8.DecodeLastRuneInString(src[start:end])
		switch {
		case wordCloser(r) && !(r == '?' && strings.ContainsRune(src[start:end-n], '*')):
			end -= n
			continue
		case r == '.':
			p, _ := utf8.DecodeLastRuneInString(src[start : end-n])
			if lex.IsWordRune(p) || p == ')' {
				end -= n
			}
		}
		break
	}
	return start, end
}

// wordOpener reports an opening bracket or quote before a word: ( " ' [ <.
// It reads one byte, so a curly quote (several bytes) is not one.
func wordOpener(b byte) bool {
	switch b {
	case '(', '"', '\'', '[', '<':
		return true
	}
	return false
}

// wordCloser reports a closing bracket or quote, a comma, colon or
// sentence mark after a word.
func wordCloser(r rune) bool {
	switch r {
	case ',', ';', ':', '!', '?', ')', ']', '>', '"', '\'', '”', '’':
		return true
	}
	return false
}

// codeLike reports whether a word is code a reader would not read as
// prose: a URL, a path or glob, a flag, KEY=value, a variable, a version
// or dotted name (v1.2.3, a.b.c, notes.md), an identifier with '_', or
// a directory written as "." or "..".
// Abbreviations (e.g., i.e.) and initials (R.R.) are prose.
func codeLike(w string) bool {
	if allBytes(w, func(b byte) bool { return !codeMark(b) }) {
		return false // every kind of code below holds one of these marks: a plain word is prose
	}
	low := strings.ToLower(strings.TrimSuffix(w, "."))
	switch {
	case w == "" || vocab.has("abbreviations", low) || initialsLike(w):
		return false
	case strings.Contains(w, "://") || strings.HasPrefix(low, "www.") || w == "." || w == "..": // the directory: find . -name x
		return true
	case strings.ContainsAny(w, "/\\*=$<>|{}[]_`~@") && len(w) > 1:
		return true
	case strings.HasPrefix(w, "-") && len(w) > 1 && (w[1] == '-' || lex.IsWordRune(rune(w[1]))):
		return true
	}
	for i := 1; i+1 < len(w); i++ { // a dot between two word characters
		if w[i] == '.' && isWordByte(w[i-1]) && isWordByte(w[i+1]) {
			return true
		}
	}
	return false
}

// codeMark reports whether b is one of the marks of which every kind of
// code codeLike finds holds at least one; a plain word holds none.
func codeMark(b byte) bool {
	switch b {
	case '.', '-', '/', '\\', '*', '=', '$', '<', '>', '|', '{', '}', '[', ']', '_', '`', '~', '@':
		return true
	}
	return false
}

func isWordByte(b byte) bool {
	return b >= utf8.RuneSelf || lex.IsWordRune(rune(b))
}

// initialsLike reports initials written with dots ("R.R.", "U.S.").
func initialsLike(w string) bool {
	w = strings.TrimSuffix(w, ".")
	for i := 0; i < len(w); i++ {
		if i%2 == 0 && !('A' <= w[i] && w[i] <= 'Z') || i%2 == 1 && w[i] != '.' {
			return false
		}
	}
	return len(w) >= 3
}

// trimSpan narrows src[start:end] past the runes at either end for which
// trim holds.
func trimSpan(src string, start, end int, trim func(rune) bool) (int, int) {
	start += len(src[start:end]) - len(strings.TrimLeftFunc(src[start:end], trim))
	return start, start + len(strings.TrimRightFunc(src[start:end], trim))
}

// step is one step of a goal: its source bytes [start, end), the tokens
// inside them [t0, t1), and whether it runs beside the step before.
type step struct {
	t0, t1     int
	start, end int
	parallel   bool
}

// splitSteps finds the steps of src, block by block (blocks): a list item
// is one step; a code block is part of the step that introduces it (the
// one before it, or for a block that opens the text the one after it),
// never steps of its own; prose is cut where a reader
// sees a step boundary: a sentence end (not a dot inside code, an
// abbreviation or initials), a line break, a semicolon, and before a step
// separator ("then", "and then", "afterwards"; not the "then" of "if ...,
// then"). The line that introduces a list ("After the tests pass:") is
// prose, so it is a step of its own, before the items. Every byte of src
// outside list markers belongs to one step, so the steps, joined, are the
// text. cmds are the commands of toks (commands).
func (c *compiled) splitSteps(src string, toks []token, cmds []command, l layout) []step {
	cuts := c.cuts(src, toks, cmds, l.code)
	var steps []step
	lead := false // the text opens with code: steps[0] holds it until the step after it
	for _, b := range l.blocks {
		n := len(steps)
		switch {
		case b.kind == codeBlock && n > 0:
			steps[n-1].end = b.end
		case b.kind == codeBlock:
			steps, lead = append(steps, step{start: b.start, end: b.end}), true
		case b.kind == proseBlock:
			steps = proseSteps(steps, src, b, cuts)
		default:
			steps = append(steps, step{start: b.start, end: b.end})
		}
		if lead && len(steps) > 1 { // the block, then what is said of it ("... Add the above to ci.yml")
			steps[1].start = steps[0].start
			steps, lead = steps[1:], false
		}
	}
	return c.finishSteps(src, toks, steps)
}

// cuts are the byte offsets of src, in order, where prose may be cut into
// steps: after a sentence end, a line break or a semicolon outside code,
// and before a step separator. cmds are the commands of toks (commands).
func (c *compiled) cuts(src string, toks []token, cmds []command, code []bool) []int {
	var cuts []int
	for i, r := range src {
		if code[i] {
			continue
		}
		n := i + utf8.RuneLen(r)
		switch {
		case r == ';' || r == '。' || r == '！' || r == '？' || r == '；' || r == '\n' && !goesOn(src, i):
			cuts = append(cuts, n)
		case (r == '.' || r == '!' || r == '?') && (n == len(src) || isSpaceAt(src, n)) && !abbreviationBefore(src, i):
			cuts = append(cuts, n)
		}
	}
	ends := slices.Clip(cuts) // the sentence ends, in order
	lineStart, scanned := 0, 0
	for i := 0; i < len(toks); i++ {
		n := c.phraseAt(toks, i, fStepSep)
		if n == 0 || toks[i].code || toks[i].quoted || i+n >= len(toks) || toks[i+n].Sentence != toks[i].Sentence {
			continue // "... and run make clean afterwards.": nothing follows it to be a step; "then" quoted is a word
		}
		at := i
		for at > 0 && toks[at-1].Sentence == toks[i].Sentence && c.openingAt(toks, at-1) > 0 {
			at-- // "and then", "so then"
		}
		if toks[at].Start < scanned { // back over the words that open it: look again
			lineStart, scanned = strings.LastIndexByte(src[:toks[at].Start], '\n')+1, toks[at].Start
		}
		for ; scanned < toks[at].Start; scanned++ { // the line so far, read once
			if src[scanned] == '\n' {
				lineStart = scanned + 1
			}
		}
		line := src[lineStart:toks[at].Start]
		label := stepLabelIn(line)
		said := false // something before it in its sentence: no sentence end outside code since the word before
		if at > 0 {
			k := sort.SearchInts(ends, toks[at-1].End)
			said = (k == len(ends) || ends[k] > toks[at].Start) && (label == nil || label[1] < len(line))
		}
		if said && !c.conditional(toks, at) { // something before it to be a step ("please, then deploy" and "Step 3: then deploy" are one)
			cuts = append(cuts, toks[at].Start)
		}
		i += n - 1
	}
	for k := 1; k < len(cmds); k++ { // a word that adds or orders a step, opening a command after a comma and another command: "build it, (and) also deploy it"; not "..., so assign it"
		a, b := cmds[k-1], cmds[k]
		t := &toks[b.start]
		joined := slices.ContainsFunc(toks[b.start:b.verb], func(o token) bool { return vocab.has("sequenceConnectors", o.Text) && !o.code })
		if a.end == b.start && joined && toks[a.start].Sentence == t.Sentence && strings.ContainsAny(src[toks[b.start-1].End:t.Start], ",、，") {
			cuts = append(cuts, t.Start)
		}
	}
	slices.Sort(cuts)
	return cuts
}

// proseSteps appends to steps the prose block b cut at the cuts inside
// it. A piece with no word (punctuation) joins the step before it, or the
// piece after it, or else stands alone: it is still the user's text.
func proseSteps(steps []step, src string, b block, cuts []int) []step {
	at := []int{b.start}
	for _, k := range cuts[sort.SearchInts(cuts, b.start+1):] {
		if k >= b.end {
			break
		}
		at = append(at, k)
	}
	at = append(at, b.end)
	for k := 0; k+1 < len(at); k++ {
		s, e := at[k], at[k+1]
		if strings.IndexFunc(src[s:e], lex.IsWordRune) < 0 {
			switch {
			case len(steps) > 0:
				steps[len(steps)-1].end = e
				continue
			case k+2 < len(at):
				at[k+1] = s
				continue
			}
		}
		steps = append(steps, step{start: s, end: e})
	}
	return steps
}

// blockKind is what a reader sees a run of lines of a goal as.
type blockKind int

const (
	proseBlock blockKind = iota // sentences, cut into steps where a reader sees a boundary
	itemBlock                   // one item of a list: one step
	codeBlock                   // a fenced or indented block of code: opaque, never steps
)

// block is one block of a text: its bytes [start, end), without a list
// item's marker.
type block struct {
	kind       blockKind
	start, end int
}

// blocks reads src line by line (a line ends at \n; a \r before it is
// white space) into blocks, as a Markdown reader would:
//   - a fence (three or more back-ticks or tildes) opens a code block
//     that runs to a line of at least as many of the same mark and
//     nothing else, or to the end of src (a fence never closed; a fence
//     with an info string inside, ```yaml, closes nothing);
//   - a line indented by four spaces or a tab is code when it follows
//     prose outside a list (written under a sentence, it is shown, not
//     said), or continues a code block; so are lines indented under a
//     line ending in a colon when one of them holds shell syntax
//     ("  npm ci && npm test"). Indented under another sentence
//     ("Before you leave:") lines are prose;
//   - under a line ending in a colon that names a file ("Add to
//     /etc/ssh/sshd_config:", "the Makefile:"), its lines are the file's
//     up to a blank line or a sentence: "PermitRootLogin no", a
//     `key: value` line, a list of one word an item ("- flask"); so
//     are a script's from its "#!" line;
//   - a line with no prose word ("{", `"port": 8080,`, "</div>") is
//     code too, and so, under a line ending in a colon or going on with
//     code, is a `key: value` line, an instruction ("RUN make") or a
//     statement that opens a block ("def add(a, b):"); a list whose
//     first item is such code is code to its last item, and so is one
//     whose item is a mapping that goes on with a deeper mapping (a
//     YAML sequence: "- name: Run the tests\n  run: make");
//   - a list marker ("1.", "2)", "-", "*", "+", "•") opens an item; the
//     lines after it continue it, up to a blank line, and after a blank
//     line the indented ones still do;
//   - a line that goes on with the sentence of the prose line before it
//     (goesOn) is part of its block; any other line is prose, a block of
//     its own (prose is cut at line breaks anyway).
//
// Blank lines and list markers are in no block; every other byte is in
// one.
func blocks(src string) []block {
	var out []block
	fence := ""        // the open fence's mark, or ""
	blank := true      // a blank line (or the start) comes before this line
	inList := false    // the prose before is a list's
	codeItems := false // the code block opened as a list item
	codeIndent := 0    // the indentation of its first line
	shown := false     // the code block is a file's or a script's lines: it runs to a blank line or a sentence
	indent := 0        // the indentation of the line before
	item := 0          // where the last list item's marker is
	for pos := 0; pos < len(src); {
		end := strings.IndexByte(src[pos:], '\n')
		if end < 0 {
			end = len(src)
		} else {
			end += pos
		}
		next := end + 1
		line := strings.TrimRight(src[pos:end], "\r")
		body := strings.TrimLeft(line, " \t")
		at := pos + len(line) - len(body) // the first byte of body
		lineEnd := pos + len(strings.TrimRight(line, " \t"))
		last := len(out) - 1
		extend := func() { out[last].end = lineEnd }
		intro, marker := introducer(src, out), listMarker(line)
		switch {
		case fence != "":
			extend()
			if strings.HasPrefix(body, fence) && strings.Trim(strings.TrimSpace(body), fence[:1]) == "" {
				fence = ""
			}
			pos = next
			continue
		case body == "":
			blank = true
			pos = next
			continue
		case last >= 0 && out[last].kind == proseBlock && !blank && goesOn(src, pos-1):
			extend() // the sentence goes on ("Add this job to\nci.yml:")
		case openFence(body) != "":
			fence = openFence(body)
			out = append(out, block{kind: codeBlock, start: at, end: lineEnd})
			codeIndent, shown = len(line), false // a closed fence is continued only by indented lines
		case last >= 0 && out[last].kind == codeBlock && (indented(line) || at-pos > codeIndent || shown && !blank && !sentence(body) && marker < 0):
			extend() // indented, deeper than the block's first line, or a file's next line
		case last >= 0 && out[last].kind == proseBlock && !inList && (indented(line) || at-pos > indent && marker < 0 && intro != "" && shellRun(src[pos:], at-pos)):
			out = append(out, block{kind: codeBlock, start: at, end: lineEnd})
			codeIndent, shown = indent, false // the lines under the sentence
		case last >= 0 && out[last].kind == codeBlock && (codeLine(body, true) || codeItems && marker >= 0):
			extend()
		case !inList && (codeLine(body, intro != "") || strings.HasPrefix(body, "#!") || namesFile(intro) && !sentence(body) && (marker < 0 || isMapping(body) || !strings.ContainsAny(strings.TrimSpace(line[marker:]), " \t"))):
			// code, a script ("#!/bin/bash"), or under a line naming a
			// file its lines: "PermitRootLogin no", a list of mappings or
			// of one word an item ("- run: npm ci", "- flask")
			out = append(out, block{kind: codeBlock, start: at, end: lineEnd})
			codeItems = marker >= 0 // "  - flask==3.0": the list's other items are code too
			codeIndent, shown = at-pos, strings.HasPrefix(body, "#!") || namesFile(intro)
		case marker >= 0:
			m := pos + marker
			out = append(out, block{kind: itemBlock, start: m, end: max(m, lineEnd)})
			inList, item = true, at
		case last >= 0 && out[last].kind == itemBlock && at-pos > indent && isMapping(body) && isMapping(src[item:out[last].end]):
			out[last].kind, out[last].start = codeBlock, item // a sequence of mappings: YAML
			extend()
			codeItems, codeIndent, shown = true, indent, false
		case last >= 0 && out[last].kind == itemBlock && (!blank || at > pos):
			extend() // the item goes on
		default: // a line of prose: a block of its own, as prose is cut at line breaks

			out = append(out, block{kind: proseBlock, start: at, end: lineEnd})
			inList = false
		}
		blank, indent = false, at-pos
		pos = next
	}
	return out
}

// introducer is the prose block last in out when it ends in a colon (":"
// or "："), and so introduces what follows it; or "".
func introducer(src string, out []block) string {
	if len(out) == 0 || out[len(out)-1].kind != proseBlock || !strings.HasSuffix(src[:out[len(out)-1].end], ":") && !strings.HasSuffix(src[:out[len(out)-1].end], "：") {
		return ""
	}
	return src[out[len(out)-1].start:out[len(out)-1].end]
}

// goesOn reports whether the line break at src[nl] falls inside a
// sentence: the line before it ends where no sentence can (a comma or 、,
// an article, a conjunction, a preposition that needs its object, or
// another one when its object follows: "Add the job to", "Open the file
// and", "every file in" over "/tmp/cache", not "Log in"; a Japanese
// particle or a clause that leads on: "ci.yml に", "読んでから"), and the
// line after it opens no list item, fence or indented block, nor, in
// English, a sentence of its own (a capitalised word). A て form at a
// line's end is a request as often as it leads on ("ビルドして" a line),
// so it ends the line.
func goesOn(src string, nl int) bool {
	before := strings.TrimRight(src[strings.LastIndexByte(src[:nl], '\n')+1:nl], " \t\r")
	after := src[nl+1:]
	if n := strings.IndexByte(after, '\n'); n >= 0 {
		after = after[:n]
	}
	body := strings.TrimSpace(after)
	if before == "" || body == "" || listMarker(after) >= 0 || openFence(body) != "" || indented(after) {
		return false
	}
	last, _ := utf8.DecodeLastRuneInString(before)
	first := strings.Fields(body)[0]
	switch {
	case last == '、' || last == '，' || last == ',':
		return true
	case lex.ScriptOf(last) == lex.ScriptHiragana:
		return jaLeadsOn(before)
	case unicode.IsUpper([]rune(first)[0]) && strings.ToUpper(first) != first && !codeLike(first):
		return false // a sentence of its own
	}
	word := strings.ToLower(before[strings.LastIndexFunc(before, func(r rune) bool { return !lex.IsWordRune(r) })+1:])
	s, e := coreOf(first, 0, len(first))
	object := codeLike(first[s:e]) || vocab.has("determiners", strings.ToLower(first)) // "in\n/tmp/cache", "on\nthe shelf"
	return vocab.has("determiners", word) && !vocab.has("placeholders", word) || vocab.has("conjunctions", word) || vocab.has("leadOn", word) ||
		object && vocab.has("prepositions", word) && !vocab.has("particles", word)
}

// namesFile reports whether s names a file: a code-like word (notes.md,
// ~/.ssh/config), or a name a file has by convention, without a dot: a
// capitalised word ending in "file" (the Makefile, a Dockerfile) or one
// in capitals (README, LICENSE).
func namesFile(s string) bool {
	return slices.ContainsFunc(strings.FieldsFunc(s, separator), func(w string) bool {
		st, e := coreOf(w, 0, len(w))
		w = w[st:e]
		conventional := len(w) > 4 && unicode.IsUpper(rune(w[0])) && (strings.HasSuffix(w, "file") || strings.ToUpper(w) == w && strings.IndexFunc(w, func(r rune) bool { return !unicode.IsUpper(r) }) < 0)
		return codeLike(w) || conventional
	})
}

// sentence reports whether a line reads as a sentence: it opens with a
// capital and ends with a sentence's mark, or opens with a step separator
// ("then push").
func sentence(body string) bool {
	r, _ := utf8.DecodeRuneInString(body)
	e, _ := utf8.DecodeLastRuneInString(body)
	first, _, _ := strings.Cut(body, " ")
	return unicode.IsUpper(r) && strings.ContainsRune(".!?", e) || vocab.has("stepSeparators", strings.ToLower(first))
}

// shellRun reports whether the run of lines at the start of src indented
// by at least indent holds shell syntax: an operator (&&, ||, |, >, 2>&1),
// a variable ($HOME) or a flag (-e, --force). Indented under a line
// ending in a colon, such lines are commands shown, not steps said.
func shellRun(src string, indent int) bool {
	for _, line := range strings.Split(src, "\n") {
		body := strings.TrimLeft(line, " \t")
		if strings.TrimSpace(body) == "" || len(line)-len(body) < indent {
			return false
		}
		for _, w := range strings.Fields(body) {
			if strings.Trim(w, "&|<>0123456789") == "" || strings.HasPrefix(w, "$") || strings.HasPrefix(w, "-") && len(w) > 1 && lex.IsWordRune(rune(strings.TrimLeft(w, "-")[0])) {
				return true
			}
		}
	}
	return false
}

// mapping reports whether body is a `key: value` or `key = value` line
// ("- name: test" too) with a lower-case key, and returns its value's
// words.
func mapping(body string) ([]string, bool) {
	if n := strings.IndexByte(body, '\n'); n >= 0 {
		body = body[:n] // an item's first line
	}
	words := strings.Fields(body)
	if len(words) > 1 && words[0] == "-" {
		words = words[1:]
	}
	if len(words) == 0 {
		return nil, false
	}
	key, value := strings.TrimSuffix(words[0], ":"), words[1:]
	if key == words[0] && len(value) > 0 && value[0] == "=" {
		key += "=" // "port = 8080"
		value = value[1:]
	}
	return value, key != words[0] && codeLike(key+"_") && strings.ToLower(key) == key
}

func isMapping(body string) bool {
	_, ok := mapping(body)
	return ok
}

// codeLine reports whether a line is code: it holds no prose word (each
// of its words is code-like, quoted or without a letter, and, unless it
// goes on with code or a line ending in a colon introduces it, one is
// punctuation a sentence does not write alone: { } [ ] < > = ;). Going on
// or so introduced, a `key: value` line with a lower-case key ("cache:
// true", "- name: test", "run: go test ./...": a value of one word or
// holding code) and an
// instruction that opens with an upper-case keyword and holds code or
// one word more ("FROM golang:1.22 AS build", "RUN make") are code too,
// and so is a shell line after a "$" prompt or ending in " \".
func codeLine(body string, goesOn bool) bool {
	if !goesOn && !strings.ContainsAny(body, "{}[]<>=;") {
		return false // nothing a sentence does not write alone: prose
	}
	words := strings.Fields(body)
	if len(words) == 0 {
		return false
	}
	code := func(w string) bool {
		s, e := coreOf(w, 0, len(w))
		literal := slices.Contains([]string{"true", "false", "null"}, w[s:e]) // JSON's words
		section := w[0] == '[' && w[len(w)-1] == ']'                          // an INI or TOML section: [server]
		return strings.IndexFunc(w, unicode.IsLetter) < 0 || codeLike(w[s:e]) || literal || section || strings.ContainsRune(`"'`, rune(w[0]))
	}
	if goesOn {
		value, keyed := mapping(body)
		switch {
		case keyed && (len(value) <= 1 || slices.ContainsFunc(value, code)):
			return true // a mapping to a word or to code ("run: go test ./...")
		case words[0] == "$" && len(words) > 1 || strings.HasSuffix(body, " \\"):
			return true // a shell line after its prompt, or going on in the next
		case len(words[0]) > 1 && strings.Trim(words[0], "ABCDEFGHIJKLMNOPQRSTUVWXYZ") == "" && (len(words) == 2 || slices.ContainsFunc(words[1:], code)):
			return true // an instruction
		case strings.ContainsAny(body[len(body)-1:], ":{(;,") && call.MatchString(body) && !unicode.IsUpper([]rune(body)[0]):
			return true // a statement that opens a block: "def add(a, b):", "function f() {"
		}
	}
	return !slices.ContainsFunc(words, func(w string) bool { return !code(w) })
}

// call is a name called with arguments: add(a, range(10), f().
var call = regexp.MustCompile(`\w\(`)

// openFence is the fence that body opens (a run of three or more
// back-ticks or tildes; a back-tick fence has no back-tick after it), or
// "".
func openFence(body string) string {
	if !strings.HasPrefix(body, "```") && !strings.HasPrefix(body, "~~~") {
		return ""
	}
	rest := strings.TrimLeft(body, body[:1])
	if body[0] == '`' && strings.Contains(rest, "`") {
		return "" // ```go test``` is inline code
	}
	return body[:len(body)-len(rest)]
}

// indented reports whether line starts with four spaces or a tab.
func indented(line string) bool {
	return strings.HasPrefix(line, "\t") || strings.HasPrefix(line, "    ")
}

// conditional reports whether the step separator at toks[i] is the
// "then" of a condition in its sentence ("if the tests pass, then
// deploy"): the sentence opens with a condition word.
func (c *compiled) conditional(toks []token, i int) bool {
	first := i
	for first > 0 && toks[first-1].Sentence == toks[i].Sentence {
		first--
	}
	return first < i && toks[first].e.has(fCondition)
}

// abbreviationBefore reports whether the dot at src[i] ends an
// abbreviation ("e.g.", "etc.") or initials rather than a sentence.
func abbreviationBefore(src string, i int) bool {
	if src[i] != '.' {
		return false
	}
	start := i
	for start > 0 && !isSpaceAt(src, start-1) {
		start--
	}
	w := strings.TrimLeft(src[start:i+1], `("'“‘[`)
	return vocab.has("abbreviations", strings.ToLower(strings.TrimSuffix(w, "."))) || initialsLike(w) ||
		len(w) == 2 && 'A' <= w[0] && w[0] <= 'Z' // a middle initial: "Ursula K. Le Guin"
}

// finishSteps trims white space from each step, finds its tokens and
// marks the steps with a parallel cue ("in parallel", "meanwhile").
func (c *compiled) finishSteps(src string, toks []token, steps []step) []step {
	out := steps[:0]
	k := 0
	for _, st := range steps {
		if st.start, st.end = trimSpan(src, st.start, st.end, unicode.IsSpace); st.start == st.end {
			continue
		}
		for k < len(toks) && toks[k].Start < st.start {
			k++
		}
		st.t0 = k
		for k < len(toks) && toks[k].Start < st.end {
			k++
		}
		st.t1 = k
		for i := st.t0; i < st.t1 && !st.parallel; i++ {
			st.parallel = c.phraseAt(toks, i, fParallel) > 0
		}
		out = append(out, st)
	}
	return out
}

// joinLines writes the lines of one sentence (goesOn) as one line: a
// space between them, none where either side is Japanese.
func joinLines(s string) string {
	if !strings.Contains(s, "\n") {
		return s
	}
	lines := strings.Split(s, "\n")
	var b strings.Builder
	for k, line := range lines {
		line = strings.TrimSpace(line)
		if k > 0 && line != "" {
			p, _ := utf8.DecodeLastRuneInString(b.String())
			n, _ := utf8.DecodeRuneInString(line)
			if lex.ScriptOf(p) == lex.ScriptOther && lex.ScriptOf(n) == lex.ScriptOther && !strings.ContainsRune("、。", p) {
				b.WriteByte(' ')
			}
		}
		b.WriteString(line)
	}
	return b.String()
}

// jaLeadsOn reports whether Japanese text s ends with a particle or a
// clause ending that leads on to what follows (ci.yml に, 読んでから,
// 通ったら): its kana ending is one of leadOn, or ends with one of two
// kana or more.
func jaLeadsOn(s string) bool {
	kana := s[len(strings.TrimRightFunc(s, func(r rune) bool { return lex.ScriptOf(r) == lex.ScriptHiragana })):]
	return kana != "" && slices.ContainsFunc(vocab.lists["leadOn"], func(p string) bool { return kana == p || len(p) > 3 && strings.HasSuffix(kana, p) })
}

// listMarker returns where the text of a list item starts in line, or -1
// when the line is not a list item ("1. ", "2) ", "a) ", "(1) ", "- ", "* ", "• ").
func listMarker(line string) int {
	i := 0
	for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
		i++
	}
	j := i
	for j < len(line) && '0' <= line[j] && line[j] <= '9' {
		j++
	}
	space := func(k int) bool { return k == len(line) || line[k] == ' ' || line[k] == '\t' }
	switch {
	case j > i && j < len(line) && (line[j] == '.' || line[j] == ')') && space(j+1):
		return j + 1
	case j == i && i < len(line) && (line[i] == '-' || line[i] == '*' || line[i] == '+') && space(i+1):
		return i + 1
	case j == i && i+1 < len(line) && 'a' <= line[i]|0x20 && line[i]|0x20 <= 'z' && line[i+1] == ')' && space(i+2): // a) b)
		return i + 2
	case j == i && i+2 < len(line) && line[i] == '(': // (1) (a)
		if k := strings.IndexByte(line[i:min(len(line), i+5)], ')'); k > 1 && space(i+k+1) && strings.Trim(line[i+1:i+k], "0123456789") == "" || k == 2 && 'a' <= line[i+1]|0x20 && line[i+1]|0x20 <= 'z' && space(i+k+1) {
			return i + k + 1
		}
	case strings.HasPrefix(line[i:], "•") || strings.HasPrefix(line[i:], "・"):
		return i + len("•")
	}
	return -1
}

// stepLabel is a label that numbers a step ("Step 2:", "Step 3 -").
var stepLabel = regexp.MustCompile(`^\s*(?i:step)\s+(?:\d+|(?i:one|two|three|four|five|six|seven|eight|nine|ten))\s*[:.)\-–]\s*`)

// stepLabelIn is stepLabel.FindStringIndex(s), with the regular
// expression run only on a text whose first word can be "step": after
// stepLabel's white space, an s, S or ſ (which (?i:s) also matches).
func stepLabelIn(s string) []int {
	r, _ := utf8.DecodeRuneInString(strings.TrimLeft(s, "\t\n\f\r "))
	if r != 's' && r != 'S' && r != 'ſ' {
		return nil
	}
	return stepLabel.FindStringIndex(s)
}

// title is what pages, the terminal and clients show for the text
// src[start:end] (a task's step, a plan's goal): its first line without a
// list marker, check box ("- [ ] ") or step label ("Step 2:") and past a code block that opens
// it, without the joining words and
// request openers that open it ("then", "and then", "after that",
// "first", "please", "can you") and the punctuation that ends it, without
// the byte ranges in cuts (the side a settled contradiction left out with
// the word that joined it: "hot frozen cheese" settled frozen is "Frozen
// cheese"), and with its first letter upper case unless it opens with
// code (a path or a command with its flags keeps its case: "rm -rf
// build", "notes.mdを削除して"). A title is made, not
// quoted: the text keeps the user's words.
func (c *compiled) title(src string, toks []token, start, end int, cuts [][2]int) string {
	first := sort.Search(len(toks), func(k int) bool { return toks[k].End > start }) // the step's tokens start here
	for k := first; k < len(toks) && toks[k].Start < end; k++ {
		if !toks[k].code { // a step that opens with lines of code: what it says of them
			start += strings.LastIndexByte(src[start:toks[k].Start], '\n') + 1
			break
		}
	}
	start, end = trimSpan(src, start, end, unicode.IsSpace) // the first line with text
	// the first line, and those its sentence goes on to
	for from := start; ; {
		n := strings.IndexByte(src[from:end], '\n')
		if n < 0 {
			break
		}
		if !goesOn(src, from+n) {
			end = from + n
			break
		}
		from += n + 1
	}
	if m := listMarker(src[start:end]); m >= 0 {
		start += m
	}
	if rest := strings.TrimLeft(src[start:end], " \t"); len(rest) >= 3 && rest[0] == '[' && rest[2] == ']' && strings.ContainsRune(" xX", rune(rest[1])) {
		start = end - len(rest) + 3 // a task list's check box
	}
	if m := stepLabelIn(src[start:end]); m != nil {
		start += m[1] // "Step 2: push it"
	}
	opened, code, label := false, false, start
	for i := first; i < len(toks) && toks[i].Start < end; i++ { // the words that open the title
		if toks[i].End <= start {
			continue
		}
		if n := c.openingAt(toks, i); n > 0 && !toks[i].quoted && i+n < len(toks) && toks[i+n-1].End < end {
			opened = opened || c.phraseAt(toks, i, fOpener) > 0
			start = toks[i+n-1].End
			i += n - 1
			continue
		}
		n := c.phraseAt(toks, i, fCommand)
		code = toks[i].code || slices.ContainsFunc(toks[i:i+n], func(t token) bool { return t.code }) // a path, or a command with its flags: rm -rf build
		break
	}
	text := src[start:end]
	if slices.ContainsFunc(cuts, func(cut [2]int) bool { return cut[0] >= start && cut[1] <= end }) {
		var b strings.Builder
		for _, cut := range cuts {
			if cut[0] >= start && cut[1] <= end {
				b.WriteString(src[start:cut[0]])
				start = cut[1]
			}
		}
		b.WriteString(src[start:end])
		text = b.String()
	}
	s := strings.TrimLeft(joinLines(text), " \t\r,;:、")
	if strings.TrimSpace(s) == "" {
		s = src[label:end] // nothing but the words that open it: "Then:"
	}
	s = strings.TrimRight(s, " \t\r,;:、。：；，")
	for _, dash := range []string{" —", " –", " ->", " →"} { // what led on to the next step: "Build it — then deploy it"
		s = strings.TrimSuffix(s, dash)
	}
	if r, n := utf8.DecodeLastRuneInString(s); r == '.' || r == '!' || r == '?' && opened || r == '！' || r == '？' && opened {
		if p, _ := utf8.DecodeLastRuneInString(s[:len(s)-n]); lex.IsWordRune(p) || strings.ContainsRune(")`\"”」", p) {
			s = s[:len(s)-n]
		}
	}
	if code {
		return askonce.ClampTitle(s)
	}
	return askonce.ClampTitle(capitalise(s))
}
