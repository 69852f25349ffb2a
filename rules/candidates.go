package rules

import (
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/internal/lex"
)

// references is the candidates detector's result: what each reference of
// the goal to the request's candidates or files means.
type references struct {
	refs    []reference
	target  string // the file the goal's reference to files means
	fileTok int    // the goal token of that reference, or -1
	asked
}

// reference is a noun phrase of the goal, tokens [t0, t1), that fits the
// candidates in options; chosen is the one meant, or -1; all when a
// universal quantifier makes it mean every one ("every mug").
type reference struct {
	t0, t1  int
	options []string
	chosen  int
	all     bool
	other   bool // "the other mug": not the one named before
	said    int  // the end of the words after it that say which one it is ("the knife for bread"): no mentions of their own
}

// name is a candidate as the matcher reads it: its words, singular and
// lower case, and its heads, the words a bare mention of its kind uses:
// the last word ("black pepper": pepper), its last word written whole
// ("white t-shirt": t-shirt), both ends of an identifier ("staging-eu":
// staging, "us-east-cluster": cluster), and the word before a label of
// one letter ("vitamin D", "Plan A": vitamin, plan).
type name struct {
	display string
	words   []string
	heads   []string
}

func nameOf(s string) name {
	n := name{display: s}
	var kinds []string // its words that are no numbers
	first := ""        // the first of them in the last token that has one
	for _, t := range lex.Split(s, nil) {
		tok, some := s[t.Start:t.End], false
		for _, w := range identParts(tok, true) {
			k := wordKey(strings.ToLower(w))
			n.words = append(n.words, k)
			if number(w) {
				continue
			}
			if !some {
				first, n.heads, some = k, []string{wordKey(strings.ToLower(tok))}, true
			}
			kinds = append(kinds, k)
		}
	}
	if k := len(kinds); k > 0 {
		n.heads = appendNew(n.heads, kinds[k-1], first)
		if k > 1 && utf8.RuneCountInString(kinds[k-1]) == 1 {
			n.heads = appendNew(n.heads, kinds[k-2])
		}
	}
	return n
}

// identWords splits a name written as an identifier into its words:
// "DiningTable" is dining table, "Apple_2" is apple, "us-east" is us east.
// Numbers are dropped: they tell instances apart.
func identWords(s string) []string { return identParts(s, false) }

// identParts is identWords, keeping the numbers when numbers is set
// ("Apple_2" is apple 2: a candidate's whole name).
func identParts(s string, numbers bool) []string {
	var out []string
	start := 0
	flush := func(end int) {
		if w := s[start:end]; w != "" && (numbers || !number(w)) {
			out = append(out, w)
		}
		start = end
	}
	var prev rune
	for i, r := range s {
		switch {
		case r == '_' || r == '-' || r == '.' || r == '/':
			flush(i)
			start = i + 1
		case unicode.IsUpper(r) && unicode.IsLower(prev):
			flush(i)
		}
		prev = r
	}
	flush(len(s))
	return out
}

// wordKey is how a word is compared: lower case, singular ("peppers" is
// "pepper", "boxes" is "box", "berries" is "berry"), and a Japanese word
// without its kana ending (胡椒を is 胡椒).
func wordKey(w string) string {
	if lex.IsHanStart(w) {
		return lex.HanStem(w)
	}
	if lex.IsJapanese(w) {
		return w
	}
	switch n := len(w); {
	case n > 4 && strings.HasSuffix(w, "ies"):
		return w[:n-3] + "y"
	case n > 3 && (strings.HasSuffix(w, "ches") || strings.HasSuffix(w, "shes") || strings.HasSuffix(w, "sses") || strings.HasSuffix(w, "xes")):
		return w[:n-2]
	case n > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		return w[:n-1]
	}
	return w
}

// headMatch reports whether a goal word (its key) is the head of n: equal
// to n's last word, or, in Japanese, which has no spaces, the end of it
// at a script boundary (胡椒 is the head of 黒胡椒, ペッパー of
// ブラックペッパー). n is a nameSet's: it has words.
func headMatch(key string, n name) bool {
	if slices.Contains(n.heads, key) {
		return true
	}
	head := n.words[len(n.words)-1]
	if !lex.IsJapanese(key) || !strings.HasSuffix(head, key) || strings.Trim(key, "ー") == "" {
		return false
	}
	r, _ := utf8.DecodeLastRuneInString(head[:len(head)-len(key)])
	k, _ := utf8.DecodeRuneInString(key)
	return lex.ScriptOf(r) == lex.ScriptOf(k) && lex.ScriptOf(k) != lex.ScriptOther
}

// hasAll reports whether n holds every word of keys.
func (n name) hasAll(keys []string) bool {
	return !slices.ContainsFunc(keys, func(k string) bool { return !n.holds(k) })
}

// holds reports whether n holds the word key in one of its forms: "can"
// and "canned", "large" and "larger", "wood" and "wooden" are one word,
// and so are "non-stick", "non stick" and "nonstick".
func (n name) holds(key string) bool {
	joined := unhyphenated(key)
	for i, w := range n.words {
		if w == key || w == joined || stem(w) == stem(key) || i+1 < len(n.words) && w+n.words[i+1] == joined {
			return true
		}
	}
	return false
}

// heldBy reports whether some, and whether all, of names hold the word
// key (name.holds).
func heldBy(names []name, key string) (some, all bool) {
	n := 0
	for _, f := range names {
		if f.holds(key) {
			n++
		}
	}
	return n > 0, n == len(names)
}

// unhyphenated is w without its hyphens: "non-stick" is "nonstick".
func unhyphenated(w string) string { return strings.ReplaceAll(w, "-", "") }

// stem is an English word without a possessive, the ending of a participle, a
// comparative, a material or a doer (-ed, -er, -est, -en), a doubled
// final consonant and a final e, an irregular participle as its verb
// and a final y as i: "canned" and "can" are "can", "larger" and "large"
// are "larg", "frozen" and "freezer" are "freez", "dried" and "dryer"
// are "dri". Words of one family are one word: a thing the goal says is
// in the freezer is the frozen one.
func stem(w string) string {
	if lex.IsJapanese(w) {
		return w
	}
	w = strings.TrimRight(strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "’s"), "'’") // an owner: "Leo's" (key leo') and "Leo"
	if base, ok := irregular[w]; ok {
		w = base
	}
	for _, end := range []string{"est", "er", "ed", "en"} {
		if n := len(w) - len(end); n > 2 && strings.HasSuffix(w, end) {
			w = w[:n]
			break
		}
	}
	if n := len(w); n > 2 && w[n-1] == w[n-2] {
		w = w[:n-1] // "bigger" and "big", "smaller" and "small"
	}
	w = strings.TrimSuffix(w, "e")
	if n := len(w); n > 2 && w[n-1] == 'y' {
		w = w[:n-1] + "i"
	}
	return w
}

