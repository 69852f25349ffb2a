package rules

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/askonce/askonce"
)

// run is what the planners read: the input and every detector's result,
// with the goal tokens the plan's text leaves out.
type run struct {
	*input
	*reading
	dropped []bool // goal tokens removed from the plan's text
}

// newRun merges the reading of a prompt that is to be planned.
func newRun(in *input, rd *reading) *run {
	r := &run{input: in, reading: rd, dropped: make([]bool, len(in.gt))}
	for i := range r.dropped {
		r.dropped[i] = rd.contradiction.dropped[i] || (rd.destructive.dropped != nil && rd.destructive.dropped[i])
	}
	return r
}

// edit replaces source bytes [start, end) with repl when the plan's text
// is written: a dropped side, a skipped destructive action, a chosen
// alternative.
type edit struct {
	start, end int
	repl       string
}

// edits turns the dropped goal tokens and the chosen alternatives into
// sorted, non-overlapping edits. A dropped run takes a joining conjunction
// with it ("hot and frozen cheese" becomes "hot cheese").
func (r *run) edits() []edit {
	toks := r.gt
	var out []edit
	for i := 0; i < len(toks); {
		if !r.dropped[i] {
			i++
			continue
		}
		j := i
		for j < len(toks) && r.dropped[j] && toks[j].Clause == toks[i].Clause {
			j++
		}
		start, end := toks[i].Start, toks[j-1].End
		if i > 0 && toks[i-1].Clause == toks[i].Clause && toks[i-1].e.has(fConj) && !r.dropped[i-1] {
			start = toks[i-1].Start
		} else if j < len(toks) && toks[j].Clause == toks[i].Clause && toks[j].e.has(fConj) {
			end = toks[j].End
		}
		out = append(out, edit{start: start, end: end})
		i = j
	}
	for _, a := range r.choice.found {
		out = append(out, edit{start: toks[a.x0].Start, end: toks[a.y1-1].End, repl: a.options[a.chosen]})
	}
	for _, ref := range r.candidates.refs {
		if ref.all {
			continue
		}
		if name := ref.options[ref.chosen]; !strings.EqualFold(name, r.span(ref.t0, ref.t1)) {
			out = append(out, edit{start: toks[ref.t0].Start, end: toks[ref.t1-1].End, repl: name})
		}
	}
	if len(out) < 2 {
		return out
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].start < out[j].start })
	merged := out[:1]
	for _, e := range out[1:] {
		last := &merged[len(merged)-1]
		switch {
		case e.start >= last.end:
			merged = append(merged, e)
		case e.repl == "" && last.repl == "":
			last.end = max(last.end, e.end)
		}
	}
	return merged
}

// applyEdits returns src[start:end] with the edits inside that range made.
func applyEdits(src string, start, end int, edits []edit) string {
	var b strings.Builder
	pos := start
	for _, e := range edits {
		if e.start < pos || e.end > end {
			continue
		}
		b.WriteString(src[pos:e.start])
		b.WriteString(e.repl)
		pos = e.end
	}
	b.WriteString(src[pos:end])
	return b.String()
}

// tidy collapses white space, removes the space before punctuation and
// doubled commas left by edits, and trims punctuation from both ends.
func tidy(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	for _, p := range []string{" ,", " .", " ;", " :", " !", " ?", " 、", " 。"} {
		s = strings.ReplaceAll(s, p, p[1:])
	}
	for strings.Contains(s, ",,") {
		s = strings.ReplaceAll(s, ",,", ",")
	}
	return strings.Trim(s, " ,;:-.、。")
}

