package askonce

import (
	"bytes"
	"encoding/json"
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
		f.Type, f.Text, f.Options, f.AllowOther, f.Default = fq.Type, fq.Text, fq.Options, fq.AllowOther, fq.Default
	}
	if len(fields) == 1 {
		f := fields[0]
		q.Type, q.Text, q.Options, q.AllowOther, q.Default, q.Fields = f.Type, f.Text, f.Options, f.AllowOther, f.Default, nil
		return nil
	}
	q.Fields = fields
	q.Type, q.Options, q.AllowOther = QuestionFreeText, nil, false
	if list := fieldsText(fields); !strings.Contains(q.Text, list) {
		q.Text = strings.TrimSpace(q.Text + "\n" + list)
	}
	q.Default = ""
	if d, err := validateFields(q, "{}"); err == nil {
		q.Default = d
	}
	return nil
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
		case len(f.Options) > 0:
			n := "one of " + strings.Join(f.Options, ", ")
			if f.AllowOther {
				n += ", or your own"
			}
			if f.Type == QuestionTargetFile {
				n += ", or a path in the project"
			}
			notes = append(notes, n)
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

// field returns q's field called name (ignoring case).
func (q *Question) field(name string) *QuestionField {
	for i := range q.Fields {
		if strings.EqualFold(q.Fields[i].Name, name) {
			return &q.Fields[i]
		}
	}
	return nil
}

// fieldNames lists the names of q's fields.
func (q *Question) fieldNames() []string {
	names := make([]string, len(q.Fields))
	for i, f := range q.Fields {
		names[i] = f.Name
	}
	return names
}

// validateFields is ValidateAnswer for a question with fields. answer is a
// JSON object of field values or one "name: value" line per field (a line
// that does not start with a name continues the value before it). Each
// value is validated against its field; an optional field left out (or
// empty, or null) takes its default. The answer returned is the JSON
// object of every answered field, in the fields' order. Any bad field is
// EINVALID whose Fields list every bad field, with the allowed values.
func validateFields(q *Question, answer string) (string, error) {
	values, err := fieldValues(q, answer)
	if err != nil {
		return "", err
	}
	var bad []FieldError
	for name := range values {
		if q.field(name) == nil {
			bad = append(bad, FieldError{Name: name, Message: "is not a field of this question", Allowed: q.fieldNames()})
		}
	}
	slices.SortFunc(bad, func(a, b FieldError) int { return strings.Compare(a.Name, b.Name) })
	var out bytes.Buffer
	out.WriteByte('{')
	answered := 0
	for i := range q.Fields {
		f := &q.Fields[i]
		v, given := lookup(values, f.Name)
		var a string
		switch {
		case given && v.bad != "":
			bad = append(bad, fieldError(f, v.bad))
			continue
		case given && strings.TrimSpace(v.text) != "":
			fq := f.question()
			got, err := ValidateAnswer(&fq, v.text)
			if err != nil {
				e, _ := err.(*Error)
				fe := FieldError{Name: f.Name, Message: ErrorMessage(err)}
				if e != nil {
					fe.Allowed = e.Allowed
				}
				bad = append(bad, fe)
				continue
			}
			a = got
		case f.Default != "":
			a = f.Default
		case f.Required:
			bad = append(bad, fieldError(f, "is required"))
			continue
		default:
			continue
		}
		if answered > 0 {
			out.WriteByte(',')
		}
		answered++
		k, _ := json.Marshal(f.Name)
		val, _ := json.Marshal(a)
		out.Write(k)
		out.WriteByte(':')
		out.Write(val)
	}
	out.WriteByte('}')
	if len(bad) > 0 {
		msgs := make([]string, len(bad))
		for i, fe := range bad {
			msgs[i] = fe.Name + ": " + fe.Message
			if len(fe.Allowed) > 0 && !strings.Contains(fe.Message, "allowed:") {
				msgs[i] += "; allowed: " + strings.Join(fe.Allowed, ", ")
			}
		}
		e := Errorf(EINVALID, "answer has %d bad field(s): %s", len(bad), strings.Join(msgs, " | "))
		e.Fields = bad
		return "", e
	}
	if answered == 0 {
		e := Errorf(EINVALID, "answer is empty; answer the fields %s", strings.Join(q.fieldNames(), ", "))
		return "", e
	}
	return out.String(), nil
}

// fieldError is the error of field f with message msg and f's allowed
// values.
func fieldError(f *QuestionField, msg string) FieldError {
	fe := FieldError{Name: f.Name, Message: msg}
	if len(f.Options) > 0 {
		fe.Allowed = slices.Clone(f.Options)
	}
	return fe
}

// fieldValue is one value of an answer: its text, or why a value of the
// wrong JSON type is bad.
type fieldValue struct{ text, bad string }

func lookup(values map[string]fieldValue, name string) (fieldValue, bool) {
	for k, v := range values {
		if strings.EqualFold(k, name) {
			return v, true
		}
	}
	return fieldValue{}, false
}

