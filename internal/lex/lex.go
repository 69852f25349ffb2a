// Package lex is the one tokenizer and the one yes/no vocabulary of
// askonce: the root package's resolver and answer validation and the rules
// interpreter all read text through it, so that a word means the same
// thing everywhere ("sure" is a yes for the interpreter and for answer
// validation alike, and "notes.md" is never "no").
package lex

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Token is one word of a text, lower-cased, with its byte offsets in the
// source and the clause and sentence it belongs to. Matching is always on
// whole tokens, never on substrings.
type Token struct {
	Text     string // lower case
	Start    int    // byte offsets in the source text
	End      int
	Clause   int // tokens of one clause share this number
	Sentence int // tokens of one sentence share this number
}

// Script is the writing system of a rune, as far as word splitting cares.
type Script int

// The scripts Split tells apart.
const (
	ScriptOther Script = iota
	ScriptHan
	ScriptHiragana
	ScriptKatakana
)

// ScriptOf returns the script of r. It is small enough to inline, so that
// text with no Japanese (every rune below U+2E80) costs no calls.
func ScriptOf(r rune) Script {
	if r < 0x2E80 {
		return ScriptOther
	}
	return scriptOfCJK(r)
}

// scriptOfCJK is ScriptOf for a rune from U+2E80 on.
func scriptOfCJK(r rune) Script {
	switch {
	case unicode.Is(unicode.Han, r):
		return ScriptHan
	case unicode.Is(unicode.Hiragana, r):
		return ScriptHiragana
	case unicode.Is(unicode.Katakana, r) || r == 'ー':
		return ScriptKatakana
	}
	return ScriptOther
}

// IsJapanese reports whether s holds kanji or kana, so that a question
// about it can be written in Japanese.
func IsJapanese(s string) bool {
	for _, r := range s {
		if ScriptOf(r) != ScriptOther {
			return true
		}
	}
	return false
}

// IsWordRune reports whether r is part of a word: a letter, digit or mark.
func IsWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)
}

// demonstratives end a run of hiragana as words of their own: それからこの
// is それから and この, so that このファイル is found after other kana.
var demonstratives = []string{"この", "その", "あの", "どの", "ここ", "そこ", "これ", "それ", "あれ"}

// Split splits s into tokens, appending to toks: the tokens Scan gives.
func Split(s string, toks []Token) []Token {
	Scan(s, func(t Token) { toks = append(toks, t) })
	return toks
}

// Scan gives yield the tokens of s in order.
//
// Tokens are runs of letters and digits, which may also hold '.', '/', '-'
// and '_' (notes.md, src/main.go, force-push, --force) and apostrophes
// between letters (don't). A trailing '.' is not part of a token, except
// that a lone "." is the token ".". Anything else separates tokens.
// Japanese, written without spaces, is split where the script changes
// (kanji, hiragana, katakana, other), except from kanji to hiragana, so
// that a word keeps its kana ending (熱い凍ったチーズ gives 熱い, 凍った,
// チーズ); a demonstrative (この, その, ここ, ...) at the end of a longer
// kana run is a token of its own.
//
// Clauses end at , : ; . ! ? brackets, quotes, line breaks and their
// Japanese forms (、。！？「」); sentences end at . ! ? ; and line breaks.
func Scan(s string, yield func(Token)) {
	var before, last Token // the last two tokens given: a middle initial reads the one before it
	given := 0
	give := func(t Token) {
		before, last = last, t
		given++
		yield(t)
	}
	start := -1
	clause, sentence := 0, 0
	lastScript := ScriptOther
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
		if raw == "." {
			give(Token{Text: ".", Start: start0, End: end, Clause: clause, Sentence: sentence})
			return
		}
		hasAlnum := false
		for _, r := range trimmed {
			if IsWordRune(r) {
				hasAlnum = true
				break
			}
		}
		if hasAlnum {
			text := strings.ToLower(trimmed)
			if strings.Contains(text, "’") {
				text = strings.ReplaceAll(text, "’", "'")
			}
			splitKana(Token{Text: text, Start: start0, End: start0 + len(trimmed), Clause: clause, Sentence: sentence}, give)
		}
		if len(trimmed) < len(raw) && !initials(trimmed) && !(given >= 2 && initialAfterName(s, before, start0, trimmed)) { // a trailing '.' ends the sentence, except after initials (R.R.)
			clause++
			sentence++
		}
	}
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case IsWordRune(r):
			sc := ScriptOf(r)
			if r == 'ー' && prevWord { // the long-vowel mark belongs to its word
				sc = lastScript
			}
			if start >= 0 && prevWord && sc != lastScript && !(lastScript == ScriptHan && sc == ScriptHiragana) {
				emit(i)
			}
			if start < 0 {
				start = i
			}
			lastScript = sc
			prevWord = true
		case r == '.' && start < 0 && loneDot(s, i):
			// A lone "." (the project root) is a token.
			start = i
			emit(i + 1)
			i += size
			continue
		case r == '.' || r == '/' || r == '-' || r == '_':
			if start < 0 {
				start = i
			}
			prevWord = false
		case r == '\'' || r == '’':
			if start >= 0 && prevWord && i+size < len(s) {
				if n, _ := utf8.DecodeRuneInString(s[i+size:]); IsWordRune(n) {
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
			case ',', ':', '、', '，', '：', '「', '」', '『', '』', '(', ')', '[', ']', '{', '}', '（', '）', '"', '“', '”':
				clause++
			}
		}
		i += size
	}
	emit(len(s))
}

