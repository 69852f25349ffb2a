package askonce

import (
	"slices"
	"strings"
	"unicode"
)

// rootWords name the project root (PROTOCOL.md rule 6).
var rootWords = []string{"root", "root直下", ".", "ここ", "here", "ルート"}

// Resolve is the semantic resolver (PROTOCOL.md rule 6): before a question
// reaches a human, the user's own goal is checked for an answer of the
// question's type. Words match whole tokens, never substrings, so
// "notes.md" does not answer a CONFIRM with "no". It returns the answer and
// true only when the goal names exactly one answer.
func Resolve(goal string, q *Question) (string, bool) {
	toks := Tokens(goal)
	var found []string
	switch q.Type {
	case QuestionConfirm:
		if hasAny(toks, yesWords) {
			found = append(found, "yes")
		}
		if hasAny(toks, noWords) {
			found = append(found, "no")
		}
	case QuestionTargetFile:
		for _, o := range q.Options {
			if slices.Contains(toks, strings.ToLower(o)) {
				found = append(found, o)
			}
		}
		rootOffered := len(q.Options) == 0 || slices.Contains(q.Options, ".") || slices.Contains(q.Options, "./")
		if len(found) == 0 && rootOffered && hasAny(toks, rootWords) {
			found = append(found, ".")
		}
	case QuestionSelectOne:
		for _, o := range q.Options {
			if mentions(toks, o) {
				found = append(found, o)
			}
		}
	}
	if len(found) != 1 {
		return "", false
	}
	return found[0], true
}

// mentions reports whether the token list names option o: its tokens appear
// in sequence, or (for a one-token option) a token of at least three
// letters is a prefix of it.
func mentions(toks []string, o string) bool {
	ot := Tokens(o)
	if len(ot) == 0 {
		return false
	}
	for i := 0; i+len(ot) <= len(toks); i++ {
		if slices.Equal(toks[i:i+len(ot)], ot) {
			return true
		}
	}
	if len(ot) == 1 {
		for _, t := range toks {
			if len([]rune(t)) >= 3 && strings.HasPrefix(ot[0], t) {
				return true
			}
		}
	}
	return false
}

func hasAny(toks, words []string) bool {
	return slices.ContainsFunc(toks, func(t string) bool { return slices.Contains(words, t) })
}

// Gate is the built-in gating policy (PROTOCOL.md rule 8): in the
// minecraft-mod profile, a block-only goal (the words block, blocks or ore)
// does not ask about a cosmetic contradiction; functional instructions win.
// It returns the assumption to record when the job may proceed.
func Gate(profile, goal string, q *Question) (string, bool) {
	if profile != "minecraft-mod" || !q.Cosmetic {
		return "", false
	}
	if !hasAny(Tokens(goal), []string{"block", "blocks", "ore"}) {
		return "", false
	}
	return "Block-only mod: the cosmetic question \"" + q.Text + "\" was not asked; functional instructions take priority.", true
}

// japaneseParticles may follow a word inside a Japanese token: ここに is ここ
// followed by に.
var japaneseParticles = []string{"です", "に", "で", "へ", "を", "は", "が", "の", "も"}

// Tokens splits text into lower-case whole tokens for word matching. It
// splits on white space and punctuation (ASCII and Japanese) but keeps '.',
// '/', '-' and '_' inside a token, so that "notes.md" and "force-push" stay
// whole; a trailing '.' is dropped unless the token is just ".". Japanese
// has no spaces, so a token that mixes scripts also yields its runs per
// script ("root直下に" -> "root", "直下", "に"), and a kana run ending in a
// common particle also yields the run without it ("ここに" -> "ここ").
func Tokens(text string) []string {
	fields := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		if unicode.IsSpace(r) {
			return true
		}
		switch r {
		case '.', '/', '-', '_':
			return false
		}
		return unicode.IsPunct(r) || unicode.IsSymbol(r)
	})
	out := make([]string, 0, len(fields))
	for _, f := range fields {
		if len(f) > 1 {
			f = strings.TrimRight(f, ".")
		}
		if f == "" {
			continue
		}
		out = append(out, f)
		runs := scriptRuns(f)
		if len(runs) > 1 {
			out = append(out, runs...)
		}
		for _, r := range runs {
			if isCJK([]rune(r)[0]) {
				for _, p := range japaneseParticles {
					if w, ok := strings.CutSuffix(r, p); ok && w != "" {
						out = append(out, w)
					}
				}
			}
		}
	}
	return out
}

// scriptRuns splits s where its script changes: Latin and digits, kanji,
// hiragana, katakana. That is a rough word segmentation for Japanese, whose
// words are often runs of one script ("ここに置いて" -> ここに, 置, いて).
func scriptRuns(s string) []string {
	var runs []string
	start := 0
	prev := -1
	for i, r := range s {
		c := script(r)
		if prev >= 0 && c != prev {
			runs = append(runs, s[start:i])
			start = i
		}
		prev = c
	}
	return append(runs, s[start:])
}

func script(r rune) int {
	switch {
	case unicode.Is(unicode.Han, r):
		return 1
	case unicode.Is(unicode.Hiragana, r):
		return 2
	case unicode.Is(unicode.Katakana, r) || r == 'ー':
		return 3
	}
	return 0
}

func isCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana) || r == 'ー'
}
