package rules

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/askonce/askonce/internal/lex"
)

// token is one word of a text, as askonce's one tokenizer (internal/lex)
// splits it, with what the profile knows about it. Matching is always on
// whole tokens, never on substrings, so "notes.md" is not "no" and "scold"
// is not "cold".
type token struct {
	lex.Token

	// Filled in by annotate.
	e       *entry   // what the profile knows about the word, or nil
	opens   *opening // the profile's phrases that open with the word, or nil
	word    string   // the lexicon word matched: text, or its kanji stem
	neg     bool     // negated ("not cold", "don't delete")
	cue     bool     // a functional cue comes earlier in the same clause
	idiom   bool     // part of an idiom ("hot path"): not a concept word
	quoted  bool     // inside quotation marks: a title or a literal
	capital bool     // written with a capital first letter and lower case after it
	code    bool     // inside code-like text (a path, flag, URL, back-ticked span): no word
}

// tokenize splits s with the one tokenizer and wraps the tokens.
func tokenize(s string) []token {
	toks := make([]token, 0, strings.Count(s, " ")+1) // about one token a space: one allocation for most texts
	lex.Scan(s, func(t lex.Token) { toks = append(toks, token{Token: t}) })
	return toks
}

// jaNegated reports a Japanese word negated by its ending (削除しない).
func jaNegated(s string) bool {
	if !lex.IsHanStart(s) {
		return false
	}
	rest := s[len(lex.HanStem(s)):]
	return slices.ContainsFunc(vocab.lists["jaNegativeEndings"], func(e string) bool { return strings.Contains(rest, e) })
}

// annotate looks every token up in the profile's lexicon (exactly, by its
// kanji stem, or by a destructive verb that ends the stem: a compound's
// head) and marks negation, functional cues, quotes and idioms.
func (c *compiled) annotate(src string, l layout) []token {
	toks := tokenize(src)
	joined := 0 // line breaks inside a sentence (goesOn) so far: lex ends a sentence and a clause at each
	for i := 1; i < len(toks); i++ {
		gap := src[toks[i-1].End:toks[i].Start]
		if nl := strings.IndexByte(gap, '\n'); nl >= 0 && !strings.ContainsAny(gap, ".!?;。！？；") && strings.Count(gap, "\n") == 1 && !l.code[toks[i-1].End+nl] && goesOn(src, toks[i-1].End+nl) {
			joined++
		}
		toks[i].Sentence -= joined
		toks[i].Clause -= joined
	}
	cueClause := -1
	code, quoted := l.code, l.quoted
	for i := range toks {
		t := &toks[i]
		t.word = t.Text
		t.opens = c.phrases[t.Text]
		if t.code = code[t.Start] && !quoted[t.Start]; t.code {
			// opaque: no role, so no detector reads it as a word
		} else if e := c.lex[t.Text]; e != nil {
			t.e = e
		} else if lex.IsHanStart(t.Text) && t.Text[len(lex.HanStem(t.Text)):] == "の" {
			// 次の modifies the noun after it: no verb, no 次に
		} else if lex.IsHanStart(t.Text) {
			stem := lex.HanStem(t.Text)
			for r, k := []rune(stem), 0; k == 0 || k+2 <= len(r); k++ { // the stem, or a destructive verb as its head: 全部削除 is a 削除
				if e := c.lex[string(r[k:])]; e != nil && (k == 0 || e.has(fDestructive)) {
					t.e, t.word = e, string(r[k:])
					break
				}
			}
			for r, k := []rune(t.Text), 1; t.e == nil && k < len([]rune(stem)); k++ { // with its kana: 全部消して is a 消して
				if e := c.lex[string(r[k:])]; e != nil && e.has(fDestructive) {
					t.e, t.word = e, string(r[k:])
				}
			}
		} else if b := lex.Bare(t.Text); b != t.Text && c.lex[b] != nil {
			t.e, t.word = c.lex[b], b
		}
		t.quoted = quoted[t.Start]
		raw := src[t.Start:t.End]
		r, n := utf8.DecodeRuneInString(raw)
		t.capital = unicode.IsUpper(r) && strings.ToUpper(raw[n:]) != raw[n:]
		if t.Clause == cueClause {
			t.cue = true
		}
		if t.e.has(fCue) {
			cueClause = t.Clause
		}
		t.neg = negated(toks, i)
	}
	for i := 0; i < len(toks); i++ {
		o := toks[i].opens
		if o == nil || !o.sides {
			continue
		}
		for _, ph := range o.phrases {
			if ph.side != nil && !toks[i].code && ph.at(toks, i) {
				e := &entry{sides: []sideRef{*ph.side}}
				for k := i; k < i+len(ph.toks); k++ {
					toks[k].e, toks[k].word = e, ph.side.display
				}
				i += len(ph.toks) - 1
				break
			}
		}
	}
	for i := 0; i < len(toks); i++ {
		if n := c.phraseAt(toks, i, fIdiom); n > 0 {
			for k := i; k < i+n; k++ {
				toks[k].idiom = true
			}
			i += n - 1
		}
	}
	return toks
}

