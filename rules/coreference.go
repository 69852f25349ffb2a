package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/internal/lex"
)

// coreferences is the co-reference detector's result: each pronoun with two
// or more candidate referents, and the one chosen.
type coreferences struct {
	refs        []reference
	q           *askonce.Question
	assumptions []string
}

// reference is one ambiguous pronoun: its goal token, the candidates in
// order of first mention, and the chosen one.
type reference struct {
	tok        int
	candidates []string
	chosen     int
}

func (c *coreferences) open() *askonce.Question { return c.q }
func (c *coreferences) assumed() []string       { return c.assumptions }

// detectCoreference finds a pronoun whose referent could be two or more
// earlier candidates in a request to act: "Maria emailed Priya after she
// fixed the build; ask her to deploy it" (she, her: Maria or Priya), or
// "compare a.yaml with b.yaml and fix it" (it: a.yaml or b.yaml).
//
// A person pronoun (he, she, him, her, 彼, 彼女) looks back for people: a
// capitalised word the profile does not know, where a name stands — after
// a verb ("ask Priya"), as the subject opening a sentence ("Maria emailed
// ..."), in a list with another name, or with a possessive ("Maria's");
// a Japanese name carries an honorific (田中さん). A thing pronoun ("it",
// a lone "this") looks back for file paths. A sentence that asks the agent
// something is not a request to act and is skipped. SELECT_ONE, reason
// target_action_ambiguous, allowOther; the answer settles it by naming a
// candidate; the rule takes the first-mentioned candidate (the subject).
func detectCoreference(in *input) coreferences {
	var res coreferences
	toks := in.gt
	people := personCandidates(in)
	var seenPeople, seenThings []string
	pi := 0
	for i := range toks {
		for pi < len(people) && people[pi].tok < i {
			if !slices.Contains(seenPeople, people[pi].name) {
				seenPeople = append(seenPeople, people[pi].name)
			}
			pi++
		}
		t := &toks[i]
		var cands []string
		switch {
		case t.quoted || questionSentence(in, i):
		case t.e.has(fPerson):
			cands = seenPeople
		case t.e.has(fThing) && thingPronoun(toks, i):
			cands = seenThings
		}
		if isPath(t.Text) && !t.quoted && !slices.Contains(seenThings, in.goal[t.Start:t.End]) {
			seenThings = append(seenThings, in.goal[t.Start:t.End])
		}
		if len(cands) < 2 {
			continue
		}
		ref := reference{tok: i, candidates: slices.Clone(cands), chosen: answerOption(in, cands)}
		if n := len(res.refs); n > 0 && slices.Equal(res.refs[n-1].candidates, ref.candidates) {
			ref.chosen = res.refs[n-1].chosen // one question settles every pronoun of the same people
			res.refs = append(res.refs, ref)
			continue
		}
		if ref.chosen < 0 {
			pronoun := in.goal[t.Start:t.End]
			if res.q == nil {
				res.q = &askonce.Question{
					Type:       askonce.QuestionSelectOne,
					Text:       coreferenceText(in, pronoun, ref.candidates, t.e.has(fPerson)),
					Options:    ref.candidates,
					AllowOther: true,
					Reason:     "target_action_ambiguous",
					Default:    ref.candidates[0],
				}
			}
			ref.chosen = 0
			res.assumptions = append(res.assumptions, fmt.Sprintf("Took %s to mean %s, the first-mentioned of %s.",
				in.quote(pronoun), ref.candidates[0], in.quoteList(ref.candidates, "and")))
		}
		res.refs = append(res.refs, ref)
	}
	return res
}

func coreferenceText(in *input, pronoun string, cands []string, person bool) string {
	switch {
	case in.japanese:
		return fmt.Sprintf("%sは%sのどれを指しますか？", in.quote(pronoun), in.quoteList(cands, ""))
	case person:
		return fmt.Sprintf("Who does %s refer to: %s?", in.quote(pronoun), in.quoteList(cands, "or"))
	}
	return fmt.Sprintf("Which does %s refer to: %s?", in.quote(pronoun), in.quoteList(cands, "or"))
}

