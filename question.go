package askonce

import (
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"math"
	"path"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// QuestionType says what kind of answer a question takes and so which picker
// a user interface shows (docs/protocol.md rule 7).
type QuestionType string

const (
	QuestionConfirm    QuestionType = "CONFIRM"     // yes / no
	QuestionSelectOne  QuestionType = "SELECT_ONE"  // one of Options
	QuestionTargetFile QuestionType = "TARGET_FILE" // a file of Options, or a path inside the project
	QuestionFreeText   QuestionType = "FREE_TEXT"   // visible text of at most MaxFreeText bytes
	QuestionNumber     QuestionType = "NUMBER"      // a number (Integer: a whole one), between Minimum and Maximum
	QuestionSelectMany QuestionType = "SELECT_MANY" // MinItems to MaxItems of Options
)

// QuestionTypes lists the question types. It is the one list behind
// Valid, the API's enum and its error messages; do not modify it.
var QuestionTypes = []QuestionType{QuestionConfirm, QuestionSelectOne, QuestionTargetFile, QuestionFreeText, QuestionNumber, QuestionSelectMany}

// Valid reports whether t is one of the question types.
func (t QuestionType) Valid() bool { return slices.Contains(QuestionTypes, t) }

// MaxFreeText is the largest FREE_TEXT answer (and the largest answer of
// one's own to an AllowOther question), in bytes.
const MaxFreeText = 4 << 10

// MaxPath is the longest path a TARGET_FILE answer or a job's files entry
// may be, in bytes.
const MaxPath = 1024

// TypeForReason maps a clarification reason to its question type
// (docs/protocol.md rule 7). Unknown reasons take FREE_TEXT.
func TypeForReason(reason string) QuestionType {
	switch reason {
	case "target_file_exists":
		return QuestionConfirm
	case "target_file_ambiguous":
		return QuestionTargetFile
	case "target_action_ambiguous", "scope_unclear", "action_ambiguous":
		return QuestionSelectOne
	default:
		return QuestionFreeText
	}
}

// Question is the one clarifying question a job may ask.
//
// A question may carry up to MaxFields named Fields, each a typed question
// of its own; it is still one question (one asked event, one answer, one
// cap, one ExpiresAt). Normalize makes such a question readable where
// fields cannot be shown: its Type is FREE_TEXT and its Text lists every
// field. Its answer is one Answer with a typed value per field, which a
// channel builds from what the person did (or, where a person can only
// type, from one "name: value" line per field, FieldLinesAnswer);
// ValidateAnswer (the one validation) checks each field, and the job
// keeps the answer with every answered field, defaults filled
// (docs/protocol.md rule 7). A question of one field is normalised to the
// plain question of that field.
type Question struct {
	Type    QuestionType `json:"type"`
	Text    string       `json:"text"`
	Options []string     `json:"options,omitempty"`
	// AllowOther lets a SELECT_ONE question take an answer outside
	// Options: any visible text of at most MaxFreeText bytes, which the
	// interpreter then weighs (docs/protocol.md rule 7). CONFIRM and
	// TARGET_FILE questions never allow other answers.
	AllowOther bool   `json:"allowOther,omitempty"`
	Reason     string `json:"reason,omitempty"`
	// Constraints narrow what the question accepts beyond its type.
	Constraints
	// Default is the safe answer applied on timeout or decline, if any,
	// spelled as text (TextValue): "yes", an option's value, "3". A
	// question with fields has none of its own; its fields' defaults
	// make its DefaultAnswer.
	Default   string     `json:"default,omitempty"`
	ExpiresAt *time.Time `json:"expiresAt,omitempty"`
	// Cosmetic marks a question about appearance only, which a gating
	// policy may decline to ask (docs/protocol.md rule 8).
	Cosmetic bool `json:"cosmetic,omitempty"`
	// Fields are the named parts of a question that asks for several
	// things at once (at most MaxFields; none for a plain question).
	Fields []QuestionField `json:"fields,omitempty"`
	// Filled, on a job's question some of whose fields were answered
	// before it reached a person (from the goal, history or memory,
	// docs/protocol.md rules 5 and 6), is the question the interpreter
	// asked with those fields' values; the question itself holds only
	// the rest, and its answer is merged with them. The store keeps it;
	// no channel shows it, and an interpreter cannot set it.
	Filled *FilledFields `json:"-"`
}

// FilledFields are the fields of a question answered before it was asked.
type FilledFields struct {
	// Fields are every field of the question the interpreter asked, in
	// its order.
	Fields []QuestionField `json:"fields"`
	// Values are the filled fields' values, by name.
	Values map[string]Value `json:"values"`
}

// MaxFields is the most fields one question may carry.
const MaxFields = 5

// QuestionField is one named part of a question with fields: a typed
// question of its own (docs/protocol.md rule 7), answered by the value of
// its Name in the question's answer. An optional field (not Required) left
// out of an answer takes its Default, or stays unanswered.
type QuestionField struct {
	Name string `json:"name"`
	// Type and Text may be left out when asking: FREE_TEXT, and the
	// name. A normalised field has both.
	Type    QuestionType `json:"type,omitempty"`
	Text    string       `json:"text,omitempty"`
	Options []string     `json:"options,omitempty"`
	Constraints
	Default    string `json:"default,omitempty"`
	AllowOther bool   `json:"allowOther,omitempty"`
	Required   bool   `json:"required,omitempty"`
}

// Constraints narrow what a question or a field accepts beyond its type,
// as an MCP elicitation's requestedSchema does. Normalize keeps only
// those of the question's type.
type Constraints struct {
	// OptionTitles are the options' display titles, index by index
	// (SELECT_ONE, SELECT_MANY, TARGET_FILE): what a channel shows for
	// the option; the answer is still the option's value. Empty or
	// missing: the value is shown.
	OptionTitles []string `json:"optionTitles,omitempty"`
	// Integer, Minimum and Maximum bound a NUMBER answer: a whole
	// number, at least Minimum, at most Maximum.
	Integer bool     `json:"integer,omitempty"`
	Minimum *float64 `json:"minimum,omitempty"`
	Maximum *float64 `json:"maximum,omitempty"`
	// MinItems and MaxItems bound how many options a SELECT_MANY
	// answer picks; MaxItems 0 is as many as there are.
	MinItems int `json:"minItems,omitempty"`
	MaxItems int `json:"maxItems,omitempty"`
	// Format, MinLength and MaxLength narrow a FREE_TEXT answer: what
	// it must be (TextFormats) and its length in characters; MaxLength
	// 0 is MaxFreeText bytes.
	Format    TextFormat `json:"format,omitempty"`
	MinLength int        `json:"minLength,omitempty"`
	MaxLength int        `json:"maxLength,omitempty"`
}

// TextFormat is what a FREE_TEXT answer must be, as JSON Schema's
// formats name it.
type TextFormat string

const (
	FormatEmail    TextFormat = "email"     // an email address (user@example.com)
	FormatURI      TextFormat = "uri"       // an absolute URI (https://example.com/x)
	FormatDate     TextFormat = "date"      // a date, 2026-11-28
	FormatDateTime TextFormat = "date-time" // a date and time, RFC 3339: 2026-11-28T09:30:00Z
)

// TextFormats lists the formats; do not modify it.
var TextFormats = []TextFormat{FormatEmail, FormatURI, FormatDate, FormatDateTime}

// Valid reports whether f is one of TextFormats.
func (f TextFormat) Valid() bool { return slices.Contains(TextFormats, f) }

// IsZero reports whether c narrows nothing.
func (c Constraints) IsZero() bool {
	return len(c.OptionTitles) == 0 && !c.Integer && c.Minimum == nil && c.Maximum == nil &&
		c.MinItems == 0 && c.MaxItems == 0 && c.Format == "" && c.MinLength == 0 && c.MaxLength == 0
}

// clone returns a deep copy of c.
func (c Constraints) clone() Constraints {
	c.OptionTitles = slices.Clone(c.OptionTitles)
	if c.Minimum != nil {
		m := *c.Minimum
		c.Minimum = &m
	}
	if c.Maximum != nil {
		m := *c.Maximum
		c.Maximum = &m
	}
	return c
}

// OptionTitle is the title of option i: its OptionTitles entry, or its
// value.
func (q *Question) OptionTitle(i int) string {
	if i < len(q.OptionTitles) && strings.TrimSpace(q.OptionTitles[i]) != "" {
		return q.OptionTitles[i]
	}
	return q.Options[i]
}

// OptionTitle is the title of the field's option i (Question.OptionTitle).
func (f *QuestionField) OptionTitle(i int) string {
	q := f.question()
	return q.OptionTitle(i)
}

// AsQuestion is f as the plain question its value answers: what a
// channel shows for the field and checks its input against.
func (f *QuestionField) AsQuestion() Question { return f.question() }

// question returns f as a plain question, which its value is validated
// against.
func (f *QuestionField) question() Question {
	return Question{Type: f.Type, Text: f.Text, Options: f.Options, AllowOther: f.AllowOther, Default: f.Default, Constraints: f.Constraints}
}

// FieldError is what is wrong with one field of an answer: its Name, the
// Message, what the field Accepts and, when the field offers a fixed
// set, the Allowed values.
type FieldError struct {
	Name    string   `json:"name"`
	Message string   `json:"message"`
	Accepts string   `json:"accepts,omitempty"`
	Allowed []string `json:"allowed,omitempty"`
}

// Overdue reports whether q has expired at now: at and after its
// ExpiresAt (never, without one). An overdue question takes no answer on
// any channel, whether or not the sweep has expired its job yet.
func (q *Question) Overdue(now time.Time) bool {
	return q != nil && q.ExpiresAt != nil && !now.Before(*q.ExpiresAt)
}

// Clone returns a deep copy of q.
func (q Question) Clone() Question {
	q.Options = slices.Clone(q.Options)
	q.Constraints = q.Constraints.clone()
	if q.Fields != nil {
		q.Fields = slices.Clone(q.Fields)
		for i := range q.Fields {
			q.Fields[i].Options = slices.Clone(q.Fields[i].Options)
			q.Fields[i].Constraints = q.Fields[i].Constraints.clone()
		}
	}
	if q.ExpiresAt != nil {
		t := *q.ExpiresAt
		q.ExpiresAt = &t
	}
	if f := q.Filled; f != nil {
		q.Filled = &FilledFields{Fields: slices.Clone(f.Fields), Values: maps.Clone(f.Values)}
		for i := range q.Filled.Fields {
			q.Filled.Fields[i].Constraints = q.Filled.Fields[i].Constraints.clone()
		}
	}
	return q
}

// Normalize fills a missing type from the reason, trims the text, clears
// AllowOther on every type but SELECT_ONE and drops TARGET_FILE options
// that are not usable paths (ValidatePath), so that every option offered is
// an answer the question accepts. It returns EINVALID for a question that
// cannot be shown. A question with fields is checked by normalizeFields.
func (q *Question) Normalize() error {
	if len(q.Fields) > 0 {
		return q.normalizeFields()
	}
	q.Text = strings.TrimSpace(q.Text)
	if q.Type == "" {
		q.Type = TypeForReason(q.Reason)
	}
	switch {
	case q.Text == "":
		return Errorf(EINVALID, "question has no text")
	case !q.Type.Valid():
		return Errorf(EINVALID, "question type %q is not one of %s", q.Type, joinNames(QuestionTypes, ", "))
	case q.Type == QuestionConfirm:
		q.Options = []string{"yes", "no"}
	case q.Type == QuestionTargetFile:
		q.Options, q.OptionTitles = keepOptions(q.Options, q.OptionTitles, func(o string) bool {
			_, err := ValidatePath(o)
			return err == nil
		})
	}
	if q.Type == QuestionSelectOne || q.Type == QuestionSelectMany {
		// Options are told apart by value exactly: two that differ
		// in case or in spaces are two options; the same value twice
		// is one.
		if !distinct(q.Options) {
			seen := map[string]bool{}
			q.Options, q.OptionTitles = keepOptions(q.Options, q.OptionTitles, func(o string) bool {
				ok := o != "" && !seen[o]
				seen[o] = true
				return ok
			})
		}
	}
	switch {
	case q.Type == QuestionSelectOne && len(q.Options) < 2:
		return Errorf(EINVALID, "a SELECT_ONE question needs at least two options")
	case q.Type == QuestionSelectMany && len(q.Options) < 1:
		return Errorf(EINVALID, "a SELECT_MANY question needs at least one option")
	case q.Type == QuestionNumber || q.Type == QuestionFreeText:
		q.Options = nil
	}
	if err := q.normalizeConstraints(); err != nil {
		return err
	}
	if q.Type != QuestionSelectOne {
		q.AllowOther = false
	}
	if q.Default != "" {
		d, err := ValidateAnswer(q, TextAnswer(q.Default))
		if err != nil {
			// An unusable default is dropped rather than applied later.
			q.Default = ""
		} else {
			q.Default = d.Value.String()
		}
	}
	return nil
}

// distinct reports whether options are non-empty and all different.
func distinct(options []string) bool {
	for i, o := range options {
		if o == "" || slices.Contains(options[:i], o) {
			return false
		}
	}
	return true
}

// keepOptions keeps the options (and their titles) keep accepts.
func keepOptions(options, titles []string, keep func(o string) bool) ([]string, []string) {
	var os, ts []string
	hasTitles := false
	for i, o := range options {
		if !keep(o) {
			continue
		}
		os = append(os, o)
		t := ""
		if i < len(titles) {
			t = strings.TrimSpace(titles[i])
		}
		hasTitles = hasTitles || t != ""
		ts = append(ts, t)
	}
	if !hasTitles {
		ts = nil
	}
	return os, ts
}

// normalizeConstraints keeps the constraints of q's type and checks them:
// bounds that no answer meets are EINVALID.
func (q *Question) normalizeConstraints() error {
	c := q.Constraints
	var n Constraints
	switch q.Type {
	case QuestionSelectOne, QuestionSelectMany, QuestionTargetFile:
		n.OptionTitles = c.OptionTitles
	}
	switch q.Type {
	case QuestionNumber:
		n.Integer, n.Minimum, n.Maximum = c.Integer, c.Minimum, c.Maximum
		for _, b := range []*float64{n.Minimum, n.Maximum} {
			if b != nil && (math.IsNaN(*b) || math.IsInf(*b, 0)) {
				return Errorf(EINVALID, "a NUMBER question's bounds must be numbers")
			}
		}
		if n.Minimum != nil && n.Maximum != nil && *n.Minimum > *n.Maximum {
			return Errorf(EINVALID, "a NUMBER question's minimum %v is above its maximum %v", *n.Minimum, *n.Maximum)
		}
		if n.Integer && n.Minimum != nil && n.Maximum != nil && math.Ceil(*n.Minimum) > math.Floor(*n.Maximum) {
			return Errorf(EINVALID, "no whole number lies between the NUMBER question's minimum %v and maximum %v", *n.Minimum, *n.Maximum)
		}
	case QuestionSelectMany:
		n.MinItems, n.MaxItems = c.MinItems, c.MaxItems
		if n.MaxItems == 0 || n.MaxItems > len(q.Options) {
			n.MaxItems = len(q.Options)
		}
		if n.MinItems < 0 || n.MinItems > n.MaxItems {
			return Errorf(EINVALID, "a SELECT_MANY question's minItems %d is not between 0 and its maxItems %d", c.MinItems, n.MaxItems)
		}
		if n.MaxItems == len(q.Options) {
			n.MaxItems = 0
		}
	case QuestionFreeText:
		n.Format, n.MinLength, n.MaxLength = c.Format, c.MinLength, c.MaxLength
		switch {
		case n.Format != "" && !n.Format.Valid():
			return Errorf(EINVALID, "text format %q is not one of %s", n.Format, joinNames(TextFormats, ", "))
		case n.MinLength < 0 || n.MaxLength < 0:
			return Errorf(EINVALID, "a FREE_TEXT question's lengths cannot be negative")
		case n.MaxLength > 0 && n.MinLength > n.MaxLength:
			return Errorf(EINVALID, "a FREE_TEXT question's minLength %d is above its maxLength %d", n.MinLength, n.MaxLength)
		case n.MinLength > MaxFreeText:
			return Errorf(EINVALID, "a FREE_TEXT question's minLength %d is above the limit of %d bytes", n.MinLength, MaxFreeText)
		}
		if n.MaxLength > MaxFreeText {
			n.MaxLength = 0
		}
	}
	q.Constraints = n
	return nil
}

// NormalizeText is the one normalisation of question text used by the
// repeat guard (docs/protocol.md rule 5): lowercase, trim, strip trailing ?, !
// and ., collapse white space.
func NormalizeText(text string) string {
	return string(appendNormalized(nil, text))
}

// appendNormalized appends NormalizeText(text) to b. It is
// strings.ToLower, strings.Fields joined by one space and
// strings.TrimRight in one pass over text: the repeat guard hashes every
// question asked and answered.
func appendNormalized(b []byte, text string) []byte {
	start, space := len(b), false
	// An invalid byte is utf8.RuneError, written as U+FFFD, as
	// strings.ToLower writes it.
	for _, r := range text {
		r = unicode.ToLower(r)
		if unicode.IsSpace(r) {
			space = len(b) > start
			continue
		}
		if space {
			b, space = append(b, ' '), false
		}
		b = utf8.AppendRune(b, r)
	}
	for len(b) > start && strings.IndexByte("?!. ", b[len(b)-1]) >= 0 {
		b = b[:len(b)-1]
	}
	return b
}

// QuestionHash is the SHA-256 (hex) of the normalised question text.
func QuestionHash(text string) string {
	var buf [256]byte // most questions normalise to fewer bytes
	sum := sha256.Sum256(appendNormalized(buf[:0], text))
	var h [2 * sha256.Size]byte
	hex.Encode(h[:], sum[:])
	return string(h[:])
}

// checkText is the rule for text of the user's own: a FREE_TEXT answer or
// an answer outside the options of an AllowOther question.
func checkText(a string) *Error {
	if len(a) > MaxFreeText {
		return Errorf(EINVALID, "answer is %d bytes; the limit is %d", len(a), MaxFreeText)
	}
	if !HasVisible(a) {
		return Errorf(EINVALID, "answer has no visible character")
	}
	return nil
}

// HasVisible reports whether s has a character that shows as a mark of
// its own: a letter, mark, number, punctuation or symbol, not a space, a
// control or a format character such as a zero-width space. An answer of
// one's own needs one.
func HasVisible(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return unicode.IsGraphic(r) && !unicode.IsSpace(r) })
}