// quotedRanges are the byte ranges of src inside quotation marks ("...",
// “...”, 「...」, 『...』, and '...' or ‘...’ around words, not an
// apostrophe), each from its opening mark to its closing one.
func quotedRanges(src string) [][2]int {
	var out [][2]int
	open := -1
	var closer rune
	word := func(i int) bool { // a letter or digit at byte i
		r, _ := utf8.DecodeRuneInString(src[i:])
		return i < len(src) && lex.IsWordRune(r)
	}
	for i, r := range src {
		n := i + utf8.RuneLen(r)
		single := r == '\'' || r == '‘' || r == '’'
		switch {
		case open >= 0 && r == closer && (!single || n == len(src) || !word(n)):
			out = append(out, [2]int{open, i})
			open = -1
		case open < 0 && closerOf(r) != 0 && (!single || (i == 0 || !word(i-1)) && n < len(src) && word(n)):
			open = i
			closer = closerOf(r)
		}
	}
	return out
}

// closerOf is the quotation mark that closes one opened with r, or 0 when
// r opens no quotation.
func closerOf(r rune) rune {
	switch r {
	case '"', '\'':
		return r
	case '“':
		return '”'
	case '「':
		return '」'
	case '『':
		return '』'
	case '‘':
		return '’'
	}
	return 0
}

// negated reports whether toks[i] is cancelled by a negation directly
// before it, or with one stop word between ("not a cold one"), in the
// same clause.
func negated(toks []token, i int) bool {
	t := &toks[i]
	if jaNegated(t.Text) {
		return true
	}
	if i < 1 || toks[i-1].Clause != t.Clause {
		return false
	}
	p := &toks[i-1]
	if p.e.has(fNeg) {
		return true
	}
	return i >= 2 && toks[i-2].Clause == t.Clause && toks[i-2].e.has(fNeg) && p.e.has(fStop)
}

// phraseAt returns how many tokens from toks[i] form a word or phrase with
// role f (0 if none), preferring the longest phrase. Phrases stay within
// one clause. toks are annotated (annotate).
func (c *compiled) phraseAt(toks []token, i int, f flag) int {
	best := 0
	if o := toks[i].opens; o != nil && o.flags&f != 0 {
		for k := range o.phrases {
			if ph := &o.phrases[k]; ph.flag == f && len(ph.toks) > best && ph.at(toks, i) {
				best = len(ph.toks)
			}
		}
	}
	if best == 0 && toks[i].e.has(f) {
		best = 1
	}
	return best
}

// content reports whether t carries meaning: it has a letter and is not a
// stop word.
func content(t *token) bool {
	return !t.e.has(fStop) && strings.IndexFunc(t.Text, unicode.IsLetter) >= 0
}

// command is one imperative command of a text: its main verb at
// toks[verb], and the tokens [start, end) that belong to it (the words
// that open it, "then", "please", before the verb).
type command struct {
	start, verb, end int
}

