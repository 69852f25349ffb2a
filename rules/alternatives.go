package rules

import (
	"fmt"
	"strings"

	"github.com/askonce/askonce"
)

// alternatives is the alternatives detector's result: each "X or Y" choice
// of a request to act, with the option the answer (or the rule) chose.
type alternatives struct {
	found       []alternative
	q           *askonce.Question
	assumptions []string
}

// alternative is one choice: goal tokens [x0, y1) from the first option to
// the last, the options as written, and the chosen one.
type alternative struct {
	x0, y1  int
	options []string
	chosen  int
}

func (a *alternatives) open() *askonce.Question { return a.q }
func (a *alternatives) assumed() []string       { return a.assumptions }

// detectAlternatives finds "X or Y" (and "X or Y or Z") where the choice is
// the user's to make in a request to act. It ignores an "or"
//   - in a sentence that asks the agent something ("Is the octopus a
//     vertebrate or an invertebrate?", "Should we use Go or Rust?"), unless
//     it is a request ("Can you write it in Go or Rust?");
//   - after "whether" or "if" ("check whether it passes or fails");
//   - in a classification or labelling instruction ("classify each ticket
//     as bug or feature", "sort these into fruit or vegetable");
//   - inside a duration or condition ("10 minutes or until golden", "2 or 3
//     times"), and in "or not", "or so", "more or less", "either way",
//     "and/or".
//
// The options are whole phrases: the words around "or" up to the clause's
// end or a preposition, or, when the right side starts with a verb, the two
// actions ("restart the server or redeploy"). When a clean pair cannot be
// read, it does not ask. SELECT_ONE, reason action_ambiguous, allowOther;
// the answer settles it when it names one option; the rule takes the first.
func detectAlternatives(in *input) alternatives {
	var res alternatives
	toks := in.gt
	for i := range toks {
		if !toks[i].e.has(fOr) || toks[i].quoted {
			continue
		}
		a, ok := alternativeAt(in, i)
		if !ok {
			continue
		}
		if n := len(res.found); n > 0 && a.x0 < res.found[n-1].y1 { // a chain: "A or B or C"
			last := &res.found[n-1]
			last.options = append(last.options, a.options[len(a.options)-1])
			last.y1 = a.y1
			continue
		}
		res.found = append(res.found, a)
	}
	for k := range res.found {
		a := &res.found[k]
		a.chosen = answerOption(in, a.options)
		if a.chosen >= 0 {
			continue
		}
		if res.q == nil {
			res.q = &askonce.Question{
				Type:       askonce.QuestionSelectOne,
				Text:       alternativesText(in, a.options),
				Options:    a.options,
				AllowOther: true,
				Reason:     "action_ambiguous",
				Default:    a.options[0],
			}
		}
		a.chosen = 0
		res.assumptions = append(res.assumptions, fmt.Sprintf("The goal offers %s; assumed %s, the first option.", in.quoteList(a.options, "or"), in.quote(a.options[0])))
	}
	return res
}

func alternativesText(in *input, options []string) string {
	if in.japanese {
		return fmt.Sprintf("%sのどれにしますか？", in.quoteList(options, ""))
	}
	return fmt.Sprintf("Which should it be: %s?", in.quoteList(options, "or"))
}