// irregular maps an irregular participle to its verb ("frozen" is
// "freeze"), from the closed vocabulary.
var irregular = func() map[string]string {
	m := map[string]string{}
	for _, pair := range vocab.lists["irregularParticiples"] {
		if part, base, ok := strings.Cut(pair, " "); ok {
			m[part] = base
		}
	}
	return m
}()

// findReference reads the reference whose head is goal token i: the
// candidates whose head the word is, narrowed by the words before it
// that the candidates hold ("black pepper"). It reports no reference when
// the word is a command's verb ("pepper the steak"), negated, quoted, in
// a sentence that asks the agent something, after an indefinite
// determiner ("a cup"), a bare plural of singular names ("buy cups";
// "the cups" means all of them), or after a modifier no candidate holds
// ("the red pepper" with black and bell pepper: the goal names something
// else).
func findReference(in *input, ns *nameSet, i int) (reference, bool) {
	verbs := in.verbs
	toks := in.gt
	t := &toks[i]
	key := wordKey(t.Text)
	if verbs[i] || t.quoted || t.code || t.e.has(fStop|fDet|fPlaceholder) {
		return reference{}, false
	}
	fit := ns.headed(key)
	if len(fit) == 0 || modifiesProForm(toks, i) { // "the glass one": glass says which one
		return partialReference(in, ns, i)
	}
	if partOfPhrase(in, i) || negatedClause(toks, i) || in.c.asksAgent(in.goal, toks, i) {
		return reference{}, false
	}
	// keyOf is the word of toks[k] the candidates are told apart by: the
	// word, the part of a compound written with a hyphen that one of them
	// holds ("mint-flavoured": mint; "oat-based": oat), or the word of
	// their names on the same side of one of the profile's groups ("the
	// biggest bowl" with a large and a small bowl: large).
	keyOf := func(k int) string {
		m := wordKey(toks[k].Text)
		for _, w := range identWords(toks[k].Text) {
			if w := wordKey(w); w != m && slices.ContainsFunc(fit, func(f name) bool { return f.holds(w) && !f.holds(m) }) {
				return w
			}
		}
		if !slices.ContainsFunc(fit, func(f name) bool { return f.holds(m) }) {
			for _, f := range fit {
				if w := slices.IndexFunc(f.words, func(w string) bool { return in.c.sameSide(w, m) }); w >= 0 {
					return f.words[w]
				}
			}
		}
		return m
	}
	held := func(k int) (some, all bool) { return heldBy(fit, keyOf(k)) } // toks[k]
	// The words the head's own phrase states: the run before it that the
	// candidates hold ("black pepper"), and, further back to its
	// determiner, verb or preposition, any word that tells them apart
	// ("the glass oven-safe dish": glass; "the can of peaches", ガラスの皿:
	// can, ガラス).
	t0 := i
	for t0 > 0 && toks[t0-1].Clause == t.Clause && !verbs[t0-1] {
		if some, _ := held(t0 - 1); !some {
			break
		}
		t0--
	}
	s := t0
	for s > 0 && toks[s-1].Clause == t.Clause && !verbs[s-1] && !toks[s-1].code {
		if optionWord(&toks[s-1]) {
			s--
			continue
		}
		if some, all := held(max(s-2, 0)); toks[s-1].Text != "of" && toks[s-1].Text != "の" || s < 2 || !some || all {
			break
		}
		s -= 2 // "the can of peaches": can; ガラスの皿: ガラス
	}
	var mods, not []string // the words it holds, and those it does not
	// state records what the goal says of it at toks[k], negated or not
	// (a word it is not, unless a candidate holds the word's negative
	// form: "the butter without salt", "the jar that hasn't been opened"
	// are the unsalted and the unopened one), and reports whether the
	// word tells the candidates apart.
	state := func(k int, neg bool) (tells bool) {
		w := keyOf(k)
		if neg {
			for _, un := range []string{"un", "non"} {
				if some, all := heldBy(fit, un+w); some && !all {
					mods = append(mods, un+w)
					return true
				}
			}
		}
		some, all := held(k)
		switch {
		case some && !all && neg:
			not = append(not, w)
		case some:
			mods = append(mods, w)
		}
		return some && !all
	}
	stated := false
	for k := s; k < i; k++ {
		// a word whose first part is a negation says what it is not when
		// the candidates hold the rest ("non-red"; not "non-stick")
		parts := identWords(toks[k].Text)
		neg := len(parts) > 1 && vocab.has("negations", strings.ToLower(parts[0])) && keyOf(k) != wordKey(toks[k].Text)
		if some, all := held(k); some {
			state(k, neg)
			stated = stated || k < t0 && !all
		}
	}
	// After it, what "for", "of", "from" or "that is" states of it ("the
	// knife for the bread", "the mug that is blue"), and any preposition
	// after a thing that is itself a preposition's object ("on the table
	// in the dining room": where the table is, not where to put it).
	after := false
	pp := s - 1
	for pp >= 0 && toks[pp].e.has(fDet) {
		pp--
	}
	inPP := pp >= 0 && pp < s-1 && toks[pp].Clause == t.Clause && toks[pp].e.has(fPrep) && !(pp > 0 && verbs[pp-1]) // "turn on the lamp": a particle
	j := i + 1
	if k := j; k+1 < len(toks) && toks[k].Clause == t.Clause && content(&toks[k]) && !verbs[k] && !toks[k].e.has(fPrep|fCue) {
		if some, _ := held(k); !some && (toks[k+1].e.has(fPrep|fCue) && toks[k+1].Clause == t.Clause) {
			j++ // a kind word no candidate names: "the staging environment in the US", "the feature branch for billing"
		}
	}
	relative := j < len(toks) && toks[j].e.has(fCue) && !toks[j].e.has(fPrep) && (toks[j].Clause == t.Clause || strings.TrimSpace(in.goal[t.End:toks[j].Start]) == ",")
	// object reads the phrase after the preposition at toks[j]: its
	// head, the last word of substance ("the can of pineapple":
	// pineapple), and its first word that tells the candidates apart, or
	// -1.
	object := func(j int) (head, telling int) {
		head, telling = -1, -1
		for k := j + 1; k < len(toks) && toks[k].Clause == t.Clause && !in.verbs[k] && (!toks[k].e.has(fPrep|fConj|fStepSep) || toks[k].Text == "of"); k++ {
			if content(&toks[k]) {
				head = k
			}
			if some, all := held(k); some && !all && telling < 0 {
				telling = k
			}
		}
		return head, telling
	}
	// A preposition's object that names no candidate of its own and tells
	// the candidates apart describes it too when its thing is a word of
	// their names ("the carton with the almond milk", "the light in the
	// kitchen": almond milk carton, kitchen light), or when it is a word
	// alone that names no place ("the slipper on the left"; on the left
	// shelf, in the freezer are places). A longer phrase may be a thing
	// the verb uses ("wash the mug with the blue sponge": blue is the
	// sponge's, not the mug's; "fill the mug with the red wine": what
	// goes in it), so it settles nothing.
	attrObject := func(j int) bool {
		head, telling := object(j)
		if head < 0 || telling < 0 {
			return false
		}
		// its head names a thing of its own: another candidate ("the lamp on
		// the desk" with a desk) or a mention of the same kind ("after the
		// orange juice"); not one of them by an end of its name ("prod in
		// the EU" with prod-eu)
		named := ns.headed(wordKey(toks[head].Text))
		others := slices.ContainsFunc(named, func(n name) bool {
			return !slices.ContainsFunc(fit, func(f name) bool { return f.display == n.display })
		})
		if others || len(named) > 0 && len(named) == len(fit) {
			return false
		}
		v := commandOf(in, i)
		if v >= 0 && vocab.has("placeVerbs", strings.ToLower(toks[v].Text)) && !vocab.has("attributePrepositions", toks[j].Text) &&
			!vocab.has("meansPrepositions", toks[j].Text) {
			return false // "put the towel in the kitchen": where it goes
		}
		if k := wordKey(toks[head].Text); slices.ContainsFunc(fit, func(f name) bool { return slices.Contains(f.words, k) }) {
			return true
		}
		return !vocab.has("places", toks[head].Text) && telling == head
	}
	end := i + 1
	if j < len(toks) && !relative {
		j += max(sourceWords(toks, j)-1, 0) // "out of the freezer" as "from the freezer"
	}
	if relative || j < len(toks) && toks[j].Clause == t.Clause && (vocab.has("attributePrepositions", toks[j].Text) || toks[j].e.has(fPrep) && (inPP || attrObject(j))) {
		// a relative clause describes it to its end, prepositions too: "the
		// milk that is in the carton", "the mug, which is dirty,"; after a
		// negation it says what it is not ("the butter without salt", "the
		// mug that is not blue")
		neg := toks[j].e.has(fNeg)
		for k := j + 1; k < len(toks) && toks[k].Clause == toks[j].Clause && (relative || !verbs[k]) && !toks[k].e.has(fConj|fStepSep) && (relative || !toks[k].e.has(fPrep)); k++ {
			neg = neg || toks[k].neg || toks[k].e.has(fNeg)
			if state(k, neg) {
				after, end = true, k+1
			}
		}
	}
	switch {
	case stated:
		t0 = s
	case s < t0 && !after:
		return reference{}, false // a modifier no candidate holds: "the red pepper" names something else
	}
	// "the larger of the bowls", "the biggest of the two bowls": the one of
	// them that the word before "of" tells apart; "one of the bowls": any
	partitive := false
	p := t0 - 1
	for p >= 0 && toks[p].Clause == t.Clause && (toks[p].e.has(fDet) || number(toks[p].Text)) {
		p--
	}
	if p >= 1 && p < t0-1 && toks[p].Text == "of" && toks[p-1].Clause == t.Clause && !verbs[p-1] {
		if some, all := held(p - 1); some && !all {
			mods = append(mods, keyOf(p-1))
			t0, partitive = p-1, true
		} else if vocab.has("indefinite", toks[p-1].Text) {
			return reference{}, false // "one of the bowls", "either of the mugs": any of them
		}
	}
	universal := !partitive && quantified(toks, t0, i)
	if t0 > 0 && toks[t0-1].Clause == t.Clause && !lex.IsJapanese(t.Text) && !universal && !partitive {
		if p := &toks[t0-1]; vocab.has("indefinite", p.Text) || p.neg || number(p.Text) {
			return reference{}, false // "a cup", "2 cups": any that fit ("the two cups": both)
		}
	}
	if !relative && j < len(toks) && toks[j].Clause == t.Clause && (toks[j].Text == "of" || sourceWords(toks, j) == 1) {
		// After "of" or where it comes from, the goal names a part or the
		// contents of another thing ("the juice from the canned peaches",
		// "the juice out of the can", "the juice of a lemon"): it says which
		// one it is, so it is no bare mention, and when that thing is a
		// candidate its words are its own (not the canned juice). A place
		// it is taken from ("the milk from the fridge") says nothing of
		// which thing it is.
		if head, _ := object(j); head >= 0 && !vocab.has("places", toks[head].Text) && (!after || len(ns.headed(wordKey(toks[head].Text))) > 0) {
			return reference{}, false
		}
	}
	if key != t.Text && !lex.IsJapanese(t.Text) && !universal && !partitive {
		plural := true
		for _, n := range fit {
			if strings.HasSuffix(strings.ToLower(n.display), t.Text) || slices.Contains(identWords(strings.ToLower(n.display)), t.Text) { // "orders" with orders_2023
				plural = false
			}
		}
		definite := t0 > 0 && toks[t0-1].Clause == t.Clause && toks[t0-1].e.has(fDet) && !vocab.has("indefinite", toks[t0-1].Text)
		switch {
		case plural && definite:
			universal = true // "the cups" means all of them
		case plural:
			return reference{}, false // "buy cups": others
		}
	}
	ref := reference{t0: t0, t1: i + 1, said: end, chosen: -1, other: t0 > 0 && toks[t0-1].Text == "other"}
	for _, n := range fit {
		if n.hasAll(mods) && !slices.ContainsFunc(not, n.holds) {
			ref.options = append(ref.options, n.display)
		}
	}
	if len(ref.options) == 0 {
		return reference{}, false
	}
	if len(ref.options) == 1 {
		ref.chosen = 0
	}
	ref.all = universal && ref.chosen < 0
	return ref, true
}

