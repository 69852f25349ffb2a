package rules

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/internal/lex"
)

// run is what the planners read: the input and every detector's result.
type run struct {
	*input
	*reading
}

// generalSpec is the spec of the steps planner.
type generalSpec struct {
	Goal        string            `json:"goal"`
	Details     string            `json:"details,omitempty"`
	Attributes  map[string]string `json:"attributes,omitempty"`
	Target      string            `json:"target,omitempty"`
	Choices     []string          `json:"choices,omitempty"`
	Bindings    []binding         `json:"bindings,omitempty"`
	Destructive *destructiveSpec  `json:"destructive,omitempty"`
	Answer      string            `json:"answer,omitempty"`
	Steps       int               `json:"steps"`
}

// binding records beside a task's text which candidate or file one of its
// mentions means (docs/protocol.md rule 16): the text is never rewritten.
// spec.bindings lists them all with their task's id; each task also holds
// its own (askonce.Task.Bindings).
type binding struct {
	Task      string `json:"task,omitempty"`
	Mention   string `json:"mention"`
	Candidate string `json:"candidate"`
	at        int    // byte offset of the mention in the goal
}

type destructiveSpec struct {
	Actions   []string `json:"actions"`
	Confirmed bool     `json:"confirmed"`
}

// attributes are the settled sides by property name, plus, when the answer
// is the goal's detail, the sides it names.
func (r *run) attributes() map[string]string {
	out := map[string]string{}
	set := func(gi int, v string) {
		if key := r.p.Groups[gi].Name; out[key] == "" {
			out[key] = v
		}
	}
	for gi, g := range r.contradiction.groups {
		if g.side >= 0 {
			set(gi, g.display)
		}
	}
	for i := range r.at {
		if t := &r.at[i]; r.vague.useAnswer && !t.neg && t.e != nil {
			for _, s := range t.e.sides {
				if r.contradiction.groups[s.group].side < 0 {
					set(s.group, s.display)
				}
			}
		}
	}
	return out
}

// bindings are the mentions the candidates detector resolved and the
// choices settled, in the goal's order: one per candidate meant.
func (r *run) bindings() []binding {
	var out []binding
	for _, ref := range r.candidates.refs {
		for _, o := range ref.meaning() {
			out = append(out, binding{Mention: r.span(ref.t0, ref.t1), Candidate: o, at: r.gt[ref.t0].Start})
		}
	}
	for _, a := range r.choice.found { // the option chosen of "staging or production"
		out = append(out, binding{Mention: r.span(a.x0, a.y1), Candidate: a.options[a.chosen], at: r.gt[a.x0].Start})
	}
	if f := r.candidates.fileTok; r.candidates.target != "" && f >= 0 {
		out = append(out, binding{Mention: r.span(f, f+1), Candidate: r.candidates.target, at: r.gt[f].Start})
	}
	slices.SortStableFunc(out, func(a, b binding) int { return a.at - b.at })
	return out
}

