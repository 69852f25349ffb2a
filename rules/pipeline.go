package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/askonce/askonce"
)

// input is what every detector reads: the goal and answer of one prompt,
// their tokens and the request's candidate files. Detectors never change
// it (goalSteps only fills in what it would read anyway); each returns
// its own findings. It belongs to one call.
type input struct {
	p        *Profile
	c        *compiled
	goal     string
	answer   string
	earlier  []string // answers the last one overrides
	gt, at   []token
	cmds     []command // the goal's commands
	steps    []step    // the goal's steps, once stepped (goalSteps)
	stepped  bool      // steps is filled in
	layout             // the goal's blocks and code (layoutOf)
	verbs    []bool    // by goal token: the main verb of a command
	files    []string
	cands    []string
	schema   []byte
	japanese bool // most of the goal is Japanese: questions are too
}

// splitPrompt splits a resolved prompt (docs/protocol.md rule 4): the goal is
// the text before the first answer marker, the answer that counts is the
// last section, and any sections between are earlier answers it overrides
// (the fallback re-run appends the question's default after an answer
// that settled nothing). An empty answer is no answer.
func splitPrompt(prompt string) (goal, answer string, earlier []string) {
	goal, rest, found := strings.Cut(prompt, askonce.AnswerMarker)
	if !found {
		return prompt, "", nil
	}
	for {
		section, after, more := strings.Cut(rest, askonce.AnswerMarker)
		if !more {
			return goal, strings.TrimSpace(section), earlier
		}
		if section = strings.TrimSpace(section); section != "" {
			earlier = append(earlier, section)
		}
		rest = after
	}
}

func newInput(p *Profile, prompt string, r *askonce.Request) *input {
	goal, answer, earlier := splitPrompt(prompt)
	in := &input{p: p, c: p.c, goal: goal, answer: answer, earlier: earlier, files: clean(r.Files), cands: clean(r.Candidates), schema: r.SpecSchema, japanese: mostlyJapanese(goal)}
	in.layout = layoutOf(goal)
	in.gt = p.c.annotate(goal, in.layout)
	in.cmds = p.c.commands(goal, in.gt)
	in.verbs = make([]bool, len(in.gt))
	for _, c := range in.cmds {
		in.verbs[c.verb] = true
	}
	if answer != "" {
		in.at = p.c.annotate(answer, layoutOf(answer))
	}
	return in
}

// goalSteps are the goal's steps, found on first use: a goal that is
// asked about needs none.
func (in *input) goalSteps() []step {
	if !in.stepped {
		in.steps, in.stepped = in.c.splitSteps(in.goal, in.gt, in.cmds, in.layout), true
	}
	return in.steps
}

// asked is what every detector's result holds for the pipeline: the
// question to ask while the answer does not settle what it found (nil when
// nothing is open), and the assumptions written when its resolution rule
// settled it instead.
type asked struct {
	q           *askonce.Question
	assumptions []string
}

// reading is the result of every detector for one prompt, and the one
// question chosen from them.
type reading struct {
	contradiction contradictions
	destructive   destructions
	candidates    references
	spec          schemaFields
	choice        choices
	vague         vagueness

	question    *askonce.Question // the one question to ask, or nil
	assumptions []string
}

