package rules

import (
	"fmt"
	"slices"
	"strings"
)

// choices is the choice detector's result: each choice the user asks the
// agent to make, with the option the answer (or the rule) chose.
type choices struct {
	found []alternative
	asked
}

// alternative is one choice: goal tokens [x0, y1) from the first option to
// the last, the options as written, and the chosen one.
type alternative struct {
	x0, y1  int
	options []string
	chosen  int
}

// detectChoices finds an explicit choice the user asks the agent to make:
// alternatives joined by "or" that are the object of a command's main
// verb, or follow one object preposition after the verb or its direct
// object ("use React or Vue", "deploy the api to staging or production"),
// also in a question that asks the agent to decide ("should I use
// postgres or sqlite?"). The options are the user's whole parallel
// phrases ("George R.R. Martin", "the red cup"), and bare words only when
// they are names, a destination ("to staging or production") or asked
// about: "use olive oil or butter" is a substitution either way. It
// ignores an "or"
//   - in a question of fact ("Is Paris or Lyon bigger?") or no command;
//   - after a verb of suggestion, comparison, classification or telling
//     ("serve", "compare", "classify", "ask"), or after another
//     preposition ("as", "about", "with", "for", "by");
//   - after an indefinite or counted object or option ("find a hotel in
//     Rome or Milan", "grab a towel or a rag");
//   - under a negation, with a word that leaves the choice free ("any
//     dirt or beards", "to taste", "either"), between numbers or before a
//     condition ("2 or 3 times", "or until golden", "or so").
//
// SELECT_ONE, reason action_ambiguous, allowOther, default the first
// option. The answer settles it when it equals an option, is its unique
// prefix, or holds the words of exactly one option; the rule takes the
// first.
func detectChoices(in *input) choices {
	var res choices
	for _, cmd := range in.cmds {
		if a, ok := choiceIn(in, cmd); ok {
			res.found = append(res.found, a)
		}
	}
	for k := range res.found {
		a := &res.found[k]
		if a.chosen = answerOption(in, a.options); a.chosen >= 0 {
			continue
		}
		if res.q == nil {
			text := in.say("Which should it be: %s?", "%sのどれにしますか？", in.quoteList(a.options, "or"))
			res.q = selectOne(text, "action_ambiguous", a.options)
		}
		a.chosen = 0
		res.assumptions = append(res.assumptions, fmt.Sprintf("The goal offers %s; assumed %s, the first option.", in.quoteList(a.options, "or"), in.quote(a.options[0])))
	}
	return res
}

