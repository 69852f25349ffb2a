package rules

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/askonce/askonce"
)

// answerMarker separates the goal from the answer in a resolved prompt
// (PROTOCOL.md rule 4).
const answerMarker = "\n\nClarification Answer: "

// splitPrompt splits a resolved prompt at the last answer marker. An empty
// answer is no answer.
func splitPrompt(prompt string) (goal, answer string) {
	if i := strings.LastIndex(prompt, answerMarker); i >= 0 {
		return prompt[:i], strings.TrimSpace(prompt[i+len(answerMarker):])
	}
	return prompt, ""
}

// run is one interpretation: the goal and answer, what the checks decided,
// and the question if one must be asked.
type run struct {
	p         *Profile
	c         *compiled
	goal      string
	answer    string
	directive bool
	files     []string
	gt, at    []token

	groups      []groupResult
	dropped     []bool // goal tokens removed from the plan's text
	alts        []alternative
	actions     []action
	confirmed   bool // destructive actions confirmed with yes
	target      string
	useAnswer   bool // the goal was vague and the answer says what to do
	generic     bool // the goal was vague and nothing said more
	assumptions []string
	q           *askonce.Question
}

// groupResult is the settled side of one group, if the goal or answer
// mentions it.
type groupResult struct {
	side    int // -1 when the group is not mentioned
	display string
}

type action struct {
	t0, t1 int // goal tokens of the quoted action
	text   string
}

type alternative struct {
	x0, y1  int // goal tokens from the first option to the last
	options []string
	chosen  int // -1 unsettled
}

func (r *run) ask(q askonce.Question) {
	r.q = &q
}

func (r *run) assume(format string, args ...any) {
	r.assumptions = append(r.assumptions, fmt.Sprintf(format, args...))
}

// analyse runs the profile's checks in order. It returns with r.q set when
// a check must ask. Groups are always read (they give the plan its
// attributes); without the contradiction check a conflict is resolved by
// the rule and recorded.
func (r *run) analyse() {
	r.dropped = make([]bool, len(r.gt))
	if !slices.Contains(r.c.checks, CheckContradiction) {
		r.contradictions(false)
	}
	for _, ch := range r.c.checks {
		switch ch {
		case CheckContradiction:
			r.contradictions(true)
		case CheckDestructive:
			r.destructive()
		case CheckAlternatives:
			r.alternatives()
		case CheckTargetFile:
			r.targetFile()
		case CheckVague:
			r.vague()
		}
		if r.q != nil {
			return
		}
	}
}

type mention struct {
	tok     int // first goal token naming the side, -1 if none
	display string
	funcTok int // first mention after a functional cue, -1 if none
	cueTok  int // the cue before funcTok
}

// contradictions settles every group whose sides the goal mentions.
func (r *run) contradictions(mayAsk bool) {
	c, gs := r.c, r.p.Groups
	ms := make([]mention, c.nSides)
	for i := range ms {
		ms[i].tok, ms[i].funcTok = -1, -1
	}
	for i := range r.gt {
		t := &r.gt[i]
		if t.neg || t.e == nil {
			continue
		}
		for _, s := range t.e.sides {
			m := &ms[c.sideBase[s.group]+s.side]
			if m.tok < 0 {
				m.tok, m.display = i, s.display
			}
			if t.cue && m.funcTok < 0 {
				m.funcTok, m.cueTok = i, lastCue(r.gt, i)
			}
		}
	}
	r.groups = make([]groupResult, len(gs))
	for gi := range r.groups {
		r.groups[gi].side = -1
	}
	for _, gi := range c.groupOrder {
		g := &gs[gi]
		base := c.sideBase[gi]
		var sides []int // mentioned sides, by first mention
		for si := range g.Sides {
			if ms[base+si].tok >= 0 {
				sides = append(sides, si)
			}
		}
		for a := 1; a < len(sides); a++ {
			for b := a; b > 0 && ms[base+sides[b]].tok < ms[base+sides[b-1]].tok; b-- {
				sides[b], sides[b-1] = sides[b-1], sides[b]
			}
		}
		switch len(sides) {
		case 0:
			continue
		case 1:
			r.groups[gi] = groupResult{side: sides[0], display: ms[base+sides[0]].display}
			continue
		}
		options := make([]string, len(sides))
		for k, si := range sides {
			options[k] = ms[base+si].display
		}
		ruled, why := r.ruleSide(ms[base:base+len(g.Sides)], sides)
		side, display := r.answerSide(gi, sides, ms[base:base+len(g.Sides)])
		if side < 0 {
			if mayAsk && !r.directive {
				r.ask(askonce.Question{
					Type:     askonce.QuestionSelectOne,
					Text:     fmt.Sprintf("The goal says %s. Which should it be?", bothQuoted(options)),
					Options:  options,
					Reason:   "scope_unclear",
					Default:  ms[base+ruled].display,
					Cosmetic: g.Cosmetic,
				})
				return
			}
			side, display = ruled, ms[base+ruled].display
			kind := ""
			if g.Cosmetic {
				kind = ", a cosmetic detail"
			}
			r.assume("The goal says %s (%s%s); assumed %q because %s.", bothQuoted(options), g.Name, kind, display, why)
		}
		r.groups[gi] = groupResult{side: side, display: display}
		for i := range r.gt {
			t := &r.gt[i]
			if t.e == nil {
				continue
			}
			for _, s := range t.e.sides {
				if s.group == gi && s.side != side {
					r.dropped[i] = true
				}
			}
		}
	}
}