// partialReference reads goal token i, a word no candidate has as its
// head, as a mention of the one candidate that holds it when it ends its
// noun phrase after a determiner ("take out the cheddar" with cheddar
// cheese and brie cheese; "the red one"): the goal names that candidate
// by the attribute that tells it apart. A place word names the place
// ("the kitchen" is the room, not the kitchen table).
func partialReference(in *input, ns *nameSet, i int) (reference, bool) {
	toks := in.gt
	t := &toks[i]
	holders := ns.byWord[unhyphenated(wordKey(t.Text))]
	switch {
	case i == 0 || len(holders) != 1 || vocab.has("places", t.Text) || !content(t) || toks[i-1].Clause != t.Clause || !toks[i-1].e.has(fDet) || vocab.has("indefinite", toks[i-1].Text):
		return reference{}, false
	case i+1 < len(toks) && toks[i+1].Clause == t.Clause && content(&toks[i+1]) && !toks[i+1].e.has(fPlaceholder) && !in.verbs[i+1]:
		return reference{}, false // "the red wine": the word does not end its phrase
	}
	return reference{t0: i, t1: i + 1, options: []string{holders[0].display}, chosen: 0}, true
}

// modifiesProForm reports whether goal token i stands before "one" or
// "ones" (a determiner that stands for a noun): "the glass one" is a
// one that is glass, not a glass.
func modifiesProForm(toks []token, i int) bool {
	if i+1 >= len(toks) || toks[i+1].Clause != toks[i].Clause {
		return false
	}
	w := wordKey(toks[i+1].Text)
	return vocab.has("placeholders", w) && vocab.has("determiners", w) && !toks[i+1].e.has(fCue)
}

