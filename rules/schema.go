package rules

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

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
	words   []string // the name's words, lower case: "dueDate" is due, date
	role    []string // words that say what the field holds: its name's and description's
	typ     string   // JSON Schema type; "" when not given
	format  string   // JSON Schema format ("email", "uri", "date")
	choices []any    // enum, or the consts of oneOf/anyOf
	def     any
	hasDef  bool
	// label is what the question calls the field: the schema's title,
	// else its description; "" for neither.
	label string
	// many: an array of choices (its items' enum), picked minItems to
	// maxItems; a number's or a text's bounds.
	many                 bool
	minItems, maxItems   int
	minimum, maximum     *float64
	minLength, maxLength int
}

// constraints are f's bounds as a question's.
func (f *field) constraints() askonce.Constraints {
	c := askonce.Constraints{Integer: f.typ == "integer", Minimum: f.minimum, Maximum: f.maximum,
		MinItems: f.minItems, MaxItems: f.maxItems, MinLength: f.minLength, MaxLength: f.maxLength}
	switch f.format {
	case "email", "uri", "date", "date-time":
		c.Format = askonce.TextFormat(f.format)
	}
	return c
}

// readSchema reads the required fields of a schema's top level, in the
// order "required" lists them. A schema that is not an object, or a field
// of type object or array, gives nothing to ask.
func readSchema(raw []byte) (fields []field, closed map[string]bool) {
	if len(raw) == 0 {
		return nil, nil // most requests have no schema: nothing to decode into
	}
	var s struct {
		Required   []string                   `json:"required"`
		Properties map[string]json.RawMessage `json:"properties"`
		Additional *bool                      `json:"additionalProperties"`
	}
	if json.Unmarshal(raw, &s) != nil {
		return nil, nil
	}
	if s.Additional != nil && !*s.Additional {
		closed = map[string]bool{}
		for k := range s.Properties {
			closed[k] = true
		}
	}
	type alt struct {
		Const *any `json:"const"`
	}
	consts := func(alts []alt) (out []any) { // the consts of oneOf and anyOf
		for _, a := range alts {
			if a.Const != nil {
				out = append(out, *a.Const)
			}
		}
		return out
	}
	for _, name := range s.Required {
		var p struct {
			Type        any      `json:"type"`
			Format      string   `json:"format"`
			Title       string   `json:"title"`
			Description string   `json:"description"`
			Enum        []any    `json:"enum"`
			Const       *any     `json:"const"`
			Default     *any     `json:"default"`
			OneOf       []alt    `json:"oneOf"`
			AnyOf       []alt    `json:"anyOf"`
			Minimum     *float64 `json:"minimum"`
			Maximum     *float64 `json:"maximum"`
			MinLength   int      `json:"minLength"`
			MaxLength   int      `json:"maxLength"`
			MinItems    int      `json:"minItems"`
			MaxItems    int      `json:"maxItems"`
			Items       *struct {
				Enum  []any `json:"enum"`
				OneOf []alt `json:"oneOf"`
				AnyOf []alt `json:"anyOf"`
			} `json:"items"`
		}
		_ = json.Unmarshal(s.Properties[name], &p)
		f := field{name: name, words: strings.Fields(strings.ToLower(strings.Join(identWords(name), " "))), choices: p.Enum, format: p.Format,
			minimum: p.Minimum, maximum: p.Maximum, minLength: p.MinLength, maxLength: p.MaxLength, minItems: p.MinItems, maxItems: p.MaxItems}
		f.typ, _ = p.Type.(string)
		f.label = strings.TrimSpace(p.Title)
		if f.label == "" {
			f.label = strings.TrimSpace(p.Description)
		}
		if f.typ == "array" && p.Items != nil {
			// An array of choices: picked, several of them.
			f.choices, f.many = append(p.Items.Enum, consts(append(p.Items.OneOf, p.Items.AnyOf...))...), true
		}
		f.role = append(slices.Clone(f.words), strings.Fields(strings.ToLower(p.Description))...)
		f.choices = append(f.choices, consts(append(p.OneOf, p.AnyOf...))...)
		switch {
		case p.Const != nil:
			f.choices, f.def, f.hasDef = []any{*p.Const}, *p.Const, true
		case p.Default != nil:
			f.def, f.hasDef = *p.Default, true
		}
		if f.typ == "object" || f.typ == "array" && (!f.many || len(f.choices) == 0) || vocab.has("plannerFields", name) && len(f.choices) == 0 {
			continue
		}
		fields = append(fields, f)
	}
	return fields, closed
}

