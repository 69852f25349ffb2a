package slack

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/askonce/askonce"
	slackapi "github.com/slack-go/slack"
)

// The modal's inputs, one per question (or per field of a question with
// fields), each Block Kit's element for the answer's type, and the typed
// value read back from each: a select of the options (by index, so that
// options differing only in case stay distinct; Slack caps a value at 150
// characters), yes and no for CONFIRM, a multi-select for SELECT_MANY
// (max_selected_items), a number input (min, max, decimals unless
// Integer), a date or date-and-time picker, an email or URL input, or a
// text input. An allowOther SELECT_ONE or a TARGET_FILE with files has a
// text input beside its select for an answer of one's own or another
// path. The engine checks the answer once; a bad field's error shows
// under its input (response_action: errors).

// fieldBlock is the block id of field i's input; fieldOtherBlock that of
// its text of one's own.
func fieldBlock(i int) string      { return "field_" + strconv.Itoa(i) }
func fieldOtherBlock(i int) string { return "field_" + strconv.Itoa(i) + "_other" }

// choices are the options q's select offers: yes and no for CONFIRM, at
// most maxSelectOptions.
func choices(q *askonce.Question) []string {
	if q.Type == askonce.QuestionConfirm {
		return []string{"yes", "no"}
	}
	if len(q.Options) > maxSelectOptions {
		return q.Options[:maxSelectOptions]
	}
	return q.Options
}

// choiceTitle is the text of choice i of q.
func choiceTitle(q *askonce.Question, i int) string {
	if q.Type == askonce.QuestionConfirm {
		return []string{"Yes", "No"}[i]
	}
	return q.OptionTitle(i)
}

// hasOther reports whether q's input has a text input beside its select.
func hasOther(q *askonce.Question) bool {
	return (q.Type == askonce.QuestionSelectOne && q.AllowOther) || (q.Type == askonce.QuestionTargetFile && len(choices(q)) > 0)
}

// defaultValue is q's default as the value its input starts with.
func defaultValue(q *askonce.Question) (askonce.Value, bool) {
	if q.Default == "" {
		return askonce.Value{}, false
	}
	d := *q
	d.Fields = nil
	a, ok := d.DefaultAnswer()
	return a.Value, ok
}

// input is the element that takes the answer to q.
func input(q *askonce.Question) slackapi.BlockElement {
	def, hasDef := defaultValue(q)
	opts := choices(q)
	objs := make([]*slackapi.OptionBlockObject, len(opts))
	for k := range opts {
		objs[k] = slackapi.NewOptionBlockObject(optionValue(k), plain(choiceTitle(q, k), 75), nil)
	}
	switch {
	case q.Type == askonce.QuestionSelectMany:
		sel := slackapi.NewOptionsMultiSelectBlockElement(slackapi.MultiOptTypeStatic, plain("Choose…", 75), inputAction, objs...)
		if q.MaxItems > 0 {
			n := q.MaxItems
			sel.MaxSelectedItems = &n
		}
		if hasDef {
			for k, o := range opts {
				for _, d := range def.Options {
					if o == d {
						sel.InitialOptions = append(sel.InitialOptions, objs[k])
					}
				}
			}
		}
		return sel
	case len(opts) > 0:
		sel := slackapi.NewOptionsSelectBlockElement(slackapi.OptTypeStatic, plain("Choose…", 75), inputAction, objs...)
		if hasDef {
			for k, o := range opts {
				if (def.Kind == askonce.KindBool && (k == 0) == def.Bool) || (def.Kind != askonce.KindBool && o == def.Text) {
					sel.InitialOption = objs[k]
				}
			}
		}
		return sel
	}
	// A typed input shows the default as its placeholder: left empty,
	// the default applies.
	hint := func(s string) *slackapi.TextBlockObject {
		if hasDef {
			s = "Default: " + def.String()
		}
		return plain(clip(s, 150), 150)
	}
	switch {
	case q.Type == askonce.QuestionNumber:
		in := slackapi.NewNumberInputBlockElement(hint("A number"), inputAction, !q.Integer)
		if q.Minimum != nil {
			in.MinValue = strconv.FormatFloat(*q.Minimum, 'f', -1, 64)
		}
		if q.Maximum != nil {
			in.MaxValue = strconv.FormatFloat(*q.Maximum, 'f', -1, 64)
		}
		return in
	case q.Type == askonce.QuestionFreeText && q.Format == askonce.FormatDate:
		in := slackapi.NewDatePickerBlockElement(inputAction)
		in.Placeholder = hint("Pick a date")
		return in
	case q.Type == askonce.QuestionFreeText && q.Format == askonce.FormatDateTime:
		return slackapi.NewDateTimePickerBlockElement(inputAction)
	case q.Type == askonce.QuestionFreeText && q.Format == askonce.FormatEmail:
		return slackapi.NewEmailTextInputBlockElement(hint("name@example.com"), inputAction)
	case q.Type == askonce.QuestionFreeText && q.Format == askonce.FormatURI:
		return slackapi.NewURLTextInputBlockElement(hint("https://…"), inputAction)
	}
	in := slackapi.NewPlainTextInputBlockElement(hint("Type the answer"), inputAction)
	in.Multiline = q.Type == askonce.QuestionFreeText
	in.MaxLength = askonce.MaxFreeText
	if q.Type == askonce.QuestionFreeText && q.MaxLength > 0 {
		in.MaxLength = q.MaxLength
	}
	if q.Type == askonce.QuestionFreeText && q.MinLength > 0 {
		in.MinLength = q.MinLength
	}
	return in
}