// commands finds the commands of a text: a clause, or a part after "and"
// or "then", whose first word after connectors ("first", "just") or request
// openers ("can you") is its main verb.
// A sentence that asks the agent something else holds none, nor a clause
// that opens with a closed-class word ("the parser should...", "don't
// delete ..."), a number or Japanese (the destructive check reads its
// verb last).
func (c *compiled) commands(src string, toks []token) []command {
	var out []command
	start, opening := 0, c.openingEnd(toks, 0)
	for i := 0; i <= len(toks); i++ {
		boundary := i == len(toks) || i > start && toks[i].Sentence != toks[i-1].Sentence || (i > opening && (toks[i].Clause != toks[i-1].Clause || toks[i].e.has(fConj) && !toks[i].e.has(fOr) || c.phraseAt(toks, i, fStepSep) > 0))
		if !boundary {
			continue
		}
		if i > start {
			if v := c.mainVerb(src, toks, start, i); v >= 0 {
				out = append(out, command{start: start, verb: v, end: i})
			}
		}
		start, opening = i, c.openingEnd(toks, i) // no "and" in the words that open a command ends it: "go ahead and delete it"
	}
	return out
}

// openingEnd is where the words that open a command at toks[i] end (the
// first token after them; openingAt).
func (c *compiled) openingEnd(toks []token, i int) int {
	for i < len(toks) && c.openingAt(toks, i) > 0 {
		i += c.openingAt(toks, i)
	}
	return i
}

// mainVerb is the main verb of the command in toks[t0:t1], or -1. A
// decision question ("should we use Go or Rust?") is the user's own
// question, to answer, not a command.
func (c *compiled) mainVerb(src string, toks []token, t0, t1 int) int {
	for t0 < t1 && c.openingAt(toks, t0) > 0 {
		t0 += c.openingAt(toks, t0)
	}
	if t0 >= t1 || c.asksAgent(src, toks, t0) {
		return -1
	}
	if strings.HasSuffix(toks[t0].Text, "ly") && t0+1 < t1 && c.phraseAt(toks, t0+1, fDestructive) > 0 {
		t0++ // an adverb before a destructive verb: "permanently delete"
	}
	t := &toks[t0]
	if t.neg || t.e.has(fDet|fNeg|fQuestion|fPrep|fStop|fCondition|fPlaceholder) || number(t.Text) || lex.IsJapanese(t.Text) || inflected(t.Text) {
		return -1
	}
	return t0
}

// openingAt is how many tokens from toks[i] are words that open a
// command before its verb, 0 if none: a request opener ("can you"), a
// step separator ("and then", "after that"), or a connector or
// conjunction other than "or" ("first", "and").
func (c *compiled) openingAt(toks []token, i int) int {
	n := max(c.phraseAt(toks, i, fStepSep), c.phraseAt(toks, i, fOpener))
	if t := &toks[i]; n == 0 && !t.code && t.e.has(fConj|fConnector) && !t.e.has(fOr) {
		n = 1
	}
	return n
}

// inflected reports whether an English word is a verb's -ing or -ed form,
// which an imperative never is: after "and" it continues the clause before
// ("... are quitting social media and deleting their accounts"), it does
// not start a command. Short words and -eed words are base forms (bring,
// embed, feed, proceed).
func inflected(w string) bool {
	switch {
	case len(w) > 5 && strings.HasSuffix(w, "ing"):
		return true
	case len(w) > 5 && strings.HasSuffix(w, "ed") && !strings.HasSuffix(w, "eed"):
		return true
	}
	return false
}

