package askonce

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Kind says what a Value holds.
type Kind string

const (
	KindText    Kind = "text"    // Text: words of the person's own, or a value spelled as text
	KindNumber  Kind = "number"  // Number
	KindBool    Kind = "boolean" // Bool
	KindOption  Kind = "option"  // Text: one offered option, by its value
	KindOptions Kind = "options" // Options: several options (or, before validation, a list of texts)
	KindPath    Kind = "path"    // Text: a path inside the project
)

// Value is one typed value of an answer: what a person gave for a
// question, or for one field of a question with fields.
//
// A channel builds it from what the person did (TextValue for words they
// typed, OptionValue for the option they clicked, NumberValue for a
// number input, ...). ValidateAnswer checks it against the question once
// and returns it in the kind the question takes: a text that spells a
// value of the question's type exactly is that value ("3" for a NUMBER,
// "yes" for a CONFIRM, an option's value for a SELECT_ONE); a value of any
// other kind is refused. Nothing downstream parses it again.
type Value struct {
	Kind Kind
	// Text is the text of KindText, the option's value of KindOption and
	// the path of KindPath.
	Text string
	// Number is the number of KindNumber, in JSON's syntax.
	Number json.Number
	// Bool is the value of KindBool.
	Bool bool
	// Options are the picks of KindOptions, each an option's value.
	Options []string

	// bad, set by ParseAnswerJSON, says why a JSON value is no value at
	// all (an object, a list of numbers); validation reports it.
	bad string
}

// TextValue is text the person typed.
func TextValue(s string) Value { return Value{Kind: KindText, Text: s} }

// OptionValue is the option the person picked, by its value exactly.
func OptionValue(option string) Value { return Value{Kind: KindOption, Text: option} }

// OptionsValue are the options the person picked, each by its value
// exactly.
func OptionsValue(options ...string) Value {
	return Value{Kind: KindOptions, Options: slices.Clone(options)}
}

// BoolValue is a yes (true) or a no (false).
func BoolValue(b bool) Value { return Value{Kind: KindBool, Bool: b} }

// IntValue is a whole number.
func IntValue(n int64) Value {
	return Value{Kind: KindNumber, Number: json.Number(strconv.FormatInt(n, 10))}
}

// NumberValue is a number in JSON's syntax ("3", "-2.5", "1e3");
// validation refuses anything else.
func NumberValue(n json.Number) Value { return Value{Kind: KindNumber, Number: n} }

// FloatValue is a number; NaN and the infinities are refused by
// validation.
func FloatValue(f float64) Value {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return Value{Kind: KindNumber, Number: json.Number(strconv.FormatFloat(f, 'g', -1, 64))}
	}
	return Value{Kind: KindNumber, Number: formatFloat(f)}
}

// PathValue is a path inside the project.
func PathValue(p string) Value { return Value{Kind: KindPath, Text: p} }

// IsZero reports whether v holds nothing.
func (v Value) IsZero() bool { return v.Kind == "" && v.bad == "" }

// Equal reports whether v and w are the same value of the same kind.
func (v Value) Equal(w Value) bool {
	return v.Kind == w.Kind && v.Text == w.Text && v.Number == w.Number && v.Bool == w.Bool &&
		slices.Equal(v.Options, w.Options) && v.bad == w.bad
}

// String is v as a person reads it, and as it is spelled in a resolved
// prompt: a yes or no, the number, the text, the option's value, the
// options joined by ", ".
func (v Value) String() string {
	switch v.Kind {
	case KindBool:
		if v.Bool {
			return "yes"
		}
		return "no"
	case KindNumber:
		return v.Number.String()
	case KindOptions:
		return strings.Join(v.Options, ", ")
	}
	return v.Text
}

// Spelling is v as text that validation reads back as v against the
// same question: String, but several options one per line. Memory keeps
// a remembered value as its spelling.
func (v Value) Spelling() string {
	if v.Kind == KindOptions {
		return strings.Join(v.Options, "\n")
	}
	return v.String()
}

// JSON is v as a JSON value: a string (text, option, path), a number, a
// boolean or a list of strings. It is how the API, the interpreter and
// the builder see the value.
func (v Value) JSON() json.RawMessage {
	return v.appendJSON(nil)
}

// appendJSON appends v.JSON to b.
func (v Value) appendJSON(b []byte) []byte {
	switch v.Kind {
	case KindNumber:
		if validNumber(string(v.Number)) {
			return append(b, v.Number...)
		}
		return appendString(b, string(v.Number))
	case KindBool:
		return strconv.AppendBool(b, v.Bool)
	case KindOptions:
		b = append(b, '[')
		for i, o := range v.Options {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, o)
		}
		return append(b, ']')
	}
	return appendString(b, v.Text)
}