// otherInput is the text input beside q's select.
func otherInput(q *askonce.Question) (label string, el slackapi.BlockElement) {
	label = "Or your own answer"
	if q.Type == askonce.QuestionTargetFile {
		label = "Or another path inside the project"
	}
	in := slackapi.NewPlainTextInputBlockElement(plain("Leave empty to use the choice", 150), inputAction)
	in.MaxLength = askonce.MaxFreeText
	return label, in
}

// errNotAnOption is a submitted choice that is not one of the options.
var errNotAnOption = errors.New("choose one of the options")

// inputValue reads what the person did with q's input as a typed value:
// the option picked (by its index), the options picked, the number, the
// date, the text; the zero Value when they left it empty. The text of
// one's own, when given, wins over a choice.
func inputValue(q *askonce.Question, in, other slackapi.BlockAction) (askonce.Value, error) {
	if strings.TrimSpace(other.Value) != "" {
		return askonce.TextValue(other.Value), nil
	}
	opts := choices(q)
	pick := func(v string) (int, error) {
		k, ok := optionIndex(v, len(opts))
		if !ok {
			return 0, errNotAnOption
		}
		return k, nil
	}
	switch {
	case len(in.SelectedOptions) > 0:
		picks := make([]string, 0, len(in.SelectedOptions))
		for _, o := range in.SelectedOptions {
			k, err := pick(o.Value)
			if err != nil {
				return askonce.Value{}, err
			}
			picks = append(picks, opts[k])
		}
		return askonce.OptionsValue(picks...), nil
	case in.SelectedOption.Value != "":
		k, err := pick(in.SelectedOption.Value)
		if err != nil {
			return askonce.Value{}, err
		}
		switch q.Type {
		case askonce.QuestionConfirm:
			return askonce.BoolValue(k == 0), nil
		case askonce.QuestionTargetFile:
			return askonce.PathValue(opts[k]), nil
		}
		return askonce.OptionValue(opts[k]), nil
	case in.SelectedDate != "":
		return askonce.TextValue(in.SelectedDate), nil
	case in.SelectedDateTime != 0:
		return askonce.TextValue(time.Unix(in.SelectedDateTime, 0).UTC().Format(time.RFC3339)), nil
	case strings.TrimSpace(in.Value) == "":
		return askonce.Value{}, nil
	case q.Type == askonce.QuestionNumber && in.Type == "number_input":
		return askonce.NumberValue(json.Number(strings.TrimSpace(in.Value))), nil
	}
	return askonce.TextValue(in.Value), nil
}

// fieldsBlocks are the inputs of a question with fields.
func fieldsBlocks(q *askonce.Question) []slackapi.Block {
	blocks := []slackapi.Block{slackapi.NewSectionBlock(plain(q.Intro(), 3000), nil, nil)}
	for i, f := range q.Fields {
		fq := f.AsQuestion()
		optional := !f.Required || f.Default != ""
		other := hasOther(&fq)
		blocks = append(blocks, slackapi.NewInputBlock(fieldBlock(i), plain(f.Text, 2000), plain(f.Name, 2000), input(&fq)).WithOptional(optional || other))
		if other {
			label, el := otherInput(&fq)
			blocks = append(blocks, slackapi.NewInputBlock(fieldOtherBlock(i), plain(label, 2000), nil, el).WithOptional(true))
		}
	}
	return blocks
}

// fieldsAnswer reads a submitted modal of q's fields as the answer, a
// typed value per field; an empty field is left out, so that its default
// applies. A choice outside the options is an error under its input.
func fieldsAnswer(q *askonce.Question, values map[string]map[string]slackapi.BlockAction) (askonce.Answer, map[string]string) {
	var answer []askonce.FieldValue
	for i, f := range q.Fields {
		fq := f.AsQuestion()
		v, err := inputValue(&fq, values[fieldBlock(i)][inputAction], values[fieldOtherBlock(i)][inputAction])
		if err != nil {
			return askonce.Answer{}, map[string]string{fieldBlock(i): "Choose one of the options of " + f.Name + "."}
		}
		if !v.IsZero() {
			answer = append(answer, askonce.FieldValue{Name: f.Name, Value: v})
		}
	}
	return askonce.FieldsAnswer(answer...), nil
}

// fieldErrors are the modal's errors of an invalid answer to q: each bad
// field's message under its input, anything else under the first.
func fieldErrors(q *askonce.Question, err error) map[string]string {
	out := map[string]string{}
	var ae *askonce.Error
	if errors.As(err, &ae) {
		for _, fe := range ae.Fields {
			for i, f := range q.Fields {
				if strings.EqualFold(f.Name, fe.Name) {
					msg := fe.Message
					if fe.Accepts != "" && !strings.Contains(msg, "allowed:") {
						msg += "; allowed: " + fe.Accepts
					}
					out[fieldBlock(i)] = clip(msg, 2000)
				}
			}
		}
	}
	if len(out) == 0 {
		out[fieldBlock(0)] = clip(askonce.ErrorMessage(err), 2000)
	}
	return out
}
