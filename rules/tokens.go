package rules

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// token is one word of a text. Matching is always on whole tokens, never
// on substrings, so "notes.md" is not "no" and "scold" is not "cold".
type token struct {
	text     string // lower case
	start    int    // byte offsets in the source text
	end      int
	clause   int // tokens of one clause share this number
	sentence int // tokens of one sentence share this number

	// Filled in by annotate.
	e     *entry // what the profile knows about the word, or nil
	word  string // the lexicon word matched: text, its kanji stem or the typo-corrected word
	fixed bool   // word is a typo correction of text
	neg   bool   // negated ("not cold", "don't delete")
	cue   bool   // a functional cue comes earlier in the same clause
}

const (
	scriptOther = iota
	scriptHan
	scriptHiragana
	scriptKatakana
)

func scriptOf(r rune) int {
	switch {
	case r < 0x2E80:
		return scriptOther
	case unicode.Is(unicode.Han, r):
		return scriptHan
	case unicode.Is(unicode.Hiragana, r):
		return scriptHiragana
	case unicode.Is(unicode.Katakana, r):
		return scriptKatakana
	}
	return scriptOther
}

func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)
}

// tokenize splits s into lower-case tokens, appending to toks. It is the
// one tokeniser of the package: profile words, goals and answers all go
// through it.
//
// Tokens are runs of letters and digits, which may also hold '.', '/', '-'
// and '_' (notes.md, src/main.go, force-push, --force) and apostrophes
// between letters (don't). A trailing '.' is not part of a token. Anything
// else separates tokens. Japanese, written without spaces, is split where
// the script changes (kanji, hiragana, katakana, other), except from kanji
// to hiragana, so that a word keeps its kana ending: 熱い凍ったチーズ gives
// 熱い, 凍った, チーズ.
//
// Clauses end at , : ; . ! ? brackets, line breaks and their Japanese forms
// (、。！？「」); sentences end at . ! ? ; and line breaks.
func tokenize(s string, toks []token) []token {
	start := -1
	clause, sentence := 0, 0
	lastScript := scriptOther
	prevWord := false
	emit := func(end int) {
		if start < 0 {
			return
		}
		raw := s[start:end]
		start0 := start
		start = -1
		prevWord = false
		trimmed := strings.TrimRight(raw, ".")
		hasAlnum := false
		for _, r := range trimmed {
			if isWordRune(r) {
				hasAlnum = true
				break
			}
		}
		if hasAlnum {
			text := strings.ToLower(trimmed)
			if strings.ContainsRune(text, '’') {
				text = strings.ReplaceAll(text, "’", "'")
			}
			toks = append(toks, token{text: text, start: start0, end: start0 + len(trimmed), clause: clause, sentence: sentence})
		}
		if len(trimmed) < len(raw) { // a trailing '.' ends the sentence
			clause++
			sentence++
		}
	}
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case isWordRune(r):
			sc := scriptOf(r)
			if r == 'ー' && prevWord { // the long-vowel mark belongs to its word
				sc = lastScript
			}
			if start >= 0 && prevWord && sc != lastScript && !(lastScript == scriptHan && sc == scriptHiragana) {
				emit(i)
			}
			if start < 0 {
				start = i
			}
			lastScript = sc
			prevWord = true
		case r == '.' || r == '/' || r == '-' || r == '_':
			if start < 0 {
				start = i
			}
			prevWord = false
		case r == '\'' || r == '’':
			if start >= 0 && prevWord && i+size < len(s) {
				if n, _ := utf8.DecodeRuneInString(s[i+size:]); isWordRune(n) {
					prevWord = false
					break
				}
			}
			emit(i)
		default:
			emit(i)
			switch r {
			case '\n', '!', '?', ';', '。', '！', '？', '；':
				clause++
				sentence++
			case ',', ':', '、', '，', '：', '「', '」', '『', '』', '(', ')', '[', ']', '{', '}', '（', '）':
				clause++
			}
		}
		i += size
	}
	emit(len(s))
	return toks
}

func isHanStart(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return r >= 0x2E80 && unicode.Is(unicode.Han, r)
}

// hanStem is the leading run of kanji of s.
func hanStem(s string) string {
	for i, r := range s {
		if r < 0x2E80 || !unicode.Is(unicode.Han, r) {
			return s[:i]
		}
	}
	return s
}

// jaNegated reports a Japanese word negated by its ending (削除しない).
func jaNegated(s string) bool {
	if !isHanStart(s) {
		return false
	}
	rest := s[len(hanStem(s)):]
	return strings.Contains(rest, "ない") || strings.Contains(rest, "ません") ||
		strings.Contains(rest, "なく") || strings.Contains(rest, "なし")
}

