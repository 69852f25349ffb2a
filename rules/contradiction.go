package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/askonce/askonce/internal/lex"
)

// contradictions is the contradiction detector's result: for each group of
// the profile, the side the goal settles on, and the goal tokens naming
// the sides that lost (the template planner leaves them out of a name).
type contradictions struct {
	groups  []groupResult
	dropped []bool
	asked
}

// groupResult is the settled side of one group, if the goal or answer
// mentions it.
type groupResult struct {
	side    int // -1 when the group is not mentioned or not settled
	display string
}

// mention is where the goal first names one side of a group in conflict.
type mention struct {
	tok     int // first goal token naming the side, -1 if none
	display string
	funcTok int // first mention after a functional cue, -1 if none
	cueTok  int // the cue before funcTok
}

// sideMention is one goal token that names a side.
type sideMention struct {
	tok int
	sideRef
}

// detectContradictions finds the groups whose sides the goal means to hold
// for one object at once ("hot frozen cheese", "a tiny giant robot", "a hot
// block that freezes water"). It does not count:
//   - sides in a sentence that asks the agent something ("Can cheese be
//     hot and frozen?"): the user's own question is not handed back;
//   - sides in a topic ("write a poem about fire and ice");
//   - sides offered as alternatives ("hot or cold tea");
//   - a process that changes a state: the thing as it is and as it is
//     to become ("make the private repo public", "reschedule the daily
//     backup to run weekly"), a later state under a condition ("boil it
//     until it is hot"), a sentence that opens with a side word used as a
//     verb, before a determiner ("heat the frozen soup"), or a Japanese
//     change verb (熱いスープを冷まして);
//   - sides of different objects: a preposition between them ("frozen peas
//     in hot water"), or a list ("hot soup and cold drinks");
//   - titles and names: words in quotation marks or capitalised inside a
//     sentence ("the novel Fire and Ice"), and idioms ("cold start").
//
// A conflict is asked as SELECT_ONE (reason scope_unclear) with the sides
// as the goal writes them; the answer settles it by naming one side (any
// side of the group) or by rejecting one of two ("not hot"). Otherwise the
// rule takes the functional side (named after a functional cue such as
// "that" or "to") or else the first-mentioned one, and writes an
// assumption saying so; with asks (its question will be asked: the
// profile has the check and no directive) it writes none, since the plan
// comes from the answer.
func detectContradictions(in *input, asks bool) contradictions {
	c, gs := in.c, in.p.Groups
	res := contradictions{groups: make([]groupResult, len(gs)), dropped: make([]bool, len(in.gt))}
	for gi := range res.groups {
		res.groups[gi].side = -1
	}
	ms := make([]sideMention, 0, 8) // room on the stack for a goal's few mentions
	for i := range in.gt {
		t := &in.gt[i]
		if t.e == nil || len(t.e.sides) == 0 {
			continue // names no side: the checks below, which scan its sentence, need not run
		}
		if t.neg || vocab.has("valueExcluders", governor(in.gt, i)) || t.idiom || t.quoted || (t.capital && !sentenceStart(in.gt, i)) || c.asksAgent(in.goal, in.gt, i) || c.before(in.gt, i, fTopic) {
			continue
		}
		for _, s := range t.e.sides {
			if i > 0 && in.p.Groups[s.group].Contents && in.gt[i-1].e != nil && slices.ContainsFunc(in.gt[i-1].e.sides, func(p sideRef) bool { return p.group == s.group && p.side != s.side }) && kindOf(in, i-1, i) {
				continue // "vegan sausage": a sausage of the vegan kind says vegan, not meat
			}
			ms = append(ms, sideMention{i, s})
		}
	}
	var process []bool // by sentence; read only when two mentions may be paired
	if len(ms) > 1 {
		process = processSentences(in)
	}
	for _, gi := range c.groupOrder {
		if !slices.ContainsFunc(ms, func(m sideMention) bool { return m.group == gi }) {
			continue // not mentioned: nothing to settle
		}
		g := &gs[gi]
		var room [4]mention // on the stack for a group of up to four sides
		first := room[:0]   // conflicting mentions per side
		for range g.Sides {
			first = append(first, mention{tok: -1, funcTok: -1})
		}
		mentioned := -1 // the one side named, when no conflict
		several := false
		paired := make([]sideMention, 0, 4) // the mentions in a conflict: a side word about another thing is not
		for a := range ms {
			if ms[a].group != gi {
				continue
			}
			if mentioned < 0 {
				mentioned = a
			} else if ms[mentioned].side != ms[a].side {
				several = true
			}
			// Mentions are in the goal's order and one object is named in
			// one sentence or again in the next, so the pairs end there.
			for b := a + 1; b < len(ms) && in.gt[ms[b].tok].Sentence <= in.gt[ms[a].tok].Sentence+1; b++ {
				if ms[b].group != gi || ms[b].side == ms[a].side || !sameObject(in, gi, ms[a].tok, ms[b].tok, process) {
					continue
				}
				paired = append(paired, ms[a], ms[b])
				for _, m := range []sideMention{ms[a], ms[b]} {
					f := &first[m.side]
					if f.tok < 0 || m.tok < f.tok {
						f.tok, f.display = m.tok, m.display
					}
					if in.gt[m.tok].cue && (f.funcTok < 0 || m.tok < f.funcTok) {
						f.funcTok, f.cueTok = m.tok, lastCue(in.gt, m.tok)
					}
				}
			}
		}
		sides := make([]int, 0, len(room)) // conflicting sides, by first mention
		for si := range first {
			if first[si].tok >= 0 {
				sides = append(sides, si)
			}
		}
		slices.SortFunc(sides, func(a, b int) int { return first[a].tok - first[b].tok })
		if len(sides) < 2 {
			if mentioned >= 0 && !several {
				res.groups[gi] = groupResult{side: ms[mentioned].side, display: ms[mentioned].display}
			}
			continue
		}
		options := make([]string, len(sides))
		for k, si := range sides {
			options[k] = first[si].display
		}
		side, display := answerSide(in, gi, sides, first)
		if side < 0 {
			ruled, why := ruleSide(in, first, sides)
			both := bothQuoted(in, options)
			if res.q == nil {
				text := in.say("The goal says %s. Which should it be?", "%sが同時に指定されています。どれにしますか？", both)
				res.q = selectOne(text, "scope_unclear", options)
				res.q.Cosmetic = g.Cosmetic
			}
			side, display = ruled, first[ruled].display
			if !asks {
				kind := ""
				if g.Cosmetic {
					kind = ", a cosmetic detail"
				}
				res.assumptions = append(res.assumptions, fmt.Sprintf("The goal says %s (%s%s); assumed %s because %s.",
					both, g.Name, kind, in.quote(display), why))
			}
		}
		res.groups[gi] = groupResult{side: side, display: display}
		for _, m := range paired {
			if m.side != side {
				res.dropped[m.tok] = true // not "the public docs site" when the repo is settled private
			}
		}
	}
	return res
}

