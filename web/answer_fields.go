package web

import (
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/internal/jobview"
)

// The answer page of a question with fields: one form with an input of
// its type per field, and one submit. Each field's inputs are named after
// it: f.<name> (the chosen option or options, yes or no, the number or the
// text), o.<name> (the text beside Other) and p.<name> (a typed path). A
// question without fields whose answer needs an input of its own (a
// number, several options, a date, an email address) is shown as one such
// field named "answer". The form's values become the answer's typed values
// (fieldValue): a pick is the option itself. The engine validates them;
// the page shows each field's error beside it, with what was sent kept.

// fieldView is one field of the form.
type fieldView struct {
	Name, Label string
	Input       string // f.<name>, or "answer"
	OtherInput  string // o.<name>
	PathInput   string // p.<name>
	ID          string // a DOM id for the field's label and error
	Required    bool
	Default     string
	Kind        string
	Choices     []choice
	AllowOther  bool
	OtherChosen bool
	Other, Path string
	Confirm     bool
	Files       bool
	TextAnswer  bool
	// Many: checkboxes, one per option (SELECT_MANY).
	Many bool
	// InputType is the type of a one-line input ("number", "email",
	// "url", "date", "datetime-local"); "" for a textarea or choices.
	InputType string
	// Min, Max and Step bound a number input; MinLength and MaxLength a
	// text's.
	Min, Max, Step       string
	MinLength, MaxLength int
	Typed                string
	Error                string
	Allowed              []string

	q askonce.Question // the field as a question: what its values are checked against
}

// setFields fills the form's fields from q's.
func (v *formView) setFields(q *askonce.Question) {
	v.Text = visible(q.Intro())
	v.TextAnswer = false
	d, _ := q.DefaultAnswer()
	v.Default = visible(strings.ReplaceAll(d.Prompt(), "\n", ", "))
	v.Kind = "Answer each, then send them together"
	for i, f := range q.Fields {
		fq := askonce.Question{Type: f.Type, Text: f.Text, Options: f.Options, AllowOther: f.AllowOther, Default: f.Default, Constraints: f.Constraints}
		fv := newFieldView(&fq, "f."+f.Name, i)
		fv.Name, fv.Required = f.Name, f.Required
		fv.OtherInput, fv.PathInput = "o."+f.Name, "p."+f.Name
		v.Fields = append(v.Fields, fv)
	}
}

// setSingle shows q, a question without fields whose answer needs an
// input of its own, as one field named "answer".
func (v *formView) setSingle(q *askonce.Question) {
	fv := newFieldView(q, "answer", 0)
	fv.Name, fv.Label, fv.Required = "answer", "Your answer", true
	fv.OtherInput, fv.PathInput = "other", "path"
	v.Single, v.TextAnswer, v.Legend, v.Fields = true, false, true, []fieldView{fv}
}

// single reports whether q, a question without fields, is shown as one
// field (setSingle): a number, several options or text of a format.
func single(q *askonce.Question) bool {
	return len(q.Fields) == 0 && (q.Type == askonce.QuestionNumber || q.Type == askonce.QuestionSelectMany ||
		q.Type == askonce.QuestionFreeText && !q.Constraints.IsZero())
}

