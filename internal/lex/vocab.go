package lex

import (
	"slices"
	"strings"
)

// YesWords and NoWords are askonce's one yes/no vocabulary: a CONFIRM
// answer made of one of them is valid and normalised to "yes" or "no",
// the resolver reads a goal's reply with them, and the rules interpreter
// reads a resolved prompt's answer with them. An entry of several words is
// matched as a whole reply ("go ahead").
var (
	YesWords = []string{"yes", "y", "ok", "okay", "sure", "yep", "yeah", "confirm", "confirmed", "proceed", "go ahead",
		"はい", "うん", "ええ", "お願いします", "どうぞ"}
	NoWords = []string{"no", "n", "nope", "cancel", "skip", "don't", "dont", "do not", "stop",
		"いいえ", "いや", "やめて", "いらない", "ダメ", "だめ"}
)

// RootWords name the project root (docs/protocol.md rule 6); each resolves a
// TARGET_FILE question to ".".
var RootWords = []string{"root", "root直下", ".", "ここ", "here", "ルート"}

// Reply reads a whole reply as a confirmation: "yes" or "no" when the text,
// lower-cased and without surrounding punctuation and white space, is one
// of the vocabulary's words, else "".
func Reply(s string) string {
	w := strings.Join(strings.Fields(strings.ToLower(strings.Trim(s, " \t\r\n.!?。！？、,"))), " ")
	w = strings.ReplaceAll(w, "’", "'")
	switch {
	case slices.Contains(YesWords, w):
		return "yes"
	case slices.Contains(NoWords, w):
		return "no"
	}
	return ""
}

// Replies reports whether text holds a yes and whether it holds a no as a
// reply: a clause that is only a vocabulary word ("delete it, yes" holds a
// yes; "delete notes.md, there is no other copy" and "no backups needed"
// hold no reply at all).
func Replies(toks []Token) (yes, no bool) {
	for i := 0; i < len(toks); {
		j := i
		for j < len(toks) && toks[j].Clause == toks[i].Clause {
			j++
		}
		words := make([]string, 0, j-i)
		for _, t := range toks[i:j] {
			words = append(words, t.Text)
		}
		switch Reply(strings.Join(words, " ")) {
		case "yes":
			yes = true
		case "no":
			no = true
		}
		i = j
	}
	return yes, no
}

// IsRootWord reports whether s, as a whole reply, names the project root.
func IsRootWord(s string) bool {
	w := strings.ToLower(strings.TrimSpace(s))
	if w == "./" {
		return true
	}
	return slices.Contains(RootWords, w) || slices.Contains(RootWords, Bare(w))
}