// bothQuoted renders both “a” and “b”, or “a”, “b” and “c”.
func bothQuoted(in *input, words []string) string {
	if len(words) == 2 && !in.japanese {
		return "both " + in.quoteList(words, "and")
	}
	return in.quoteList(words, "and")
}

// processSentences marks the sentences that describe a process changing a
// state: they hold a Japanese change verb (冷まして, which names no thing
// a side word could be about), or their first word is a side word used as
// a verb, followed by a determiner ("heat the frozen soup", "freeze the
// warm leftovers"). An English change verb needs no mark: the thing as it
// is and as it is to become are read apart (sameThing). It has a mark
// for every sentence of the goal.
func processSentences(in *input) []bool {
	n := 0 // sentences
	for i := range in.gt {
		n = max(n, in.gt[i].Sentence+1)
	}
	out := make([]bool, n)
	lead := -1
	for i := range in.gt {
		t := &in.gt[i]
		if sentenceStart(in.gt, i) {
			lead = -1
		}
		// A Japanese change verb, matched by prefix (冷まして) rather than
		// by its kanji stem, which a side word may share (冷たい).
		change := slices.ContainsFunc(changeVerbs, func(w string) bool { return strings.HasPrefix(t.Text, w) })
		if change && !t.neg && !t.idiom {
			out[t.Sentence] = true
		}
		if categoryVerbs[t.Text] && slices.ContainsFunc(in.gt[i+1:], func(u token) bool {
			return u.Sentence == t.Sentence && categoryPrepositions[u.Text]
		}) {
			out[t.Sentence] = true // categories offered per item: "classify each into solid, liquid or gas"
		}
		if lead < 0 && !t.e.has(fConnector) && !t.e.has(fStop) && !t.e.has(fOpener) {
			lead = i
			if t.e != nil && len(t.e.sides) > 0 && i+1 < len(in.gt) && in.gt[i+1].e.has(fDet) {
				out[t.Sentence] = true
			}
		}
	}
	return out
}

