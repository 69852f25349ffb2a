package web

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/internal/jobview"
)

// The answer page of a question with fields: one form with an input of
// its type per field, and one submit. Each field's inputs are named after
// it: f.<name> (the chosen option, yes or no, or the text), o.<name> (the
// text beside Other) and p.<name> (a typed path). The engine validates the
// answer object; the page shows each field's error beside it.

// fieldView is one field of the form.
type fieldView struct {
	Name, Label string
	Input       string // f.<name>
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
	Typed       string
	Error       string
	Allowed     []string
}

// setFields fills the form's fields from q's.
func (v *formView) setFields(q *askonce.Question) {
	v.Text = visible(q.Intro())
	v.TextAnswer = false
	d, _ := q.DefaultAnswer()
	v.Default = visible(strings.ReplaceAll(d.Prompt(), "\n", ", "))
	v.Kind = "Answer each, then send them together"
	for i, f := range q.Fields {
		fv := fieldView{
			Name: f.Name, Label: visible(f.Text), Input: "f." + f.Name, OtherInput: "o." + f.Name, PathInput: "p." + f.Name,
			ID: "field-" + strconv.Itoa(i), Required: f.Required, Default: visible(f.Default), AllowOther: f.AllowOther,
		}
		switch f.Type {
		case askonce.QuestionConfirm:
			fv.Confirm, fv.Kind = true, jobview.Kind(f.Type)
			for _, o := range []string{"yes", "no"} {
				fv.Choices = append(fv.Choices, choice{Value: o, Label: o, Default: o == f.Default})
			}
		case askonce.QuestionSelectOne, askonce.QuestionTargetFile:
			fv.Files = f.Type == askonce.QuestionTargetFile
			fv.Kind = jobview.Kind(f.Type)
			if fv.Files {
				fv.Kind = "Pick a file, or give a path inside the project"
			} else if f.AllowOther {
				fv.Kind = "Pick one, or answer in your own words"
			}
			for _, o := range f.Options {
				fv.Choices = append(fv.Choices, choice{Value: o, Label: visible(o), Default: o == f.Default})
			}
		default:
			fv.TextAnswer, fv.Kind = true, "In your own words"
		}
		v.Fields = append(v.Fields, fv)
	}
}

// keepFields shows what was sent and, from the engine's error, each bad
// field's message and allowed values.
func (v *formView) keepFields(form url.Values, bad []askonce.FieldError) {
	for i := range v.Fields {
		fv := &v.Fields[i]
		chosen := form.Get(fv.Input)
		fv.Other, fv.Path = form.Get(fv.OtherInput), form.Get(fv.PathInput)
		if fv.TextAnswer {
			fv.Typed = chosen
		}
		checked := false
		for j := range fv.Choices {
			if form.Has(fv.Input) && fv.Choices[j].Value == chosen {
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

// fieldsAnswer reads the form of a question with fields as the answer
// object: each field's chosen option (or yes/no), else its text of one's
// own, a typed path winning over a chosen file; a field left empty is
// left out, so that its default applies.
func fieldsAnswer(q *askonce.Question, form url.Values) askonce.Answer {
	var values []askonce.FieldValue
	for _, f := range q.Fields {
		a := form.Get("f." + f.Name)
		switch {
		case strings.TrimSpace(form.Get("p."+f.Name)) != "":
			a = form.Get("p." + f.Name)
		case a == "":
			a = form.Get("o." + f.Name)
		}
		if strings.TrimSpace(a) != "" {
			values = append(values, askonce.FieldValue{Name: f.Name, Value: askonce.TextValue(a)})
		}
	}
	return askonce.FieldsAnswer(values...)
}
