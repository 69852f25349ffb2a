package terminal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/client"
	"github.com/askonce/askonce/internal/cli"
	"github.com/charmbracelet/huh"
)

// A question with fields in the terminal: one huh form with a group per
// field, under the question's heading, answered at once with the object
// of field values the server validates.

// fieldValue is what the form holds for one field: the option chosen,
// text of one's own (or a path), or yes.
type fieldValue struct {
	choice, own string
	yes         bool
}

// leaveOut is the value of the choice that leaves an optional field out.
const leaveOut = ""

// fieldsPicker asks j's question with fields; accessible runs huh's
// line-by-line mode (screen readers, and tests).
func fieldsPicker(ctx context.Context, j *client.JobView, in io.Reader, out io.Writer, accessible bool) (string, error) {
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
		return "", errAborted
	}
	if err != nil {
		return "", err
	}
	return fieldsAnswer(fields, values), nil
}

// fieldInputs are the inputs of one field: yes/no for CONFIRM; a select
// of the options (with "leave out" for an optional field without a
// default), followed by a text input for an answer of one's own or
// another path; a text input otherwise.
func fieldInputs(f askonce.QuestionField, v *fieldValue) []huh.Field {
	title := cli.CleanText(f.Text)
	if f.Type == askonce.QuestionConfirm {
		v.yes = f.Default == "yes"
		return []huh.Field{escLeaves{huh.NewConfirm().Title(title).Affirmative("Yes").Negative("No").Value(&v.yes)}}
	}
	var out []huh.Field
	target := f.Type == askonce.QuestionTargetFile
	if len(f.Options) > 0 && (f.Type == askonce.QuestionSelectOne || target) {
		var opts []huh.Option[string]
		if !f.Required && f.Default == "" {
			opts = append(opts, huh.NewOption("(leave out)", leaveOut))
		}
		for _, o := range f.Options {
			opts = append(opts, huh.NewOption(cli.CleanText(o), o))
		}
		v.choice = f.Default
		if v.choice == "" && f.Required {
			v.choice = f.Options[0]
		}
		out = append(out, escLeaves{huh.NewSelect[string]().Title(title).Options(opts...).Value(&v.choice)})
		if !f.AllowOther && !target {
			return out
		}
		title = "Or your own answer (empty: the choice above)"
		if target {
			title = "Or another path inside the project (empty: the file above)"
		}
	}
	required := f.Required && f.Default == "" && len(out) == 0
	in := huh.NewInput().Title(title).CharLimit(askonce.MaxFreeText).Value(&v.own).Placeholder(f.Default).
		Validate(func(s string) error {
			switch {
			case strings.TrimSpace(s) == "" && required:
				return errors.New("type an answer")
			case strings.TrimSpace(s) != "" && target:
				_, err := askonce.ValidatePath(s)
				return err
			}
			return nil
		})
	return append(out, escLeaves{in})
}

// fieldsAnswer is the answer object of the form's values: text of one's
// own over a choice; an empty value is left out, so that the field's
// default applies.
func fieldsAnswer(fields []askonce.QuestionField, values []fieldValue) string {
	answer := map[string]string{}
	for i, f := range fields {
		v := values[i]
		a := v.choice
		switch {
		case f.Type == askonce.QuestionConfirm:
			a = map[bool]string{true: "yes", false: "no"}[v.yes]
		case strings.TrimSpace(v.own) != "":
			a = v.own
		}
		if strings.TrimSpace(a) != "" {
			answer[f.Name] = a
		}
	}
	b, _ := json.Marshal(answer) // strings only: cannot fail
	return string(b)
}