// The lists processSentences reads, looked up once rather than on every
// call.
var (
	changeVerbs                         = vocab.lists["changeVerbs"]
	categoryVerbs, categoryPrepositions = vocab.sets["categoryVerbs"], vocab.sets["categoryPrepositions"]
)

// sentenceStart reports whether toks[i] opens its sentence.
func sentenceStart(toks []token, i int) bool {
	return i == 0 || toks[i-1].Sentence != toks[i].Sentence
}

// sameObject reports whether the side words at goal tokens a < b describe
// one object at once: one sentence that is no process, no "or" between
// them or after them in one list of alternatives ("hot or cold tea",
// "solid, liquid or gas"), no new noun phrase opened by a determiner or
// a Japanese topic particle after a conjunction or clause break between
// them, and one thing that both describe (sameThing).
func sameObject(in *input, g, a, b int, process []bool) bool {
	toks := in.gt
	if process[toks[a].Sentence] || process[toks[b].Sentence] {
		return false
	}
	if toks[a].Sentence != toks[b].Sentence {
		return namedAgain(in, g, a, b)
	}
	if p := a - 1; p >= 0 && vocab.has("alternativeOpeners", toks[p].Text) {
		return false // "a toggle between public and private": alternatives
	}
	joined := false // a conjunction or a clause break
	for k := a + 1; k < len(toks) && toks[k].Sentence == toks[b].Sentence; k++ {
		t := &toks[k]
		joined = joined || k <= b && (t.e.has(fConj) || t.Clause != toks[k-1].Clause)
		switch {
		case t.e.has(fOr), k < b && joined && (t.e.has(fDet) || vocab.has("jaTopicParticles", t.Text)):
			return false // "the tea hot and the lemonade cold", スープは熱く、デザートは冷たく
		case k < b && t.e.has(fStepSep|fCondition):
			return false // "chill it until it is frozen, then serve it hot": one after the other
		case k > b && (t.e == nil || len(t.e.sides) == 0 && !t.e.has(fConj)):
			return sameThing(in, g, a, b)
		}
	}
	return sameThing(in, g, a, b)
}

// namedAgain reports whether the side words at goal tokens a and b, in
// two sentences, describe one thing: the second sentence names it again
// with a definite determiner ("Create a private repo. The repo must be
// public.") and both describe it at once (sameThing: "Create a private
// repo. Make the repo public." is a change, "... Delete the public repo."
// another repo). For how or when a command is done, the two sentences
// give one command ("Run the backup job weekly. Run the backup job
// daily.").
func namedAgain(in *input, g, a, b int) bool {
	toks := in.gt
	x, xHow := thingOf(in, g, a)
	y, yHow := thingOf(in, g, b)
	if x < 0 || y < 0 || wordKey(toks[x].Text) != wordKey(toks[y].Text) {
		return false
	}
	d := y - 1 // its determiner, before the words of a compound: "the cleanup job"
	for d >= 0 && toks[d].Clause == toks[y].Clause && content(&toks[d]) && !in.verbs[d] && (toks[d].e == nil || len(toks[d].e.sides) == 0) {
		d--
	}
	if d < 0 || !toks[d].e.has(fDet) || vocab.has("indefinite", toks[d].Text) {
		return false
	}
	if in.p.Groups[g].Action && xHow == predicative && yHow == predicative {
		va, vb := commandOf(in, a), commandOf(in, b)
		return va >= 0 && vb >= 0 && stem(toks[va].Text) == stem(toks[vb].Text)
	}
	return sameThing(in, g, a, b)
}

// sameThing reports whether the side words at goal tokens a and b can
// describe one thing at once: not when each describes a thing of its
// own, by different words ("a tiny image that serves huge files": the
// image and the files) or as the members of a plural they join ("hot and
// cold drinks"), nor when one describes the thing as it is and
// the other as it is to become ("make the private repo public"; "keep
// the private repo public" says it stays so: a contradiction).
func sameThing(in *input, g, a, b int) bool {
	x, xHow := thingOf(in, g, a)
	y, yHow := thingOf(in, g, b)
	switch {
	case in.p.Groups[g].Action && xHow == predicative && yHow == predicative && twoActions(in, a, b):
		return false // "check the logs every day and archive them weekly"
	case x < 0 || y < 0:
		return true
	case wordKey(in.gt[x].Text) != wordKey(in.gt[y].Text):
		return false
	case x == y && xHow == attributive && yHow == attributive && wordKey(in.gt[x].Text) != in.gt[x].Text && !lex.IsJapanese(in.gt[x].Text) && slices.ContainsFunc(in.gt[a+1:b], func(t token) bool { return t.e.has(fConj) }):
		return false // "daily and weekly builds": each describes some of them
	case x != y && xHow == attributive && yHow == attributive:
		return false // "hot food and cold food": two things of one kind
	}
	return xHow == yHow || xHow == describedBy || yHow == describedBy || keeps(in, a, xHow) || keeps(in, b, yHow)
}