// ValidatePath checks a path a builder will open: a TARGET_FILE answer or
// an entry of a job's files. It must be valid UTF-8 of at most MaxPath
// bytes, without control characters, line separators or bidirectional
// controls (which would make it read differently from what it is), not
// start with "~" (a shell's home directory), use "/" as the separator, and
// be relative and stay inside the project root. It returns the path
// cleaned ("./a/../b" is "b"), or EINVALID with a message naming the
// problem, phrased to follow the path: "%q is ...".
func ValidatePath(p string) (string, error) {
	fail := func(why string) (string, error) {
		return "", Errorf(EINVALID, "%q %s", p, why)
	}
	switch {
	case !utf8.ValidString(p):
		return "", Errorf(EINVALID, "path is not valid UTF-8")
	case strings.TrimSpace(p) == "":
		return fail("is not a path")
	case len(p) > MaxPath:
		return "", Errorf(EINVALID, "path is %d bytes; the limit is %d", len(p), MaxPath)
	case strings.ContainsFunc(p, hiddenRune):
		return fail("contains a control character or line break")
	case strings.HasPrefix(p, "~"):
		return fail("starts with ~; give a path relative to the project root")
	case strings.Contains(p, "\\"):
		return fail("contains a backslash; separate directories with /")
	case path.IsAbs(p):
		return fail("is absolute; give a path relative to the project root")
	}
	c := path.Clean(p)
	if c == ".." || strings.HasPrefix(c, "../") {
		return fail("leaves the project root")
	}
	return c, nil
}

// hiddenRune reports whether r is a character a path must not hold: a
// control character (newlines included), a line or paragraph separator, or
// a bidirectional embedding, override or isolate control.
func hiddenRune(r rune) bool {
	return unicode.IsControl(r) || r == '\u2028' || r == '\u2029' || IsBidiControl(r)
}

// IsBidiControl reports whether r is a bidirectional embedding, override
// or isolate control (U+202A-U+202E, U+2066-U+2069), which reorders the
// text around it when shown: user interfaces show them escaped.
func IsBidiControl(r rune) bool {
	return (r >= '\u202a' && r <= '\u202e') || (r >= '\u2066' && r <= '\u2069')
}

// joinNames joins the values of a string enum with sep.
func joinNames[T ~string](vs []T, sep string) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = string(v)
	}
	return strings.Join(parts, sep)
}