// initials reports whether s is initials written with dots between
// single capital letters ("R.R", "U.S.A"): the dot after them is no
// sentence end ("George R.R. Martin").
func initials(s string) bool {
	if len(s) < 3 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; i%2 == 0 && (c < 'A' || c > 'Z') || i%2 == 1 && c != '.' {
			return false
		}
	}
	return len(s)%2 == 1
}

// initialAfterName reports whether t, the token at s[start:] given after
// p, is one capital letter after a capitalised word of the same clause: a
// middle initial ("Ursula K. Le Guin").
func initialAfterName(s string, p Token, start int, t string) bool {
	if len(t) != 1 || t[0] < 'A' || t[0] > 'Z' {
		return false
	}
	c := s[p.Start]
	return 'A' <= c && c <= 'Z' && strings.TrimSpace(s[p.End:start]) == ""
}

// loneDot reports whether the '.' at s[i] stands alone, between white
// space, the ends of s or closing punctuation: "." names the project root.
func loneDot(s string, i int) bool {
	if i > 0 {
		if p, _ := utf8.DecodeLastRuneInString(s[:i]); !unicode.IsSpace(p) && !strings.ContainsRune("\"'“「(（", p) {
			return false
		}
	}
	if i+1 < len(s) {
		if n, _ := utf8.DecodeRuneInString(s[i+1:]); !unicode.IsSpace(n) && !strings.ContainsRune(",;:!?\"'”」)）、。", n) {
			return false
		}
	}
	return true
}

// splitKana gives t, split in two when its kana ends with a
// demonstrative that is not the whole token.
func splitKana(t Token, give func(Token)) {
	r, _ := utf8.DecodeRuneInString(t.Text)
	if ScriptOf(r) != ScriptHan && ScriptOf(r) != ScriptHiragana {
		give(t)
		return
	}
	for _, d := range demonstratives {
		head, ok := strings.CutSuffix(t.Text, d)
		for _, p := range particles {
			if !ok {
				head, ok = strings.CutSuffix(t.Text, d+p)
			}
		}
		if ok && head != "" {
			last, _ := utf8.DecodeLastRuneInString(head)
			if ScriptOf(last) == ScriptKatakana || ScriptOf(last) == ScriptOther {
				continue
			}
			cut := t.Start + len(head)
			if strings.HasSuffix(head, "ん") || strings.HasSuffix(head, "っ") {
				break // not a word boundary
			}
			give(Token{Text: head, Start: t.Start, End: cut, Clause: t.Clause, Sentence: t.Sentence})
			give(Token{Text: d, Start: cut, End: t.End, Clause: t.Clause, Sentence: t.Sentence})
			return
		}
	}
	give(t)
}

// Texts returns the tokens' texts.
func Texts(toks []Token) []string {
	out := make([]string, len(toks))
	for i, t := range toks {
		out[i] = t.Text
	}
	return out
}

// IsHanStart reports whether s starts with a kanji.
func IsHanStart(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return ScriptOf(r) == ScriptHan
}

// HanStem is the leading run of kanji of s: 削除して has the stem 削除.
func HanStem(s string) string {
	for i, r := range s {
		if ScriptOf(r) != ScriptHan {
			return s[:i]
		}
	}
	return s
}

// particles may follow a Japanese word inside a token: ここに is ここ
// followed by に.
var particles = []string{"です", "に", "で", "へ", "を", "は", "が", "の", "も"}

// Bare returns t without a trailing Japanese particle (ここに -> ここ), or
// t itself.
func Bare(t string) string {
	r, _ := utf8.DecodeLastRuneInString(t)
	if ScriptOf(r) != ScriptHiragana {
		return t
	}
	for _, p := range particles {
		if w, ok := strings.CutSuffix(t, p); ok && w != "" {
			return w
		}
	}
	return t
}