// quantified reports whether the reference toks[t0:i+1] follows a
// universal quantifier, or a number after a definite determiner ("the
// two kinds of bread", "my three mugs"), with only determiners and
// nouns before "of" between ("all of the rice", "both flavours of ice
// cream"); in Japanese, whether one stands anywhere in its clause.
func quantified(toks []token, t0, i int) bool {
	if lex.IsJapanese(toks[i].Text) {
		return slices.ContainsFunc(toks, func(t token) bool {
			return t.Clause == toks[i].Clause && slices.ContainsFunc(vocab.lists["jaUniversals"], func(u string) bool { return strings.HasPrefix(t.Text, u) })
		})
	}
	for k := t0 - 1; k >= 0 && toks[k].Clause == toks[i].Clause; k-- {
		t := &toks[k]
		switch {
		case vocab.has("universals", t.Text):
			return true
		case k > 0 && (count(t.Text) || vocab.has("indefinite", t.Text)) && t.Text != "1" && t.Text != "one":
			p := &toks[k-1]
			// "the two": all; not "a few", nor "the bigger of the two": one of them
			partitive := k > 1 && toks[k-2].Text == "of"
			return p.Clause == t.Clause && p.e.has(fDet) && !vocab.has("indefinite", p.Text) && !vocab.has("placeholders", p.Text) && !partitive
		case t.e.has(fDet) || t.Text == "of":
		case k+1 < len(toks) && toks[k+1].Text == "of" && content(t): // "kinds of", "flavours of"
		default:
			return false // only determiners and "of" with its noun between: "both kinds of bread"
		}
	}
	return false
}

// detectCandidates settles the goal's references to Request.Candidates
// (objects in a room, environments, tables, ...) and Request.Files, as
// phrases a reader sees. What a mention binds to is one rule:
//   - a run that names one candidate whole (the longest wins, case-,
//     plural- and hyphen-insensitive; its numbers are part of it:
//     "table 7", "release-1.3") is that candidate;
//   - else a noun phrase names the candidates whose head it is (their
//     last word, written whole or not; either end of an identifier; the
//     word before a one-letter label), or the one candidate that alone
//     holds its last word ("the cheddar", "the red one"); a compound or
//     a measure ("the steak knife", "a cup of rice"), an indefinite ("a
//     cup"), a bare plural of singular names ("buy cups") and a part or the
//     contents of another thing ("the juice from the canned peaches")
//     name none;
//   - the words the goal states of it keep those that hold them: before
//     it ("the glass oven-safe dish"; "the biggest bowl": a word on the
//     same side of a profile group as "large"), after it with for, of,
//     from, out of, with or a relative clause ("the peas from the
//     freezer": a word of one family with frozen; "the light in the
//     kitchen": a word of a candidate's own name), the word before "of"
//     in a partitive ("the bigger of the two containers"), set off by a
//     comma or a bracket, what it is not (negated, "non-red", "other
//     than the metal one"; "without salt" is the unsalted one), a full
//     or settled mention before it ("take the cheddar cheese out, then
//     slice the cheese");
//   - one left is bound; a universal quantifier, before it or set off
//     after it, a numeral after a definite determiner or a definite
//     plural of singular names ("both kinds of bread", "the bread
//     (both)", "the two mugs", "the mugs") binds all; two or more left
//     ask SELECT_ONE (reason target_action_ambiguous) unless the answer
//     names one;
//   - a pronoun binds what the command before it acts on, when that is
//     one candidate (or, for "them", several) and no other candidate the
//     command names could be it, nor is it a cover or part taken off
//     another thing; it is never asked about.
//
// Which candidate each mention means is recorded in the plan's
// spec.bindings. "The file" or a base name two files share refers to the
// files whose names hold the words the goal states of it, asked as
// TARGET_FILE (target_file_ambiguous) when two or more. The answer settles
// it by naming one (for files also a relative path or a root word); the
// rule takes the first.
func detectCandidates(in *input) references {
	res := references{fileTok: -1}
	res.target = fileReference(in, &res)
	if res.q != nil {
		return res
	}
	if len(in.cands) == 0 {
		return res
	}
	ns := newNameSet(in.cands)
	full := fullMentions(in, ns)
	covered := make([]bool, len(in.gt))
	excluded := map[string]bool{} // what a negation names: "not the whole milk", "not the nonstick one"
	for i, m := range full {
		for k := m.t0; k < m.t1; k++ {
			covered[k] = true
		}
		full[i].neg = ruledOut(in.gt, m.t0)
		excluded[m.name] = excluded[m.name] || full[i].neg
		res.refs = append(res.refs, reference{t0: m.t0, t1: m.t1, options: []string{m.name}, chosen: 0})
	}
	for i := range in.gt {
		if ref, ok := partialReference(in, ns, i); ok && !covered[i] && ruledOut(in.gt, i) {
			excluded[ref.options[0]] = true
		}
	}
	slices.SortFunc(res.refs, func(a, b reference) int { return a.t0 - b.t0 })
	for i := 0; i < len(in.gt); i++ {
		if covered[i] {
			continue
		}
		ref, ok := findReference(in, ns, i)
		if !ok || covered[ref.t0] {
			continue
		}
		phrase := in.span(ref.t0, ref.t1)
		if last := in.gt[ref.t1-1]; lex.IsHanStart(last.Text) { // 胡椒を: the word without its particle
			phrase = in.goal[in.gt[ref.t0].Start : last.Start+len(lex.HanStem(last.Text))]
		}
		if ref.chosen < 0 && !ref.all {
			if ref.all = restatedAll(in, ref); !ref.all {
				if ref.chosen = restated(in, ns, ref, full); ref.chosen < 0 {
					antecedent(in, &ref, full, excluded)
				}
			}
		}
		if ref.chosen < 0 && !ref.all {
			ref.chosen = answerOption(in, ref.options)
		}
		switch {
		case ref.all:
			res.assumptions = append(res.assumptions, fmt.Sprintf("Took %s to mean all of %s.", in.quote(phrase), in.quoteList(ref.options, "and")))
		case ref.chosen >= 0:
			// settled, it names its candidate for the mentions after it as a
			// full mention does ("take the peas out of the freezer and cook
			// the peas", "take out the mint, then scoop the ice cream")
			m := fullMention{t0: ref.t0, t1: ref.t1, name: ref.options[ref.chosen], neg: negatedClause(in.gt, ref.t0)}
			full = slices.Insert(full, sort.Search(len(full), func(f int) bool { return full[f].t0 >= m.t0 }), m)
		default:
			if res.q == nil {
				text := in.say("Which %s is meant: %s?", "%sは%sのどれですか？", in.quote(phrase), in.quoteList(ref.options, "or"))
				res.q = selectOne(text, "target_action_ambiguous", ref.options)
			}
			ref.chosen = 0
			res.assumptions = append(res.assumptions, fmt.Sprintf("Took %s to be %s, the first that fits.", in.quote(phrase), in.quote(ref.options[0])))
		}
		res.refs = append(res.refs, ref)
		i = max(ref.t1, ref.said) - 1
	}
	slices.SortStableFunc(res.refs, func(a, b reference) int { return a.t0 - b.t0 })
	res.refs = append(res.refs, pronouns(in, res.refs)...)
	return res
}

