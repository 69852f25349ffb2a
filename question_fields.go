package askonce

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode"
)

// maxFieldName is the longest field name, in bytes.
const maxFieldName = 64

// normalizeFields checks a question with fields (docs/protocol.md rule 7)
// and completes it: each field normalised as a plain question (its text
// defaults to its name, its type to FREE_TEXT), the question made readable
// where fields cannot be shown (Type FREE_TEXT, Text listing every field),
// and its Default the answer of the fields' defaults when they answer it.
// A question of one field becomes the plain question of that field. More
// than MaxFields fields, an empty, malformed or repeated name, or a field
// that cannot be shown is EINVALID naming the field.
func (q *Question) normalizeFields() error {
	if len(q.Fields) > MaxFields {
		return Errorf(EINVALID, "question has %d fields; the limit is %d", len(q.Fields), MaxFields)
	}
	q.Text = strings.TrimSpace(q.Text)
	fields := slices.Clone(q.Fields)
	seen := map[string]bool{}
	for i := range fields {
		f := &fields[i]
		f.Name = strings.TrimSpace(f.Name)
		if err := checkFieldName(f.Name, i); err != nil {
			return err
		}
		if k := strings.ToLower(f.Name); seen[k] {
			return Errorf(EINVALID, "field %q appears twice; field names must differ", f.Name)
		} else {
			seen[k] = true
		}
		if f.Type != "" && !f.Type.Valid() {
			return Errorf(EINVALID, "field %q: type %q is not one of %s", f.Name, f.Type, joinNames(QuestionTypes, ", "))
		}
		if f.Type == "" {
			f.Type = QuestionFreeText
		}
		text := strings.TrimSpace(f.Text)
		if text == "" && len(fields) == 1 {
			text = q.Text
		}
		if text == "" {
			text = f.Name
		}
		fq := f.question()
		fq.Text = text
		if err := fq.Normalize(); err != nil {
			return Errorf(EINVALID, "field %q: %s", f.Name, ErrorMessage(err))
		}
		f.Type, f.Text, f.Options, f.AllowOther, f.Default, f.Constraints = fq.Type, fq.Text, fq.Options, fq.AllowOther, fq.Default, fq.Constraints
	}
	if len(fields) == 1 {
		f := fields[0]
		q.Type, q.Text, q.Options, q.AllowOther, q.Default, q.Constraints, q.Fields = f.Type, f.Text, f.Options, f.AllowOther, f.Default, f.Constraints, nil
		return nil
	}
	q.Fields = fields
	q.Type, q.Options, q.AllowOther, q.Constraints = QuestionFreeText, nil, false, Constraints{}
	if list := fieldsText(fields); !strings.Contains(q.Text, list) {
		q.Text = strings.TrimSpace(q.Text + "\n" + list)
	}
	// The fields' defaults are the question's (DefaultAnswer).
	q.Default = ""
	return nil
}

// DefaultAnswer is the answer q's default gives, the one applied on
// timeout or decline: its Default, or for a question with fields the
// fields' defaults when they answer it. False: q has none.
func (q *Question) DefaultAnswer() (Answer, bool) {
	if len(q.Fields) > 0 {
		a, err := validateFields(q, Answer{})
		return a, err == nil
	}
	if q.Default == "" {
		return Answer{}, false
	}
	a, err := ValidateAnswer(q, TextAnswer(q.Default))
	return a, err == nil
}

// checkFieldName checks the name of the i-th field: 1 to maxFieldName
// bytes of letters, digits, '_', '-' or '.', so that it reads the same as a JSON
// key and at the start of a "name: value" line.
func checkFieldName(name string, i int) error {
	switch {
	case name == "":
		return Errorf(EINVALID, "field %d has no name", i+1)
	case len(name) > maxFieldName:
		return Errorf(EINVALID, "field %q: the name is %d bytes; the limit is %d", name, len(name), maxFieldName)
	case strings.ContainsFunc(name, func(r rune) bool { return !nameRune(r) }):
		return Errorf(EINVALID, "field %q: a name has only letters, digits, _, - and .", name)
	}
	return nil
}

