package askonce

import (
	"errors"
	"fmt"
	"math"
	"net/mail"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/askonce/askonce/internal/lex"
)

// ValidateAnswer is the one check of an answer against its question
// (docs/protocol.md rule 7), made where the answer is given: an answer it
// accepts never fails later for its own sake. It returns the answer
// normalised: each value of the kind its question (or field) takes.
//
//   - CONFIRM takes a boolean, or text that is a yes or a no word.
//   - SELECT_ONE takes an option by its value (OptionValue), or text that
//     is an option's value (exactly; else ignoring case, or as the prefix
//     of one option only, when that names exactly one option); with
//     AllowOther, other visible text of at most MaxFreeText bytes is the
//     person's own answer.
//   - SELECT_MANY takes a list of options, each as SELECT_ONE takes one,
//     none twice, MinItems to MaxItems of them (text: one option a line,
//     or on one line separated by commas).
//   - NUMBER takes a number, or text that is one in JSON's syntax ("3",
//     "2.5"): finite, whole when Integer, within Minimum and Maximum.
//   - TARGET_FILE takes an offered file, the project root, or a path
//     ValidatePath accepts.
//   - FREE_TEXT takes text with a visible character, at most MaxFreeText
//     bytes, of its Format and length bounds.
//
// A value of any other kind (a boolean for text, a list where one value
// is expected and the reverse, a number for a CONFIRM) is refused. A
// wrong answer is EINVALID saying what the question accepts, with the
// allowed values when it offers a fixed set.
//
// A question with fields takes a value per field (Answer.Fields, or text
// of one "name: value" line per field, FieldLinesAnswer): each is checked
// against its field as above, an optional field left out takes its
// default, and the answer returned has every answered field in the
// question's order. A name that is not a field, a field given twice (or
// under two names that differ only in case) and every bad value are
// listed, one FieldError each, in Error.Fields.
func ValidateAnswer(q *Question, a Answer) (Answer, error) {
	if len(q.Fields) > 0 {
		return validateFields(q, a)
	}
	if len(a.Fields) > 0 {
		return Answer{}, invalidAnswer(q, "answer has fields, but the question has none; answer it with one value")
	}
	v, err := checkValue(q, a.Value)
	if err != nil {
		return Answer{}, err
	}
	return AnswerOf(v), nil
}

// checkValue checks v against q (a question without fields, or a
// field's) and returns it of the kind q takes.
func checkValue(q *Question, v Value) (Value, *Error) {
	if v.bad != "" {
		return Value{}, invalidAnswer(q, "answer %s", v.bad)
	}
	switch v.Kind {
	case KindText, KindOption, KindPath:
		if !utf8.ValidString(v.Text) {
			return Value{}, Errorf(EINVALID, "answer is not valid UTF-8")
		}
		v.Text = strings.TrimSpace(v.Text)
		if v.Text == "" {
			return Value{}, invalidAnswer(q, "answer is empty")
		}
	case KindOptions:
		for _, o := range v.Options {
			if !utf8.ValidString(o) {
				return Value{}, Errorf(EINVALID, "answer is not valid UTF-8")
			}
		}
	case KindNumber, KindBool:
	case "":
		return Value{}, invalidAnswer(q, "answer is empty")
	default:
		return Value{}, invalidAnswer(q, "answer is of kind %q, which no question takes", v.Kind)
	}
	switch q.Type {
	case QuestionConfirm:
		switch v.Kind {
		case KindBool:
			return BoolValue(v.Bool), nil
		case KindOption, KindText:
			if v.Kind == KindOption && v.Text != "yes" && v.Text != "no" {
				break
			}
			switch lex.Reply(v.Text) { // the one yes/no vocabulary
			case "yes":
				return BoolValue(true), nil
			case "no":
				return BoolValue(false), nil
			}
			return Value{}, invalidAnswer(q, "answer %q is not yes or no", v.Text)
		}
	case QuestionSelectOne:
		switch v.Kind {
		case KindOption:
			if slices.Contains(q.Options, v.Text) {
				return v, nil
			}
			return Value{}, invalidAnswer(q, "answer %q is not one of the options", v.Text)
		case KindText:
			if o, ok := matchOption(q.Options, v.Text); ok {
				return OptionValue(o), nil
			}
			if !q.AllowOther {
				return Value{}, invalidAnswer(q, "answer %q is not one of the options", v.Text)
			}
			if err := checkText(v.Text); err != nil {
				return Value{}, invalidAnswer(q, "%s", err.Message)
			}
			return v, nil
		}
	case QuestionSelectMany:
		switch v.Kind {
		case KindOptions:
			return checkPicks(q, v.Options)
		case KindText:
			return checkPicks(q, splitPicks(q.Options, v.Text))
		}
	case QuestionNumber:
		switch v.Kind {
		case KindNumber:
			return checkNumber(q, string(v.Number))
		case KindText:
			return checkNumber(q, v.Text)
		}
	case QuestionTargetFile:
		switch v.Kind {
		case KindPath, KindText, KindOption:
			a := v.Text
			if slices.Contains(q.Options, a) {
				return PathValue(a), nil
			}
			if IsRootAnswer(a) {
				// The project root is always a valid answer, stored as
				// "." (docs/protocol.md rule 6).
				return PathValue("."), nil
			}
			p, err := ValidatePath(a)
			if err != nil {
				return Value{}, invalidAnswer(q, "answer %s", ErrorMessage(err))
			}
			return PathValue(p), nil
		}
	default:
		if v.Kind == KindText {
			return checkFreeText(q, v.Text)
		}
	}
	return Value{}, invalidAnswer(q, "answer %s", wrongKind(v))
}