// pronouns bind "it" to the one candidate the command before it acts on,
// and "them", "they" or "both" to the candidates it acts on ("grab the
// red mug and the blue mug, then wash them"): the objects of the nearest
// command before the pronoun that does not hold it ("take the oat milk
// out of the fridge and pour it": the oat milk, not the fridge it is
// taken out of). When that thing is no candidate, or "it" fits two (the
// command names another candidate: "put the dish in the oven and turn it
// on"), nothing is bound; nor is a Japanese pronoun (それを), whose
// command names its object before its verb. Pronouns are bindings only:
// a pronoun is never asked about.
func pronouns(in *input, refs []reference) []reference {
	var out []reference
	for i := range in.gt {
		t := &in.gt[i]
		plural := vocab.has("pluralPronouns", t.Text)
		if t.code || t.quoted || !plural && !vocab.has("singularPronouns", t.Text) {
			continue
		}
		if t.Text == "both" && i+1 < len(in.gt) && in.gt[i+1].Clause == t.Clause && (content(&in.gt[i+1]) || in.gt[i+1].Text == "of") {
			continue // "both cups", "both of them": a quantifier
		}
		if own := commandOf(in, i); own >= 0 && vocab.has("containerVerbs", in.gt[own].Text) {
			continue // "close it", "turn it on": a container or an appliance, not a thing taken out of it
		}
		if meant := actedOn(in, refs, i, plural); len(meant) > 0 { // actedOn agrees in number
			out = append(out, reference{t0: i, t1: i + 1, options: meant, chosen: 0, all: len(meant) > 1})
		}
	}
	return out
}

// commandOf is the verb of the command that holds goal token i, or -1.
func commandOf(in *input, i int) int {
	for _, c := range in.cmds {
		if c.verb <= i && i < c.end {
			return c.verb
		}
	}
	return -1
}

// meaning is what ref binds: its chosen candidate, or all it fits (a
// settled reference has one or the other).
func (ref reference) meaning() []string {
	if ref.all {
		return ref.options
	}
	return ref.options[ref.chosen : ref.chosen+1]
}

// actedOn is what the nearest command before goal token i that does not
// hold it acts on, when that is candidates: the candidates its object
// names, when its object's head is one, it is not a cover or part taken
// off a thing that is no place (source), and the command names no other candidate but a
// place it takes something out of ("put the dish in the
// oven and turn it on": the dish or the oven, so neither), and that
// agree with it in number: one thing for "it", several or a plural for
// "them".
func actedOn(in *input, refs []reference, i int, plural bool) []string {
	for c := sort.Search(len(in.cmds), func(c int) bool { return in.cmds[c].verb >= i }) - 1; c >= 0; c-- {
		v := in.cmds[c].verb
		t0, t1 := objectSpan(in, v)
		if t0 <= i && i < in.cmds[c].end {
			continue // the pronoun's own command
		}
		head := -1
		for k := t0; k < t1; k++ {
			if content(&in.gt[k]) {
				head = k
			}
		}
		var object, other []string
		named := false
		s0, s1, place := source(in, t1, in.cmds[c].end)
		for _, ref := range refs[sort.Search(len(refs), func(r int) bool { return refs[r].t0 > v }):] {
			if ref.t0 >= max(t1, in.cmds[c].end) {
				break
			}
			switch {
			case t0 <= ref.t0 && ref.t0 < t1:
				object = appendNew(object, ref.meaning()...)
				named = named || ref.t0 <= head && head < ref.t1
			case v < ref.t0 && ref.t0 < in.cmds[c].end && !(s0 <= ref.t0 && ref.t0 < s1):
				other = appendNew(other, ref.meaning()...)
			}
		}
		if !named || s0 >= 0 && !place && vocab.has("covers", wordKey(in.gt[head].Text)) {
			return nil // "take the lid off the pot and stir it": the lid or the pot
		}
		many := len(object) > 1 || wordKey(in.gt[head].Text) != in.gt[head].Text // "the chairs": a plural
		if !plural && (len(other) > 0 || many) || plural && !many {
			return nil // "move the chairs ... vacuum under it", "pour the soup into the bowls and serve them"
		}
		return object
	}
	return nil
}