// MarshalJSON writes v.JSON.
func (v Value) MarshalJSON() ([]byte, error) { return v.JSON(), nil }

// UnmarshalJSON reads a JSON value as ParseAnswerJSON reads one field's:
// a string is text, a number a number, a boolean a boolean, a list of
// strings a list; validation gives each its kind.
func (v *Value) UnmarshalJSON(b []byte) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var x any
	if err := d.Decode(&x); err != nil {
		return err
	}
	*v = valueOf(x)
	return nil
}

// FieldValue is the value of one field of a question with fields.
type FieldValue struct {
	Name  string
	Value Value
}

// Answer is a person's answer to a job's question: one Value for a
// question without fields, or one value per field (Fields) for a question
// with fields. The zero Answer is no answer.
//
// Channels build it (AnswerOf, FieldsAnswer, TextAnswer, ParseAnswerJSON,
// FieldLinesAnswer); ValidateAnswer checks it against the question, once,
// and returns it normalised: each value of the kind its field takes,
// fields in the question's order, defaults filled. A job's answer is the
// normalised one; it is stored as it is (Encode, DecodeAnswer) and read
// back the same.
type Answer struct {
	// Value answers a question without fields.
	Value Value
	// Fields answer a question with fields, one per field answered.
	Fields []FieldValue
}

// AnswerOf is the answer v to a question without fields.
func AnswerOf(v Value) Answer { return Answer{Value: v} }

// TextAnswer is the answer of text the person typed to a question without
// fields (AnswerOf(TextValue(s))).
func TextAnswer(s string) Answer { return AnswerOf(TextValue(s)) }

// FieldsAnswer is the answer of values by field name to a question with
// fields, in the order given.
func FieldsAnswer(values ...FieldValue) Answer { return Answer{Fields: slices.Clone(values)} }

// IsZero reports whether a is no answer.
func (a Answer) IsZero() bool { return a.Value.IsZero() && len(a.Fields) == 0 }

// Field returns the value of the field called name.
func (a Answer) Field(name string) (Value, bool) {
	for _, f := range a.Fields {
		if f.Name == name {
			return f.Value, true
		}
	}
	return Value{}, false
}

// Equal reports whether a and b are the same answer.
func (a Answer) Equal(b Answer) bool {
	return a.Value.Equal(b.Value) && slices.EqualFunc(a.Fields, b.Fields, func(x, y FieldValue) bool {
		return x.Name == y.Name && x.Value.Equal(y.Value)
	})
}

// Clone returns a deep copy of a.
func (a Answer) Clone() Answer {
	a.Value.Options = slices.Clone(a.Value.Options)
	if a.Fields != nil {
		a.Fields = slices.Clone(a.Fields)
		for i := range a.Fields {
			a.Fields[i].Value.Options = slices.Clone(a.Fields[i].Value.Options)
		}
	}
	return a
}

// String is a as a person reads it: the value, or "name: value" per
// field joined by "; ".
func (a Answer) String() string { return a.join("; ") }

// Prompt is a as the answer section of a resolved prompt
// (docs/protocol.md rule 4): the value, or one "name: value" line per
// field.
func (a Answer) Prompt() string { return a.join("\n") }

func (a Answer) join(sep string) string {
	if len(a.Fields) == 0 {
		return a.Value.String()
	}
	parts := make([]string, len(a.Fields))
	for i, f := range a.Fields {
		parts[i] = f.Name + ": " + f.Value.String()
	}
	return strings.Join(parts, sep)
}

// JSON is a as JSON: the value's JSON, or an object of each field's, in
// the fields' order; null for no answer.
func (a Answer) JSON() json.RawMessage {
	if a.IsZero() {
		return json.RawMessage("null")
	}
	if len(a.Fields) == 0 {
		return a.Value.JSON()
	}
	b := []byte{'{'}
	for i, f := range a.Fields {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, f.Name)
		b = append(b, ':')
		b = f.Value.appendJSON(b)
	}
	return append(b, '}')
}

// MarshalJSON writes a.JSON.
func (a Answer) MarshalJSON() ([]byte, error) { return a.JSON(), nil }

// UnmarshalJSON reads a as ParseAnswerJSON does.
func (a *Answer) UnmarshalJSON(b []byte) error {
	if string(bytes.TrimSpace(b)) == "null" {
		*a = Answer{}
		return nil
	}
	x, err := ParseAnswerJSON(b)
	if err != nil {
		return err
	}
	*a = x
	return nil
}