// stepsPlan is the steps planner: one task per step, each depending on
// the step before it, its text the step as the user wrote it. A step
// with a parallel cue ("in parallel", "meanwhile") shares the
// dependencies of the step before it instead, and the next ordinary step
// depends on all of them. A destructive action the user did not confirm
// is cut out of its step, and what is left of the step stays a quote.
func (r *run) stepsPlan() (*askonce.Plan, error) {
	spec := generalSpec{Goal: strings.TrimSpace(r.goal), Attributes: r.attributes(), Target: r.candidates.target, Answer: r.answer}
	for _, a := range r.choice.found {
		spec.Choices = append(spec.Choices, a.options[a.chosen])
	}
	var cut [][2]int // goal bytes of unconfirmed destructive actions, in order and apart
	if len(r.destructive.actions) > 0 {
		spec.Destructive = &destructiveSpec{Confirmed: r.destructive.confirmed}
		for _, a := range r.destructive.actions {
			spec.Destructive.Actions = append(spec.Destructive.Actions, a.text)
			if !r.destructive.confirmed {
				cut = append(cut, [2]int{a.start, a.end})
			}
		}
		slices.SortFunc(cut, func(a, b [2]int) int { return a[0] - b[0] })
		apart := cut[:0]
		for _, c := range cut { // overlapping cuts are one
			if n := len(apart); n > 0 && c[0] < apart[n-1][1] {
				apart[n-1][1] = max(apart[n-1][1], c[1])
			} else {
				apart = append(apart, c)
			}
		}
		cut = apart
	}
	dropCuts, _ := r.dropped()
	binds := r.bindings()
	bi := 0 // binds are in the goal's order, and so are its steps
	var tasks []askonce.Task
	var frontier, prevDeps []string
	title, titled := "", false // the goal's title; a step that is the whole goal has made it
	add := func(src string, st step, goal bool) {
		text := src[st.start:st.end]
		toks, cuts := r.at, [][2]int(nil)
		if goal {
			toks, cuts = r.gt, dropCuts
		}
		t := askonce.Task{ID: "t" + strconv.Itoa(len(tasks)+1), Title: r.c.title(src, toks, st.start, st.end, cuts), Instruction: text}
		if goal && st.start == 0 && st.end == len(src) {
			title, titled = t.Title, true
		}
		if !st.parallel || len(tasks) == 0 {
			prevDeps, frontier = append([]string{}, frontier...), nil
		}
		t.DependsOn = prevDeps
		for ; goal && bi < len(binds) && binds[bi].at < st.end; bi++ {
			if binds[bi].at >= st.start {
				binds[bi].Task = t.ID
				t.Bindings = append(t.Bindings, askonce.Binding{Mention: binds[bi].Mention, Candidate: binds[bi].Candidate})
			}
		}
		tasks = append(tasks, t)
		frontier = append(frontier, t.ID)
	}
	for _, st := range r.goalSteps() {
		for _, piece := range r.uncut(st, cut) {
			add(r.goal, piece, true)
		}
	}
	if r.vague.useAnswer { // the goal said too little; the answer says what to do
		spec.Details = r.answer
		for _, st := range r.c.splitSteps(r.answer, r.at, r.c.commands(r.answer, r.at), layoutOf(r.answer)) {
			add(r.answer, st, false)
		}
	}
	if !titled {
		title = r.c.title(r.goal, r.gt, 0, len(r.goal), dropCuts)
	}
	if len(tasks) == 0 {
		g := cmp.Or(spec.Goal, "Carry out the goal")
		tasks = []askonce.Task{{ID: "t1", Title: askonce.ClampTitle(g), Instruction: g, DependsOn: []string{}}}
		if len(r.destructive.actions) > 0 && !r.destructive.confirmed {
			tasks[0].Title, tasks[0].Instruction = "Make no destructive change", "The destructive action was not confirmed: do not perform it, and report that nothing was changed."
			title = tasks[0].Title
		}
	}
	spec.Steps = len(tasks)
	spec.Bindings = binds
	raw, err := r.spec.fill(spec)
	if err != nil {
		return nil, err
	}
	return &askonce.Plan{Title: cmp.Or(title, tasks[0].Title), Spec: raw, Tasks: tasks}, nil
}

