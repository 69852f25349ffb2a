package email

import (
	"strings"
	"testing"

	"github.com/askonce/askonce"
)

func questionJob(q askonce.Question) *askonce.Job {
	return &askonce.Job{ID: "0195d3c1-0000-7000-8000-000000000001", Title: "T <b>", Goal: `<img src=x onerror=alert(1)>`, Status: askonce.StatusPending, Question: &q}
}

// TestQuestionMail checks the question mail's text, one behaviour per subtest.
func TestQuestionMail(t *testing.T) {
	t.Parallel()
	t.Run("LinksOptionsOnlyWhereTheyArePreselectable", testQuestionMailLinksOptionsOnlyWhereTheyArePreselectable)
	t.Run("WithoutALinkSaysToAnswerWithAskonce", testQuestionMailWithoutALinkSaysToAnswerWithAskonce)
}

// SELECT_ONE and CONFIRM options link to the page with the option
// chosen; other types link only to the page. Every user text is escaped
// in the HTML part.
func testQuestionMailLinksOptionsOnlyWhereTheyArePreselectable(t *testing.T) {
	t.Parallel()
	const link = "https://askonce.example.com/a/tok"
	for _, tc := range []struct {
		name  string
		q     askonce.Question
		links int
	}{
		{"SelectOne", askonce.Question{Type: askonce.QuestionSelectOne, Text: "Which?", Options: []string{"<script>x</script>", "b"}}, 2},
		{"Confirm", askonce.Question{Type: askonce.QuestionConfirm, Text: "Sure?", Options: []string{"yes", "no"}}, 2},
		{"TargetFile", askonce.Question{Type: askonce.QuestionTargetFile, Text: "File?", Options: []string{"a.go", "b.go"}}, 0},
		{"FreeText", askonce.Question{Type: askonce.QuestionFreeText, Text: "Name?"}, 0},
		{"Fields", fieldsQuestion(t), 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			text, html, err := newQuestionView(questionJob(tc.q), link).render()
			if err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(html, "?choice="); n != tc.links {
				t.Errorf("%d option links in the HTML part; want %d\n%s", n, tc.links, html)
			}
			if n := strings.Count(text, "?choice="); n != tc.links {
				t.Errorf("%d option links in the text part; want %d\n%s", n, tc.links, text)
			}
			if !strings.Contains(html, link+"?via=email-link") || !strings.Contains(text, link+"?via=email-link") {
				t.Errorf("no link to the answer page")
			}
			for _, bad := range []string{"<img", "<script>", "<b>"} {
				if strings.Contains(html, bad) {
					t.Errorf("HTML part holds %q unescaped:\n%s", bad, html)
				}
			}
		})
	}
}

func testQuestionMailWithoutALinkSaysToAnswerWithAskonce(t *testing.T) {
	t.Parallel()
	text, html, err := newQuestionView(questionJob(askonce.Question{Type: askonce.QuestionConfirm, Text: "Sure?", Options: []string{"yes", "no"}}), "").render()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(html, "href") || !strings.Contains(text, "askonce jobs answer") {
		t.Fatalf("a mail without an answer link has links or no hint:\n%s\n%s", text, html)
	}
}

// fieldsQuestion is a normalised question with two fields: a one-field
// question's option links do not apply to it.
func fieldsQuestion(t *testing.T) askonce.Question {
	t.Helper()
	q := askonce.Question{Text: "Before the deploy:", Fields: []askonce.QuestionField{
		{Name: "environment", Type: askonce.QuestionSelectOne, Options: []string{"staging", "production"}, Default: "staging"},
		{Name: "migrate", Type: askonce.QuestionConfirm, Default: "no"},
	}}
	if err := q.Normalize(); err != nil {
		t.Fatal(err)
	}
	return q
}

// A question with fields lists every field in the mail, with its
// default as name: value lines, and links only to the answer page.
func TestQuestionMailOfAQuestionWithFieldsListsTheFields(t *testing.T) {
	t.Parallel()
	text, html, err := newQuestionView(questionJob(fieldsQuestion(t)), "https://askonce.example.com/a/tok").render()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"- environment: environment (one of staging, production; default staging", "- migrate:", "environment: staging; migrate: no"} {
		if !strings.Contains(text, want) || !strings.Contains(html, want) {
			t.Errorf("the mail lacks %q:\n%s\n%s", want, text, html)
		}
	}
}

// A typed question's mail says what it accepts (a whole number from 1
// to 10), and options are shown by their titles, so that two options
// differing only in case read apart, each linking to its own index.
func TestQuestionMailSaysWhatATypedQuestionAccepts(t *testing.T) {
	t.Parallel()
	one, ten := 1.0, 10.0
	number := askonce.Question{Type: askonce.QuestionNumber, Text: "How many replicas?", Constraints: askonce.Constraints{Integer: true, Minimum: &one, Maximum: &ten}}
	text, html, err := newQuestionView(questionJob(number), "https://askonce.example.com/a/tok").render()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text, "Answer: a whole number from 1 to 10") || !strings.Contains(html, "Answer: a whole number from 1 to 10") {
		t.Errorf("the mail does not say what the number takes:\n%s", text)
	}
	pick := askonce.Question{Type: askonce.QuestionSelectOne, Text: "Which database?", Options: []string{"Postgres", "postgres"},
		Constraints: askonce.Constraints{OptionTitles: []string{"Postgres (managed)", "postgres (ours)"}}}
	text, _, err = newQuestionView(questionJob(pick), "https://askonce.example.com/a/tok").render()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text, "- Postgres (managed)\n    https://askonce.example.com/a/tok?choice=0") || !strings.Contains(text, "- postgres (ours)\n    https://askonce.example.com/a/tok?choice=1") {
		t.Errorf("the options are not shown by title, each with its own index:\n%s", text)
	}
}