// alternativeAt reads the choice around the "or" at goal token i, or
// reports that there is none a person would ask about.
func alternativeAt(in *input, i int) (alternative, bool) {
	toks := in.gt
	cl := toks[i].Clause
	if i == 0 || i+1 >= len(toks) || toks[i-1].Clause != cl || toks[i+1].Clause != cl {
		return alternative{}, false
	}
	left, right := &toks[i-1], &toks[i+1]
	switch {
	case left.e.has(fOrIgnore) || right.e.has(fOrIgnore) || right.e.has(fCondition):
		return alternative{}, false
	case left.e.has(fUnit) || number(left.Text) || number(right.Text):
		return alternative{}, false
	case asksAgent(in, i) || classifies(in, i):
		return alternative{}, false
	}
	// Skip the articles and prepositions right after "or": "or a blue
	// border", "or in Postgres".
	y0 := i + 1
	for y0 < len(toks) && toks[y0].Clause == cl && toks[y0].e.has(fStop) && y0-i <= 2 {
		y0++
	}
	if y0 >= len(toks) || toks[y0].Clause != cl || toks[y0].e.has(fStop) {
		return alternative{}, false
	}
	if actionChoice(in, i, y0) {
		return actionsAt(in, i, y0)
	}
	// Noun options: content words up to a stop word, preposition or the
	// clause's end, at most three a side.
	boundary := func(t *token) bool { return t.e.has(fStop) || t.e.has(fPrep) || t.e.has(fConj) || t.e.has(fOr) }
	y1 := y0
	for y1 < len(toks) && toks[y1].Clause == cl && !boundary(&toks[y1]) && y1-y0 < 3 {
		y1++
	}
	x1 := i
	for x1 > 0 && toks[x1-1].Clause == cl && toks[x1-1].e.has(fStop) && !toks[x1-1].e.has(fPrep) && i-x1 < 2 {
		x1-- // "a red or a blue": the article after the option is skipped
	}
	x0 := x1
	if x0 > 0 && toks[x0-1].Clause == cl && !boundary(&toks[x0-1]) {
		x0--
	}
	for x0 > 0 && toks[x0-1].Clause == cl && !boundary(&toks[x0-1]) && x1-x0 < 3 && !toks[x0-1].e.has(fVerb) {
		x0--
	}
	if x1-x0 > 1 && (x0 == 0 || toks[x0-1].Clause != cl) {
		x0++ // the clause's first word is its verb ("serve hot or cold tea")
	}
	if x0 == x1 {
		return alternative{}, false
	}
	nl, nr := x1-x0, y1-y0
	switch {
	case nr > nl && x0 > 0 && !toks[x0-1].e.has(fPrep):
		y1 = y0 + nl // "a red or blue border": the noun is shared
	case nl > nr:
		if y1 < len(toks) && toks[y1].Clause == cl && !toks[y1].e.has(fPrep) && !toks[y1].e.has(fConj) {
			return alternative{}, false // "the new API or the old one": no clean pair
		}
		x0 = x1 - nr
	}
	a := alternative{x0: x0, y1: y1, chosen: -1, options: []string{in.span(x0, x1), in.span(y0, y1)}}
	if strings.EqualFold(a.options[0], a.options[1]) {
		return alternative{}, false
	}
	return a, true
}

// actionChoice reports whether the "or" at goal token i joins two actions:
// the right side starts with a verb that has an object ("or change its
// colour"), or a lone verb ends the clause after a left side that is a
// verb and its object without a preposition ("restart the server or
// redeploy"; not "share it via Slack or email").
func actionChoice(in *input, i, y0 int) bool {
	toks := in.gt
	cl := toks[i].Clause
	if !toks[y0].e.has(fVerb) {
		return false
	}
	if y0+1 < len(toks) && toks[y0+1].Clause == cl {
		n := &toks[y0+1]
		return !n.e.has(fPrep) && !n.e.has(fConj) && !n.e.has(fOr)
	}
	x0 := i - 1
	for x0 > 0 && toks[x0-1].Clause == cl {
		x0--
	}
	for x0 < i && (toks[x0].e.has(fConnector) || toks[x0].e.has(fOpener) || toks[x0].e.has(fStop)) {
		x0++
	}
	if x0 >= i-1 || !toks[x0].e.has(fVerb) {
		return false
	}
	for k := x0 + 1; k < i; k++ {
		if toks[k].e.has(fPrep) || toks[k].e.has(fVerb) {
			return false
		}
	}
	return true
}