// fieldValues reads an answer to a question with fields: a JSON object or
// "name: value" lines.
func fieldValues(q *Question, answer string) (map[string]fieldValue, error) {
	a := strings.TrimSpace(answer)
	if strings.HasPrefix(a, "{") {
		return jsonValues(q, a)
	}
	values := map[string]fieldValue{}
	var cur string
	for _, line := range strings.Split(a, "\n") {
		name, value, ok := strings.Cut(line, ":")
		name = strings.TrimSpace(name)
		if ok && name != "" && checkFieldName(name, 0) == nil {
			cur = name
			values[cur] = fieldValue{text: strings.TrimSpace(value)}
			continue
		}
		if strings.TrimSpace(line) == "" && cur == "" {
			continue
		}
		if cur == "" {
			return nil, Errorf(EINVALID, "answer is not a JSON object of field values or one line per field (name: value); the fields are %s", strings.Join(q.fieldNames(), ", "))
		}
		v := values[cur]
		v.text = strings.TrimSpace(v.text + "\n" + line)
		values[cur] = v
	}
	return values, nil
}

// jsonValues reads a JSON object of field values: a string is the value;
// a boolean answers a CONFIRM field and a number any other; null is left
// out; anything else is a value of the wrong type.
func jsonValues(q *Question, a string) (map[string]fieldValue, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(a), &raw); err != nil {
		return nil, Errorf(EINVALID, "answer is not a JSON object of field values (%s); the fields are %s", err, strings.Join(q.fieldNames(), ", "))
	}
	values := make(map[string]fieldValue, len(raw))
	for name, r := range raw {
		f := q.field(name)
		confirm := f != nil && f.Type == QuestionConfirm
		var v any
		d := json.NewDecoder(bytes.NewReader(r))
		d.UseNumber()
		_ = d.Decode(&v) // r is valid JSON: Unmarshal checked it
		switch v := v.(type) {
		case nil:
		case string:
			values[name] = fieldValue{text: v}
		case bool:
			if !confirm {
				values[name] = fieldValue{bad: "is true or false, not text"}
				break
			}
			values[name] = fieldValue{text: map[bool]string{true: "yes", false: "no"}[v]}
		case json.Number:
			if confirm {
				values[name] = fieldValue{bad: "is a number, not yes or no"}
				break
			}
			values[name] = fieldValue{text: v.String()}
		default:
			values[name] = fieldValue{bad: "is a list or an object, not one value"}
		}
	}
	return values, nil
}

// PromptAnswer is the answer a as the answer section of a resolved prompt
// (docs/protocol.md rule 4): for a question with fields, one "name: value"
// line per answered field, in the fields' order; otherwise a itself.
func (q *Question) PromptAnswer(a string) string {
	if q != nil && q.Filled != nil {
		q = &Question{Fields: q.Filled.Fields}
	}
	if q == nil || len(q.Fields) == 0 {
		return a
	}
	var values map[string]string
	if err := json.Unmarshal([]byte(a), &values); err != nil {
		return a
	}
	var lines []string
	for _, f := range q.Fields {
		if v, ok := values[f.Name]; ok {
			lines = append(lines, f.Name+": "+v)
		}
	}
	return strings.Join(lines, "\n")
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
	values  map[string]string
	sources map[string]Source
	// ref is the memory of the first field filled from it.
	ref *MemoryRef
}

// fillFields resolves each field of a question with fields on its own
// (docs/protocol.md rules 5 and 6): from its remembered answer in stored
// (by field name), validated like a typed one, else from the goal.
func fillFields(goal string, q *Question, stored map[string]*HistoryEntry) filled {
	var fl filled
	for i := range q.Fields {
		f := &q.Fields[i]
		fq := f.question()
		a, src, ok := "", SourceHistory, false
		if h := stored[f.Name]; h != nil {
			if v, err := ValidateAnswer(&fq, h.Answer); err == nil {
				a, ok = v, true
				if fl.ref == nil {
					fl.ref = h.Ref()
				}
			}
		}
		if !ok {
			if a, ok = Resolve(goal, &fq); !ok {
				continue
			}
			src = SourceResolver
		}
		if fl.values == nil {
			fl.values, fl.sources = map[string]string{}, map[string]Source{}
		}
		fl.values[f.Name], fl.sources[f.Name] = a, src
	}
	return fl
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
func (f *FilledFields) whole(q *Question, a string) string {
	values := maps.Clone(f.Values)
	if len(q.Fields) > 0 {
		var rest map[string]string
		if err := json.Unmarshal([]byte(a), &rest); err == nil {
			maps.Copy(values, rest)
		}
	} else {
		for _, fd := range f.Fields {
			if _, ok := values[fd.Name]; !ok {
				values[fd.Name] = a
				break
			}
		}
	}
	b, _ := json.Marshal(values)
	w, err := validateFields(&Question{Fields: f.Fields}, string(b))
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