// capitalise upper-cases the first letter of s.
func capitalise(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 || unicode.IsUpper(r) {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}

// step is one step of a goal: a token range and its source bytes.
type step struct {
	t0, t1     int
	start, end int
	parallel   bool
}

// splitSteps finds a goal's steps: the items of a numbered or bulleted
// list (two or more "1." "2)" "-" "*" lines; lines before the first item
// are a preamble, not a step), else its sentences, each split further at
// step separators ("then", "after that").
func (c *compiled) splitSteps(src string, toks []token) []step {
	if steps := c.listSteps(src, toks); len(steps) > 0 {
		return steps
	}
	var steps []step
	t0 := 0
	for i := 0; i < len(toks); {
		if i > t0 && toks[i].Sentence != toks[i-1].Sentence {
			steps = c.appendStep(steps, src, toks, t0, i)
			t0 = i
		}
		if n := c.phraseAt(toks, i, fStepSep); n > 0 {
			steps = c.appendStep(steps, src, toks, t0, i)
			i += n
			t0 = i
			continue
		}
		i++
	}
	return c.appendStep(steps, src, toks, t0, len(toks))
}

// appendStep trims connectors ("and", "first", "finally") and a leading
// parallel cue from toks[t0:t1] and appends what is left as a step.
func (c *compiled) appendStep(steps []step, src string, toks []token, t0, t1 int) []step {
	parallel := false
	for t0 < t1 {
		if n := c.phraseAt(toks, t0, fParallel); n > 0 && t0+n <= t1 {
			parallel = true
			t0 += n
			continue
		}
		if toks[t0].e.has(fConnector) {
			t0++
			continue
		}
		break
	}
	for t1 > t0 && (toks[t1-1].e.has(fConnector) || toks[t1-1].e.has(fConj)) {
		t1--
	}
	if t0 >= t1 {
		return steps
	}
	for i := t0; i < t1 && !parallel; i++ {
		parallel = c.phraseAt(toks, i, fParallel) > 0
	}
	return append(steps, step{t0: t0, t1: t1, start: toks[t0].Start, end: toks[t1-1].End, parallel: parallel})
}

// listMarker returns where the text of a list item starts in line, or -1
// when the line is not a list item ("1. ", "2) ", "- ", "* ", "• ").
func listMarker(line string) int {
	i := 0
	for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
		i++
	}
	j := i
	for j < len(line) && '0' <= line[j] && line[j] <= '9' {
		j++
	}
	space := func(k int) bool { return k == len(line) || line[k] == ' ' || line[k] == '\t' }
	switch {
	case j > i && j < len(line) && (line[j] == '.' || line[j] == ')') && space(j+1):
		return j + 1
	case j == i && i < len(line) && (line[i] == '-' || line[i] == '*' || line[i] == '+') && space(i+1):
		return i + 1
	case strings.HasPrefix(line[i:], "•") || strings.HasPrefix(line[i:], "・"):
		return i + len("•")
	}
	return -1
}

// listSteps returns the items of a list of two or more items, or nil.
func (c *compiled) listSteps(src string, toks []token) []step {
	type item struct{ start, end int }
	var items []item
	for pos := 0; pos < len(src); {
		end := strings.IndexByte(src[pos:], '\n')
		if end < 0 {
			end = len(src)
		} else {
			end += pos
		}
		if m := listMarker(src[pos:end]); m >= 0 {
			items = append(items, item{start: pos + m, end: end})
		} else if len(items) > 0 && strings.TrimSpace(src[pos:end]) != "" {
			items[len(items)-1].end = end // a continuation line
		}
		pos = end + 1
	}
	if len(items) < 2 {
		return nil
	}
	var steps []step
	k := 0
	for _, it := range items {
		for k < len(toks) && toks[k].Start < it.start {
			k++
		}
		t0 := k
		for k < len(toks) && toks[k].Start < it.end {
			k++
		}
		steps = c.appendStep(steps, src, toks, t0, k)
	}
	return steps
}