// detectSchema fills the required fields of the job's specSchema from the
// goal, as a careful reader maps a sentence to fields:
//   - a field with choices (enum, or oneOf/anyOf consts) by the choice the
//     goal means: named whole, as a plural, an adverb or an abbreviation
//     ("every week" is weekly, "prod" production), and not negated, after
//     "than", "from", "instead of" or "except", a source before a target
//     ("port the TypeScript CLI to Go") or in a remark beside a command
//     ("a large one would be too much");
//   - another field by "<field> value", "<field>: value", a form of its
//     name ("titled X") or, for a number, "3 replicas";
//   - by the shape of its value: an email address, a URL or an ISO date
//     for a field of that format or name; for a recipient (to, assignee,
//     owner, ...) an email address or the name the command addresses
//     ("email Dana", "send it to Marcus Lee"); for a title (title, name,
//     subject, ...) the text after "called", "named" or "titled", or the
//     one quoted string;
//   - a boolean by its words, their forms or synonyms ("tell" for
//     notify): stated, true; after a negation or "skip", "without", false
//     (true for a field named for the negative, "skipTests");
//   - a const or a default.
//
// A field the goal leaves open, or fills twice (two choices both meant or
// offered: "to staging and production", "Go or Rust"), is asked:
// SELECT_ONE over its choices (or the named ones), CONFIRM for a boolean,
// FREE_TEXT otherwise; reason missing_required_info. One open field is
// asked as that question; several are asked together, as the fields of
// one question (up to askonce.MaxFields, in the schema's order), and the
// answer's "name: value" lines settle each. A field the answer does not
// settle, one past the limit, and the asked ones under a directive take
// the first choice, false, 0 or the goal, each with an assumption.
func detectSchema(in *input) schemaFields {
	fields, closed := readSchema(in.schema)
	if len(fields) == 0 {
		return schemaFields{closed: closed} // nothing to ask or fill in
	}
	res := schemaFields{values: map[string]any{}, closed: closed}
	var open []openField
	defaulted := map[string]bool{}
	for _, f := range fields {
		v, ok, named := goalValue(in, f)
		switch {
		case ok && fits(in, f, v):
			res.values[f.name] = v
		case f.hasDef:
			res.values[f.name] = f.def
			defaulted[f.name] = true
		default:
			open = append(open, openField{f: f, named: named, q: fieldQuestion(in, f, named)})
		}
	}
	res.q = askOpen(in, open, res.values)
	// Assumptions in the schema's order: a default taken, or the rule's
	// value of an open field the answer did not settle.
	for _, f := range fields {
		i := slices.IndexFunc(open, func(o openField) bool { return o.f.name == f.name })
		if i < 0 {
			if defaulted[f.name] {
				res.assumptions = append(res.assumptions, fmt.Sprintf("The goal leaves %s open; used the schema's default %s.", in.quote(f.name), in.quote(display(f.def))))
			}
			continue
		}
		if _, settled := res.values[f.name]; settled {
			continue
		}
		v := ruleValue(in, f, open[i].named)
		res.values[f.name] = v
		res.assumptions = append(res.assumptions, fmt.Sprintf("The goal leaves %s open; assumed %s.", in.quote(f.name), in.quote(display(v))))
	}
	return res
}

// fits reports whether v, a value the goal gives field f, is one the
// question about f would take: a number within the schema's bounds, a
// text of its format and lengths. One that is not is asked.
func fits(in *input, f field, v any) bool {
	if f.many || len(f.choices) > 0 {
		return true // one of the choices, by construction
	}
	q := fieldQuestion(in, f, nil)
	if err := q.Normalize(); err != nil {
		return false
	}
	var val askonce.Value
	switch v := v.(type) {
	case int64:
		val = askonce.IntValue(v)
	case float64:
		val = askonce.FloatValue(v)
	case bool:
		val = askonce.BoolValue(v)
	case string:
		val = askonce.TextValue(v)
	default:
		return true
	}
	_, err := askonce.ValidateAnswer(q, askonce.AnswerOf(val))
	return err == nil
}

// openField is a required field the goal leaves open, its named choices
// and the question about it alone.
type openField struct {
	f     field
	named []any
	q     *askonce.Question
}