// read runs the profile's detectors into r, a new reading, and chooses
// the question. Every detector reads the input alone, so their order only
// decides which open finding is asked: the first in the profile's order,
// and the detectors after it are not run, since a question leaves no plan
// for them to shape.
// Under a directive nothing is asked and every open finding is settled by
// its rule, with an assumption. Contradictions are always read, since
// they give the plan its attributes; without the check they are settled
// by the rule.
func (r *reading) read(in *input, directive bool) {
	r.contradiction = detectContradictions(in, !directive && slices.Contains(in.c.checks, CheckContradiction))
	// Whether a finding's question stands, to be settled by its rule
	// under the directive.
	open := false
	for _, name := range in.c.checks {
		f := r.detect(in, name)
		if f.q != nil && !directive {
			r.question = f.q
			return
		}
		open = open || f.q != nil
	}
	for _, a := range in.earlier {
		r.assumptions = append(r.assumptions, in.say("The answer %s did not settle it; proceeded with %s", "回答%sでは決まらなかったため、%sで進めた", in.quote(a), in.quote(in.answer)))
	}
	if len(in.earlier) == 0 && in.answer != "" && open {
		// The fallback run after an answer that settled nothing, with no
		// default to proceed with (rule 17): each open finding's rule
		// decides, and the plan says the answer did not.
		r.assumptions = append(r.assumptions, in.say("The answer %s did not settle it; decided by rule", "回答%sでは決まらなかったため、規則で決めた", in.quote(in.answer)))
	}
	// Every check has run. Contradictions' assumptions come first: they
	// give the plan its attributes.
	r.assumptions = append(r.assumptions, r.contradiction.assumptions...)
	for _, name := range in.c.checks {
		if name != CheckContradiction {
			r.assumptions = append(r.assumptions, r.finding(name).assumptions...)
		}
	}
}

// detect runs one check into its field of r, and returns its finding.
func (r *reading) detect(in *input, check string) *asked {
	switch check {
	case CheckDestructive:
		r.destructive = detectDestructive(in)
	case CheckCandidates:
		r.candidates = detectCandidates(in)
	case CheckSpecSchema:
		r.spec = detectSchema(in)
	case CheckChoice:
		r.choice = detectChoices(in)
	case CheckVague:
		r.vague = detectVague(in)
	}
	return r.finding(check)
}

// finding is what one check found: its field of r.
func (r *reading) finding(check string) *asked {
	switch check {
	case CheckDestructive:
		return &r.destructive.asked
	case CheckCandidates:
		return &r.candidates.asked
	case CheckSpecSchema:
		return &r.spec.asked
	case CheckChoice:
		return &r.choice.asked
	case CheckVague:
		return &r.vague.asked
	}
	return &r.contradiction.asked
}

// say is a text in the question's language: en, or ja when most of the
// goal is Japanese, formatted with args.
func (in *input) say(en, ja string, args ...any) string {
	if in.japanese {
		return fmt.Sprintf(ja, args...)
	}
	return fmt.Sprintf(en, args...)
}

// selectOne is a SELECT_ONE question over the user's own phrases, which
// also allows an answer of the user's own. It has no default: which
// option comes first says nothing about what the person wants, and a
// default would answer for them when nobody replies (docs/protocol.md
// rule 17).
func selectOne(text, reason string, options []string) *askonce.Question {
	return &askonce.Question{Type: askonce.QuestionSelectOne, Text: text, Options: options, AllowOther: true, Reason: reason}
}

// quote puts s in the quotation marks of the question's language: “s”, or
// 「s」 in Japanese.
func (in *input) quote(s string) string {
	if in.japanese {
		return "「" + s + "」"
	}
	return "“" + s + "”"
}

// span is the goal's source text of tokens [t0, t1).
func (in *input) span(t0, t1 int) string {
	return in.goal[in.gt[t0].Start:in.gt[t1-1].End]
}

// quoteList renders “a” and “b”, or “a”, “b” and “c” (“a”、“b” in Japanese).
func (in *input) quoteList(words []string, and string) string {
	var b strings.Builder
	for i, w := range words {
		switch {
		case i == 0:
		case in.japanese:
			b.WriteString("、")
		case i == len(words)-1:
			b.WriteString(" " + and + " ")
		default:
			b.WriteString(", ")
		}
		b.WriteString(in.quote(w))
	}
	return b.String()
}

// clean trims names and drops empty and repeated ones.
func clean(names []string) []string {
	var out []string
	seen := make(map[string]bool, len(names))
	for _, n := range names {
		if n = strings.TrimSpace(n); n != "" && !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}