// dropped is what a settled contradiction leaves out of titles and
// names: the byte ranges of the goal's dropped sides, each with the
// conjunction or comma that joined it to the side kept ("a hot and frozen
// cheese" settled frozen is "a frozen cheese"; "private and public"
// settled private is "private"), and the goal's tokens in them.
func (r *run) dropped() (cuts [][2]int, in []bool) {
	toks, drop := r.gt, r.contradiction.dropped
	in = make([]bool, len(toks))
	side := func(k int, of *token) bool { // toks[k] is a side of a group of of's, in its sentence
		return k >= 0 && k < len(toks) && toks[k].Sentence == of.Sentence && toks[k].e != nil && slices.ContainsFunc(toks[k].e.sides, func(s sideRef) bool {
			return slices.ContainsFunc(of.e.sides, func(o sideRef) bool { return o.group == s.group })
		})
	}
	joins := func(k int) bool { return toks[k].e.has(fConj) }
	for a := 0; a < len(toks); a++ {
		if !drop[a] || toks[a].e == nil {
			continue
		}
		b := a + 1
		for b < len(toks) && toks[b].e == toks[a].e { // a side of several words: "one at a time"
			b++
		}
		cut := [2]int{toks[a].Start, toks[b-1].End}
		j := b
		for j < len(toks) && joins(j) && toks[j].Sentence == toks[a].Sentence {
			j++
		}
		i := a
		for i > 0 && joins(i-1) && toks[i-1].Sentence == toks[a].Sentence {
			i--
		}
		from, to := a, b // the tokens cut
		switch {
		case side(j, &toks[a]): // the side kept follows: "hot and frozen", "hot, frozen"
			cut[1], to = toks[j].Start, j
		case side(i-1, &toks[a]): // it precedes: "private and public", "public but private"
			cut[0], from = toks[i-1].End, i
		case b < len(toks) && toks[b].Clause == toks[a].Clause: // alone, before the word it describes: "in hot water"
			cut[1] += len(r.goal[cut[1]:]) - len(strings.TrimLeft(r.goal[cut[1]:], " "))
		default: // alone, ending its phrase: with the words that introduce it ("with meat")
			for i = a; i > 0 && toks[i-1].Clause == toks[a].Clause && toks[i-1].e.has(fPrep|fDet); i-- {
			}
			cut[0], from = len(strings.TrimRight(r.goal[:toks[i].Start], " ")), i
		}
		for k := from; k < to; k++ {
			in[k] = true
		}
		cuts = append(cuts, cut)
		a = b - 1
	}
	return cuts, in
}

// uncut is step st without the byte ranges in cut: the parts of it left,
// each trimmed of a step label and of the connectors and punctuation that
// joined it to a cut part ("delete notes.md and update the readme" without its first
// command is "update the readme"), and kept only if it has a word.
func (r *run) uncut(st step, cuts [][2]int) []step {
	k := sort.Search(len(cuts), func(k int) bool { return cuts[k][1] > st.start }) // cuts are in order and apart
	if k == len(cuts) || cuts[k][0] >= st.end {
		return []step{st}
	}
	pieces := []step{st}
	for _, c := range cuts[k:] {
		if c[0] >= st.end {
			break
		}
		p := &pieces[len(pieces)-1] // the rest of the step, after the cuts before c
		rest := step{start: c[1], end: p.end, parallel: p.parallel}
		if p.end = min(p.end, c[0]); p.end <= p.start {
			pieces = pieces[:len(pieces)-1]
		}
		if rest.start < rest.end {
			pieces = append(pieces, rest)
		}
	}
	out := pieces[:0]
	for _, p := range pieces {
		if m := stepLabelIn(r.goal[p.start:p.end]); m != nil {
			p.start += m[1] // a label is no step: "Step 1: delete notes.md" declined leaves nothing
		}
		p.start, p.end = r.trimJoin(p.start, p.end)
		if p.start < p.end && strings.IndexFunc(r.goal[p.start:p.end], unicode.IsLetter) >= 0 {
			out = append(out, p)
		}
	}
	if n := len(out); n > 0 && out[n-1].end < st.end && r.leadsOn(out[n-1]) {
		out = out[:n-1] // "If the build passes, [delete dist/]", "ビルドが通ったら、[ログを削除して]": nothing is left for it to govern
	}
	return out
}

// leadsOn reports whether goal bytes p only lead on to what follows them:
// they hold no command ("If the build passes", "Once the backup
// finishes", "In the repo"), or, in Japanese, whose commands the reader
// finds by their verb's form, end with a clause ending that leads on
// (ビルドが通ったら; not ビルドして).
func (r *run) leadsOn(p step) bool {
	if s := r.goal[p.start:p.end]; lex.IsJapanese(s) {
		return jaLeadsOn(s)
	}
	for i := sort.Search(len(r.gt), func(k int) bool { return r.gt[k].Start >= p.start }); i < len(r.gt) && r.gt[i].End <= p.end; i++ {
		if r.verbs[i] {
			return false
		}
	}
	return true
}

