package terminal

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/client"
	"github.com/askonce/askonce/internal/cli"
	"github.com/charmbracelet/huh"
)

// This file maps what a person does in the terminal to the domain's typed
// answer (askonce.Answer), which is sent as the API's typed JSON: a huh
// field per type (a select of the options by their titles, a multi-select
// for SELECT_MANY, yes/no for CONFIRM, an input checked as the server
// checks a NUMBER or a formatted text), and a typed line (a number picks
// that option; a number that is no option is refused and asked again,
// never taken as text). A question with fields is one huh form with a
// group per field, answered at once with a typed value per field.

// questionOf is j's pending question as the domain's, which the pickers
// show and check against before the server checks it once more.
func questionOf(j *client.JobView) askonce.Question {
	q := askonce.Question{Type: j.ClarificationType, Text: j.ClarificationQuestion, Options: j.ClarificationOptions,
		AllowOther: j.ClarificationAllowOther, Default: j.ClarificationDefault, Fields: j.ClarificationFields}
	if c := j.ClarificationConstraints; c != nil {
		q.Constraints = *c
	}
	return q
}

// wireAnswer is a as the API takes it.
func wireAnswer(a askonce.Answer) client.Answer { return client.Answer(a.JSON()) }

// checkText checks s as the answer of q (a question without fields, or
// a field's), as the server will: the message under the input, or nil.
func checkText(q *askonce.Question, s string) (askonce.Value, error) {
	a, err := askonce.ValidateAnswer(q, askonce.TextAnswer(s))
	if err != nil {
		return askonce.Value{}, errors.New(askonce.ErrorMessage(err))
	}
	return a.Value, nil
}

// fieldValue is what the form holds for one field: the option chosen,
// the options chosen, text of one's own (or a path, or a number), or yes.
type fieldValue struct {
	choice, own string
	many        []string
	yes         bool
}

// leaveOut is the value of the choice that leaves an optional field out.
const leaveOut = ""

// fieldsPicker asks j's question with fields; accessible runs huh's
// line-by-line mode (screen readers, and tests).
func fieldsPicker(ctx context.Context, j *client.JobView, in io.Reader, out io.Writer, accessible bool) (askonce.Answer, error) {
	fields := j.ClarificationFields
	q := askonce.Question{Text: j.ClarificationQuestion, Fields: fields}
	heading := cli.CleanText(q.Intro())
	values := make([]fieldValue, len(fields))
	groups := make([]*huh.Group, 0, len(fields))
	for i, f := range fields {
		desc := fmt.Sprintf("%d of %d · %s · job %s", i+1, len(fields), f.Name, j.JobID)
		if !f.Required {
			desc += " · optional"
		}
		groups = append(groups, huh.NewGroup(fieldInputs(f, &values[i])...).Title(heading).Description(desc))
	}
	form := huh.NewForm(groups...).WithInput(in).WithOutput(cli.Raw(out)).WithShowHelp(true).WithAccessible(accessible)
	err := form.RunWithContext(ctx)
	if errors.Is(err, huh.ErrUserAborted) || errors.Is(err, context.Canceled) {
		return askonce.Answer{}, errAborted
	}
	if err != nil {
		return askonce.Answer{}, err
	}
	return fieldsAnswer(fields, values), nil
}

// fieldInputs are the inputs of one field: yes/no for CONFIRM; a select
// of the options by their titles (with "leave out" for an optional field
// without a default), followed by a text input for an answer of one's
// own or another path; a multi-select for SELECT_MANY; an input checked
// as the server checks the field otherwise (a number, a date, ...).
func fieldInputs(f askonce.QuestionField, v *fieldValue) []huh.Field {
	title := cli.CleanText(f.Text)
	fq := f.AsQuestion()
	def, _ := defaultValue(&fq)
	switch f.Type {
	case askonce.QuestionConfirm:
		v.yes = def.Kind == askonce.KindBool && def.Bool
		return []huh.Field{escLeaves{huh.NewConfirm().Title(title).Affirmative("Yes").Negative("No").Value(&v.yes)}}
	case askonce.QuestionSelectMany:
		v.many = def.Options
		return []huh.Field{escLeaves{manySelect(&fq, !f.Required || f.Default != "").Title(title).Value(&v.many)}}
	}
	var out []huh.Field
	target := f.Type == askonce.QuestionTargetFile
	if len(f.Options) > 0 && (f.Type == askonce.QuestionSelectOne || target) {
		var opts []huh.Option[string]
		if !f.Required && f.Default == "" {
			opts = append(opts, huh.NewOption("(leave out)", leaveOut))
		}
		for k, o := range f.Options {
			opts = append(opts, huh.NewOption(cli.CleanText(f.OptionTitle(k)), o))
		}
		v.choice = def.Text
		out = append(out, escLeaves{huh.NewSelect[string]().Title(title).Options(opts...).Value(&v.choice).
			Validate(func(s string) error {
				if s == leaveOut && f.Required && f.Default == "" && !f.AllowOther && !target {
					return errors.New("pick one")
				}
				return nil
			})})
		if !f.AllowOther && !target {
			return out
		}
		title = "Or your own answer (empty: the choice above)"
		if target {
			title = "Or another path inside the project (empty: the file above)"
		}
		fq = askonce.Question{Type: askonce.QuestionFreeText}
		if target {
			fq = askonce.Question{Type: askonce.QuestionTargetFile}
		}
	}
	required := f.Required && f.Default == "" && len(out) == 0
	in := huh.NewInput().Title(title).CharLimit(askonce.MaxFreeText).Value(&v.own).Placeholder(cli.CleanText(f.Default)).
		Validate(func(s string) error {
			if strings.TrimSpace(s) == "" {
				if required {
					return errors.New("type an answer")
				}
				return nil
			}
			_, err := checkText(&fq, s)
			return err
		})
	return append(out, escLeaves{in})
}