// generalSpec is the spec of the steps planner.
type generalSpec struct {
	Goal        string            `json:"goal"`
	Details     string            `json:"details,omitempty"`
	Attributes  map[string]string `json:"attributes,omitempty"`
	Target      string            `json:"target,omitempty"`
	Choices     []string          `json:"choices,omitempty"`
	Destructive *destructiveSpec  `json:"destructive,omitempty"`
	Answer      string            `json:"answer,omitempty"`
	Steps       int               `json:"steps"`
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

// stepsPlan is the steps planner: one task per step, each depending on
// the step before it. A step with a parallel cue ("in parallel",
// "meanwhile") shares the dependencies of the step before it instead, and
// the next ordinary step depends on all of them.
func (r *run) stepsPlan() (*askonce.Plan, error) {
	spec := generalSpec{Attributes: r.attributes(), Target: r.candidates.target, Answer: r.answer}
	edits := r.edits()
	spec.Goal = cmp.Or(tidy(applyEdits(r.goal, 0, len(r.goal), edits)), tidy(r.goal))
	for _, a := range r.choice.found {
		spec.Choices = append(spec.Choices, a.options[a.chosen])
	}
	if len(r.destructive.actions) > 0 {
		spec.Destructive = &destructiveSpec{Confirmed: r.destructive.confirmed}
		for _, a := range r.destructive.actions {
			spec.Destructive.Actions = append(spec.Destructive.Actions, a.text)
		}
	}
	src, toks, vague := r.goal, r.gt, r.vague.useAnswer
	if vague { // the goal said too little; the answer says what to do
		src = strings.TrimPrefix(tidy(r.goal)+": "+r.answer, ": ")
		toks, edits, spec.Details = r.c.annotate(src, tokenize(src)), nil, r.answer
	}
	var tasks []askonce.Task
	var frontier, prevDeps []string
	for _, st := range r.c.splitSteps(src, toks) {
		text := tidy(applyEdits(src, st.start, st.end, edits))
		if text == "" || !vague && !r.hasContent(st) {
			continue
		}
		t := askonce.Task{ID: fmt.Sprintf("t%d", len(tasks)+1), Title: askonce.ClampTitle(capitalise(text)), Instruction: capitalise(text)}
		if r.candidates.target != "" && !vague && st.t0 <= r.candidates.fileTok && r.candidates.fileTok < st.t1 {
			t.Instruction += " (file: " + r.candidates.target + ")"
		}
		if !st.parallel || len(tasks) == 0 {
			prevDeps, frontier = append([]string{}, frontier...), nil
		}
		t.DependsOn = prevDeps
		tasks = append(tasks, t)
		frontier = append(frontier, t.ID)
	}
	title := askonce.ClampTitle(capitalise(tidy(firstLine(applyEdits(src, 0, len(src), edits)))))
	if len(tasks) == 0 {
		g := cmp.Or(capitalise(tidy(r.goal)), "Carry out the goal")
		tasks = []askonce.Task{{ID: "t1", Title: askonce.ClampTitle(g), Instruction: g, DependsOn: []string{}}}
		if len(r.destructive.actions) > 0 && !r.destructive.confirmed {
			tasks[0].Title, tasks[0].Instruction = "Make no destructive change", "The destructive action was not confirmed: do not perform it, and report that nothing was changed."
			title = tasks[0].Title
		}
	}
	spec.Steps = len(tasks)
	raw, err := r.spec.fill(spec)
	if err != nil {
		return nil, err
	}
	return &askonce.Plan{Title: cmp.Or(title, tasks[0].Title), Spec: raw, Tasks: tasks}, nil
}

// hasContent reports whether a goal step keeps a content word after the
// dropped tokens are removed.
func (r *run) hasContent(st step) bool {
	for i := st.t0; i < st.t1; i++ {
		if !r.dropped[i] && content(&r.gt[i]) {
			return true
		}
	}
	return false
}

// firstLine is the first non-empty line of s without its list marker.
func firstLine(s string) string {
	for line := range strings.SplitSeq(s, "\n") {
		if m := listMarker(line); m >= 0 {
			line = line[m:]
		}
		if t := tidy(line); t != "" {
			return t
		}
	}
	return ""
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
	toks, goal := r.gt, true
	name, head := r.nounPhrase(r.gt, true)
	if len(name) == 0 && len(r.at) > 0 {
		if n, h := r.nounPhrase(r.at, false); len(n) > 0 {
			name, head, toks, goal = n, h, r.at, false
		}
	}
	kind, noun, named := r.kind(toks, head, goal)
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
	desc := tidy(applyEdits(r.goal, 0, len(r.goal), r.edits()))
	if r.vague.useAnswer {
		desc = tidy(desc + ": " + r.answer)
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
	for i := range toks {
		t := &toks[i]
		if t.cue || t.e.has(fCue) || (sentence >= 0 && t.Sentence != sentence) {
			break
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
			if !goal || !r.dropped[i] {
				head = i
			}
			continue
		}
		if goal && r.dropped[i] {
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
func (r *run) kind(toks []token, head int, goal bool) (kind, noun string, named bool) {
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
			if t := &toks[i]; !t.neg && t.e != nil && !(pass == 0 && r.dropped[i]) && ok(t) {
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