// keeps reports whether the side word at goal token k says what its
// thing stays, not what it becomes: said after it in a command whose verb
// keeps a state ("keep the private repo public": it is private and
// stays public, a contradiction; "make the private repo public" is a
// change).
func keeps(in *input, k, how int) bool {
	v := commandOf(in, k)
	return how == predicative && v >= 0 && vocab.has("keepVerbs", in.gt[v].Text)
}

// kindOf reports whether goal token b ends its noun phrase right after
// a: b is the noun, and a says what kind of it it is ("vegan sausage",
// "plant-based chicken"), not a second thing said of a noun after them
// ("hot frozen cheese").
func kindOf(in *input, a, b int) bool {
	toks := in.gt
	if b != a+1 || toks[a].Clause != toks[b].Clause || lex.IsJapanese(toks[b].Text) {
		return false
	}
	n := b + 1
	return n == len(toks) || toks[n].Clause != toks[b].Clause || !content(&toks[n]) || toks[n].e.has(fPrep|fConj|fCue) || in.verbs[n]
}

// twoActions reports whether the side words at goal tokens a and b are
// said in two commands, each with a verb of its own (a side word after
// "and" is no verb: "send it daily and weekly").
func twoActions(in *input, a, b int) bool {
	va, vb := commandOf(in, a), commandOf(in, b)
	return va >= 0 && vb >= 0 && va != vb && va != a && vb != b
}

// How a side word describes its thing.
const (
	describedBy = iota // after a functional cue: "a block that freezes water"
	attributive        // before it: "the private repo"
	predicative        // after it: "make the repo public"
)

// thingOf is the goal token naming the thing the side word at toks[k]
// describes, and how, or -1 (and for Japanese, which orders words
// otherwise). It is the noun before a functional cue the side word
// follows ("a block that freezes water": the block), else the first word
// after it, past other side words, conjunctions and stop words, up to a
// preposition or a command's verb ("hot frozen cheese": the cheese), else
// the nearest word before it ("make the soup hot and cold": the soup).
func thingOf(in *input, g, k int) (int, int) {
	toks := in.gt
	if lex.IsJapanese(toks[k].Text) {
		return -1, 0
	}
	side := func(j int) bool { // a side of group g; another group's word is a word ("the frozen chicken")
		return toks[j].e != nil && slices.ContainsFunc(toks[j].e.sides, func(s sideRef) bool { return s.group == g })
	}
	// head reports whether the side word at toks[j] heads its own noun
	// phrase: a determiner opens it and nothing but a preposition follows
	// ("replace the beef with ...": the beef).
	head := func(j int) bool {
		return j > 0 && toks[j-1].e.has(fDet) && toks[j-1].Clause == toks[j].Clause &&
			(j+1 == len(toks) || toks[j+1].Sentence != toks[j].Sentence || toks[j+1].e.has(fPrep))
	}
	noun := func(j int) bool {
		t := &toks[j]
		return content(t) && !in.verbs[j] && !t.e.has(fConj|fCue) && (!side(j) || j != k && head(j))
	}
	cued := func(j int) int { // a purpose says what the thing is to become: "reschedule the backup to run weekly", "so it is big"
		if toks[j].Text == "to" || toks[j].Text == "so" {
			return predicative
		}
		return describedBy
	}
	before := func(from int) int {
		for j := from; j >= 0 && toks[j].Sentence == toks[k].Sentence; j-- {
			if noun(j) {
				return j
			}
		}
		return -1
	}
	for j := k - 1; j >= 0 && toks[j].Clause == toks[k].Clause; j-- {
		if preposition(toks, j) {
			break // "copy the public key to the private server": the server
		}
		if toks[j].e.has(fCue) && !side(j) {
			return before(j - 1), cued(j) // "that freezes", "which is hot"
		}
		if content(&toks[j]) && !side(j) {
			break
		}
	}
	for j := k + 1; j < len(toks) && toks[j].Clause == toks[k].Clause && (!in.verbs[j] || side(j)); j++ { // "public and private repos": no command starts at private
		if toks[j].e.has(fPrep) && !side(j) {
			break
		}
		if noun(j) || !side(j) && vocab.has("placeholders", wordKey(toks[j].Text)) && toks[j].Text != "it" {
			for j+1 < len(toks) && toks[j+1].Clause == toks[k].Clause && noun(j+1) {
				j++ // the head of a compound: "a daily cron job" is the job
			}
			return j, attributive // "call public ones": ones, a thing of its own
		}
	}
	// No noun after it: the side word heads its own noun phrase when a
	// determiner opens it ("replace the beef": the beef), and a phrase
	// after "with" is part of the thing before it ("a lasagne with
	// ground beef": the lasagne).
	if head(k) {
		return k, attributive
	}
	p := k - 1
	for p >= 0 && toks[p].Clause == toks[k].Clause && (toks[p].e.has(fDet) || noun(p)) {
		p--
	}
	if p >= 0 && toks[p].Clause == toks[k].Clause && toks[p].Text == "with" {
		if !in.p.Groups[g].Contents {
			return k, attributive // "hot soup with ice": the ice
		}
		return before(p - 1), attributive
	}
	j := before(k - 1)
	if j > 0 && toks[j-1].e.has(fCue) && toks[j-1].Clause == toks[k].Clause {
		return before(j - 2), cued(j - 1) // the verb of "that runs daily"
	}
	return j, predicative
}