// newFieldView is the input of q (a field's question) named input.
func newFieldView(q *askonce.Question, input string, i int) fieldView {
	fv := fieldView{Label: visible(q.Text), Input: input, ID: "field-" + strconv.Itoa(i), Default: visible(q.Default), AllowOther: q.AllowOther, q: *q}
	switch q.Type {
	case askonce.QuestionConfirm:
		fv.Confirm, fv.Kind = true, jobview.Kind(q.Type)
		for _, o := range []string{"yes", "no"} {
			fv.Choices = append(fv.Choices, choice{Value: o, Label: o, Default: o == q.Default})
		}
	case askonce.QuestionSelectOne, askonce.QuestionTargetFile, askonce.QuestionSelectMany:
		fv.Files, fv.Many = q.Type == askonce.QuestionTargetFile, q.Type == askonce.QuestionSelectMany
		fv.Kind = jobview.Kind(q.Type)
		switch {
		case fv.Files:
			fv.Kind = "Pick a file, or give a path inside the project"
		case fv.Many:
			fv.Kind = "Pick " + strings.TrimSuffix(q.Accepts()[:strings.Index(q.Accepts(), " of:")], " different")
		case q.AllowOther:
			fv.Kind = "Pick one, or answer in your own words"
		}
		defaults := strings.Split(q.Default, "\n")
		for k, o := range q.Options {
			fv.Choices = append(fv.Choices, choice{Value: o, Label: visible(q.OptionTitle(k)), Default: slices.Contains(defaults, o)})
		}
	case askonce.QuestionNumber:
		fv.InputType, fv.Kind = "number", visible(capitalize(q.Accepts()))
		fv.Step = "any"
		if q.Integer {
			fv.Step = "1"
		}
		if q.Minimum != nil {
			fv.Min = strconv.FormatFloat(*q.Minimum, 'f', -1, 64)
		}
		if q.Maximum != nil {
			fv.Max = strconv.FormatFloat(*q.Maximum, 'f', -1, 64)
		}
	default:
		fv.Kind, fv.MinLength, fv.MaxLength = "In your own words", q.MinLength, q.MaxLength
		switch q.Format {
		case askonce.FormatEmail:
			fv.InputType, fv.Kind = "email", "An email address"
		case askonce.FormatURI:
			fv.InputType, fv.Kind = "url", "A web address (https://…)"
		case askonce.FormatDate:
			fv.InputType, fv.Kind = "date", "A date"
		case askonce.FormatDateTime:
			fv.InputType, fv.Kind = "datetime-local", "A date and time (UTC)"
		default:
			fv.TextAnswer = true
		}
		if !q.Constraints.IsZero() {
			fv.Kind = visible(capitalize(q.Accepts()))
		}
	}
	return fv
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// value is the answer the form gives fv: the option picked (by its
// value: the option itself), the options checked, the path typed, the
// text of one's own or typed. False: left empty.
func (fv *fieldView) value(form url.Values) (askonce.Value, bool) {
	switch {
	case fv.Many:
		picks := form[fv.Input]
		return askonce.OptionsValue(picks...), len(picks) > 0
	case fv.Files && strings.TrimSpace(form.Get(fv.PathInput)) != "":
		return askonce.PathValue(form.Get(fv.PathInput)), true
	case len(fv.Choices) > 0 && form.Get(fv.Input) != "":
		return askonce.OptionValue(form.Get(fv.Input)), true
	case fv.AllowOther && strings.TrimSpace(form.Get(fv.OtherInput)) != "":
		return askonce.TextValue(form.Get(fv.OtherInput)), true
	case len(fv.Choices) > 0:
		return askonce.Value{}, false
	}
	a := form.Get(fv.Input)
	if strings.TrimSpace(a) == "" {
		return askonce.Value{}, false
	}
	if fv.InputType == "datetime-local" {
		a = rfc3339(a)
	}
	return askonce.TextValue(a), true
}

// rfc3339 is a datetime-local input's value (2026-11-28T09:30, seconds
// optional) as RFC 3339 in UTC, as the page says; anything else as it is.
func rfc3339(s string) string {
	for _, layout := range []string{"2006-01-02T15:04", "2006-01-02T15:04:05"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC().Format(time.RFC3339)
		}
	}
	return s
}

// singleAnswer is the answer of a question shown as one field.
func (v *formView) singleAnswer(form url.Values) askonce.Answer {
	val, _ := v.Fields[0].value(form)
	return askonce.AnswerOf(val)
}

// keepFields shows what was sent and, from the engine's error, each bad
// field's message and allowed values.
func (v *formView) keepFields(form url.Values, bad []askonce.FieldError) {
	for i := range v.Fields {
		fv := &v.Fields[i]
		chosen := form.Get(fv.Input)
		fv.Other, fv.Path = form.Get(fv.OtherInput), form.Get(fv.PathInput)
		if fv.TextAnswer || fv.InputType != "" {
			fv.Typed = chosen
		}
		checked := false
		for j := range fv.Choices {
			if form.Has(fv.Input) && slices.Contains(form[fv.Input], fv.Choices[j].Value) {
				fv.Choices[j].Checked, checked = true, true
			}
		}
		if !checked && fv.AllowOther && strings.TrimSpace(fv.Other) != "" {
			fv.OtherChosen = true
		}
		for _, e := range bad {
			if strings.EqualFold(e.Name, fv.Name) {
				fv.Error, fv.Allowed = visible(e.Message), e.Allowed
			}
		}
	}
	var unknown []string
	for _, e := range bad {
		if !slicesContainsFold(v.Fields, e.Name) {
			unknown = append(unknown, e.Name+": "+e.Message)
		}
	}
	switch {
	case len(unknown) > 0:
		v.Error = visible(strings.Join(unknown, "; "))
	case len(bad) > 0:
		v.Error = "Some answers need another look; see below."
	}
}

func slicesContainsFold(fields []fieldView, name string) bool {
	for _, f := range fields {
		if strings.EqualFold(f.Name, name) {
			return true
		}
	}
	return false
}

// checkFieldDefaults checks each field's default, as a new form shows it.
func (v *formView) checkFieldDefaults() {
	for i := range v.Fields {
		for j := range v.Fields[i].Choices {
			v.Fields[i].Choices[j].Checked = v.Fields[i].Choices[j].Default
		}
	}
}

// fieldsAnswer reads the form of a question with fields as the answer:
// each field's typed value (fieldView.value); a field left empty is left
// out, so that its default applies.
func (v *formView) fieldsAnswer(form url.Values) askonce.Answer {
	var values []askonce.FieldValue
	for i := range v.Fields {
		if val, ok := v.Fields[i].value(form); ok {
			values = append(values, askonce.FieldValue{Name: v.Fields[i].Name, Value: val})
		}
	}
	return askonce.FieldsAnswer(values...)
}
