package slack

import (
	"errors"
	"strconv"
	"strings"

	"github.com/askonce/askonce"
	slackapi "github.com/slack-go/slack"
)

// A question with fields in Slack: its message has the Answer… button
// (the question is FREE_TEXT, its text lists the fields), which opens a
// modal with one input per field: a select of the options (yes and no for
// CONFIRM), with a text input beside it for an answer of one's own or
// another path, or a text input. The submission is one answer object; a
// bad field's error shows under its input.

// fieldBlock is the block id of field i's input; fieldOtherBlock that of
// its text of one's own.
func fieldBlock(i int) string      { return "field_" + strconv.Itoa(i) }
func fieldOtherBlock(i int) string { return "field_" + strconv.Itoa(i) + "_other" }

// fieldOptions are the choices of field f: yes and no for CONFIRM.
func fieldOptions(f askonce.QuestionField) []string {
	if f.Type == askonce.QuestionConfirm {
		return []string{"yes", "no"}
	}
	if len(f.Options) > maxSelectOptions {
		return f.Options[:maxSelectOptions]
	}
	return f.Options
}

// fieldsBlocks are the inputs of a question with fields.
func fieldsBlocks(q *askonce.Question) []slackapi.Block {
	blocks := []slackapi.Block{slackapi.NewSectionBlock(plain(q.Intro(), 3000), nil, nil)}
	for i, f := range q.Fields {
		optional := !f.Required || f.Default != ""
		var el slackapi.BlockElement
		opts := fieldOptions(f)
		if len(opts) > 0 {
			objs := make([]*slackapi.OptionBlockObject, len(opts))
			for k, o := range opts {
				objs[k] = slackapi.NewOptionBlockObject(optionValue(k), plain(o, 75), nil)
			}
			sel := slackapi.NewOptionsSelectBlockElement(slackapi.OptTypeStatic, plain("Choose…", 75), inputAction, objs...)
			for k, o := range opts {
				if o == f.Default {
					sel.InitialOption = objs[k]
				}
			}
			el = sel
		} else {
			in := slackapi.NewPlainTextInputBlockElement(plain(clip(f.Default, 150), 150), inputAction)
			in.Multiline = f.Type == askonce.QuestionFreeText
			in.MaxLength = askonce.MaxFreeText
			el = in
		}
		other := (f.Type == askonce.QuestionSelectOne && f.AllowOther) || f.Type == askonce.QuestionTargetFile && len(opts) > 0
		blocks = append(blocks, slackapi.NewInputBlock(fieldBlock(i), plain(f.Text, 2000), plain(f.Name, 2000), el).WithOptional(optional || other))
		if other {
			label := "Or your own answer"
			if f.Type == askonce.QuestionTargetFile {
				label = "Or another path inside the project"
			}
			in := slackapi.NewPlainTextInputBlockElement(plain("Leave empty to use the choice", 150), inputAction)
			in.MaxLength = askonce.MaxFreeText
			blocks = append(blocks, slackapi.NewInputBlock(fieldOtherBlock(i), plain(label, 2000), nil, in).WithOptional(true))
		}
	}
	return blocks
}

// fieldsAnswer reads a submitted modal of q's fields as the answer
// object: text of one's own over a choice; an empty field is left out, so
// that its default applies. A choice outside the options is an error.
func fieldsAnswer(q *askonce.Question, values map[string]map[string]slackapi.BlockAction) (askonce.Answer, error) {
	var answer []askonce.FieldValue
	for i, f := range q.Fields {
		in := values[fieldBlock(i)][inputAction]
		a := in.Value
		if v := in.SelectedOption.Value; v != "" {
			opts := fieldOptions(f)
			k, ok := optionIndex(v, len(opts))
			if !ok {
				return askonce.Answer{}, errors.New("choose one of the options of " + f.Name)
			}
			a = opts[k]
		}
		if o := values[fieldOtherBlock(i)][inputAction].Value; strings.TrimSpace(o) != "" {
			a = o
		}
		if strings.TrimSpace(a) != "" {
			answer = append(answer, askonce.FieldValue{Name: f.Name, Value: askonce.TextValue(a)})
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
					if len(fe.Allowed) > 0 && !strings.Contains(msg, "allowed:") {
						msg += "; allowed: " + strings.Join(fe.Allowed, ", ")
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
