package askonce

import (
	"strings"

	"github.com/askonce/askonce/internal/lex"
)

// Resolve is the semantic resolver (docs/protocol.md rule 6): before a question
// reaches a human, the user's own goal is checked for an answer of the
// question's type. Words match whole tokens, never substrings, so
// "notes.md" does not answer a CONFIRM with "no". It returns the answer and
// true only when the goal names exactly one answer.
//
//   - CONFIRM: a clause of the goal that is only a yes or only a no word
//     ("delete the cache, yes"); a yes/no word inside a longer clause ("there
//     is no other copy", "no backups needed") is not a reply.
//   - TARGET_FILE: an offered file named by its path; else a project-root
//     word (root, root直下, ., ここ, here, ルート) gives ".", whether or not
//     "." is among the options, since the root is always a valid target.
//   - SELECT_ONE: an option named by its words, or a token of three or more
//     letters that is the prefix of a one-word option.
func Resolve(goal string, q *Question) (string, bool) {
	toks := lex.Split(goal, nil)
	var found []string
	switch q.Type {
	case QuestionConfirm:
		yes, no := lex.Replies(toks)
		if yes {
			found = append(found, "yes")
		}
		if no {
			found = append(found, "no")
		}
	case QuestionTargetFile:
		for _, o := range q.Options {
			if o != "." && o != "./" && containsSeq(toks, lex.Split(o, nil)) {
				found = append(found, o)
			}
		}
		if len(found) == 0 && namesRoot(toks) {
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

// namesRoot reports whether toks hold a project-root word; a Japanese word
// may carry a particle (ここに).
func namesRoot(toks []lex.Token) bool {
	for _, w := range lex.RootWords {
		if containsSeq(toks, lex.Split(w, nil)) {
			return true
		}
	}
	return false
}

// containsSeq reports whether the texts of seq occur in toks in a row; a
// token matches with or without a trailing Japanese particle.
func containsSeq(toks, seq []lex.Token) bool {
	if len(seq) == 0 {
		return false
	}
	for i := 0; i+len(seq) <= len(toks); i++ {
		ok := true
		for k := range seq {
			if t := toks[i+k].Text; t != seq[k].Text && lex.Bare(t) != seq[k].Text {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// mentions reports whether the tokens name option o: its tokens appear in
// sequence, or (for a one-token option) a token of at least three letters
// is a prefix of it.
func mentions(toks []lex.Token, o string) bool {
	ot := lex.Split(o, nil)
	if containsSeq(toks, ot) {
		return true
	}
	if len(ot) == 1 {
		for _, t := range toks {
			if len([]rune(t.Text)) >= 3 && strings.HasPrefix(ot[0].Text, t.Text) {
				return true
			}
		}
	}
	return false
}

// Tokens splits text into lower-case whole tokens for word matching, with
// askonce's one tokenizer (the rules interpreter uses the same): white
// space and punctuation separate tokens, '.', '/', '-' and '_' stay inside
// one ("notes.md", "force-push"), and Japanese is split where the script
// changes, a kanji word keeping its kana ending.
func Tokens(text string) []string {
	return lex.Texts(lex.Split(text, nil))
}

// Gater is a gating policy (docs/protocol.md rule 8): it may let a job proceed
// instead of asking q, and returns the assumption to record. The engine
// consults its Interpreter when it implements Gater (the rules interpreter
// does, from its profiles); the result reaches Step as Asked.Gated.
type Gater interface {
	Gate(profile, goal string, q *Question) (assumption string, ok bool)
}

// IsRootAnswer reports whether answer names the project root (root, root直下,
// ., ./, ここ, here, ルート), which is stored as ".".
func IsRootAnswer(answer string) bool {
	return lex.IsRootWord(answer)
}