// trimJoin narrows goal bytes [start, end) past white space, punctuation
// and conjunctions or connectors at either end.
func (r *run) trimJoin(start, end int) (int, int) {
	toks := r.gt
	for i := sort.Search(len(toks), func(k int) bool { return toks[k].Start >= start }); i < len(toks) && toks[i].End <= end && strings.TrimFunc(r.goal[start:toks[i].Start], joiner) == "" && toks[i].e.has(fConj|fConnector); i++ {
		start = toks[i].End
	}
	for i := sort.Search(len(toks), func(k int) bool { return toks[k].End > end }) - 1; i >= 0 && toks[i].Start >= start && strings.TrimFunc(r.goal[toks[i].End:end], joiner) == "" && toks[i].e.has(fConj); i-- {
		end = toks[i].Start
	}
	return trimSpan(r.goal, start, end, joiner)
}

func joiner(c rune) bool { return unicode.IsSpace(c) || strings.ContainsRune(",;:、", c) }

// capitalise upper-cases the first letter of s: for titles and the
// template planner's names of things ("Hot Cheese"), which are made, not
// quoted.
func capitalise(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	word, _, _ := strings.Cut(s, " ")
	if n == 0 || unicode.IsUpper(r) || strings.IndexFunc(word, unicode.IsUpper) > 0 {
		return s // "iOS", "macOS" keep their case
	}
	return string(unicode.ToUpper(r)) + s[n:]
}

// itemSpec is the spec of the template planner.
type itemSpec struct {
	Name        string            `json:"name"`
	ID          string            `json:"id"`
	Kind        string            `json:"kind"`
	Properties  map[string]string `json:"properties"`
	Description string            `json:"description"`
	Answer      string            `json:"answer,omitempty"`
}

// templatePlan is the template planner: name, kind and properties read
// from the goal, and the profile's task DAG for that kind.
func (r *run) templatePlan() (*askonce.Plan, error) {
	toks := r.gt
	name, head := r.nounPhrase(r.gt, true)
	if len(name) == 0 && len(r.at) > 0 {
		if n, h := r.nounPhrase(r.at, false); len(n) > 0 {
			name, head, toks = n, h, r.at
		}
	}
	kind, noun, named := r.kind(toks, head)
	if len(name) == 0 {
		name = []string{"custom"}
	}
	title := strings.Join(name, " ") + " " + noun
	if named { // the goal's own noun ends the name: "Icy Sword"
		name = append(name, noun)
	}
	props := r.attributes()
	for pi, pr := range r.p.Properties {
		if v := r.property(pi); v != "" {
			props[pr.Name] = v
		} else if pr.Default != "" {
			props[pr.Name] = pr.Default
		}
	}
	words := make([]string, len(name))
	var id []string
	for i, w := range name {
		words[i] = capitalise(w)
		if w = strings.Map(idRune, w); w != "" {
			id = append(id, w)
		}
	}
	if len(id) == 0 {
		id = []string{"custom", kind}
	}
	desc := strings.TrimSpace(r.goal)
	if r.vague.useAnswer {
		desc = strings.TrimPrefix(desc+": "+r.answer, ": ")
	}
	spec := itemSpec{Name: strings.Join(words, " "), ID: strings.Join(id, "_"), Kind: kind, Properties: props, Description: desc, Answer: r.answer}
	var pl []string
	for _, k := range slices.Sorted(maps.Keys(props)) {
		pl = append(pl, k+" "+props[k])
	}
	propText := cmp.Or(strings.Join(pl, ", "), "no special properties")
	vars := strings.NewReplacer("{name}", spec.Name, "{id}", spec.ID, "{kind}", kind, "{properties}", propText, "{goal}", desc)
	tmpl := r.c.kindTasks[kind]
	tasks := make([]askonce.Task, len(tmpl))
	for i, t := range tmpl {
		tasks[i] = askonce.Task{ID: t.ID, Title: askonce.ClampTitle(vars.Replace(t.Title)), Instruction: vars.Replace(t.Instruction), DependsOn: t.DependsOn}
	}
	raw, err := json.Marshal(spec)
	if err != nil {
		return nil, err
	}
	title = askonce.ClampTitle(capitalise(strings.ToLower(title)))
	return &askonce.Plan{Title: title, Spec: raw, Tasks: tasks}, nil
}

// idRune keeps the letters and digits of a registry id.
func idRune(c rune) rune {
	if 'a' <= c && c <= 'z' || '0' <= c && c <= '9' {
		return c
	}
	return -1
}

