package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/askonce/askonce"
)

// fieldsQuestion is a question with four fields, one of each type.
var fieldsQuestion = askonce.Question{Text: "Before the <b>deploy</b>:", Fields: []askonce.QuestionField{
	{Name: "environment", Type: askonce.QuestionSelectOne, Text: "Which environment?", Options: []string{"staging", "production"}, Required: true},
	{Name: "replicas", Type: askonce.QuestionFreeText, Text: "How many replicas?", Default: "2"},
	{Name: "migrate", Type: askonce.QuestionConfirm, Text: "Run the migrations?", Required: true},
	{Name: "config", Type: askonce.QuestionTargetFile, Text: "Which config file?", Options: []string{"a.md", "docs/b.md"}},
}}

var fieldsPlan = askonce.Plan{Tasks: []askonce.Task{{ID: "deploy", Title: "Deploy", DependsOn: []string{}}}}

func TestAnswerPageFields(t *testing.T) {
	t.Parallel()
	t.Run("ShowOneFormWithAnInputPerFieldAndOneSubmit", testAnswerPageFieldsShowOneForm)
	t.Run("InvalidAnswerIs422NamingEveryBadFieldAndKeepsTheForm", testAnswerPageFieldsInvalidAnswer)
	t.Run("AnswerIsOneObjectAndTheOutcomeShowsEachField", testAnswerPageFieldsAnswer)
}

func testAnswerPageFieldsShowOneForm(t *testing.T) {
	t.Parallel()
	s := newLinkSite(t, linkOptions{interp: script(fieldsQuestion, fieldsPlan, "")})
	_, link := s.ask(t, "deploy the shop")
	r := s.get(t, link)
	if r.status != http.StatusOK {
		t.Fatalf("GET: %d", r.status)
	}
	mustContain(t, r, "Before the &lt;b&gt;deploy&lt;/b&gt;:",
		`name="f.environment" value="staging"`, `name="f.environment" value="production"`,
		`name="f.migrate" value="yes"`, `name="f.migrate" value="no"`,
		`<textarea name="f.replicas"`, `name="f.config" value="docs/b.md"`, `name="p.config"`,
		"(optional)", "Default: <strong>2</strong>")
	if n := strings.Count(r.body, "<form "); n != 1 {
		t.Errorf("%d forms, want 1", n)
	}
	if n := strings.Count(r.body, `value="answer"`); n != 1 {
		t.Errorf("%d answer buttons, want 1", n)
	}
	if strings.Contains(r.body, "one line per field") {
		t.Error("the page shows the text list of the fields beside the form")
	}
}

func testAnswerPageFieldsInvalidAnswer(t *testing.T) {
	t.Parallel()
	s := newLinkSite(t, linkOptions{interp: script(fieldsQuestion, fieldsPlan, "")})
	j, link := s.ask(t, "deploy the shop")
	r := s.post(t, link, url.Values{"f.environment": {"qa"}, "f.replicas": {"5"}, "p.config": {"../secret"}})
	if r.status != http.StatusUnprocessableEntity {
		t.Fatalf("status %d, want 422:\n%s", r.status, r.body)
	}
	mustContain(t, r, `id="field-0-error"`, "<li><code>staging</code></li>", `id="field-2-error"`, "is required",
		`id="field-3-error"`, "leaves the project root", ">5</textarea>", `value="../secret"`)
	if strings.Contains(r.body, `id="field-1-error"`) {
		t.Error("the valid field replicas shows an error")
	}
	got, err := s.engine.Get(context.Background(), "", j.ID)
	if err != nil || got.Status != askonce.StatusPending || got.Version != j.Version {
		t.Fatalf("after an invalid answer: %+v, %v", got, err)
	}
}

func testAnswerPageFieldsAnswer(t *testing.T) {
	t.Parallel()
	s := newLinkSite(t, linkOptions{interp: script(fieldsQuestion, fieldsPlan, "")})
	j, link := s.ask(t, "deploy the shop")
	r := s.post(t, link, url.Values{"f.environment": {"production"}, "f.migrate": {"no"}, "f.replicas": {""}, "f.config": {"a.md"}, "action": {"answer"}})
	if r.status != http.StatusSeeOther {
		t.Fatalf("POST: %d\n%s", r.status, r.body)
	}
	got := s.waitJob(t, j.ID)
	if got.Status != askonce.StatusSuccess || string(got.Answer.JSON()) != `{"environment":"production","replicas":"2","migrate":false,"config":"a.md"}` || got.AnsweredVia != askonce.ViaWeb {
		t.Fatalf("job %s answer %q via %s", got.Status, got.Answer, got.AnsweredVia)
	}
	mustContain(t, s.get(t, link+"/outcome"), `<strong class="outcome-answer">environment: production; replicas: 2; migrate: no; config: a.md</strong>`)
}

// A question without fields that needs an input of its own is shown as
// one: a bounded number input; a refused number comes back beside it,
// kept; a pick is the option itself, so options differing only in case
// stay distinct.
func TestAnswerPageTypedQuestionWithoutFields(t *testing.T) {
	t.Parallel()
	number := askonce.Question{Type: askonce.QuestionNumber, Text: "How many replicas?", Constraints: askonce.Constraints{Integer: true, Minimum: ptr(1), Maximum: ptr(10)}}
	s := newLinkSite(t, linkOptions{interp: script(number, fieldsPlan, "")})
	j, link := s.ask(t, "scale the shop")
	mustContain(t, s.get(t, link), `type="number" name="answer"`, `min="1"`, `max="10"`, `step="1"`)
	r := s.post(t, link, url.Values{"answer": {"500"}, "action": {"answer"}})
	if r.status != http.StatusUnprocessableEntity {
		t.Fatalf("status %d, want 422:\n%s", r.status, r.body)
	}
	mustContain(t, r, `id="field-0-error"`, "500 is out of range", `value="500"`, `aria-invalid="true"`)
	if r := s.post(t, link, url.Values{"answer": {"3"}, "action": {"answer"}}); r.status != http.StatusSeeOther {
		t.Fatalf("status %d, want 303:\n%s", r.status, r.body)
	}
	if got := s.waitJob(t, j.ID); string(got.Answer.JSON()) != `3` {
		t.Fatalf("answer %s, want the number 3", got.Answer.JSON())
	}

	db := askonce.Question{Type: askonce.QuestionSelectOne, Text: "Which database?", Options: []string{"Postgres", "postgres"}}
	s = newLinkSite(t, linkOptions{interp: script(db, fieldsPlan, "")})
	j, link = s.ask(t, "set up the shop")
	if r := s.post(t, link, url.Values{"answer": {"postgres"}, "action": {"answer"}}); r.status != http.StatusSeeOther {
		t.Fatalf("status %d, want 303:\n%s", r.status, r.body)
	}
	if got := s.waitJob(t, j.ID); !got.Answer.Equal(askonce.AnswerOf(askonce.OptionValue("postgres"))) {
		t.Fatalf("answer %+v, want the option postgres itself", got.Answer)
	}
}