// wrongKind says what v is, for a value of a kind its question does not
// take.
func wrongKind(v Value) string {
	switch v.Kind {
	case KindBool:
		return "is true or false"
	case KindNumber:
		return "is a number"
	case KindOptions:
		return "is a list where one value is expected"
	case KindOption:
		return fmt.Sprintf("is the option %q, but the question offers no options to pick", v.Text)
	case KindPath:
		return "is a path"
	}
	return "is text where a list is expected"
}

// matchOption finds a in options: exactly; else, when it names exactly one
// option that way, ignoring case or as the option's prefix. Options that
// differ only in case are told apart by the exact value alone.
func matchOption(options []string, a string) (string, bool) {
	if slices.Contains(options, a) {
		return a, true
	}
	var fold, prefix []string
	l := strings.ToLower(a)
	for _, o := range options {
		lo := strings.ToLower(o)
		if lo == l {
			fold = append(fold, o)
		}
		if strings.HasPrefix(lo, l) {
			prefix = append(prefix, o)
		}
	}
	switch {
	case len(fold) == 1:
		return fold[0], true
	case len(fold) == 0 && len(prefix) == 1:
		return prefix[0], true
	}
	return "", false
}

// splitPicks reads text answering a SELECT_MANY: an option's value, one
// option per line, or options on one line separated by commas.
func splitPicks(options []string, text string) []string {
	t := strings.TrimSpace(text)
	if slices.Contains(options, t) {
		return []string{t}
	}
	sep := "\n"
	if !strings.Contains(t, "\n") {
		sep = ","
	}
	var picks []string
	for _, p := range strings.Split(t, sep) {
		if p = strings.TrimSpace(p); p != "" {
			picks = append(picks, p)
		}
	}
	return picks
}

// checkPicks checks the picks of a SELECT_MANY and returns them in the
// options' order.
func checkPicks(q *Question, picks []string) (Value, *Error) {
	chosen := map[string]bool{}
	for _, p := range picks {
		o, ok := matchOption(q.Options, strings.TrimSpace(p))
		if !ok {
			return Value{}, invalidAnswer(q, "answer %q is not one of the options", p)
		}
		if chosen[o] {
			return Value{}, invalidAnswer(q, "answer picks %q twice", o)
		}
		chosen[o] = true
	}
	n := len(chosen)
	maxItems := q.MaxItems
	if maxItems == 0 {
		maxItems = len(q.Options)
	}
	switch {
	case n == 0:
		return Value{}, invalidAnswer(q, "answer picks nothing")
	case n < q.MinItems || n > maxItems:
		return Value{}, invalidAnswer(q, "answer picks %d", n)
	}
	out := make([]string, 0, n)
	for _, o := range q.Options {
		if chosen[o] {
			out = append(out, o)
		}
	}
	return OptionsValue(out...), nil
}

// checkNumber reads s, a number in JSON's syntax, against q's bounds.
func checkNumber(q *Question, s string) (Value, *Error) {
	s = strings.TrimSpace(s)
	if !validNumber(s) {
		return Value{}, invalidAnswer(q, "answer %q is not a number", clip(s, 40))
	}
	var v Value
	var f float64
	if q.Integer {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			if errors.Is(err, strconv.ErrRange) {
				return Value{}, invalidAnswer(q, "answer %s is past the largest whole number", clip(s, 40))
			}
			x, err := strconv.ParseFloat(s, 64)
			switch {
			case err != nil || math.Abs(x) >= 1<<63:
				return Value{}, invalidAnswer(q, "answer %s is past the largest whole number", clip(s, 40))
			case x != math.Trunc(x):
				return Value{}, invalidAnswer(q, "answer %s is not a whole number", clip(s, 40))
			}
			n = int64(x)
		}
		v, f = IntValue(n), float64(n)
	} else {
		x, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsInf(x, 0) {
			return Value{}, invalidAnswer(q, "answer %s is past the largest number", clip(s, 40))
		}
		v, f = Value{Kind: KindNumber, Number: formatFloat(x)}, x
	}
	if (q.Minimum != nil && f < *q.Minimum) || (q.Maximum != nil && f > *q.Maximum) {
		return Value{}, invalidAnswer(q, "answer %s is out of range", v.Number)
	}
	return v, nil
}