// askOpen settles the open fields the answer settles, setting their
// values, and returns the question still to ask: nil when nothing is open
// or the answer settled what was asked.
func askOpen(in *input, open []openField, values map[string]any) *askonce.Question {
	if len(open) == 0 {
		return nil
	}
	if asked := open[:min(len(open), askonce.MaxFields)]; len(asked) > 1 {
		if q := fieldsQuestion(in, asked); q != nil {
			if in.answer == "" {
				return q
			}
			if lines := answerLines(in.answer); slices.ContainsFunc(asked, func(o openField) bool { _, ok := lines[o.f.name]; return ok }) {
				settled := true
				for _, o := range asked {
					sub := *in
					sub.answer = lines[o.f.name]
					if v, ok := answerValue(&sub, o.f, o.q); ok {
						values[o.f.name] = v
					} else {
						settled = false
					}
				}
				if settled {
					return nil
				}
				return q
			}
		}
	}
	first := open[0]
	if v, ok := answerValue(in, first.f, first.q); ok {
		values[first.f.name] = v
		return nil
	}
	return first.q
}

// fieldsQuestion asks the open fields together, one field each; nil when
// their names cannot be fields' names (askonce.Question.Normalize says),
// and then only the first is asked.
func fieldsQuestion(in *input, open []openField) *askonce.Question {
	q := &askonce.Question{Reason: "missing_required_info", Text: in.say("A few details before I plan this:", "計画の前にいくつか教えてください:")}
	for _, o := range open {
		q.Fields = append(q.Fields, askonce.QuestionField{Name: o.f.name, Type: o.q.Type, Text: o.q.Text,
			Options: o.q.Options, Default: o.q.Default, Constraints: o.q.Constraints, Required: true})
	}
	if err := q.Normalize(); err != nil {
		return nil
	}
	return q
}

// answerLines reads an answer to a question with fields: one
// "name: value" line per field, a line without a name continuing the
// value before it.
func answerLines(answer string) map[string]string {
	out := map[string]string{}
	cur := ""
	for _, line := range strings.Split(answer, "\n") {
		name, value, ok := strings.Cut(line, ":")
		if name = strings.TrimSpace(name); ok && name != "" && !strings.ContainsAny(name, " \t") {
			cur = name
			out[cur] = strings.TrimSpace(value)
			continue
		}
		if cur != "" {
			out[cur] = strings.TrimSpace(out[cur] + "\n" + line)
		}
	}
	return out
}

// goalValue is the value the goal gives field f, if it gives exactly one;
// else, for a field with choices, the ones it names.
func goalValue(in *input, f field) (any, bool, []any) {
	if len(f.choices) > 0 {
		named := namedChoices(in, f)
		if len(named) == 1 {
			return named[0], true, nil
		}
		return nil, false, named
	}
	for _, find := range []func(*input, field) (string, bool){afterName, shaped} {
		if text, ok := find(in, f); ok {
			if v, ok := parseValue(f, text); ok {
				return v, true, nil
			}
		}
	}
	if f.typ == "boolean" {
		v, ok := statedBoolean(in, f)
		return v, ok, nil
	}
	return nil, false, nil
}

// shaped finds the field's value by its shape: an email address, a URL,
// an ISO date, a person the command addresses or a title (see
// detectSchema). It gives a value only when exactly one fits.
func shaped(in *input, f field) (string, bool) {
	role := func(list string) bool { // words that tell what a field holds (open.json)
		return slices.ContainsFunc(f.role, func(w string) bool { return vocab.has(list, w) })
	}
	emails, urls, dates, handles := rawValues(in.goal)
	switch {
	case strings.Contains(f.format, "email") || role("emailRole"):
		return single(emails)
	case strings.HasPrefix(f.format, "ur") || f.format == "iri" || role("urlRole"):
		return single(urls)
	case strings.HasPrefix(f.format, "date"):
		return single(dates)
	case role("personRole"):
		for _, vs := range [][]string{emails, handles, addressed(in)} {
			if len(vs) > 0 {
				return single(vs)
			}
		}
	case role("titleRole"):
		return single(titles(in))
	}
	return "", false
}

// single is the one value of vs.
func single(vs []string) (string, bool) {
	return strings.Join(vs, ""), len(vs) == 1
}