// preposition reports whether toks[k] is a preposition here: a word
// that is only one, or one that is also a functional cue before a
// determiner or a side word ("to the server", "change it to weekly";
// "to" before a verb is a cue: "to make").
func preposition(toks []token, k int) bool {
	t := &toks[k]
	if !t.e.has(fPrep) || k+1 >= len(toks) && t.e.has(fCue) {
		return false
	}
	next := &toks[min(k+1, len(toks)-1)]
	return !t.e.has(fCue) || next.e.has(fDet) || next.e != nil && len(next.e.sides) > 0
}

// lastCue is the index of the functional cue that governs toks[i].
func lastCue(toks []token, i int) int {
	for j := i - 1; j >= 0 && toks[j].Clause == toks[i].Clause; j-- {
		if toks[j].e.has(fCue) {
			return j
		}
	}
	return i
}

// ruleSide is the documented resolution of an unsettled contradiction: the
// functional side first (the first-mentioned of the sides named after a
// functional cue such as "that" or "to" in the same clause), else the
// first-mentioned side. It returns the side and why, for the assumption.
func ruleSide(in *input, ms []mention, sides []int) (int, string) {
	for _, si := range sides { // sides are in order of first mention
		if m := ms[si]; m.funcTok >= 0 {
			from := m.funcTok
			if m.funcTok-m.cueTok <= 6 {
				from = m.cueTok
			}
			return si, fmt.Sprintf("it is the functional side (%s)", in.quote(in.goal[in.gt[from].Start:in.gt[m.funcTok].End]))
		}
	}
	return sides[0], "it is mentioned first"
}

// answerSide reads the answer for group gi: the one side it names (a side
// the goal did not mention counts too), or, with two sides in conflict,
// the other side of the one it rejects ("not hot"). It returns -1 when the
// answer settles nothing.
func answerSide(in *input, gi int, sides []int, ms []mention) (int, string) {
	pos, posDisplay, rejected := -1, "", -1 // rejected: -2 when several
	for i := range in.at {
		t := &in.at[i]
		if t.e == nil {
			continue
		}
		for _, s := range t.e.sides {
			switch {
			case s.group != gi:
			case t.neg:
				if rejected == -1 || rejected == s.side {
					rejected = s.side
				} else {
					rejected = -2
				}
			case pos == -1:
				pos, posDisplay = s.side, s.display
			case pos != s.side:
				return -1, "" // it names two sides
			}
		}
	}
	if pos >= 0 {
		return pos, posDisplay
	}
	if rejected >= 0 && len(sides) == 2 && (sides[0] == rejected || sides[1] == rejected) {
		other := sides[0]
		if other == rejected {
			other = sides[1]
		}
		return other, ms[other].display
	}
	return -1, ""
}