// lastCue is the index of the functional cue that governs toks[i].
func lastCue(toks []token, i int) int {
	for j := i - 1; j >= 0 && toks[j].clause == toks[i].clause; j-- {
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
func (r *run) ruleSide(ms []mention, sides []int) (int, string) {
	for _, si := range sides { // sides are in order of first mention
		if m := ms[si]; m.funcTok >= 0 {
			quote := r.goal[r.gt[m.funcTok].start:r.gt[m.funcTok].end]
			if m.funcTok-m.cueTok <= 6 {
				quote = r.goal[r.gt[m.cueTok].start:r.gt[m.funcTok].end]
			}
			return si, fmt.Sprintf("it is the functional side (%q)", quote)
		}
	}
	return sides[0], "it is mentioned first"
}

// answerSide reads the answer for group gi: the one side it names (a side
// the goal did not mention counts too), or, with two sides in conflict,
// the other side of the one it rejects ("not hot"). It returns -1 when the
// answer settles nothing.
func (r *run) answerSide(gi int, sides []int, ms []mention) (int, string) {
	pos, posDisplay, rejected := -1, "", -1 // rejected: -2 when several
	for i := range r.at {
		t := &r.at[i]
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

// bothQuoted renders `both "a" and "b"` or `"a", "b" and "c"`.
func bothQuoted(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = fmt.Sprintf("%q", w)
	}
	if len(q) == 2 {
		return "both " + q[0] + " and " + q[1]
	}
	return strings.Join(q[:len(q)-1], ", ") + " and " + q[len(q)-1]
}

// destructive finds destructive actions and settles them: yes includes
// them, no (or no answer under a directive) skips them.
func (r *run) destructive() {
	for i := 0; i < len(r.gt); {
		n := r.c.phraseAt(r.gt, i, fDestructive)
		if n == 0 || r.gt[i].neg {
			i++
			continue
		}
		j := i + n
		for j < len(r.gt) && j-i < 8 && r.gt[j].clause == r.gt[i].clause &&
			!r.gt[j].e.has(fConj) && r.c.phraseAt(r.gt, j, fStepSep) == 0 {
			j++
		}
		r.actions = append(r.actions, action{t0: i, t1: j, text: r.goal[r.gt[i].start:r.gt[j-1].end]})
		i = j
	}
	if len(r.actions) == 0 {
		return
	}
	quoted := make([]string, len(r.actions))
	for i, a := range r.actions {
		quoted[i] = fmt.Sprintf("%q", a.text)
	}
	list := strings.Join(quoted, " and ")
	switch r.yesNo() {
	case "yes":
		r.confirmed = true
		return
	case "no":
		r.assume("Skipped %s: the destructive action was declined.", list)
	default:
		if !r.directive {
			r.ask(askonce.Question{
				Type:    askonce.QuestionConfirm,
				Text:    fmt.Sprintf("The goal asks to %s, which cannot be undone. Proceed?", list),
				Options: []string{"yes", "no"},
				Reason:  "target_file_exists",
				Default: "no",
			})
			return
		}
		r.assume("Skipped %s: a destructive action needs an explicit yes, and none was given.", list)
	}
	for _, a := range r.actions {
		for k := a.t0; k < a.t1; k++ {
			r.dropped[k] = true
		}
	}
}

// yesNo reads the answer as a confirmation: "yes", "no", or "" when it is
// neither or both.
func (r *run) yesNo() string {
	yes, no := false, false
	for i := range r.at {
		e := r.at[i].e
		yes = yes || e.has(fYes)
		no = no || e.has(fNo)
	}
	switch {
	case yes && !no:
		return "yes"
	case no && !yes:
		return "no"
	}
	return ""
}

// alternatives finds "X or Y" (and "X or Y or Z") and settles each by the
// answer, or by the first option under a directive.
func (r *run) alternatives() {
	var found []alternative
	for i := range r.gt {
		if !r.gt[i].e.has(fOr) {
			continue
		}
		a, ok := r.alternativeAt(i)
		if !ok {
			continue
		}
		if n := len(found); n > 0 && a.x0 < found[n-1].y1 { // a chain: "A or B or C"
			found[n-1].options = append(found[n-1].options, a.options[1])
			found[n-1].y1 = a.y1
			continue
		}
		found = append(found, a)
	}
	for _, a := range found {
		a.chosen = r.answerOption(a.options)
		if a.chosen < 0 {
			if !r.directive {
				r.ask(askonce.Question{
					Type:    askonce.QuestionSelectOne,
					Text:    fmt.Sprintf("The goal says %q. Which one should it be?", r.goal[r.gt[a.x0].start:r.gt[a.y1-1].end]),
					Options: a.options,
					Reason:  "action_ambiguous",
					Default: a.options[0],
				})
				return
			}
			a.chosen = 0
			r.assume("The goal offers %s; assumed %q, the first option.", quoteOr(a.options), a.options[0])
		}
		r.alts = append(r.alts, a)
	}
}

// quoteOr renders `"a" or "b"`.
func quoteOr(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = fmt.Sprintf("%q", w)
	}
	return strings.Join(q, " or ")
}

// alternativeAt reads the options around the "or" at toks[i]: on each side,
// stop words next to "or" are skipped, then up to three content words of
// the same clause are taken; both options get as many words as the shorter
// side has ("use postgres or mysql" gives postgres and mysql).
func (r *run) alternativeAt(i int) (alternative, bool) {
	toks := r.gt
	cl := toks[i].clause
	stop := func(t *token) bool { return t.e.has(fStop) || t.e.has(fConj) || t.e.has(fOr) }
	// left side
	j := i - 1
	for j >= 0 && toks[j].clause == cl && stop(&toks[j]) && i-j <= 2 {
		j--
	}
	if j < 0 || toks[j].clause != cl || stop(&toks[j]) || toks[j].e.has(fOrIgnore) {
		return alternative{}, false
	}
	x1 := j + 1
	for j >= 0 && toks[j].clause == cl && !stop(&toks[j]) && x1-j <= 3 {
		j--
	}
	x0 := j + 1
	// right side
	k := i + 1
	for k < len(toks) && toks[k].clause == cl && stop(&toks[k]) && k-i <= 2 {
		k++
	}
	if k >= len(toks) || toks[k].clause != cl || stop(&toks[k]) || toks[k].e.has(fOrIgnore) {
		return alternative{}, false
	}
	y0 := k
	for k < len(toks) && toks[k].clause == cl && !stop(&toks[k]) && k-y0 < 3 {
		k++
	}
	y1 := k
	n := min(x1-x0, y1-y0)
	x0, y1 = x1-n, y0+n
	for t := x0; t < y1; t++ {
		if r.dropped[t] || toks[t].e.has(fDestructive) {
			return alternative{}, false // settled by an earlier check
		}
	}
	// Two words of one group are a contradiction, handled already.
	for gi := range r.p.Groups {
		if inGroup(toks[x0:x1], gi) && inGroup(toks[y0:y1], gi) {
			return alternative{}, false
		}
	}
	a := alternative{x0: x0, y1: y1, chosen: -1, options: []string{
		r.goal[toks[x0].start:toks[x1-1].end],
		r.goal[toks[y0].start:toks[y1-1].end],
	}}
	if strings.EqualFold(a.options[0], a.options[1]) {
		return alternative{}, false
	}
	return a, true
}

func inGroup(toks []token, gi int) bool {
	for i := range toks {
		if toks[i].e == nil {
			continue
		}
		for _, s := range toks[i].e.sides {
			if s.group == gi {
				return true
			}
		}
	}
	return false
}

// answerOption finds the option the answer names: equal ignoring case, a
// unique prefix, or the only option whose words all occur in the answer.
// It returns -1 when the answer names none or several.
func (r *run) answerOption(options []string) int {
	a := strings.ToLower(strings.TrimSpace(r.answer))
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
		words := tokenize(o, nil)
		all := len(words) > 0
		for _, w := range words {
			if !r.answerHas(w.text) {
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

func (r *run) answerHas(text string) bool {
	for i := range r.at {
		if r.at[i].text == text || r.at[i].word == text {
			return true
		}
	}
	return false
}

// targetFile settles "the file": a file the goal names, the only
// candidate, the answer's file, or the first candidate under a directive.
func (r *run) targetFile() {
	at := -1
	for i := range r.gt {
		if !r.gt[i].neg && r.c.phraseAt(r.gt, i, fTarget) > 0 {
			at = i
			break
		}
	}
	if at < 0 || len(r.files) == 0 {
		return
	}
	phrase := r.goal[r.gt[at].start:r.gt[at+r.c.phraseAt(r.gt, at, fTarget)-1].end]
	if f := r.namedFile(r.gt); f != "" {
		r.target = f
		return
	}
	if len(r.files) == 1 {
		r.target = r.files[0]
		r.assume("Took %q to be %s, the only candidate file.", phrase, r.files[0])
		return
	}
	if f := r.answerFile(); f != "" {
		r.target = f
		return
	}
	if !r.directive {
		r.ask(askonce.Question{
			Type:    askonce.QuestionTargetFile,
			Text:    fmt.Sprintf("The goal refers to %q. Which file is it?", phrase),
			Options: r.files,
			Reason:  "target_file_ambiguous",
			Default: r.files[0],
		})
		return
	}
	r.target = r.files[0]
	r.assume("Took %q to be %s, the first candidate file.", phrase, r.files[0])
}

// namedFile is the candidate file that toks name by its path, or by a base
// name no other candidate shares.
func (r *run) namedFile(toks []token) string {
	for i := range toks {
		t := toks[i].text
		base := ""
		for _, f := range r.files {
			lf := strings.ToLower(f)
			if lf == t {
				return f
			}
			if strings.ToLower(path.Base(f)) == t {
				if base != "" {
					base = "\x00" // shared base name: ambiguous
				} else {
					base = f
				}
			}
		}
		if base != "" && base != "\x00" {
			return base
		}
	}
	return ""
}

// answerFile reads a TARGET_FILE answer: an offered file, or a relative
// path inside the project.
func (r *run) answerFile() string {
	a := strings.TrimSpace(r.answer)
	if a == "" {
		return ""
	}
	for _, f := range r.files {
		if f == a {
			return f
		}
	}
	if f := r.namedFile(r.at); f != "" {
		return f
	}
	if strings.ContainsAny(a, " \t\n\\") || !strings.ContainsAny(a, "./") || path.IsAbs(a) {
		return ""
	}
	if c := path.Clean(a); c != ".." && !strings.HasPrefix(c, "../") && c != "." {
		return c
	}
	return ""
}

// vague asks what to do when the goal has fewer content words than the
// profile's minimum. An answer with a content word says it; under a
// directive the plan is generic.
func (r *run) vague() {
	n := 0
	for i := range r.gt {
		if content(&r.gt[i]) {
			n++
		}
	}
	if n >= r.c.minContent {
		return
	}
	for i := range r.at {
		if content(&r.at[i]) {
			r.useAnswer = true
			return
		}
	}
	if !r.directive {
		g := strings.TrimSpace(r.goal)
		text := "What exactly should be done? Please describe the goal in more detail."
		if g != "" {
			text = fmt.Sprintf("The goal %q is too vague to plan. What exactly should be done?", askonce.ClampTitle(g))
		}
		r.ask(askonce.Question{
			Type:   askonce.QuestionFreeText,
			Text:   text,
			Reason: "missing_required_info",
		})
		return
	}
	r.generic = true
	r.assume("The goal %q was too vague to plan in detail; planned a generic sequence.", askonce.ClampTitle(strings.TrimSpace(r.goal)))
}