// asksAgent reports whether the sentence of toks[i] asks the agent
// something rather than telling it what to do: it opens with a question
// word ("is", "which", "should we") and no request opener ("can you"),
// or it ends with a question mark (or Japanese か) and does not open with
// a command's verb. A user's own question is never handed back.
func (c *compiled) asksAgent(src string, toks []token, i int) bool {
	s := toks[i].Sentence
	first := i
	for first > 0 && toks[first-1].Sentence == s {
		first--
	}
	for first < i && (toks[first].e.has(fConnector) || toks[first].e.has(fConj)) {
		first++
	}
	if c.phraseAt(toks, first, fOpener) > 0 {
		return false
	}
	if toks[first].e.has(fQuestion) && (!toks[first].e.has(fCondition) || questionMarked(src, toks, i)) {
		return true // not a condition: "when the tests pass, run it" tells
	}
	f := &toks[first]
	return questionMarked(src, toks, i) && (f.e.has(fDet|fNeg|fPrep|fStop|fPlaceholder) || lex.IsJapanese(f.Text))
}

// questionMarked reports whether the sentence of toks[i] ends with a
// question mark (or Japanese か).
func questionMarked(src string, toks []token, i int) bool {
	last := i
	for last+1 < len(toks) && toks[last+1].Sentence == toks[i].Sentence {
		last++
	}
	rest := strings.TrimSpace(src[toks[last].End:])
	return strings.HasPrefix(rest, "?") || strings.HasPrefix(rest, "？") || strings.HasSuffix(toks[last].Text, "か")
}

// before reports whether a word with role f (a negation, a word that
// leaves the choice free) comes before toks[i] in its sentence.
func (c *compiled) before(toks []token, i int, f flag) bool {
	for k := i - 1; k >= 0 && toks[k].Sentence == toks[i].Sentence; k-- {
		if c.phraseAt(toks, k, f) > 0 || f&fNeg != 0 && jaNegated(toks[k].Text) {
			return true
		}
	}
	return false
}

// governor is the word before toks[at] in its sentence, past
// determiners, with "instead of" read as "instead": the word that says
// what a value is to the goal ("to production", "than the tiny one",
// "from daily", "instead of private"), or "" at the sentence's start.
func governor(toks []token, at int) string {
	i := at - 1
	for i >= 0 && toks[i].e.has(fDet) {
		i--
	}
	switch {
	case i < 0 || toks[i].Sentence != toks[at].Sentence:
		return ""
	case toks[i].Text == "of" && i > 0 && toks[i-1].Text == "instead":
		return "instead"
	}
	return toks[i].Text
}

// negatedClause reports whether toks[i] is negated or follows a negation
// in its clause ("don't touch the cup", "careful not to break the yolk or
// ...").
func negatedClause(toks []token, i int) bool {
	for k := i; k >= 0 && toks[k].Clause == toks[i].Clause; k-- {
		if toks[k].neg || toks[k].e.has(fNeg) {
			return true
		}
	}
	return false
}

// number reports whether s is a number (15, 2.5, 10%).
func number(s string) bool {
	s = strings.TrimSuffix(s, "%")
	return s != "" && allBytes(s, func(b byte) bool { return '0' <= b && b <= '9' || b == '.' || b == ',' })
}

// count reports whether s is a whole number that can count things: 2,
// 12; not 1.3 (a version) or 10%.
func count(s string) bool {
	return s != "" && allBytes(s, func(b byte) bool { return '0' <= b && b <= '9' })
}

// allBytes reports whether ok holds for every byte of s (true for "").
// It is strings.Trim(s, set) == "" for an ASCII set, without building the
// set on every call.
func allBytes(s string, ok func(byte) bool) bool {
	for i := 0; i < len(s); i++ {
		if !ok(s[i]) {
			return false
		}
	}
	return true
}

// mostlyJapanese reports whether most of s is written in Japanese: its
// kanji and kana outnumber twice its other words, so that one stray
// character in English text keeps the question English, and a Japanese
// sentence naming a file (notes.mdを削除して) stays Japanese.
func mostlyJapanese(s string) bool {
	ja, other := 0, 0 // Japanese runes, and words in other scripts
	inWord := false
	for _, r := range s {
		sc := lex.ScriptOf(r)
		if sc != lex.ScriptOther {
			ja++
		}
		word := sc == lex.ScriptOther && lex.IsWordRune(r)
		if word && !inWord {
			other++
		}
		inWord = word
	}
	return ja >= 2 && ja >= 2*other
}
