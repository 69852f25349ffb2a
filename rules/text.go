package rules

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/internal/lex"
)

// A plan quotes the user (docs/protocol.md rule 16): every task's text is
// a span of the goal or the answer, cut only where a reader sees a step
// boundary. Nothing here rebuilds text from tokens.

// codeMask marks the bytes of src that are code-like and so opaque:
// back-ticked spans, quoted strings, and words that are paths, globs,
// flags, KEY=value, URLs, versions, file names or identifiers. No step
// boundary falls inside one and no detector reads inside one as words.
// quoted marks the quoted strings alone, marks included: their words keep
// their roles, as a title's or a literal's.
func codeMask(src string) (out, quoted []bool) {
	out, quoted = make([]bool, len(src)), make([]bool, len(src))
	mark := func(m []bool, s, e int) {
		for i := s; i < e; i++ {
			m[i] = true
		}
	}
	for i := 0; i < len(src); {
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
		mark(out, open, i)
	}
	for _, q := range quotedRanges(src) {
		_, n := utf8.DecodeRuneInString(src[q[1]:])
		mark(out, q[0], q[1]+n)
		mark(quoted, q[0], q[1]+n)
	}
	for start := 0; start < len(src); {
		start += len(src[start:]) - len(strings.TrimLeftFunc(src[start:], separator))
		end := len(src)
		if n := strings.IndexFunc(src[start:], separator); n >= 0 {
			end = start + n
		}
		if s, e := coreOf(src, start, end); e > s && codeLike(src[s:e]) {
			mark(out, s, e)
		}
		start = end
	}
	return out, quoted
}

func isSpaceAt(s string, i int) bool {
	r, _ := utf8.DecodeRuneInString(s[i:])
	return unicode.IsSpace(r)
}

// separator reports white space or Japanese: Japanese, written without
// spaces, ends a word of code (notes.mdを削除して).
func separator(r rune) bool {
	return unicode.IsSpace(r) || lex.ScriptOf(r) != lex.ScriptOther
}

// coreOf is a white-space-delimited word src[start:end] without the
// punctuation a sentence puts around it: opening brackets and quotes, and
// closing ones, commas, colons and one sentence-ending mark after a
// letter or digit ("notes.md." is notes.md; "./..." keeps its dots).
func coreOf(src string, start, end int) (int, int) {
	for start < end && strings.ContainsRune(`("'“‘[<`, rune(src[start])) {
		start++
	}
	for end > start {
		r, n := utf8.DecodeLastRuneInString(src[start:end])
		switch {
		case strings.ContainsRune(`,;:!?)]>"'”’`, r) && !(r == '?' && strings.ContainsRune(src[start:end-n], '*')):
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

// codeLike reports whether a word is code a reader would not read as
// prose: a URL, a path or glob, a flag, KEY=value, a variable, a version
// or dotted name (v1.2.3, a.b.c, notes.md), or an identifier with '_'.
// Abbreviations (e.g., i.e.) and initials (R.R.) are prose.
func codeLike(w string) bool {
	low := strings.ToLower(strings.TrimSuffix(w, "."))
	switch {
	case w == "" || vocab.has("abbreviations", low) || initialsLike(w):
		return false
	case strings.Contains(w, "://") || strings.HasPrefix(low, "www."):
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

// splitSteps finds the steps of src: the items of a numbered or bulleted
// list (two or more "1." "2)" "-" "*" lines; lines before the first item
// are a preamble, not a step), else the text cut where a reader sees a
// step boundary: a sentence end (not a dot inside code, an abbreviation
// or initials), a line break, a semicolon, and before a step separator
// ("then", "and then", "afterwards"; not the "then" of "if ..., then").
// Every byte of src outside list markers belongs to one step, so the
// steps, joined, are the text.
func (c *compiled) splitSteps(src string, toks []token) []step {
	if steps := c.listSteps(src, toks); len(steps) > 0 {
		return steps
	}
	code, _ := codeMask(src)
	cuts := []int{0}
	for i, r := range src {
		if code[i] {
			continue
		}
		n := i + utf8.RuneLen(r)
		switch {
		case strings.ContainsRune("\n;。！？；", r):
			cuts = append(cuts, n)
		case strings.ContainsRune(".!?", r) && (n == len(src) || isSpaceAt(src, n)) && !abbreviationBefore(src, i):
			cuts = append(cuts, n)
		}
	}
	for i := 0; i < len(toks); i++ {
		n := c.phraseAt(toks, i, fStepSep)
		if n == 0 || toks[i].code {
			continue
		}
		at := i
		if i > 0 && toks[i-1].Clause == toks[i].Clause && toks[i-1].e.has(fConj) {
			at = i - 1 // "and then"
		}
		if !c.conditional(toks, at) {
			cuts = append(cuts, toks[at].Start)
		}
		i += n - 1
	}
	cuts = append(cuts, len(src))
	slices.Sort(cuts)
	var steps []step
	for k := 0; k+1 < len(cuts); k++ {
		s, e := cuts[k], cuts[k+1]
		if strings.IndexFunc(src[s:e], lex.IsWordRune) < 0 {
			if len(steps) > 0 {
				steps[len(steps)-1].end = e // punctuation joins the step before
			} else if k+2 < len(cuts) {
				cuts[k+1] = s // or the step after
			}
			continue
		}
		steps = append(steps, step{start: s, end: e})
	}
	return c.finishSteps(src, toks, steps)
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

// listMarker returns where the text of a list item starts in line, or -1
// when the line is not a list item ("1. ", "2) ", "- ", "* ", "• ").
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
	case strings.HasPrefix(line[i:], "•") || strings.HasPrefix(line[i:], "・"):
		return i + len("•")
	}
	return -1
}

// listSteps returns the items of a list of two or more items, or nil. A
// line that is no item continues the item before it.
func (c *compiled) listSteps(src string, toks []token) []step {
	var items []step
	for pos := 0; pos < len(src); {
		end := strings.IndexByte(src[pos:], '\n')
		if end < 0 {
			end = len(src)
		} else {
			end += pos
		}
		if m := listMarker(src[pos:end]); m >= 0 {
			items = append(items, step{start: pos + m, end: end})
		} else if len(items) > 0 && strings.TrimSpace(src[pos:end]) != "" {
			items[len(items)-1].end = end
		}
		pos = end + 1
	}
	if len(items) < 2 {
		return nil
	}
	return c.finishSteps(src, toks, items)
}

// titleOf is a plan's or a job's title: the first line of the goal as
// written, its first letter upper case as a title's is (task texts keep
// the user's case).
func titleOf(goal string) string {
	return askonce.ClampTitle(capitalise(firstLine(goal)))
}

// firstLine is the first non-empty line of s without its list marker and
// the punctuation that ends it: the plan's title, as written.
func firstLine(s string) string {
	for line := range strings.SplitSeq(s, "\n") {
		if m := listMarker(line); m >= 0 {
			line = line[m:]
		}
		if t := strings.TrimRight(strings.TrimSpace(line), " .,;:。、"); t != "" {
			return t
		}
	}
	return ""
}