// rawValues are the email addresses, URLs, ISO dates and @handles
// written in s.
func rawValues(s string) (emails, urls, dates, handles []string) {
	for _, w := range strings.Fields(s) {
		w = strings.Trim(w, `.,;:!?()[]<>"'“”‘’`)
		switch _, err := time.Parse(time.DateOnly, w); {
		case strings.Contains(w, "://") || strings.HasPrefix(w, "www."):
			urls = append(urls, w)
		case strings.Count(w, "@") == 1 && strings.Contains(w[strings.Index(w, "@"):], ".") && !strings.HasPrefix(w, "@"):
			emails = append(emails, w)
		case err == nil:
			dates = append(dates, w)
		case strings.HasPrefix(w, "@") && len(w) > 1:
			handles = append(handles, w)
		}
	}
	return emails, urls, dates, handles
}

// addressed are the capitalised names a command addresses: its main
// verb's object ("email Dana") or after "to", "for" or "cc" ("send it to
// Marcus Lee").
func addressed(in *input) []string {
	var out []string
	toks := in.gt
	for i := 1; i < len(toks); i++ {
		p := &toks[i-1]
		// A name starts after the verb or preposition, never inside a
		// longer name ("Dana Lee owns it" names no "Lee").
		if !toks[i].capital || toks[i].quoted || p.Clause != toks[i].Clause || p.capital || !in.verbs[i-1] && !vocab.has("recipientPrepositions", p.Text) {
			continue
		}
		k := i
		for k < len(toks) && toks[k].capital && toks[k].Clause == toks[i].Clause {
			k++
		}
		out = append(out, in.span(i, k))
		i = k
	}
	return out
}

// titles are the texts the goal gives a thing as its name: after
// "called", "named" or "titled", a quoted string or the rest of the
// clause, else the goal's one quoted string.
func titles(in *input) []string {
	var out []string
	toks := in.gt
	for i := range toks {
		if vocab.has("naming", toks[i].Text) {
			if v, ok := valueAt(in, i+1); ok {
				out = append(out, v)
			}
		}
	}
	if len(out) == 0 {
		for _, q := range quotedRanges(in.goal) {
			_, n := utf8.DecodeRuneInString(in.goal[q[0]:])
			out = append(out, strings.TrimSpace(in.goal[q[0]+n:q[1]]))
		}
	}
	return out
}

// statedBoolean reads a boolean field from its words in the goal (see
// detectSchema): the words of its name after a leading verb ("run tests"
// is tests) or a negative one (negativeVerbs; "skipTests": stated, it is true), matched
// in their forms and, for a one-word field, its synonyms.
func statedBoolean(in *input, f field) (any, bool) {
	want, invert := f.words, false
	if len(want) > 1 && vocab.has("negativeVerbs", want[0]) {
		want, invert = want[1:], true
	} else if len(want) > 1 && vocab.has("leadingVerbs", want[0]) {
		want = want[1:]
	}
	forms := [][]string{want}
	if len(want) == 1 {
		if g := vocab.lists["notifySynonyms"]; slices.ContainsFunc(g, func(s string) bool { return formOf(want[0], s) }) {
			for _, s := range g {
				forms = append(forms, []string{s})
			}
		}
	}
	toks := in.gt
	for _, w := range forms {
		i := runAt(toks, len(w), func(k int, t *token) bool { return !t.quoted && formOf(t.Text, w[k]) })
		if i < 0 || w[0] == "know" && !slices.ContainsFunc(toks[max(0, i-4):i], func(t token) bool { return t.Text == "let" }) {
			continue // "know" says notify only in "let ... know"
		}
		stated := !toks[i].neg
		for k := i - 1; k >= 0 && k >= i-3 && toks[k].Clause == toks[i].Clause && !toks[k].e.has(fConj); k-- {
			if toks[k].e.has(fNeg) || slices.ContainsFunc(vocab.lists["negativeVerbs"], func(v string) bool { return formOf(toks[k].Text, v) }) {
				stated = false
			}
		}
		return stated != invert, true
	}
	return nil, false
}

// formOf reports whether t is a form of the word w: w itself, its plural,
// or its stem (without a final e or y, four letters or more) with an
// inflection, the stem's last consonant doubled or not (skipping).
func formOf(t, w string) bool {
	stem := strings.TrimSuffix(strings.TrimSuffix(w, "e"), "y")
	rest, ok := strings.CutPrefix(t, stem)
	if ok && stem != "" && len(rest) > 1 && rest[0] == stem[len(stem)-1] {
		rest = rest[1:]
	}
	return t == w || wordKey(t) == w || ok && len(stem) >= 4 && vocab.has("inflections", rest)
}

