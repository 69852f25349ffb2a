package email

import (
	htmltemplate "html/template"
	"strconv"
	"strings"
	texttemplate "text/template"
	"time"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/internal/jobview"
)

// option is one option of the question, with its link to the answer page
// with it preselected (for SELECT_ONE and CONFIRM; "" otherwise).
type option struct {
	Text    string
	Link    string
	Default bool
}

// questionView is what the question mail shows.
type questionView struct {
	Title, Goal, Question string
	Type                  askonce.QuestionType
	Options               []option
	AllowOther            bool
	// Accepts says what a typed answer may be ("a whole number from 1
	// to 10"), for a question whose options do not say it.
	Accepts string
	Default string
	Expires string
	Link    string
	// Reminder, in a reminder, says how long the question has waited.
	Reminder string
}

func newQuestionView(j *askonce.Job, link string) questionView {
	q := j.Question
	// A question with fields has its fields listed in its text, and
	// its default as the object of the fields' defaults: shown as lines.
	d, _ := q.DefaultAnswer()
	def := d.String()
	v := questionView{Title: j.Title, Goal: j.Goal, Question: q.Text, Type: q.Type, AllowOther: q.AllowOther, Default: def}
	if link != "" {
		v.Link = link + "?via=" + askonce.ViaEmailLink
	}
	if q.ExpiresAt != nil {
		v.Expires = q.ExpiresAt.UTC().Format(time.RFC1123)
	}
	preselect := link != "" && (q.Type == askonce.QuestionSelectOne || q.Type == askonce.QuestionConfirm)
	if len(q.Fields) == 0 && (q.Type == askonce.QuestionNumber || q.Type == askonce.QuestionSelectMany || !q.Constraints.IsZero() && q.Type == askonce.QuestionFreeText) {
		v.Accepts = q.Accepts()
	}
	for i, o := range q.Options {
		// The title, which tells apart options that differ only in
		// case; the link carries the option's index.
		opt := option{Text: q.OptionTitle(i), Default: o == q.Default}
		if preselect {
			opt.Link = ChoiceURL(link, i)
		}
		v.Options = append(v.Options, opt)
	}
	return v
}

// ChoiceURL is the answer page of link with option i preselected: the
// page shows it chosen, and only its button answers.
func ChoiceURL(link string, i int) string {
	return link + "?choice=" + strconv.Itoa(i) + "&via=" + askonce.ViaEmailLink
}

func (v questionView) render() (text, html string, err error) {
	return render(questionText, questionHTML, v)
}

// outcomeView is what the outcome reply shows.
type outcomeView struct {
	Title, Question, Settled, Outcome string
}

func newOutcomeView(j *askonce.Job) outcomeView {
	v := outcomeView{Title: j.Title, Settled: settled(j), Outcome: outcome(j)}
	if j.Question != nil {
		v.Question = j.Question.Text
	}
	return v
}

func (v outcomeView) render() (text, html string, err error) {
	return render(outcomeText, outcomeHTML, v)
}

func render(t *texttemplate.Template, h *htmltemplate.Template, v any) (string, string, error) {
	var tb, hb strings.Builder
	if err := t.Execute(&tb, v); err != nil {
		return "", "", err
	}
	if err := h.Execute(&hb, v); err != nil {
		return "", "", err
	}
	return tb.String(), hb.String(), nil
}

// settled says how the question ended.
func settled(j *askonce.Job) string {
	switch {
	case j.Status == askonce.StatusCancelled:
		return "The job was cancelled; the question was not answered."
	case j.ExpiryNote() != "":
		// Nobody answered: the default answered, or the job expired.
		return j.ExpiryNote()
	case j.AnswerSource == askonce.SourceDefault && !j.Answer.IsZero():
		return "The question was declined; the default “" + j.AnswerText() + "” was used."
	case j.AnswerSource == askonce.SourceDefault:
		return "The question was declined; the job went on without an answer."
	case j.ClarificationStatus == askonce.ClarificationAnswered:
		return "Answered: “" + j.AnswerText() + "”" + via(j) + "."
	}
	return "The question is no longer waiting for an answer."
}