// source is the phrase a command takes its object, which ends at goal
// token t1, off, from or out of, up to the command's end: its tokens
// [s0, s1), or s0 = -1, and whether it is a place: one something is
// taken out of, or whose last word is a place. Taken out of a place ("take
// the oat milk out of the fridge", "the cookies out of the jar") the thing
// moved is the one acted on, and the place is no other thing the command
// names;
// taken off or from a thing that is no place, the thing moved is the one
// acted on too ("take the cookies from the package"), unless it is a
// cover or a part of what it came off ("take the lid off the pot",
// "remove the cap from the bottle", "the skin from the chicken": the
// covers list): then both could be what a later "it" means.
func source(in *input, t1, end int) (s0, s1 int, place bool) {
	for k := t1; k < end; k++ {
		n := sourceWords(in.gt, k)
		if n == 0 {
			continue
		}
		head, h := -1, k+n
		for ; h < end && in.gt[h].Clause == in.gt[k].Clause && !in.gt[h].e.has(fPrep|fConj) && !in.verbs[h]; h++ {
			if !in.gt[h].e.has(fDet) && strings.IndexFunc(in.gt[h].Text, unicode.IsLetter) >= 0 {
				head = h // its last word, a stop word too: "off the can"
			}
		}
		return k, h, n == 2 || head < 0 || vocab.has("places", wordKey(in.gt[head].Text))
	}
	return -1, -1, false
}

// ruledOut reports whether the goal sets aside the thing it names at
// toks[i]: negated in its clause ("not the whole milk"), or after a word
// that excludes it ("the spoon other than the metal one", "instead of the
// glass dish", "except the red mug"). "From" there says where a thing is
// taken from, which rules nothing out.
func ruledOut(toks []token, i int) bool {
	k := i - 1
	for k >= 0 && toks[k].e.has(fDet) {
		k--
	}
	return negatedClause(toks, i) || k >= 0 && vocab.has("valueExcluders", governor(toks, i)) && sourceWords(toks, k) == 0
}

// sourceWords is how many tokens from toks[k] on say where something
// comes from: "from" and "off" are one, "out of" two; else 0.
func sourceWords(toks []token, k int) int {
	switch {
	case toks[k].Text == "from" || toks[k].Text == "off":
		return 1
	case toks[k].Text == "out" && k+1 < len(toks) && toks[k+1].Text == "of" && toks[k+1].Clause == toks[k].Clause:
		return 2
	}
	return 0
}

// objectSpan is the object of the command whose verb is goal token v: the
// tokens after it (past a particle: "take out the milk"), joined by
// "and", up to a preposition, a particle, the next command or the end of
// the clause ("take the oat milk out of the fridge": the oat milk).
func objectSpan(in *input, v int) (int, int) {
	toks := in.gt
	k := v + 1
	for k < len(toks) && toks[k].Clause == toks[v].Clause && vocab.has("particles", toks[k].Text) {
		k++
	}
	t0 := k
	for ; k < len(toks) && toks[k].Clause == toks[v].Clause && !in.verbs[k]; k++ {
		t := &toks[k]
		measure := k > 0 && t.Text == "of" && vocab.has("measures", toks[k-1].Text) // "a cup of rice"
		if t.e.has(fPrep|fStepSep|fCondition) && !measure || vocab.has("particles", t.Text) {
			break
		}
	}
	return t0, k
}