// nounPhrase reads the thing's name and head noun from the first sentence
// of toks, before its first functional cue: the first run of adjacent
// content words that holds a word other than a kind word ("a hot block I
// could place anywhere" gives hot + block; "a block of hot cheese" gives
// hot cheese + block). Kind words are not part of the name; the last one
// in or before the run is the head noun. A dropped side word is replaced by
// the settled side ("hot frozen cheese" settled hot gives hot cheese). At
// most four name words are kept.
func (r *run) nounPhrase(toks []token, goal bool) (words []string, head int) {
	head = -1
	add := func(w string) {
		if len(words) < 4 && !slices.Contains(words, w) {
			words = append(words, w)
		}
	}
	sentence := -1
	inRun := false
	_, gone := r.dropped()
	for i := range toks {
		t := &toks[i]
		if t.cue || t.e.has(fCue) || (sentence >= 0 && t.Sentence != sentence) {
			break
		}
		if goal && gone[i] && !r.contradiction.dropped[i] {
			continue // the word that joined a dropped side: "hot and frozen cheese"
		}
		ok := !t.neg && content(t) && !t.e.has(fDestructive)
		if !ok || (i > 0 && toks[i-1].Clause != t.Clause) {
			if inRun && len(words) > 0 {
				break // the run with a name word is over
			}
			inRun = false
			if !ok {
				continue
			}
		}
		inRun = true
		sentence = t.Sentence
		if t.e != nil && t.e.kind != "" {
			if !goal || !r.contradiction.dropped[i] {
				head = i
			}
			continue
		}
		if goal && r.contradiction.dropped[i] {
			for _, s := range t.e.sides {
				if g := r.contradiction.groups[s.group]; g.side >= 0 && g.side != s.side {
					add(g.display)
				}
			}
			continue
		}
		w := t.Text
		if t.e != nil && len(t.e.sides) > 0 {
			w = t.e.sides[0].display
		}
		add(w)
	}
	return words, head
}

// kind is the kind named by the head noun, else by the first kind word of
// the goal (then of the answer), with that word as the noun; else the
// profile's default kind, recorded as an assumption.
func (r *run) kind(toks []token, head int) (kind, noun string, named bool) {
	if head < 0 {
		toks, head = r.firstWord(func(t *token) bool { return t.e.kind != "" })
	}
	if head < 0 {
		kind = r.c.defaultKnd
		r.assumptions = append(r.assumptions, fmt.Sprintf("No kind was named; assumed a %s.", kind))
		return kind, kind, false
	}
	t := &toks[head]
	noun = t.word
	// Title the singular: "ores" is named by "ore".
	if s := strings.TrimSuffix(noun, "s"); s != noun && r.c.lex[s] != nil && r.c.lex[s].kind == t.e.kind {
		noun = s
	}
	return t.e.kind, noun, true
}

// property is the value of property pi that the goal (then the answer)
// names first, or "".
func (r *run) property(pi int) string {
	v := ""
	r.firstWord(func(t *token) bool {
		for _, p := range t.e.props {
			if p.prop == pi {
				v = p.value
				return true
			}
		}
		return false
	})
	return v
}

// firstWord is the first word the profile knows, of the goal (a dropped
// word aside) then of the answer, that is not negated and for which ok
// holds: its tokens and index, or -1.
func (r *run) firstWord(ok func(*token) bool) ([]token, int) {
	for pass, toks := range [][]token{r.gt, r.at} {
		for i := range toks {
			if t := &toks[i]; !t.neg && t.e != nil && !(pass == 0 && r.contradiction.dropped[i]) && ok(t) {
				return toks, i
			}
		}
	}
	return nil, -1
}

// fill returns spec as JSON with the spec schema's required fields set,
// and, when the schema allows no other properties, only its properties.
func (f *schemaFields) fill(spec any) ([]byte, error) {
	raw, err := json.Marshal(spec)
	if err != nil || len(f.values) == 0 && f.closed == nil {
		return raw, err
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	for k, v := range f.values {
		m[k] = v
	}
	if f.closed != nil {
		for k := range m {
			if !f.closed[k] {
				delete(m, k)
			}
		}
	}
	return json.Marshal(m)
}