// manySelect is the multi-select of q's options by their titles, with
// q's bounds on how many; optional lets none be picked.
func manySelect(q *askonce.Question, optional bool) *huh.MultiSelect[string] {
	opts := make([]huh.Option[string], len(q.Options))
	for k, o := range q.Options {
		opts[k] = huh.NewOption(cli.CleanText(q.OptionTitle(k)), o)
	}
	sel := huh.NewMultiSelect[string]().Options(opts...).
		Validate(func(picks []string) error {
			if len(picks) == 0 && optional {
				return nil
			}
			if n := max(q.MinItems, 1); len(picks) < n {
				return fmt.Errorf("pick at least %d", n)
			}
			return nil
		})
	if q.MaxItems > 0 {
		sel.Limit(q.MaxItems)
	}
	return sel
}

// defaultValue is q's default as a typed value, if it has one.
func defaultValue(q *askonce.Question) (askonce.Value, bool) {
	if q.Default == "" {
		return askonce.Value{}, false
	}
	v, err := checkText(q, q.Default)
	return v, err == nil
}

// fieldsAnswer is the typed answer of the form's values: text of one's
// own over a choice; an empty value is left out, so that the field's
// default applies.
func fieldsAnswer(fields []askonce.QuestionField, values []fieldValue) askonce.Answer {
	var answer []askonce.FieldValue
	for i, f := range fields {
		v := values[i]
		var val askonce.Value
		switch {
		case f.Type == askonce.QuestionConfirm:
			val = askonce.BoolValue(v.yes)
		case f.Type == askonce.QuestionSelectMany:
			if len(v.many) > 0 {
				val = askonce.OptionsValue(inOrder(f.Options, v.many)...)
			}
		case strings.TrimSpace(v.own) != "":
			fq := f.AsQuestion()
			if len(f.Options) > 0 && f.Type != askonce.QuestionNumber {
				val = askonce.TextValue(v.own) // one's own, or a path
			} else if typed, err := checkText(&fq, v.own); err == nil {
				val = typed
			} else {
				val = askonce.TextValue(v.own)
			}
		case v.choice != leaveOut && f.Type == askonce.QuestionTargetFile:
			val = askonce.PathValue(v.choice)
		case v.choice != leaveOut:
			val = askonce.OptionValue(v.choice)
		}
		if !val.IsZero() {
			answer = append(answer, askonce.FieldValue{Name: f.Name, Value: val})
		}
	}
	return askonce.FieldsAnswer(answer...)
}

// inOrder is picks in the order of options.
func inOrder(options, picks []string) []string {
	out := make([]string, 0, len(picks))
	for _, o := range options {
		if slices.Contains(picks, o) {
			out = append(out, o)
		}
	}
	return out
}

// lineAnswer reads a typed line as the answer to q, whose listed choices
// are opts (its options, yes and no, or the offered files): the choice's
// text exactly, or its number, is that choice, by identity; numbers
// separated by commas pick several for SELECT_MANY. A number that is no
// choice is an error (asked again where a person types), never text of
// one's own. A question with fields takes "name: value" pairs separated
// by ";" (askonce.FieldLinesAnswer). Anything else is text, which the
// server reads against the question.
func lineAnswer(line string, q *askonce.Question, opts []string) (askonce.Answer, error) {
	line = strings.TrimSpace(line)
	if len(q.Fields) > 0 {
		return askonce.FieldLinesAnswer(q, strings.ReplaceAll(line, ";", "\n"))
	}
	if len(opts) == 0 {
		return askonce.TextAnswer(line), nil
	}
	choice := func(o string) askonce.Value {
		switch q.Type {
		case askonce.QuestionTargetFile:
			return askonce.PathValue(o)
		case askonce.QuestionSelectMany:
			return askonce.OptionsValue(o)
		case askonce.QuestionConfirm:
			return askonce.TextValue(o)
		}
		return askonce.OptionValue(o)
	}
	if slices.Contains(opts, line) {
		return askonce.AnswerOf(choice(line)), nil
	}
	nums := []string{line}
	if q.Type == askonce.QuestionSelectMany {
		nums = strings.FieldsFunc(line, func(r rune) bool { return r == ',' || r == ' ' })
	}
	var picks []string
	for _, s := range nums {
		n, err := strconv.Atoi(s)
		if err != nil {
			return askonce.TextAnswer(line), nil // text: the server reads it
		}
		if n < 1 || n > len(opts) {
			return askonce.Answer{}, fmt.Errorf("%d is not one of the choices: pick 1 to %d", n, len(opts))
		}
		picks = append(picks, opts[n-1])
	}
	if q.Type == askonce.QuestionSelectMany {
		return askonce.AnswerOf(askonce.OptionsValue(picks...)), nil
	}
	return askonce.AnswerOf(choice(picks[0])), nil
}