// appendNew appends the names not in out already.
func appendNew(out []string, names ...string) []string {
	for _, n := range names {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// nameSet is the request's candidates as the matcher reads them, indexed
// by their first word (for whole names) and by every word (for a word one
// of them alone holds); a bare mention's are those headMatch fits.
type nameSet struct {
	names   []name
	byFirst map[string][]name
	byWord  map[string][]name // by each of their words, and two of them joined
	byHead  map[string][]name // by each of their heads
}

func newNameSet(cands []string) *nameSet {
	ns := &nameSet{byFirst: map[string][]name{}, byWord: map[string][]name{}, byHead: map[string][]name{}}
	for _, c := range cands {
		n := nameOf(c)
		if len(n.words) == 0 {
			continue
		}
		for _, h := range n.heads {
			ns.byHead[h] = append(ns.byHead[h], n)
		}
		for i, w := range n.words {
			if !slices.Contains(n.words[:i], w) {
				ns.byWord[w] = append(ns.byWord[w], n)
			}
			if i+1 < len(n.words) { // "non stick" is also "nonstick"
				ns.byWord[w+n.words[i+1]] = append(ns.byWord[w+n.words[i+1]], n)
			}
		}
		ns.names = append(ns.names, n)
		ns.byFirst[n.words[0]] = append(ns.byFirst[n.words[0]], n)
	}
	return ns
}

// headed returns the names whose head the goal word key is (headMatch),
// in the candidates' order: by the index, but for a Japanese word, which
// may also be the end of a head (胡椒 of 黒胡椒). The result is shared:
// it is never to be written.
func (ns *nameSet) headed(key string) []name {
	if !lex.IsJapanese(key) {
		return slices.Clip(ns.byHead[key])
	}
	var fit []name
	for _, n := range ns.names {
		if headMatch(key, n) {
			fit = append(fit, n)
		}
	}
	return fit
}

// fullMention is a run of goal tokens [t0, t1) that names one candidate
// whole ("the white bread", "maple bars").
type fullMention struct {
	t0, t1 int
	name   string
	neg    bool // in a negated clause: "not the whole milk"
}

// fullMentions finds, left to right, the longest runs of goal tokens
// that name a candidate whole, case- and plural-insensitive, a token
// written as an identifier being its words ("the eu-west cluster"). A
// mention that names a candidate whole is resolved: it is never asked
// about.
func fullMentions(in *input, ns *nameSet) []fullMention {
	var out []fullMention
	toks := in.gt
	words := func(t *token) []string { // a token's words as a name's: "eu-west" is eu west
		ws := identParts(t.Text, true)
		if len(ws) < 2 {
			return []string{wordKey(t.Text)}
		}
		for k, w := range ws {
			ws[k] = wordKey(w)
		}
		return ws
	}
	// run is the end of the tokens from i on that hold n's words, or -1.
	run := func(i int, n name) int {
		j, k := i, 0
		for ; k < len(n.words) && j < len(toks) && toks[j].Clause == toks[i].Clause; j++ {
			ws := words(&toks[j])
			if k+len(ws) > len(n.words) || !slices.Equal(ws, n.words[k:k+len(ws)]) {
				return -1
			}
			k += len(ws)
		}
		if k < len(n.words) {
			return -1
		}
		return j
	}
	for i := 0; i < len(toks); i++ {
		if toks[i].quoted || toks[i].code {
			continue
		}
		best, size := fullMention{t0: -1}, 0
		for _, n := range ns.byFirst[words(&toks[i])[0]] {
			k := len(n.words)
			if k == 1 && in.verbs[i] && i+1 < len(toks) && toks[i+1].Clause == toks[i].Clause && (toks[i+1].e.has(fDet) || content(&toks[i+1])) {
				continue // "microwave the soup": a command's verb names no thing ("eggs in the fridge" does)
			}
			if end := run(i, n); end > i && k > size {
				best, size = fullMention{t0: i, t1: end, name: n.display}, k
			}
		}
		if best.t0 >= 0 {
			out = append(out, best)
			i = best.t1 - 1
		}
	}
	return out
}

// partOfPhrase reports whether the head word at goal token i is part of
// a longer noun phrase rather than a mention of its own: the first noun
// of a compound ("the steak knife", "apple pie", "cream cheese") or a
// measure ("a cup of rice", "a glass of water"). A data noun after it
// (objects: deployment, file, branch, ...) names what the thing is, so
// "the worker deployment" is a mention of the worker.
func partOfPhrase(in *input, i int) bool {
	toks := in.gt
	if i+1 >= len(toks) || toks[i+1].Clause != toks[i].Clause || lex.IsJapanese(toks[i].Text) {
		return false
	}
	next := &toks[i+1]
	switch {
	case next.Text == "of" && vocab.has("measures", toks[i].Text):
		return true
	case next.e.has(fObject): // a class noun names what the thing is: "the worker deployment"
		return false
	case in.verbs[i+1] || !optionWord(next) || next.quoted || lex.IsJapanese(next.Text) || vocab.has("particles", next.Text) || strings.HasSuffix(next.Text, "ly"):
		return false
	}
	return strings.IndexFunc(next.Text, unicode.IsLetter) >= 0
}

// restatedAll reports whether a universal quantifier set off by a comma,
// a colon, a dash or a bracket follows ref right after it: "toast the
// bread (both)", "toast the bread, both kinds", "slice the cheese: all of
// it" mean every candidate it fits.
func restatedAll(in *input, ref reference) bool {
	k := max(ref.t1, ref.said)
	return k < len(in.gt) && setOff(in, k) && vocab.has("universals", strings.ToLower(in.gt[k].Text))
}

// setOff reports whether goal token k follows a comma, a colon, a dash or
// an opening bracket.
func setOff(in *input, k int) bool {
	return k > 0 && slices.Contains([]string{",", ":", "(", "-", "–", "—"}, strings.TrimSpace(in.goal[in.gt[k-1].End:in.gt[k].Start]))
}

// restated is the option of ref that a mention set off by a comma, a
// colon, a dash or a bracket names, right after it ("heat the milk, the
// oat one"; "the milk (the oat milk)"; "the dish (glass)": a word one
// of them alone holds) or ending its sentence ("put the mug in the sink,
// the red one"), or -1.
func restated(in *input, ns *nameSet, ref reference, full []fullMention) int {
	toks := in.gt
	for k := ref.t1; k < len(toks) && toks[k].Sentence == toks[ref.t0].Sentence; k++ {
		if !setOff(in, k) {
			continue
		}
		m := k
		for m < len(toks) && toks[m].e.has(fDet) {
			m++
		}
		if m == len(toks) {
			return -1 // "toast the bread (both)": no mention after it
		}
		name, end := "", m+1
		if f := sort.Search(len(full), func(f int) bool { return full[f].t0 >= m }); f < len(full) && full[f].t0 == m {
			name, end = full[f].name, full[f].t1
		} else if r, ok := partialReference(in, ns, m); ok {
			name = r.options[0]
		} else if m == k && m < len(toks) && (m+1 == len(toks) || toks[m+1].Clause != toks[m].Clause) && content(&toks[m]) {
			if o := only(ref.options, func(o string) bool { return nameOf(o).holds(wordKey(toks[m].Text)) }); o >= 0 {
				name = ref.options[o] // "the dish (glass)"
			}
		}
		if end < len(toks) && modifiesProForm(toks, end-1) {
			end++ // "the red one"
		}
		if k == ref.t1 || end >= len(toks) || toks[end].Sentence != toks[k].Sentence {
			return slices.Index(ref.options, name)
		}
	}
	return -1
}

// antecedent resolves a bare mention by the full mentions before it that
// no negation cancels: when the list that holds the nearest one (the
// object of its command) names every candidate it fits, it means all of
// them ("the rye bread and the white bread ... slice the bread"); else it
// means the nearest one it fits ("take the cheddar cheese out, then slice
// the cheese"; "rinse the red mug, wash the other mug, then dry the mug":
// the other one); after "other", the one they do not name ("rinse the red
// mug, then dry the other mug"). Without one, when the goal rules out all
// candidates it fits but one ("use the pan, not the nonstick one"), it
// means that one.
func antecedent(in *input, ref *reference, full []fullMention, excluded map[string]bool) {
	toks := in.gt
	named, listed := map[string]bool{}, map[string]bool{}
	nearest, later := -1, []int(nil)
	l0, l1 := -1, -1 // the list that holds the nearest
	for _, m := range full {
		k := slices.Index(ref.options, m.name)
		switch {
		case k < 0 || m.neg:
		case m.t1 <= ref.t0:
			if m.t0 < l0 || m.t0 >= l1 {
				clear(listed)
				l0, l1 = listOf(in, m)
			}
			named[m.name], listed[m.name], nearest = true, true, k
		case toks[m.t0].Sentence == toks[ref.t0].Sentence && !slices.Contains(later, k):
			later = append(later, k)
		}
	}
	if nearest < 0 && len(later) == 1 && !ref.other {
		nearest = later[0] // named in full later in its sentence: "put the juice back after you pour the orange juice"
	}
	if ref.other { // "the other mug": the one not named
		if k := only(ref.options, func(o string) bool { return !named[o] }); k >= 0 && len(named) > 0 {
			ref.chosen = k
		}
		return
	}
	switch {
	case len(ref.options) > 1 && len(listed) == len(ref.options):
		ref.all = true
	case nearest >= 0:
		ref.chosen = nearest
	default:
		ref.chosen = only(ref.options, func(o string) bool { return !excluded[o] })
	}
}

// listOf is the list of things that holds the full mention m: the object
// of the command before it when m is in it ("take the rye bread and the
// white bread out"), else m alone.
func listOf(in *input, m fullMention) (int, int) {
	if c := sort.Search(len(in.cmds), func(c int) bool { return in.cmds[c].verb >= m.t0 }) - 1; c >= 0 {
		if t0, t1 := objectSpan(in, in.cmds[c].verb); t0 <= m.t0 && m.t0 < t1 {
			return t0, t1
		}
	}
	return m.t0, m.t1
}

// fileReference settles the goal's reference to the request's files: a
// file it names (by path, or by a base name no other file shares), else
// "the file" or a base name without extension that two or more files
// share ("the readme" with README.md and docs/README.md). One fitting
// file is used; two or more ask TARGET_FILE unless the answer names one.
func fileReference(in *input, res *references) string {
	if len(in.files) == 0 {
		return ""
	}
	if f := namedFile(in.files, in.gt); f != "" {
		return f
	}
	at, fit := -1, []string(nil)
	defer func() { res.fileTok = at }()
	for i := range in.gt {
		t := &in.gt[i]
		if t.neg || t.quoted || in.c.asksAgent(in.goal, in.gt, i) {
			continue
		}
		key := wordKey(t.Text)
		if vocab.has("fileWords", key) && key == t.Text && (i == 0 || !vocab.has("indefinite", in.gt[i-1].Text)) && !quantified(in.gt, i, i) {
			at, fit = i, in.files
			break
		}
		var same []string
		for _, f := range in.files {
			b := strings.ToLower(path.Base(f))
			if stem := strings.TrimSuffix(b, path.Ext(b)); stem == t.Text && stem != b {
				same = append(same, f)
			}
		}
		if len(same) > 0 {
			at, fit = i, same
			break
		}
	}
	if at < 0 {
		return ""
	}
	t0 := at
	if t0 > 0 && in.gt[t0-1].Clause == in.gt[at].Clause && in.gt[t0-1].e.has(fDet) {
		t0--
	}
	phrase := in.span(t0, at+1)
	if len(fit) > 1 && vocab.has("fileWords", wordKey(in.gt[at].Text)) {
		fit = statedFiles(in, at, fit)
	}
	if len(fit) == 1 {
		res.assumptions = append(res.assumptions, fmt.Sprintf("Took %s to be %s, the only candidate file.", in.quote(phrase), fit[0]))
		return fit[0]
	}
	if f := answerFile(in, fit); f != "" {
		return f
	}
	text := in.say("The goal refers to %s. Which file is it?", "%sはどのファイルですか？", in.quote(phrase))
	res.q = &askonce.Question{Type: askonce.QuestionTargetFile, Text: text, Options: fit, Reason: "target_file_ambiguous"}
	res.assumptions = append(res.assumptions, fmt.Sprintf("Took %s to be %s, the first candidate file.", in.quote(phrase), fit[0]))
	return fit[0]
}

// statedFiles keeps, of the files "the file" at goal token at may mean,
// those whose names hold the words the goal states of it: before it in
// its phrase ("the test file", "the Go file") or after it with a
// preposition or a relative clause ("the file with the main function",
// "the file that isn't notes": what it is not). A word that no file, or
// every file, holds tells nothing; when none is left, all stay.
func statedFiles(in *input, at int, fit []string) []string {
	toks := in.gt
	names := make([]name, len(fit))
	for i, f := range fit {
		names[i] = nameOf(f)
	}
	keep := slices.Clone(names)
	state := func(k int, neg bool) {
		w := wordKey(toks[k].Text)
		if some, all := heldBy(names, w); !content(&toks[k]) || !some || all {
			return
		}
		keep = slices.DeleteFunc(keep, func(f name) bool { return f.holds(w) == neg })
	}
	for k := at - 1; k >= 0 && toks[k].Clause == toks[at].Clause && !toks[k].e.has(fDet|fPrep) && !in.verbs[k]; k-- {
		state(k, false)
	}
	if j := at + 1; j < len(toks) && toks[j].Clause == toks[at].Clause && toks[j].e.has(fPrep|fCue) {
		neg := false
		for k := j; k < len(toks) && toks[k].Clause == toks[at].Clause && !toks[k].e.has(fConj|fStepSep) && (k == j || !in.verbs[k] || toks[j].e.has(fCue)); k++ {
			neg = neg || toks[k].neg || toks[k].e.has(fNeg)
			state(k, neg)
		}
	}
	if len(keep) == 0 {
		return fit
	}
	out := make([]string, len(keep))
	for i, f := range keep {
		out[i] = f.display
	}
	return out
}

// namedFile is the file that toks name by its path, or by a base name no
// other file shares.
func namedFile(files []string, toks []token) string {
	for _, t := range toks {
		if i := slices.IndexFunc(files, func(f string) bool { return strings.ToLower(f) == t.Text }); i >= 0 {
			return files[i]
		}
		if i := only(files, func(f string) bool { return strings.ToLower(path.Base(f)) == t.Text }); i >= 0 {
			return files[i]
		}
	}
	return ""
}

// answerFile reads a TARGET_FILE answer: an offered file, a project-root
// word ("."), or a relative path inside the project.
func answerFile(in *input, files []string) string {
	a := strings.TrimSpace(in.answer)
	switch {
	case a == "" || slices.Contains(files, a):
		return a
	case askonce.IsRootAnswer(a):
		return "."
	}
	if f := namedFile(files, in.at); f != "" {
		return f
	}
	if c, err := askonce.ValidatePath(a); err == nil && !strings.ContainsAny(a, " \t\n") && strings.ContainsAny(a, "./") {
		return c
	}
	return ""
}
