package askonce

import (
	"crypto/sha256"
	"encoding/hex"
	"path"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/askonce/askonce/internal/lex"
)

// QuestionType says what kind of answer a question takes and so which picker
// a user interface shows (seed 002).
type QuestionType string

const (
	QuestionConfirm    QuestionType = "CONFIRM"     // yes / no
	QuestionSelectOne  QuestionType = "SELECT_ONE"  // one of Options
	QuestionTargetFile QuestionType = "TARGET_FILE" // a file of Options, or a path inside the project
	QuestionFreeText   QuestionType = "FREE_TEXT"   // non-empty text of at most MaxFreeText bytes
)

// Valid reports whether t is one of the four question types.
func (t QuestionType) Valid() bool {
	switch t {
	case QuestionConfirm, QuestionSelectOne, QuestionTargetFile, QuestionFreeText:
		return true
	}
	return false
}

// MaxFreeText is the largest FREE_TEXT answer, in bytes.
const MaxFreeText = 4 << 10

// TypeForReason maps a clarification reason to its question type
// (PROTOCOL.md rule 7). Unknown reasons take FREE_TEXT.
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
type Question struct {
	Type    QuestionType `json:"type"`
	Text    string       `json:"text"`
	Options []string     `json:"options,omitempty"`
	// AllowOther lets a SELECT_ONE question take an answer outside
	// Options: any visible text of at most MaxFreeText bytes, which the
	// interpreter then weighs (PROTOCOL.md rule 7). CONFIRM and
	// TARGET_FILE questions never allow other answers.
	AllowOther bool   `json:"allowOther,omitempty"`
	Reason     string `json:"reason,omitempty"`
	// Default is the safe answer applied on timeout or decline, if any.
	Default   string     `json:"default,omitempty"`
	ExpiresAt *time.Time `json:"expiresAt,omitempty"`
	// Cosmetic marks a question about appearance only, which a gating
	// policy may decline to ask (PROTOCOL.md rule 8).
	Cosmetic bool `json:"cosmetic,omitempty"`
}

// Clone returns a deep copy of q.
func (q Question) Clone() Question {
	q.Options = slices.Clone(q.Options)
	if q.ExpiresAt != nil {
		t := *q.ExpiresAt
		q.ExpiresAt = &t
	}
	return q
}

// Normalize fills a missing type from the reason and trims the text. It
// returns EINVALID for a question that cannot be shown.
func (q *Question) Normalize() error {
	q.Text = strings.TrimSpace(q.Text)
	if q.Type == "" {
		q.Type = TypeForReason(q.Reason)
	}
	switch {
	case q.Text == "":
		return Errorf(EINVALID, "question has no text")
	case !q.Type.Valid():
		return Errorf(EINVALID, "question type %q is not one of CONFIRM, SELECT_ONE, TARGET_FILE, FREE_TEXT", q.Type)
	case q.Type == QuestionSelectOne && len(q.Options) < 2:
		return Errorf(EINVALID, "a SELECT_ONE question needs at least two options")
	case q.Type == QuestionConfirm:
		q.Options = []string{"yes", "no"}
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
// repeat guard (PROTOCOL.md rule 5): lowercase, trim, strip trailing ?, !
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
// (case-insensitive, or a unique prefix); TARGET_FILE must be an offered
// file or a relative path that stays inside the project root; FREE_TEXT is
// non-empty and at most MaxFreeText bytes. A wrong answer is EINVALID with
// the allowed values.
func ValidateAnswer(q *Question, answer string) (string, error) {
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
		return "", invalidAnswer(q, "answer %q is not one of the options", a)
	case QuestionTargetFile:
		for _, o := range q.Options {
			if o == a {
				return o, nil
			}
		}
		p, ok := insideRoot(a)
		if !ok {
			return "", invalidAnswer(q, "answer %q is not an offered file or a relative path inside the project", a)
		}
		return p, nil
	default:
		if len(a) > MaxFreeText {
			return "", Errorf(EINVALID, "answer is %d bytes; the limit is %d", len(a), MaxFreeText)
		}
		return a, nil
	}
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

// insideRoot cleans a relative path and reports whether it stays inside the
// project root.
func insideRoot(p string) (string, bool) {
	if strings.ContainsRune(p, 0) || strings.Contains(p, "\\") {
		return "", false
	}
	if path.IsAbs(p) {
		return "", false
	}
	c := path.Clean(p)
	if c == ".." || strings.HasPrefix(c, "../") {
		return "", false
	}
	return c, true
}

func invalidAnswer(q *Question, format string, args ...any) *Error {
	e := Errorf(EINVALID, format, args...)
	if len(q.Options) > 0 {
		e.Allowed = slices.Clone(q.Options)
		e.Message += "; allowed: " + strings.Join(q.Options, ", ")
		if q.Type == QuestionTargetFile {
			e.Message += ", or a relative path inside the project"
		}
	}
	return e
}