// namedChoices are the choices of f that the goal means, in the order it
// names them (see detectSchema).
func namedChoices(in *input, f field) []any {
	type mention struct {
		at     int
		choice any
	}
	var ms []mention
	for _, c := range f.choices {
		for _, at := range choiceAt(in, display(c)) {
			ms = append(ms, mention{at, c})
		}
	}
	slices.SortFunc(ms, func(a, b mention) int { return a.at - b.at })
	toks := in.gt
	inCommand := func(i int) bool { return commandOf(in, i) >= 0 }
	target := func(i int) bool { return vocab.has("targetPrepositions", governor(toks, i)) }
	commanded := slices.ContainsFunc(ms, func(m mention) bool { return inCommand(m.at) })
	var out []any
	for a, m := range ms {
		switch {
		case toks[m.at].neg || negatedClause(toks, m.at) || vocab.has("valueExcluders", governor(toks, m.at)):
		case commanded && !inCommand(m.at) && !target(m.at): // a remark; "then to production" is one more target
		case !target(m.at) && slices.ContainsFunc(ms[a+1:], func(n mention) bool {
			return toks[n.at].Sentence == toks[m.at].Sentence && target(n.at) && display(n.choice) != display(m.choice)
		}): // a source: "port the TypeScript CLI to Go"
		default:
			if !slices.Contains(out, m.choice) {
				out = append(out, m.choice)
			}
		}
	}
	return out
}

// choiceAt are the goal tokens where the choice c is named: its words in
// a row, a single word also as a part of a hyphenated word
// ("high-priority"), by its plural or adverb ("weeks", "week" for
// weekly), or by an abbreviation of three or four letters that is no
// other word ("prod").
func choiceAt(in *input, c string) []int {
	want := tokenize(c)
	var out []int
	for i := range in.gt {
		t := &in.gt[i]
		if t.quoted {
			continue
		}
		if len(want) > 1 {
			if startsRun(in.gt[i:], len(want), func(k int, t *token) bool { return t.Text == want[k].Text }) {
				out = append(out, i)
			}
			continue
		}
		if len(want) == 0 {
			break
		}
		w := want[0].Text
		abbrev := len(t.Text) >= 3 && len(t.Text) <= 4 && len(w) > 5 && strings.HasPrefix(w, t.Text) && t.e == nil
		if abbrev || slices.ContainsFunc(identWords(t.Text), func(p string) bool { return p == w || base(p) == base(w) && len(base(w)) >= 3 }) {
			out = append(out, i)
		}
	}
	return out
}

// base is a word without a plural or adverb ending: weekly and weeks are
// week, daily is day.
func base(w string) string {
	switch {
	case strings.HasSuffix(w, "ily"):
		return w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "ly"):
		return w[:len(w)-2]
	}
	return wordKey(w)
}

// runAt is the first index of toks where n tokens in a row match (the
// k-th of them match(k, token)), or -1.
func runAt(toks []token, n int, match func(k int, t *token) bool) int {
	for i := 0; n > 0 && i+n <= len(toks); i++ {
		if startsRun(toks[i:], n, match) {
			return i
		}
	}
	return -1
}

// startsRun reports whether toks opens with n tokens in a row that match
// (the k-th of them match(k, token)): the one loop behind every phrase
// match (the lexicon's phrases, candidate names, schema choices).
func startsRun(toks []token, n int, match func(k int, t *token) bool) bool {
	if n > len(toks) {
		return false
	}
	for k := range n {
		if !match(k, &toks[k]) {
			return false
		}
	}
	return true
}

// afterName finds "<field> value", "<field>: value", "<field> is value"
// or a form of the name ("titled X") in the goal and returns the value's
// text: a quoted string, or the rest of its clause; for a number field
// also a number right before the name ("3 replicas").
func afterName(in *input, f field) (string, bool) {
	toks := in.gt
	i := runAt(toks, len(f.words), func(k int, t *token) bool { return formOf(t.Text, f.words[k]) })
	if i < 0 {
		return "", false
	}
	if (f.typ == "integer" || f.typ == "number") && i > 0 && number(toks[i-1].Text) {
		return toks[i-1].Text, true
	}
	k := i + len(f.words)
	for k < len(toks) && vocab.has("valueLinks", toks[k].Text) {
		k++
	}
	return valueAt(in, k)
}