// choiceIn reads the choice that is the object of cmd's main verb, or
// follows its direct object after an object preposition ("deploy the api
// to staging or production").
func choiceIn(in *input, cmd command) (alternative, bool) {
	toks, c := in.gt, in.c
	v := cmd.verb
	if toks[v].e.has(fNoChoice) {
		return alternative{}, false
	}
	k := v + 1
	if k < cmd.end && vocab.has("particles", toks[k].Text) {
		k++ // "pick up milk or oat milk"
	}
	object := k // a direct object before the preposition: "the api", "it"
	for k < cmd.end && k-object < 5 && (toks[k].e.has(fDet|fPlaceholder) || optionWord(&toks[k])) {
		k++
	}
	if k == cmd.end || !toks[k].e.has(fPrep) || k == object || toks[k-1].e.has(fDet) {
		k = object // the alternatives are the object itself
	} else if vocab.has("indefinite", toks[object].Text) || number(toks[object].Text) {
		return alternative{}, false // "find a flight to Tokyo or Osaka": any that fits
	}
	prep := k < cmd.end && toks[k].e.has(fPrep)
	if prep {
		if !vocab.has("objectPrepositions", toks[k].Text) {
			return alternative{}, false
		}
		k++
	}
	det := k < cmd.end && toks[k].e.has(fDet)
	if det && vocab.has("indefinite", toks[k].Text) {
		return alternative{}, false // "grab a towel or a rag": any one will do
	}
	for k < cmd.end && toks[k].e.has(fDet) {
		k++
	}
	var opts [][2]int // token ranges of the options
	for {
		x0 := k
		for k < cmd.end && optionWord(&toks[k]) && k-x0 < 4 {
			k++
		}
		if k == x0 {
			return alternative{}, false
		}
		opts = append(opts, [2]int{x0, k})
		if k < cmd.end && toks[k].e.has(fOr) {
			or := k
			k++
			if k < cmd.end && (toks[k].e.has(fDet) != det || vocab.has("indefinite", toks[k].Text)) {
				// Options are parallel: "the train or a taxi", "milk or
				// oat milk"; not "the server or redeploy", "the fence
				// white or green".
				return alternative{}, false
			}
			for k < cmd.end && toks[k].e.has(fDet) {
				k++
			}
			if k >= cmd.end || toks[k].e.has(fOrIgnore|fCondition) || number(toks[k].Text) ||
				c.before(toks, or, fNeg) || c.before(toks, or, fFree) {
				return alternative{}, false
			}
			continue
		}
		break
	}
	// The last option must end the object: at the command's end, a
	// preposition, a conjunction or a step separator.
	if len(opts) < 2 || k < cmd.end && !toks[k].e.has(fPrep|fConj|fCondition) {
		return alternative{}, false
	}
	for i := v; i < cmd.end; i++ { // "salt or pepper to taste", "whichever you have"
		if c.phraseAt(toks, i, fFree) > 0 {
			return alternative{}, false
		}
	}
	// A clause right after the command that opens with a free choice
	// leaves the choice to the agent: "to staging or production,
	// whichever is free", "tea or coffee, either is fine".
	if e := cmd.end; e < len(toks) && toks[e].Sentence == toks[v].Sentence && c.phraseAt(toks, e, fFree) > 0 {
		return alternative{}, false
	}
	// Bare options ("add milk or water", "fry the onions in butter or
	// oil") are a substitution either way, unless they are names ("use
	// React or Vue", "install v1.2 or v2.0"), a destination right after the
	// verb or its object ("deploy the api to staging or production"), or
	// the user asks for the choice ("deploy it to staging or prod?").
	if !det && !questionMarked(in.goal, toks, v) && !(prep && (object == opts[0][0]-1 || toks[opts[0][0]-1].Text == "to")) {
		for _, o := range opts {
			if !named(in, o[0], o[1]) {
				return alternative{}, false
			}
		}
	}
	a := alternative{x0: opts[0][0], y1: opts[len(opts)-1][1], chosen: -1}
	for _, o := range opts {
		s := in.span(o[0], o[1])
		for _, prev := range a.options {
			if strings.EqualFold(prev, s) {
				return alternative{}, false
			}
		}
		a.options = append(a.options, s)
	}
	return a, true
}

// named reports whether goal tokens [t0, t1) hold a name: a word written
// with a capital letter, or an identifier with a digit or one of . _ -.
func named(in *input, t0, t1 int) bool {
	for i := t0; i < t1; i++ {
		t := &in.gt[i]
		if t.capital || strings.ContainsAny(t.Text, "0123456789._-") || strings.ToUpper(in.goal[t.Start:t.End]) == in.goal[t.Start:t.End] && len(t.Text) > 1 {
			return true
		}
	}
	return false
}

// optionWord reports whether t can be part of a named option: a word that
// is not closed-class and not a number.
func optionWord(t *token) bool {
	return !t.e.has(fStop|fPrep|fConj|fOr|fDet|fNeg|fCondition|fQuestion|fPlaceholder) && !number(t.Text)
}

// answerOption finds the option the answer names: equal ignoring case, a
// unique prefix, or the only option whose words all occur in the answer.
// It returns -1 when the answer names none or several.
func answerOption(in *input, options []string) int {
	a := strings.ToLower(strings.TrimSpace(in.answer))
	if a == "" {
		return -1
	}
	if i := slices.IndexFunc(options, func(o string) bool { return strings.ToLower(o) == a }); i >= 0 {
		return i
	}
	if i := only(options, func(o string) bool { return strings.HasPrefix(strings.ToLower(o), a) }); i >= 0 {
		return i
	}
	return only(options, func(o string) bool {
		words := tokenize(o)
		return len(words) > 0 && !slices.ContainsFunc(words, func(w token) bool {
			return !slices.ContainsFunc(in.at, func(a token) bool { return a.Text == w.Text || a.word == w.Text })
		})
	})
}

// only is the index of the one option for which match holds, or -1.
func only(options []string, match func(string) bool) int {
	found := -1
	for i, o := range options {
		if match(o) {
			if found >= 0 {
				return -1
			}
			found = i
		}
	}
	return found
}
