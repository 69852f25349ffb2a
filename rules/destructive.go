package rules

import (
	"fmt"
	"strings"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/internal/lex"
)

// destructions is the destructive detector's result: the actions found,
// whether the answer confirmed them, and the goal tokens to drop from the
// plan when they are not confirmed.
type destructions struct {
	actions     []action
	confirmed   bool
	dropped     []bool
	q           *askonce.Question
	assumptions []string
}

// action is one destructive action: goal tokens [t0, t1) and their text.
type action struct {
	t0, t1 int
	text   string
}

func (d *destructions) open() *askonce.Question { return d.q }
func (d *destructions) assumed() []string       { return d.assumptions }

// detectDestructive finds actions whose loss an agent can cause and cannot
// undo: a destructive command ("rm -rf", "git push --force", "drop table"),
// or a destructive verb ("delete", "drop", "wipe", 削除) whose object in
// the same clause is data — a file or path, a directory, branch, commit,
// table, database, record, user, deployment or cloud resource (the
// profile's objects). "Wipe the counter" and "remove the stain" are not
// destructive; a negated verb ("don't delete") is not either.
//
// It asks CONFIRM (reason target_file_exists, default "no"). A reply of
// yes keeps the actions; no, or no reply under a directive, drops them
// from the plan with an assumption.
func detectDestructive(in *input) destructions {
	d := destructions{dropped: make([]bool, len(in.gt))}
	toks := in.gt
	for i := 0; i < len(toks); {
		if toks[i].neg {
			i++
			continue
		}
		n := in.c.phraseAt(toks, i, fCommand)
		t0 := i
		if n == 0 {
			if v := in.c.phraseAt(toks, i, fDestructive); v > 0 {
				if o := objectOf(in, i, v); o >= 0 {
					n = v
					if o < i {
						t0 = o // Japanese: the object comes first (ログを削除して)
					}
				}
			}
		}
		if n == 0 {
			i++
			continue
		}
		j := i + n
		for j < len(toks) && j-i < 8 && toks[j].Clause == toks[i].Clause &&
			!toks[j].e.has(fConj) && in.c.phraseAt(toks, j, fStepSep) == 0 && !lex.IsJapanese(toks[i].Text) {
			j++
		}
		d.actions = append(d.actions, action{t0: t0, t1: j, text: in.span(t0, j)})
		i = j
	}
	if len(d.actions) == 0 {
		return d
	}
	texts := make([]string, len(d.actions))
	for i, a := range d.actions {
		texts[i] = a.text
	}
	list := in.quoteList(texts, "and")
	yes, no := lex.Replies(lexTokens(in.at))
	switch {
	case yes && !no:
		d.confirmed = true
		return d
	case no && !yes:
		d.assumptions = append(d.assumptions, fmt.Sprintf("Skipped %s: the destructive action was declined.", list))
	default:
		text := fmt.Sprintf("The goal asks to %s, which cannot be undone. Proceed?", list)
		if in.japanese {
			text = fmt.Sprintf("%sは元に戻せません。実行しますか？", list)
		}
		d.q = &askonce.Question{
			Type:    askonce.QuestionConfirm,
			Text:    text,
			Options: []string{"yes", "no"},
			Reason:  "target_file_exists",
			Default: "no",
		}
		d.assumptions = append(d.assumptions, fmt.Sprintf("Skipped %s: a destructive action needs an explicit yes, and none was given.", list))
	}
	for _, a := range d.actions {
		for k := a.t0; k < a.t1; k++ {
			d.dropped[k] = true
		}
	}
	return d
}

// objectOf finds the data object of the destructive verb at toks[i:i+n]: an
// object word or a path in the next six tokens of its clause, before any
// preposition (for a Japanese verb, the four tokens before it). It returns the object's token or -1.
func objectOf(in *input, i, n int) int {
	toks := in.gt
	data := func(k int) bool {
		t := &toks[k]
		return !t.quoted && (t.e.has(fObject) || isPath(t.Text))
	}
	if lex.IsJapanese(toks[i].Text) {
		for k := i - 1; k >= 0 && k >= i-4 && toks[k].Clause == toks[i].Clause; k-- {
			if data(k) {
				return k
			}
		}
		return -1
	}
	for k := i + n; k < len(toks) && k < i+n+6 && toks[k].Clause == toks[i].Clause; k++ {
		// The direct object comes before a preposition or condition:
		// "remove the imports from main.go" removes imports.
		if toks[k].e.has(fConj) || toks[k].e.has(fPrep) || toks[k].e.has(fCondition) || in.c.phraseAt(toks, k, fStepSep) > 0 {
			break
		}
		if toks[k].idiom {
			continue
		}
		if data(k) {
			return k
		}
	}
	return -1
}

// isPath reports whether a token is a file or directory path: it holds a
// '/' or a '.' between letters (notes.md, src/, ./build), and a letter.
func isPath(s string) bool {
	if !strings.ContainsAny(s, "./") || strings.Trim(s, "./-_") == "" {
		return false
	}
	letter := false
	for _, r := range s {
		if lex.IsWordRune(r) && !('0' <= r && r <= '9') {
			letter = true
		}
	}
	if !letter {
		return false
	}
	if strings.Contains(s, "/") {
		return true
	}
	i := strings.LastIndexByte(s, '.')
	return i > 0 && i < len(s)-1
}

// lexTokens unwraps annotated tokens.
func lexTokens(toks []token) []lex.Token {
	out := make([]lex.Token, len(toks))
	for i := range toks {
		out[i] = toks[i].Token
	}
	return out
}
