package rules

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/internal/lex"
)

// schemaFields is the spec-schema detector's result: the values of the
// required fields of Request.SpecSchema, which the plan's spec carries so
// that it validates against the schema.
type schemaFields struct {
	values map[string]any
	closed map[string]bool // additionalProperties false: only these keys
	asked
}

// field is one required field of a spec schema, as the detector reads it.
type field struct {
	name    string
	typ     string // JSON Schema type; "" when not given
	choices []any  // enum, or the consts of oneOf/anyOf
	def     any
	hasDef  bool
}

// plannerFields are filled by the steps planner itself.
var plannerFields = []string{"goal", "steps"}

// readSchema reads the required fields of a schema's top level, in the
// order "required" lists them. A schema that is not an object, or a field
// of type object or array, gives nothing to ask.
func readSchema(raw []byte) (fields []field, closed map[string]bool) {
	var s struct {
		Required   []string                   `json:"required"`
		Properties map[string]json.RawMessage `json:"properties"`
		Additional *bool                      `json:"additionalProperties"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &s) != nil {
		return nil, nil
	}
	if s.Additional != nil && !*s.Additional {
		closed = map[string]bool{}
		for k := range s.Properties {
			closed[k] = true
		}
	}
	for _, name := range s.Required {
		var p struct {
			Type    any   `json:"type"`
			Enum    []any `json:"enum"`
			Const   *any  `json:"const"`
			Default *any  `json:"default"`
			OneOf   []struct {
				Const *any `json:"const"`
			} `json:"oneOf"`
			AnyOf []struct {
				Const *any `json:"const"`
			} `json:"anyOf"`
		}
		_ = json.Unmarshal(s.Properties[name], &p)
		f := field{name: name, choices: p.Enum}
		f.typ, _ = p.Type.(string)
		for _, alt := range append(p.OneOf, p.AnyOf...) {
			if alt.Const != nil {
				f.choices = append(f.choices, *alt.Const)
			}
		}
		switch {
		case p.Const != nil:
			f.choices, f.def, f.hasDef = []any{*p.Const}, *p.Const, true
		case p.Default != nil:
			f.def, f.hasDef = *p.Default, true
		}
		if f.typ == "object" || f.typ == "array" || slices.Contains(plannerFields, name) && len(f.choices) == 0 {
			continue
		}
		fields = append(fields, f)
	}
	return fields, closed
}

// detectSchema fills the required fields of the job's specSchema from the
// goal: a field with choices (enum, or oneOf/anyOf consts) by the one
// choice the goal names whole; another field by "<field> value" or
// "<field>: value" in the goal; a field with a const or a default by that
// value. A field the goal leaves open, or fills twice (two of its
// choices), is asked: SELECT_ONE over its choices (or the two it names),
// CONFIRM for a boolean, FREE_TEXT otherwise; reason
// missing_required_info. Only the first open field is asked; the answer
// settles it (a choice as other SELECT_ONE answers are settled, yes/no,
// a number for a number field, any text for a string). Other open fields
// and, under a directive, the asked one take the rule: the first choice,
// false, or the goal for a string, each with an assumption.
func detectSchema(in *input) schemaFields {
	fields, closed := readSchema(in.schema)
	res := schemaFields{values: map[string]any{}, closed: closed}
	for _, f := range fields {
		if v, ok := goalValue(in, f); ok {
			res.values[f.name] = v
			continue
		}
		if f.hasDef {
			res.values[f.name] = f.def
			res.assumptions = append(res.assumptions, fmt.Sprintf("The goal leaves %s open; used the schema's default %s.", in.quote(f.name), in.quote(display(f.def))))
			continue
		}
		q := fieldQuestion(in, f)
		if res.q == nil {
			if v, ok := answerValue(in, f, q); ok {
				res.values[f.name] = v
				res.q = &askonce.Question{} // settled: no later field is asked
				continue
			}
			res.q = q
		}
		v := ruleValue(in, f)
		res.values[f.name] = v
		res.assumptions = append(res.assumptions, fmt.Sprintf("The goal leaves %s open; assumed %s.", in.quote(f.name), in.quote(display(v))))
	}
	if res.q != nil && res.q.Type == "" {
		res.q = nil
	}
	return res
}

// goalValue is the value the goal gives field f, if it gives exactly one.
func goalValue(in *input, f field) (any, bool) {
	if len(f.choices) > 0 {
		named := namedChoices(in, f)
		if len(named) == 1 {
			return named[0], true
		}
		return nil, false
	}
	if text, ok := afterName(in, f.name); ok {
		if v, ok := parseValue(f, text); ok {
			return v, true
		}
	}
	if f.typ == "boolean" {
		return statedBoolean(in, f.name)
	}
	return nil, false
}

// statedBoolean reads a boolean field from the field's own words in the
// goal: named, it is true ("as a dry run", "notify the team"); negated by
// a negation up to three words before them in their clause, it is false
// ("no dry run", "without notifying", "do not send a notification").
func statedBoolean(in *input, name string) (any, bool) {
	want, toks := identWords(name), in.gt
	i := runAt(toks, len(want), func(k int, t *token) bool { return !t.quoted && formOf(t.Text, strings.ToLower(want[k])) })
	if i < 0 {
		return nil, false
	}
	for k := i - 1; k >= 0 && k >= i-3 && toks[k].Clause == toks[i].Clause && !toks[k].e.has(fConj); k-- {
		if toks[k].e.has(fNeg) {
			return false, true
		}
	}
	return !toks[i].neg, true
}

// inflections end a word built on a field's word (notify: notifies,
// notified, notifying, notification).
var inflections = []string{"s", "es", "d", "ed", "ing", "ies", "ied", "ying", "ion", "ions", "ication", "ications"}

// formOf reports whether t is a form of the word w: w itself, its plural,
// or its stem (without a final e or y, four letters or more) with an
// inflection.
func formOf(t, w string) bool {
	stem := strings.TrimSuffix(strings.TrimSuffix(w, "e"), "y")
	rest, ok := strings.CutPrefix(t, stem)
	return t == w || wordKey(t) == w || ok && len(stem) >= 4 && slices.Contains(inflections, rest)
}

// namedChoices are the choices of f that the goal names as whole words.
func namedChoices(in *input, f field) []any {
	var out []any
	for _, c := range f.choices {
		if hasPhrase(in.gt, display(c)) {
			out = append(out, c)
		}
	}
	return out
}

// hasPhrase reports whether toks hold the words of s in a row.
func hasPhrase(toks []token, s string) bool {
	want := tokenize(s)
	return runAt(toks, len(want), func(k int, t *token) bool { return t.Text == want[k].Text && !t.neg }) >= 0
}

// runAt is the first index of toks where n tokens in a row match (the
// k-th of them match(k, token)), or -1.
func runAt(toks []token, n int, match func(k int, t *token) bool) int {
	for i := 0; n > 0 && i+n <= len(toks); i++ {
		k := 0
		for k < n && match(k, &toks[i+k]) {
			k++
		}
		if k == n {
			return i
		}
	}
	return -1
}

// fieldWords splits a field name into words: "dueDate" and "due_date"
// are "due date".
func fieldWords(name string) string {
	return strings.ToLower(strings.Join(identWords(name), " "))
}

// afterName finds "<field> value", "<field>: value" or "<field> is value"
// in the goal and returns the value's text up to its clause's end.
func afterName(in *input, name string) (string, bool) {
	want, toks := tokenize(fieldWords(name)), in.gt
	i := runAt(toks, len(want), func(k int, t *token) bool { return wordKey(t.Text) == wordKey(want[k].Text) })
	if i < 0 {
		return "", false
	}
	k := i + len(want)
	for k < len(toks) && slices.Contains([]string{"is", "=", "to", "of", "as", "be", "should"}, toks[k].Text) {
		k++
	}
	if k >= len(toks) {
		return "", false
	}
	end := k
	for end < len(toks) && toks[end].Clause == toks[k].Clause {
		end++
	}
	return in.span(k, end), true
}

// parseValue reads text as a value of f's type.
func parseValue(f field, text string) (any, bool) {
	text = strings.TrimSpace(text)
	switch f.typ {
	case "integer":
		n, err := strconv.ParseInt(strings.Fields(text + " ")[0], 10, 64)
		return n, err == nil
	case "number":
		n, err := strconv.ParseFloat(strings.Fields(text + " ")[0], 64)
		return n, err == nil
	case "boolean":
		switch strings.ToLower(text) {
		case "true", "yes", "on":
			return true, true
		case "false", "no", "off":
			return false, true
		}
		return nil, false
	}
	return text, text != ""
}

// fieldQuestion is the question about field f.
func fieldQuestion(in *input, f field) *askonce.Question {
	label := in.quote(fieldWords(f.name))
	q := &askonce.Question{Reason: "missing_required_info"}
	switch {
	case len(f.choices) > 0:
		opts := namedChoices(in, f)
		if len(opts) < 2 {
			opts = f.choices
		}
		q.Type, q.Default = askonce.QuestionSelectOne, display(opts[0])
		for _, o := range opts {
			q.Options = append(q.Options, display(o))
		}
		q.Text = in.say("Which %s should it be: %s?", "%sは%sのどれにしますか？", label, in.quoteList(q.Options, "or"))
	case f.typ == "boolean":
		q.Type, q.Options, q.Default = askonce.QuestionConfirm, []string{"yes", "no"}, "no"
		q.Text = in.say("Should %s be on?", "%sを有効にしますか？", label)
	default:
		q.Type = askonce.QuestionFreeText
		q.Text = in.say("What should %s be?", "%sは何にしますか？", label)
	}
	return q
}

// answerValue reads the answer to the question about field f.
func answerValue(in *input, f field, q *askonce.Question) (any, bool) {
	if in.answer == "" {
		return nil, false
	}
	switch q.Type {
	case askonce.QuestionSelectOne:
		if i := answerOption(in, q.Options); i >= 0 {
			for _, c := range f.choices {
				if display(c) == q.Options[i] {
					return c, true
				}
			}
		}
		return nil, false
	case askonce.QuestionConfirm:
		switch lex.Reply(in.answer) {
		case "yes":
			return true, true
		case "no":
			return false, true
		}
		return nil, false
	}
	return parseValue(f, in.answer)
}

// ruleValue is the resolution rule's value for an open field.
func ruleValue(in *input, f field) any {
	switch {
	case len(f.choices) > 0:
		if named := namedChoices(in, f); len(named) > 1 {
			return named[0]
		}
		return f.choices[0]
	case f.typ == "boolean":
		return false
	case f.typ == "integer" || f.typ == "number":
		return 0
	}
	return tidy(in.goal)
}

// display is a choice as the question shows it.
func display(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}