// checkFreeText checks a FREE_TEXT answer a (trimmed).
func checkFreeText(q *Question, a string) (Value, *Error) {
	if err := checkText(a); err != nil {
		return Value{}, invalidAnswer(q, "%s", err.Message)
	}
	n := utf8.RuneCountInString(a)
	if n < q.MinLength || (q.MaxLength > 0 && n > q.MaxLength) {
		return Value{}, invalidAnswer(q, "answer is %d characters", n)
	}
	if !formatOK(q.Format, a) {
		return Value{}, invalidAnswer(q, "answer %q is not %s", clip(a, 80), formatName(q.Format))
	}
	return TextValue(a), nil
}

// formatOK reports whether a is text of format f.
func formatOK(f TextFormat, a string) bool {
	switch f {
	case FormatEmail:
		addr, err := mail.ParseAddress(a)
		return err == nil && addr.Name == "" && addr.Address == a
	case FormatURI:
		u, err := url.Parse(a)
		return err == nil && u.Scheme != "" && (u.Host != "" || u.Opaque != "") && !strings.ContainsAny(a, " \t\n")
	case FormatDate:
		_, err := time.Parse(time.DateOnly, a)
		return err == nil
	case FormatDateTime:
		_, err := time.Parse(time.RFC3339, a)
		return err == nil
	}
	return true
}

func formatName(f TextFormat) string {
	switch f {
	case FormatEmail:
		return "an email address (name@example.com)"
	case FormatURI:
		return "an absolute URI (https://example.com/...)"
	case FormatDate:
		return "a date (YYYY-MM-DD)"
	case FormatDateTime:
		return "a date and time (RFC 3339, such as 2026-11-28T09:30:00Z)"
	}
	return "text"
}

// Accepts says in words what an answer to q (a question without fields,
// or a field's) may be: what an error about it lists.
func (q *Question) Accepts() string {
	switch q.Type {
	case QuestionConfirm:
		return "yes or no"
	case QuestionSelectOne:
		s := "one of: " + strings.Join(q.Options, ", ")
		if q.AllowOther {
			s += fmt.Sprintf(", or other text of your own (at most %d bytes)", MaxFreeText)
		}
		return s
	case QuestionSelectMany:
		maxItems := q.MaxItems
		if maxItems == 0 {
			maxItems = len(q.Options)
		}
		minItems := max(q.MinItems, 1)
		n := fmt.Sprintf("%d to %d", minItems, maxItems)
		if minItems == maxItems {
			n = strconv.Itoa(minItems)
		}
		return n + " different of: " + strings.Join(q.Options, ", ")
	case QuestionTargetFile:
		if len(q.Options) == 0 {
			return "a relative path inside the project"
		}
		return "one of: " + strings.Join(q.Options, ", ") + ", or a relative path inside the project"
	case QuestionNumber:
		s := "a number"
		if q.Integer {
			s = "a whole number"
		}
		switch {
		case q.Minimum != nil && q.Maximum != nil:
			s += fmt.Sprintf(" from %v to %v", *q.Minimum, *q.Maximum)
		case q.Minimum != nil:
			s += fmt.Sprintf(" of at least %v", *q.Minimum)
		case q.Maximum != nil:
			s += fmt.Sprintf(" of at most %v", *q.Maximum)
		}
		return s
	}
	s := formatName(q.Format)
	switch {
	case q.MinLength > 0 && q.MaxLength > 0:
		s += fmt.Sprintf(" of %d to %d characters", q.MinLength, q.MaxLength)
	case q.MinLength > 0:
		s += fmt.Sprintf(" of at least %d characters", q.MinLength)
	case q.MaxLength > 0:
		s += fmt.Sprintf(" of at most %d characters", q.MaxLength)
	default:
		s += fmt.Sprintf(" with a visible character, at most %d bytes", MaxFreeText)
	}
	return s
}

// invalidAnswer is the EINVALID of a bad answer to q: the message, then
// what q accepts; Allowed holds q's options when it offers a fixed set.
func invalidAnswer(q *Question, format string, args ...any) *Error {
	e := Errorf(EINVALID, format, args...)
	switch q.Type {
	case QuestionSelectOne, QuestionTargetFile, QuestionConfirm:
		if len(q.Options) == 0 {
			break
		}
		e.Allowed = slices.Clone(q.Options)
		e.Message += "; allowed: " + strings.Join(q.Options, ", ")
		switch {
		case q.Type == QuestionTargetFile:
			e.Message += ", or a relative path inside the project"
		case q.AllowOther:
			e.Message += fmt.Sprintf(", or other text of your own (at most %d bytes)", MaxFreeText)
		}
	case QuestionSelectMany:
		e.Allowed = slices.Clone(q.Options)
		e.Message += "; allowed: " + q.Accepts()
	case QuestionNumber:
		e.Message += "; allowed: " + q.Accepts()
	case QuestionFreeText:
		if q.Format != "" || q.MinLength > 0 || q.MaxLength > 0 {
			e.Message += "; allowed: " + q.Accepts()
		}
	}
	return e
}

// clip cuts s to at most n bytes, at a rune boundary, marking a cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
