package askonce

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/askonce/askonce/internal/lex"
)

// QuestionType says what kind of answer a question takes and so which picker
// a user interface shows (docs/protocol.md rule 7).
type QuestionType string

const (
	QuestionConfirm    QuestionType = "CONFIRM"     // yes / no
	QuestionSelectOne  QuestionType = "SELECT_ONE"  // one of Options
	QuestionTargetFile QuestionType = "TARGET_FILE" // a file of Options, or a path inside the project
	QuestionFreeText   QuestionType = "FREE_TEXT"   // visible text of at most MaxFreeText bytes
)

// QuestionTypes lists the four question types. It is the one list behind
// Valid, the API's enum and its error messages; do not modify it.
var QuestionTypes = []QuestionType{QuestionConfirm, QuestionSelectOne, QuestionTargetFile, QuestionFreeText}

// Valid reports whether t is one of the four question types.
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
// fields cannot be shown: its Type is FREE_TEXT, its Text lists every
// field, and an answer is one string, either a JSON object of field values
// ({"environment": "staging", "replicas": "3"}) or one "name: value" line
// per field. Every channel passes that string to Engine.Answer unchanged;
// ValidateAnswer (the one validation) checks each field and stores the
// answer as the JSON object of every field's value, defaults filled
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
	// Default is the safe answer applied on timeout or decline, if any.
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
	Values map[string]string `json:"values"`
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
	Type       QuestionType `json:"type,omitempty"`
	Text       string       `json:"text,omitempty"`
	Options    []string     `json:"options,omitempty"`
	Default    string       `json:"default,omitempty"`
	AllowOther bool         `json:"allowOther,omitempty"`
	Required   bool         `json:"required,omitempty"`
}

// question returns f as a plain question, which its value is validated
// against.
func (f *QuestionField) question() Question {
	return Question{Type: f.Type, Text: f.Text, Options: f.Options, AllowOther: f.AllowOther, Default: f.Default}
}

// FieldError is what is wrong with one field of an answer: its Name, the
// Message and, when the field offers a fixed set, the Allowed values.
type FieldError struct {
	Name    string   `json:"name"`
	Message string   `json:"message"`
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
	if q.Fields != nil {
		q.Fields = slices.Clone(q.Fields)
		for i := range q.Fields {
			q.Fields[i].Options = slices.Clone(q.Fields[i].Options)
		}
	}
	if q.ExpiresAt != nil {
		t := *q.ExpiresAt
		q.ExpiresAt = &t
	}
	if f := q.Filled; f != nil {
		q.Filled = &FilledFields{Fields: slices.Clone(f.Fields), Values: maps.Clone(f.Values)}
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
	case q.Type == QuestionSelectOne && len(q.Options) < 2:
		return Errorf(EINVALID, "a SELECT_ONE question needs at least two options")
	case q.Type == QuestionConfirm:
		q.Options = []string{"yes", "no"}
	case q.Type == QuestionTargetFile:
		q.Options = slices.DeleteFunc(slices.Clone(q.Options), func(o string) bool {
			_, err := ValidatePath(o)
			return err != nil
		})
	}
	if q.Type != QuestionSelectOne {
		q.AllowOther = false
	}
	if q.Default != "" {
		d, err := ValidateAnswer(q, q.Default)
		if err != nil {
			// An unusable default is dropped rather than applied later.
			q.Default = ""
		} else {
			q.Default = d
		}
	}
	return nil
}

// NormalizeText is the one normalisation of question text used by the
// repeat guard (docs/protocol.md rule 5): lowercase, trim, strip trailing ?, !
// and ., collapse white space.
func NormalizeText(text string) string {
	s := strings.Join(strings.Fields(strings.ToLower(text)), " ")
	return strings.TrimRight(s, "?!. ")
}

// QuestionHash is the SHA-256 (hex) of the normalised question text.
func QuestionHash(text string) string {
	sum := sha256.Sum256([]byte(NormalizeText(text)))
	return hex.EncodeToString(sum[:])
}

// ValidateAnswer checks answer against q's type and returns it normalised:
// CONFIRM becomes "yes" or "no"; SELECT_ONE becomes the option it names
// (case-insensitive, or a unique prefix), or, when q.AllowOther, any other
// visible text of at most MaxFreeText bytes is the user's own answer;
// TARGET_FILE must be an offered file or a path ValidatePath accepts;
// FREE_TEXT has a visible character and at most MaxFreeText bytes. A wrong
// answer is EINVALID with the allowed values (docs/protocol.md rule 7).
//
// A question with fields takes one answer for all of them (see Question):
// each field's value is validated as above, and an error lists every bad
// field in Error.Fields.
func ValidateAnswer(q *Question, answer string) (string, error) {
	if len(q.Fields) > 0 {
		return validateFields(q, answer)
	}
	a := strings.TrimSpace(answer)
	if !utf8.ValidString(a) {
		return "", Errorf(EINVALID, "answer is not valid UTF-8")
	}
	if a == "" {
		return "", invalidAnswer(q, "answer is empty")
	}
	switch q.Type {
	case QuestionConfirm:
		if r := lex.Reply(a); r != "" { // the one yes/no vocabulary
			return r, nil
		}
		return "", invalidAnswer(q, "answer %q is not yes or no", a)
	case QuestionSelectOne:
		if o, ok := matchOption(q.Options, a); ok {
			return o, nil
		}
		if !q.AllowOther {
			return "", invalidAnswer(q, "answer %q is not one of the options", a)
		}
		if err := checkText(a); err != nil {
			return "", invalidAnswer(q, "%s", err.Message)
		}
		return a, nil
	case QuestionTargetFile:
		if slices.Contains(q.Options, a) {
			return a, nil
		}
		if IsRootAnswer(a) {
			// The project root is always a valid answer, stored as "."
			// (docs/protocol.md rule 6).
			return ".", nil
		}
		p, err := ValidatePath(a)
		if err != nil {
			return "", invalidAnswer(q, "answer %s", ErrorMessage(err))
		}
		return p, nil
	default:
		if err := checkText(a); err != nil {
			return "", err
		}
		return a, nil
	}
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

// matchOption finds a in options: exactly (ignoring case), or as the prefix
// of exactly one option.
func matchOption(options []string, a string) (string, bool) {
	l := strings.ToLower(a)
	for _, o := range options {
		if strings.ToLower(o) == l {
			return o, true
		}
	}
	var found []string
	for _, o := range options {
		if strings.HasPrefix(strings.ToLower(o), l) {
			found = append(found, o)
		}
	}
	if len(found) == 1 {
		return found[0], true
	}
	return "", false
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

func invalidAnswer(q *Question, format string, args ...any) *Error {
	e := Errorf(EINVALID, format, args...)
	if len(q.Options) > 0 {
		e.Allowed = slices.Clone(q.Options)
		e.Message += "; allowed: " + strings.Join(q.Options, ", ")
		switch {
		case q.Type == QuestionTargetFile:
			e.Message += ", or a relative path inside the project"
		case q.AllowOther:
			e.Message += fmt.Sprintf(", or other text of your own (at most %d bytes)", MaxFreeText)
		}
	}
	return e
}

// joinNames joins the values of a string enum with sep.
func joinNames[T ~string](vs []T, sep string) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = string(v)
	}
	return strings.Join(parts, sep)
}