// storedValue is how Encode keeps a value: its kind beside it, so that
// it reads back as the very same value, and a number as text, which a
// store's JSON type (jsonb) does not respell.
type storedValue struct {
	Kind    Kind     `json:"k"`
	Text    string   `json:"t,omitempty"`
	Number  string   `json:"n,omitempty"`
	Bool    bool     `json:"b,omitempty"`
	Options []string `json:"o,omitempty"`
}

type storedField struct {
	Name  string      `json:"name"`
	Value storedValue `json:"v"`
}

type storedAnswer struct {
	Value  *storedValue  `json:"v,omitempty"`
	Fields []storedField `json:"f,omitempty"`
	// Old is an answer stored before answers were typed: its text.
	Old *string `json:"old,omitempty"`
}

func (s storedValue) value() Value {
	return Value{Kind: s.Kind, Text: s.Text, Number: json.Number(s.Number), Bool: s.Bool, Options: s.Options}
}

// Encode is a as a store keeps it: JSON that DecodeAnswer reads back as
// a, each value with its kind. It is nil for no answer.
func (a Answer) Encode() []byte {
	if a.IsZero() {
		return nil
	}
	// Written by hand, as encoding/json would write storedAnswer: it
	// is on every answer's write.
	b := make([]byte, 0, 64)
	if len(a.Fields) == 0 {
		b = append(b, `{"v":`...)
		b = appendStored(b, a.Value)
		return append(b, '}')
	}
	b = append(b, `{"f":[`...)
	for i, f := range a.Fields {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"name":`...)
		b = appendString(b, f.Name)
		b = append(b, `,"v":`...)
		b = appendStored(b, f.Value)
		b = append(b, '}')
	}
	return append(b, "]}"...)
}

// appendStored appends v as storedValue's JSON.
func appendStored(b []byte, v Value) []byte {
	b = append(b, `{"k":`...)
	b = appendString(b, string(v.Kind))
	if v.Text != "" {
		b = append(b, `,"t":`...)
		b = appendString(b, v.Text)
	}
	if v.Number != "" {
		b = append(b, `,"n":`...)
		b = appendString(b, string(v.Number))
	}
	if v.Bool {
		b = append(b, `,"b":true`...)
	}
	if len(v.Options) > 0 {
		b = append(b, `,"o":[`...)
		for i, o := range v.Options {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, o)
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

// appendString appends s as a JSON string, escaped as encoding/json
// escapes it.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s)
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// DecodeAnswer reads what Encode wrote.
func DecodeAnswer(b []byte) (Answer, error) { return DecodeStoredAnswer(b, nil) }

// DecodeStoredAnswer reads what Encode wrote, or {"old": text}, an
// answer stored as text before answers were typed, which it reads
// against q (OldAnswer).
func DecodeStoredAnswer(b []byte, q *Question) (Answer, error) {
	if len(b) == 0 {
		return Answer{}, nil
	}
	var s storedAnswer
	if err := json.Unmarshal(b, &s); err != nil {
		return Answer{}, fmt.Errorf("decode answer: %w", err)
	}
	if s.Old != nil {
		return OldAnswer(q, *s.Old), nil
	}
	var a Answer
	if s.Value != nil {
		a.Value = s.Value.value()
	}
	for _, f := range s.Fields {
		a.Fields = append(a.Fields, FieldValue{Name: f.Name, Value: f.Value.value()})
	}
	return a, nil
}

// OldAnswer reads an answer stored before answers were typed: the text of
// the answer to q, or, for a question with fields (or some of whose
// fields were filled before it was asked), the JSON object of every
// field's text. It is read as it was validated then; text that no longer
// validates is kept as text.
func OldAnswer(q *Question, text string) Answer {
	if q == nil {
		return TextAnswer(text)
	}
	if q.Filled != nil || len(q.Fields) > 0 {
		fields := q.Fields
		if q.Filled != nil {
			fields = q.Filled.Fields
		}
		a, err := ParseAnswerJSON([]byte(text))
		if err != nil {
			return TextAnswer(text)
		}
		if v, err := validateFields(&Question{Fields: fields}, a); err == nil {
			return v
		}
		return a
	}
	if a, err := ValidateAnswer(q, TextAnswer(text)); err == nil {
		return a
	}
	return TextAnswer(text)
}

// ParseAnswerJSON reads an answer given as JSON (the body of an HTTP
// answer, an A2A data part): an object is a value per field, in its
// order, a null field left out; anything else is the value of a question
// without fields. A string is text, a number a number (in its JSON
// spelling, checked against the field), a boolean a boolean and a list of
// strings a list; validation gives each the kind its field takes. A
// value that is none of these (an object inside the object, a list of
// numbers) is reported by validation, with the other bad fields. Input
// that is not JSON, or not valid UTF-8, is EINVALID.
func ParseAnswerJSON(raw []byte) (Answer, error) {
	if !utf8.Valid(raw) {
		return Answer{}, Errorf(EINVALID, "answer is not valid UTF-8")
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	tok, err := d.Token()
	if err != nil {
		return Answer{}, Errorf(EINVALID, "answer is not JSON: %v", err)
	}
	if delim, ok := tok.(json.Delim); !ok || delim != '{' {
		d = json.NewDecoder(bytes.NewReader(raw))
		d.UseNumber()
		var x any
		if err := d.Decode(&x); err != nil {
			return Answer{}, Errorf(EINVALID, "answer is not JSON: %v", err)
		}
		if d.More() {
			return Answer{}, Errorf(EINVALID, "answer has text after its JSON value")
		}
		if x == nil {
			return Answer{}, Errorf(EINVALID, "answer is empty")
		}
		return AnswerOf(valueOf(x)), nil
	}
	// An object, read in order so that names repeated (or differing
	// only in case) are seen, not collapsed by a map.
	a := Answer{Fields: []FieldValue{}}
	for d.More() {
		t, err := d.Token()
		if err != nil {
			return Answer{}, Errorf(EINVALID, "answer is not a JSON object: %v", err)
		}
		name, _ := t.(string)
		var x any
		if err := d.Decode(&x); err != nil {
			return Answer{}, Errorf(EINVALID, "answer is not a JSON object: field %q: %v", name, err)
		}
		if x == nil {
			continue
		}
		a.Fields = append(a.Fields, FieldValue{Name: name, Value: valueOf(x)})
	}
	if _, err := d.Token(); err != nil {
		return Answer{}, Errorf(EINVALID, "answer is not a JSON object: %v", err)
	}
	if _, err := d.Token(); err != io.EOF {
		return Answer{}, Errorf(EINVALID, "answer has text after its JSON object")
	}
	return a, nil
}

// valueOf is the value of a decoded JSON value (numbers as json.Number).
func valueOf(x any) Value {
	switch x := x.(type) {
	case string:
		return TextValue(x)
	case json.Number:
		return NumberValue(x)
	case bool:
		return BoolValue(x)
	case []any:
		v := Value{Kind: KindOptions, Options: make([]string, 0, len(x))}
		for _, e := range x {
			s, ok := e.(string)
			if !ok {
				return Value{bad: "is a list of something other than text; give a list of options"}
			}
			v.Options = append(v.Options, s)
		}
		return v
	case nil:
		return Value{}
	}
	return Value{bad: "is an object, not a value"}
}

// FieldLinesAnswer reads an answer written as text to a question with
// fields, for a channel where a person can only type (an email reply, a
// terminal line): one "name: value" line per field; a line that does not
// start with a field's name continues the value before it. The values are
// text, which validation reads against each field.
func FieldLinesAnswer(q *Question, text string) (Answer, error) {
	if !utf8.ValidString(text) {
		return Answer{}, Errorf(EINVALID, "answer is not valid UTF-8")
	}
	var a Answer
	cur := -1
	for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
		name, value, ok := strings.Cut(line, ":")
		name = strings.TrimSpace(name)
		if ok && name != "" && checkFieldName(name, 0) == nil {
			a.Fields = append(a.Fields, FieldValue{Name: name, Value: TextValue(strings.TrimSpace(value))})
			cur = len(a.Fields) - 1
			continue
		}
		if cur < 0 {
			if strings.TrimSpace(line) == "" {
				continue
			}
			return Answer{}, Errorf(EINVALID, "answer is not one line per field (name: value); the fields are %s", strings.Join(q.fieldNames(), ", "))
		}
		v := &a.Fields[cur].Value
		v.Text = strings.TrimSpace(v.Text + "\n" + line)
	}
	return a, nil
}

// validNumber reports whether s is a number in JSON's syntax.
func validNumber(s string) bool {
	if s == "" || (s[0] != '-' && (s[0] < '0' || s[0] > '9')) {
		return false
	}
	return json.Valid([]byte(s))
}

// formatFloat spells f as JSON: without an exponent where it reads as
// people write numbers.
func formatFloat(f float64) json.Number {
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		return json.Number(strconv.FormatFloat(f, 'g', -1, 64))
	}
	return json.Number(strconv.FormatFloat(f, 'f', -1, 64))
}
