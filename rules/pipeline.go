package rules

import (
	"slices"
	"strings"

	"github.com/askonce/askonce"
)

// input is what every detector reads: the goal and answer of one prompt,
// their tokens and the request's candidate files. Detectors never change
// it; each returns its own findings.
type input struct {
	p        *Profile
	c        *compiled
	goal     string
	answer   string
	earlier  []string // answers the last one overrides
	gt, at   []token
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
	parts := strings.Split(prompt, askonce.AnswerMarker)
	if len(parts) == 1 {
		return prompt, "", nil
	}
	for _, p := range parts[1 : len(parts)-1] {
		if p = strings.TrimSpace(p); p != "" {
			earlier = append(earlier, p)
		}
	}
	return parts[0], strings.TrimSpace(parts[len(parts)-1]), earlier
}

func newInput(p *Profile, prompt string, r *askonce.Request) *input {
	goal, answer, earlier := splitPrompt(prompt)
	in := &input{p: p, c: p.c, goal: goal, answer: answer, earlier: earlier, files: clean(r.Files), cands: clean(r.Candidates), schema: r.SpecSchema, japanese: mostlyJapanese(goal)}
	in.gt = p.c.annotate(goal, tokenize(goal))
	if answer != "" {
		in.at = p.c.annotate(answer, tokenize(answer))
	}
	return in
}

// finding is what every detector's result offers the pipeline: the
// question to ask while the answer does not settle what it found (nil when
// nothing is open), and the assumptions written when its resolution rule
// settled it instead.
type finding interface {
	open() *askonce.Question
	assumed() []string
}

// asked is what every detector's result holds for the pipeline.
type asked struct {
	q           *askonce.Question
	assumptions []string
}

func (a *asked) open() *askonce.Question { return a.q }
func (a *asked) assumed() []string       { return a.assumptions }

// reading is the result of every detector for one prompt, and the one
// question chosen from them.
type reading struct {
	contradiction contradictions
	destructive   destructions
	candidates    references
	spec          schemaFields
	choice        choices
	vague         vagueness

	// question is the one question to ask, and asker the check that asks
	// it; both are empty when the prompt is planned.
	question    *askonce.Question
	asker       string
	assumptions []string
}

// read runs the profile's detectors and chooses the question. Every
// detector reads the input alone, so their order only decides which open
// finding is asked: the first in the profile's order. Under a directive
// nothing is asked and every open finding is settled by its rule, with an
// assumption. Contradictions are always read, since they give the plan
// its attributes; without the check they are settled by the rule.
func read(in *input, directive bool) *reading {
	r := &reading{contradiction: detectContradictions(in)}
	type check struct {
		name string
		f    finding
	}
	checks := make([]check, 0, len(in.c.checks))
	assumptions := []finding{&r.contradiction}
	for _, name := range in.c.checks {
		var f finding
		switch name {
		case CheckContradiction:
			f = &r.contradiction
		case CheckDestructive:
			r.destructive = detectDestructive(in)
			f = &r.destructive
		case CheckCandidates:
			r.candidates = detectCandidates(in)
			f = &r.candidates
		case CheckSpecSchema:
			r.spec = detectSchema(in)
			f = &r.spec
		case CheckChoice:
			r.choice = detectChoices(in)
			f = &r.choice
		case CheckVague:
			r.vague = detectVague(in)
			f = &r.vague
		}
		checks = append(checks, check{name, f})
		if name != CheckContradiction {
			assumptions = append(assumptions, f)
		}
	}
	if !directive {
		for _, c := range checks {
			if q := c.f.open(); q != nil {
				r.question, r.asker = q, c.name
				return r
			}
		}
	}
	for _, a := range in.earlier {
		if in.japanese {
			r.assumptions = append(r.assumptions, "回答"+in.quote(a)+"では決まらなかったため、"+in.quote(in.answer)+"で進めた")
		} else {
			r.assumptions = append(r.assumptions, "The answer "+in.quote(a)+" did not settle it; proceeded with "+in.quote(in.answer))
		}
	}
	for _, f := range assumptions {
		r.assumptions = append(r.assumptions, f.assumed()...)
	}
	return r
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
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = in.quote(w)
	}
	if in.japanese {
		return strings.Join(q, "、")
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " " + and + " " + q[len(q)-1]
}

// clean trims names and drops empty and repeated ones.
func clean(names []string) []string {
	var out []string
	for _, n := range names {
		if n = strings.TrimSpace(n); n != "" && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}