// via says who answered and where, as " (via slack, by U0123ABCD)".
func via(j *askonce.Job) string {
	switch {
	case j.AnsweredVia == "":
		return ""
	case j.AnsweredBy == "":
		return " (via " + j.AnsweredVia + ")"
	}
	return " (via " + j.AnsweredVia + ", by " + j.AnsweredBy + ")"
}

// outcome is the plan's title, or the exact error.
func outcome(j *askonce.Job) string {
	switch {
	case j.Status == askonce.StatusSuccess && j.Plan != nil:
		return "Planned: " + j.Plan.Title + " (" + jobview.Tasks(len(j.Plan.Tasks)) + ")"
	case j.Status == askonce.StatusSuccess:
		return "Planned: " + j.Title
	case j.Error != "":
		return string(j.Status) + ": " + j.Error
	}
	return "Ended " + string(j.Status) + "."
}

// oneLine makes s fit a header: no line breaks, at most 150 characters.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 150 {
		s = string(r[:149]) + "…"
	}
	return s
}

var questionText = texttemplate.Must(texttemplate.New("q").Parse(`{{if .Reminder}}Reminder: {{.Reminder}}

{{end}}{{.Title}}

Goal: {{.Goal}}

{{.Question}}
{{if .Accepts}}
Answer: {{.Accepts}}
{{end}}{{range .Options}}
  - {{.Text}}{{if .Default}} (default){{end}}{{if .Link}}
    {{.Link}}{{end}}{{end}}
{{if .AllowOther}}
Or give an answer of your own on the answer page.
{{end}}{{if .Default}}
If no one answers, the default "{{.Default}}" is used{{if .Expires}} at {{.Expires}}{{end}}.
{{else if .Expires}}
The question expires at {{.Expires}}.
{{end}}{{if .Link}}
Answer, decline or cancel: {{.Link}}
Anyone holding these links can answer; do not forward this mail.
{{else}}
Answer with askonce (askonce jobs answer).
{{end}}`))

var questionHTML = htmltemplate.Must(htmltemplate.New("q").Parse(`<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>{{.Title}}</title></head>
<body style="font-family: sans-serif; max-width: 40em">
{{if .Reminder}}<p><strong>Reminder:</strong> {{.Reminder}}</p>
{{end}}<h2>{{.Title}}</h2>
<p style="color: #555">{{.Goal}}</p>
<p><strong>{{.Question}}</strong></p>
{{if .Accepts}}<p>Answer: {{.Accepts}}</p>
{{end}}{{if .Options}}<ul>
{{range .Options}}<li>{{if .Link}}<a href="{{.Link}}">{{.Text}}</a>{{else}}{{.Text}}{{end}}{{if .Default}} <em>(default)</em>{{end}}</li>
{{end}}</ul>
{{end}}
{{if .AllowOther}}<p>Or give an answer of your own on the answer page.</p>
{{end}}{{if .Default}}<p>If no one answers, the default “{{.Default}}” is used{{if .Expires}} at {{.Expires}}{{end}}.</p>
{{else if .Expires}}<p>The question expires at {{.Expires}}.</p>
{{end}}{{if .Link}}<p><a href="{{.Link}}">Open the answer page</a> to answer, decline or cancel. Choosing an option above opens the page with it chosen; its button answers.</p>
<p style="color: #777; font-size: small">Anyone holding these links can answer; do not forward this mail.</p>
{{else}}<p>Answer with askonce (<code>askonce jobs answer</code>).</p>
{{end}}</body></html>
`))

var outcomeText = texttemplate.Must(texttemplate.New("o").Parse(`{{.Title}}
{{if .Question}}
{{.Question}}
{{end}}
{{.Settled}}
{{.Outcome}}
`))

var outcomeHTML = htmltemplate.Must(htmltemplate.New("o").Parse(`<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>{{.Title}}</title></head>
<body style="font-family: sans-serif; max-width: 40em">
<h2>{{.Title}}</h2>
{{if .Question}}<p>{{.Question}}</p>
{{end}}<p>{{.Settled}}</p>
<p><strong>{{.Outcome}}</strong></p>
</body></html>
`))