// person is one mention of a person's name in the goal.
type person struct {
	tok  int
	name string
}

// personCandidates finds the names of people in the goal, in order.
func personCandidates(in *input) []person {
	toks := in.gt
	var out []person
	for i := range toks {
		t := &toks[i]
		if t.quoted {
			continue
		}
		if name := japaneseName(in, i); name != "" {
			out = append(out, person{i, name})
			continue
		}
		raw := in.goal[t.Start:t.End]
		bare := strings.TrimSuffix(strings.TrimSuffix(raw, "'s"), "’s")
		if !t.capital || in.c.lex[strings.ToLower(bare)] != nil || lex.IsJapanese(raw) || strings.ContainsAny(bare, "./_-'0123456789") {
			continue
		}
		var named bool
		switch {
		case bare != raw: // Maria's
			named = true
		case sentenceStart(toks, i):
			named = i+1 < len(toks) && toks[i+1].Sentence == t.Sentence && subjectFollows(&toks[i+1])
		default:
			p := &toks[i-1]
			named = p.e.has(fVerb) || subjectFollows(p) ||
				((p.e.has(fConj) || p.Clause != t.Clause) && len(out) > 0 && out[len(out)-1].tok >= i-3)
		}
		if named {
			out = append(out, person{i, bare})
		}
	}
	return out
}

// subjectFollows reports whether the word after a sentence's first word
// makes that word a subject: a past tense or a common verb ("Maria
// emailed", "Tom told", "Ana and Tom").
func subjectFollows(t *token) bool {
	switch t.Text {
	case "told", "said", "wrote", "sent", "met", "gave", "took", "saw", "made", "will", "should", "can", "could",
		"and", "has", "had", "is", "was", "wants", "needs", "asks", "says", "thinks", "knows", "found", "left", "forgot":
		return true
	}
	return strings.HasSuffix(t.Text, "ed") || t.e.has(fConj)
}

// japaneseName returns the name a Japanese goal token gives with an
// honorific (田中さんが, or マリア followed by さん), or "".
func japaneseName(in *input, i int) string {
	t := &in.gt[i]
	if lex.IsHanStart(t.Text) {
		stem := lex.HanStem(t.Text)
		if rest := t.Text[len(stem):]; rest != "" && honorific(in, rest) {
			return stem
		}
		return ""
	}
	r := []rune(t.Text)
	if len(r) > 0 && lex.ScriptOf(r[0]) == lex.ScriptKatakana && i+1 < len(in.gt) && in.gt[i+1].Start == t.End && honorific(in, in.gt[i+1].Text) {
		return t.Text
	}
	return ""
}

func honorific(in *input, s string) bool {
	for w, e := range in.c.lex {
		if e.has(fHonorific) && strings.HasPrefix(s, w) {
			return true
		}
	}
	return false
}

// thingPronoun reports whether the thing pronoun at toks[i] stands for an
// object: "it" not opening "it is", and "this" not followed by a noun.
func thingPronoun(toks []token, i int) bool {
	if i+1 >= len(toks) || toks[i+1].Clause != toks[i].Clause {
		return true
	}
	n := &toks[i+1]
	if toks[i].Text == "this" {
		return n.e.has(fStop) || n.e.has(fPrep) || n.e.has(fConj)
	}
	switch n.Text {
	case "is", "was", "seems", "looks", "will", "should", "must", "can":
		return false
	}
	return true
}

// questionSentence reports whether the sentence of goal token i asks the
// agent something: it opens with a question word (not a request such as
// "can you") or ends with a question mark.
func questionSentence(in *input, i int) bool {
	toks := in.gt
	s := toks[i].Sentence
	first, last := i, i
	for first > 0 && toks[first-1].Sentence == s {
		first--
	}
	for last+1 < len(toks) && toks[last+1].Sentence == s {
		last++
	}
	if in.c.phraseAt(toks, first, fOpener) > 0 {
		return false
	}
	rest := strings.TrimSpace(in.goal[toks[last].End:])
	return toks[first].e.has(fQuestion) || strings.HasPrefix(rest, "?") || strings.HasPrefix(rest, "？")
}