func nameRune(r rune) bool {
	return r == '_' || r == '-' || r == '.' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

// fieldsText is the readable list of a question's fields, for channels
// that cannot show them as a form.
func fieldsText(fields []QuestionField) string {
	var b strings.Builder
	for _, f := range fields {
		fmt.Fprintf(&b, "- %s: %s", f.Name, f.Text)
		var notes []string
		switch {
		case f.Type == QuestionConfirm:
			notes = append(notes, "yes or no")
		case f.Type == QuestionSelectOne || f.Type == QuestionTargetFile:
			n := "one of " + strings.Join(f.Options, ", ")
			if f.AllowOther {
				n += ", or your own"
			}
			if f.Type == QuestionTargetFile {
				n += ", or a path in the project"
			}
			notes = append(notes, n)
		case f.Type != QuestionFreeText || !f.Constraints.IsZero():
			fq := f.question()
			notes = append(notes, fq.Accepts())
		}
		if f.Default != "" {
			notes = append(notes, "default "+f.Default)
		}
		if !f.Required {
			notes = append(notes, "optional")
		}
		if len(notes) > 0 {
			b.WriteString(" (" + strings.Join(notes, "; ") + ")")
		}
		b.WriteString("\n")
	}
	b.WriteString("Answer with one line per field: name: value")
	return b.String()
}

// fieldIndex returns the index of q's field called name: exactly, else
// ignoring case; -1 for none.
func (q *Question) fieldIndex(name string) int {
	for i := range q.Fields {
		if q.Fields[i].Name == name {
			return i
		}
	}
	for i := range q.Fields {
		if strings.EqualFold(q.Fields[i].Name, name) {
			return i
		}
	}
	return -1
}

// fieldNames lists the names of q's fields.
func (q *Question) fieldNames() []string {
	names := make([]string, len(q.Fields))
	for i, f := range q.Fields {
		names[i] = f.Name
	}
	return names
}

// validateFields is ValidateAnswer for a question with fields. Text alone
// is read as one "name: value" line per field (FieldLinesAnswer).
func validateFields(q *Question, a Answer) (Answer, error) {
	if len(a.Fields) == 0 && !a.Value.IsZero() {
		if a.Value.Kind != KindText {
			return Answer{}, Errorf(EINVALID, "answer %s; answer each field by name: %s", wrongKindOfFields(a.Value), strings.Join(q.fieldNames(), ", "))
		}
		lines, err := FieldLinesAnswer(q, a.Value.Text)
		if err != nil {
			return Answer{}, err
		}
		a = lines
	}
	var bad []FieldError
	given := make([]*FieldValue, len(q.Fields))
	twice := make([]bool, len(q.Fields))
	for k := range a.Fields {
		fv := &a.Fields[k]
		i := q.fieldIndex(fv.Name)
		switch {
		case i < 0:
			bad = append(bad, FieldError{Name: fv.Name, Message: "is not a field of this question", Accepts: "the fields " + strings.Join(q.fieldNames(), ", "), Allowed: q.fieldNames()})
		case given[i] != nil:
			if !twice[i] {
				bad = append(bad, FieldError{Name: q.Fields[i].Name, Message: fmt.Sprintf("is given twice (as %q and %q); give each field once", given[i].Name, fv.Name)})
			}
			twice[i] = true
		default:
			given[i] = fv
		}
	}
	slices.SortStableFunc(bad, func(x, y FieldError) int { return strings.Compare(x.Name, y.Name) })
	out := Answer{Fields: make([]FieldValue, 0, len(q.Fields))}
	for i := range q.Fields {
		f := &q.Fields[i]
		if twice[i] {
			continue
		}
		fq := f.question()
		var v Value
		switch {
		case given[i] != nil && !blank(given[i].Value):
			got, err := checkValue(&fq, given[i].Value)
			if err != nil {
				bad = append(bad, FieldError{Name: f.Name, Message: err.Message, Accepts: fq.Accepts(), Allowed: err.Allowed})
				continue
			}
			v = got
		case f.Default != "":
			got, err := checkValue(&fq, TextValue(f.Default))
			if err != nil {
				continue // Normalize checked it
			}
			v = got
		case f.Required:
			bad = append(bad, FieldError{Name: f.Name, Message: "is required", Accepts: fq.Accepts(), Allowed: fieldAllowed(f)})
			continue
		default:
			continue
		}
		out.Fields = append(out.Fields, FieldValue{Name: f.Name, Value: v})
	}
	if len(bad) > 0 {
		msgs := make([]string, len(bad))
		for i, fe := range bad {
			msgs[i] = fe.Name + ": " + fe.Message
		}
		e := Errorf(EINVALID, "answer has %d bad field(s): %s", len(bad), strings.Join(msgs, " | "))
		e.Fields = bad
		return Answer{}, e
	}
	if len(out.Fields) == 0 {
		return Answer{}, Errorf(EINVALID, "answer is empty; answer the fields %s", strings.Join(q.fieldNames(), ", "))
	}
	return out, nil
}

// blank reports whether v leaves its field unanswered: nothing, blank
// text or an empty list.
func blank(v Value) bool {
	switch v.Kind {
	case KindText:
		return strings.TrimSpace(v.Text) == ""
	case KindOptions:
		return len(v.Options) == 0
	}
	return v.IsZero()
}

func wrongKindOfFields(v Value) string {
	if v.bad != "" {
		return v.bad
	}
	return wrongKind(v) + " for a question with fields"
}

// fieldAllowed is the allowed values of f: its options, when it offers
// a fixed set.
func fieldAllowed(f *QuestionField) []string {
	if len(f.Options) > 0 && f.Type != QuestionFreeText && f.Type != QuestionNumber {
		return slices.Clone(f.Options)
	}
	return nil
}

// Intro is the text of a question with fields without the list of its
// fields that Normalize appends: what a channel that shows the fields as
// a form puts above them. For any other question it is Text.
func (q *Question) Intro() string {
	if len(q.Fields) == 0 {
		return q.Text
	}
	return strings.TrimSpace(strings.TrimSuffix(q.Text, fieldsText(q.Fields)))
}

// filled is what fillFields found for the fields of a question.
type filled struct {
	// values and sources of the fields filled, by name.
	values  map[string]Value
	sources map[string]Source
	// ref is the memory of the first field filled from it.
	ref *MemoryRef
}

// fillFields resolves each field of a question with fields on its own
// (docs/protocol.md rules 5 and 6): from its remembered answer in stored
// (by field name), validated against the field as it is now, else from
// the goal.
func fillFields(goal string, q *Question, stored map[string]*HistoryEntry) filled {
	var fl filled
	for i := range q.Fields {
		f := &q.Fields[i]
		fq := f.question()
		var v Value
		src, ok := SourceHistory, false
		if h := stored[f.Name]; h != nil {
			if got, err := checkValue(&fq, TextValue(h.Answer)); err == nil {
				v, ok = got, true
				if fl.ref == nil {
					fl.ref = h.Ref()
				}
			}
		}
		if !ok {
			a, found := Resolve(goal, &fq)
			if !found {
				continue
			}
			got, err := checkValue(&fq, TextValue(a))
			if err != nil {
				continue
			}
			v, src = got, SourceResolver
		}
		if fl.values == nil {
			fl.values, fl.sources = map[string]Value{}, map[string]Source{}
		}
		fl.values[f.Name], fl.sources[f.Name] = v, src
	}
	return fl
}

// answer is the answer of the filled fields, in q's order.
func (fl filled) answer(q *Question) Answer {
	a := Answer{Fields: make([]FieldValue, 0, len(fl.values))}
	for _, f := range q.Fields {
		if v, ok := fl.values[f.Name]; ok {
			a.Fields = append(a.Fields, FieldValue{Name: f.Name, Value: v})
		}
	}
	return a
}

// source is the source of an answer made of the filled fields only:
// history when memory filled any, else the resolver.
func (fl filled) source() Source {
	if fl.ref != nil {
		return SourceHistory
	}
	return SourceResolver
}

// rest returns the question that asks q's fields fl did not fill: the
// same intro, reason and expiry, normalised (one field left is the plain
// question of that field), with Filled set.
func (fl filled) rest(q *Question) Question {
	r := Question{Type: QuestionFreeText, Text: q.Intro(), Reason: q.Reason, ExpiresAt: q.ExpiresAt, Cosmetic: q.Cosmetic}
	for _, f := range q.Fields {
		if _, ok := fl.values[f.Name]; !ok {
			r.Fields = append(r.Fields, f)
		}
	}
	_ = r.normalizeFields() // the fields were normalised with q
	r.Filled = &FilledFields{Fields: q.Fields, Values: fl.values}
	return r.Clone()
}

// whole returns the answer of every field of the question the
// interpreter asked: the values filled before it was asked merged with
// a, the answer of the question q asked for the rest.
func (f *FilledFields) whole(q *Question, a Answer) Answer {
	values := maps.Clone(f.Values)
	if len(q.Fields) > 0 {
		for _, fv := range a.Fields {
			values[fv.Name] = fv.Value
		}
	} else {
		for _, fd := range f.Fields {
			if _, ok := values[fd.Name]; !ok {
				values[fd.Name] = a.Value
				break
			}
		}
	}
	all := Answer{Fields: make([]FieldValue, 0, len(values))}
	for _, fd := range f.Fields {
		if v, ok := values[fd.Name]; ok {
			all.Fields = append(all.Fields, FieldValue{Name: fd.Name, Value: v})
		}
	}
	w, err := validateFields(&Question{Fields: f.Fields}, all)
	if err != nil {
		return a
	}
	return w
}

// keys are the texts a field's answer is remembered and looked up under
// (docs/protocol.md rule 5): its own text and, for a field that offers
// options, its name with those options ("environment (staging,
// production)"), so that the same choice asked in other words is found
// too. A field without options has only its text: a name alone ("name",
// "owner") is too loose to answer another question's field.
func (f *QuestionField) keys() []string {
	if len(f.Options) == 0 {
		return []string{f.Text}
	}
	return []string{f.Text, f.Name + " (" + strings.Join(f.Options, ", ") + ")"}
}