// actionsAt reads a choice between two actions: from the clause's first
// verb to "or", and from the verb after "or" to the clause's end.
func actionsAt(in *input, i, y0 int) (alternative, bool) {
	toks := in.gt
	cl := toks[i].Clause
	x0 := i - 1
	for x0 > 0 && toks[x0-1].Clause == cl {
		x0--
	}
	for x0 < i && (toks[x0].e.has(fConnector) || toks[x0].e.has(fOpener) || toks[x0].e.has(fStop)) {
		x0++
	}
	if x0 >= i || !toks[x0].e.has(fVerb) {
		return alternative{}, false
	}
	y1 := y0 + 1
	for y1 < len(toks) && toks[y1].Clause == cl && !toks[y1].e.has(fConj) && !toks[y1].e.has(fOr) && in.c.phraseAt(toks, y1, fStepSep) == 0 {
		y1++
	}
	a := alternative{x0: x0, y1: y1, chosen: -1, options: []string{in.span(x0, i), in.span(y0, y1)}}
	return a, !strings.EqualFold(a.options[0], a.options[1])
}

// asksAgent reports whether the sentence of goal token i asks the agent
// something rather than requesting an action: it ends with a question mark
// or opens with a question word, and does not open with a request ("can
// you", "please"); or "whether" or "if" comes before the "or".
func asksAgent(in *input, i int) bool {
	toks := in.gt
	s := toks[i].Sentence
	first := i
	for first > 0 && toks[first-1].Sentence == s {
		first--
	}
	for k := first; k < i; k++ {
		if toks[k].Text == "whether" || toks[k].e.has(fCondition) && toks[k].Clause == toks[i].Clause {
			return true // "check whether it passes or fails", "a test for when it is empty or missing"
		}
	}
	if in.c.phraseAt(toks, first, fOpener) > 0 {
		return false
	}
	if toks[first].e.has(fQuestion) {
		return true
	}
	last := i
	for last+1 < len(toks) && toks[last+1].Sentence == s {
		last++
	}
	rest := strings.TrimSpace(in.goal[toks[last].End:])
	return strings.HasPrefix(rest, "?") || strings.HasPrefix(rest, "？") ||
		strings.HasSuffix(toks[last].Text, "か") || toks[last].e.has(fQuestion)
}

// classifies reports whether the "or" at goal token i names labels to
// assign: a classifying verb earlier in the sentence ("classify", "label"),
// or a sorting verb followed by "into" or "as" ("sort these into fruit or
// vegetable").
func classifies(in *input, i int) bool {
	toks := in.gt
	if in.japanese { // the verb comes last: バグまたは機能要望に分類して
		for k := range toks {
			if toks[k].Sentence == toks[i].Sentence && toks[k].e.has(fClassify) && !toks[k].neg {
				return true
			}
		}
	}
	sorting := false
	for k := i - 1; k >= 0 && toks[k].Sentence == toks[i].Sentence; k-- {
		t := &toks[k]
		switch {
		case t.e.has(fClassify) && !t.neg:
			return true
		case t.Text == "into" || t.Text == "as":
			sorting = true
		case sorting && t.e.has(fSort):
			return true
		}
	}
	return false
}

// number reports whether s is a number (15, 2.5, 10%).
func number(s string) bool {
	s = strings.TrimSuffix(s, "%")
	if s == "" {
		return false
	}
	for _, r := range s {
		if (r < '0' || r > '9') && r != '.' && r != ',' {
			return false
		}
	}
	return true
}

// answerOption finds the option the answer names: equal ignoring case, a
// unique prefix, or the only option whose words all occur in the answer.
// It returns -1 when the answer names none or several.
func answerOption(in *input, options []string) int {
	a := strings.ToLower(strings.TrimSpace(in.answer))
	if a == "" {
		return -1
	}
	for i, o := range options {
		if strings.ToLower(o) == a {
			return i
		}
	}
	found := -1
	for i, o := range options {
		if strings.HasPrefix(strings.ToLower(o), a) {
			if found >= 0 {
				found = -2
				break
			}
			found = i
		}
	}
	if found >= 0 {
		return found
	}
	found = -1
	for i, o := range options {
		words := tokenize(o)
		all := len(words) > 0
		for _, w := range words {
			if !answerHas(in, w.Text) {
				all = false
				break
			}
		}
		if all {
			if found >= 0 {
				return -1
			}
			found = i
		}
	}
	return found
}

func answerHas(in *input, text string) bool {
	for i := range in.at {
		if in.at[i].Text == text || in.at[i].word == text {
			return true
		}
	}
	return false
}