// valueAt is the value that starts at goal token k: the quoted string
// there, or the rest of its clause.
func valueAt(in *input, k int) (string, bool) {
	toks := in.gt
	if k >= len(toks) {
		return "", false
	}
	end := k
	for end < len(toks) && toks[end].Clause == toks[k].Clause && toks[end].quoted == toks[k].quoted {
		end++
	}
	return in.span(k, end), true
}

// parseValue reads text as a value of f's type and format.
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
		switch r, t := lex.Reply(text), strings.ToLower(text); {
		case r == "yes" || t == "true" || t == "on":
			return true, true
		case r == "no" || t == "false" || t == "off":
			return false, true
		}
		return nil, false
	}
	emails, urls, dates, _ := rawValues(text)
	switch {
	case strings.Contains(f.format, "email"):
		return single(emails)
	case strings.HasPrefix(f.format, "ur") || f.format == "iri":
		return single(urls)
	case f.format == "date":
		return single(dates)
	}
	return text, text != ""
}

// fieldQuestion is the question about field f.
func fieldQuestion(in *input, f field, named []any) *askonce.Question {
	label := in.quote(strings.Join(f.words, " "))
	q := &askonce.Question{Reason: "missing_required_info", Constraints: f.constraints()}
	switch {
	case f.many:
		q.Type = askonce.QuestionSelectMany
		for _, o := range f.choices {
			q.Options = append(q.Options, display(o))
		}
		q.Text = in.say("Which %s should it be (one or more of %s)?", "%sは%sのどれにしますか（複数可）？", label, in.quoteList(q.Options, "and"))
	case len(f.choices) > 0:
		opts := named
		if len(opts) < 2 {
			opts = f.choices
		}
		q.Type = askonce.QuestionSelectOne
		for _, o := range opts {
			q.Options = append(q.Options, display(o))
		}
		q.Text = in.say("Which %s should it be: %s?", "%sは%sのどれにしますか？", label, in.quoteList(q.Options, "or"))
	case f.typ == "boolean":
		q.Type, q.Options = askonce.QuestionConfirm, []string{"yes", "no"}
		q.Text = in.say("Should %s be on?", "%sを有効にしますか？", label)
	case f.typ == "integer" || f.typ == "number":
		q.Type = askonce.QuestionNumber
		q.Text = in.say("What should %s be?", "%sは何にしますか？", label)
	default:
		q.Type = askonce.QuestionFreeText
		q.Text = in.say("What should %s be?", "%sは何にしますか？", label)
	}
	if f.label != "" {
		// The schema's own words for the field.
		q.Text = f.label
	}
	return q
}

// answerValue reads the answer to the question about field f.
func answerValue(in *input, f field, q *askonce.Question) (any, bool) {
	if in.answer == "" {
		return nil, false
	}
	switch q.Type {
	case askonce.QuestionSelectMany:
		// The answer's picks, as askonce.Value.String spells them.
		var picks []any
		for _, p := range strings.Split(in.answer, ", ") {
			i := slices.Index(q.Options, strings.TrimSpace(p))
			if i < 0 {
				return nil, false
			}
			for _, c := range f.choices {
				if display(c) == q.Options[i] {
					picks = append(picks, c)
				}
			}
		}
		return picks, len(picks) > 0
	case askonce.QuestionSelectOne:
		if i := answerOption(in, q.Options); i >= 0 {
			for _, c := range f.choices {
				if display(c) == q.Options[i] {
					return c, true
				}
			}
		}
		return nil, false
	}
	return parseValue(f, in.answer) // yes/no for a boolean
}

// ruleValue is the resolution rule's value for an open field.
func ruleValue(in *input, f field, named []any) any {
	switch {
	case f.many:
		return f.choices[:min(max(f.minItems, 1), len(f.choices))]
	case len(f.choices) > 0:
		if len(named) > 1 {
			return named[0]
		}
		return f.choices[0]
	case f.typ == "boolean":
		return false
	case f.typ == "integer" || f.typ == "number":
		return 0
	}
	return strings.TrimSpace(in.goal)
}

// display is a choice as the question shows it.
func display(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}