// annotate looks every token up in the profile's lexicon (exactly, by its
// kanji stem, or with typo tolerance) and marks negation and functional
// cues.
func (c *compiled) annotate(toks []token) []token {
	cueClause := -1
	for i := range toks {
		t := &toks[i]
		t.word = t.text
		if e := c.lex[t.text]; e != nil {
			t.e = e
		} else if isHanStart(t.text) {
			if stem := hanStem(t.text); stem != t.text {
				if e := c.lex[stem]; e != nil {
					t.e, t.word = e, stem
				}
			}
		} else if len(c.typo) > 0 {
			if w, e := c.correct(t.text); e != nil {
				t.e, t.word, t.fixed = e, w, true
			}
		}
		if t.clause == cueClause {
			t.cue = true
		}
		if t.e.has(fCue) {
			cueClause = t.clause
		}
		t.neg = negated(toks, i)
	}
	return toks
}

// negated reports whether toks[i] is cancelled by a negation directly
// before it, or with one stop word between ("not a cold one"), in the
// same clause.
func negated(toks []token, i int) bool {
	t := &toks[i]
	if jaNegated(t.text) {
		return true
	}
	if i < 1 || toks[i-1].clause != t.clause {
		return false
	}
	p := &toks[i-1]
	if p.e.has(fNeg) {
		return true
	}
	return i >= 2 && toks[i-2].clause == t.clause && toks[i-2].e.has(fNeg) && p.e.has(fStop)
}

// correct finds the one concept word at Damerau-Levenshtein distance 1
// from text. Only tokens of five or more letters are corrected, only to a
// word with the same first letter, and never a token the lexicon knows
// (stop words and known words are in the lexicon, so "could" never becomes
// "cold"). A token close to two words of different meaning is left alone.
func (c *compiled) correct(text string) (string, *entry) {
	n := utf8.RuneCountInString(text)
	if n < 5 || n > 32 || strings.ContainsAny(text, "./_0123456789'") {
		return "", nil
	}
	first, _ := utf8.DecodeRuneInString(text)
	cands := c.typo[first]
	if len(cands) == 0 {
		return "", nil
	}
	var buf [32]rune
	tr := buf[:0]
	for _, r := range text {
		tr = append(tr, r)
	}
	var found *typoWord
	for i := range cands {
		if !withinOne(tr, cands[i].runes) {
			continue
		}
		if found == nil {
			found = &cands[i]
		} else if found.e.sig != cands[i].e.sig {
			return "", nil
		}
	}
	if found == nil {
		return "", nil
	}
	return found.word, found.e
}

// withinOne reports whether a and b are at most one edit apart, an edit
// being an insertion, a deletion, a substitution or a transposition of
// two adjacent letters (optimal string alignment distance).
func withinOne(a, b []rune) bool {
	if len(a) > len(b) {
		a, b = b, a
	}
	if len(b)-len(a) > 1 {
		return false
	}
	i := 0
	for i < len(a) && a[i] == b[i] {
		i++
	}
	if i == len(a) {
		return true
	}
	if len(a) == len(b) {
		if runesEqual(a[i+1:], b[i+1:]) {
			return true
		}
		return i+1 < len(a) && a[i] == b[i+1] && a[i+1] == b[i] && runesEqual(a[i+2:], b[i+2:])
	}
	return runesEqual(a[i:], b[i+1:])
}

func runesEqual(a, b []rune) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// phraseAt returns how many tokens from toks[i] form a word or phrase with
// role f (0 if none), preferring the longest phrase. Phrases stay within
// one clause.
func (c *compiled) phraseAt(toks []token, i int, f flag) int {
	best := 0
	for _, ph := range c.phrases[toks[i].text] {
		if ph.flag != f || len(ph.toks) > len(toks)-i || len(ph.toks) <= best {
			continue
		}
		ok := true
		for k := 1; k < len(ph.toks); k++ {
			if toks[i+k].text != ph.toks[k] || toks[i+k].clause != toks[i].clause {
				ok = false
				break
			}
		}
		if ok {
			best = len(ph.toks)
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
	if t.e.has(fStop) {
		return false
	}
	for _, r := range t.text {
		if unicode.IsLetter(r) {
			return true
		}
	}
	return false
}

// countWords counts runs of letters and digits: the rules interpreter's
// stand-in for tokens in Usage.
func countWords(b []byte) int64 {
	var n int64
	in := false
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		b = b[size:]
		w := isWordRune(r)
		if w && !in {
			n++
		}
		in = w
	}
	return n
}
