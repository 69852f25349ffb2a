package askonce_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/askonce/askonce"
)

// deployQuestion is a question with three fields: a required SELECT_ONE,
// an optional FREE_TEXT with a default and a required CONFIRM.
func deployQuestion() askonce.Question {
	return askonce.Question{
		Text: "A few things before I plan the deploy.",
		Fields: []askonce.QuestionField{
			{Name: "environment", Type: askonce.QuestionSelectOne, Text: "Which environment?", Options: []string{"staging", "production"}, Required: true},
			{Name: "replicas", Type: askonce.QuestionFreeText, Text: "How many replicas?", Default: "2"},
			{Name: "migrate", Type: askonce.QuestionConfirm, Text: "Run the migrations?", Required: true},
		},
	}
}

func normalized(t *testing.T, q askonce.Question) askonce.Question {
	t.Helper()
	if err := q.Normalize(); err != nil {
		t.Fatalf("normalize: %v", err)
	}
	return q
}

// Rule 7: a question carries at most 5 fields with distinct, non-empty
// names of one of the four types; anything else is EINVALID naming the
// field.
func TestRule7_QuestionFieldsAreCheckedNamingTheField(t *testing.T) {
	t.Parallel()
	field := func(name string, typ askonce.QuestionType) askonce.QuestionField {
		return askonce.QuestionField{Name: name, Type: typ, Text: "What " + name + "?"}
	}
	six := make([]askonce.QuestionField, 6)
	for i := range six {
		six[i] = field(string(rune('a'+i)), askonce.QuestionFreeText)
	}
	for _, tc := range []struct {
		name   string
		fields []askonce.QuestionField
		want   string
	}{
		{"MoreThanFive", six, "6 fields; the limit is 5"},
		{"Duplicate", []askonce.QuestionField{field("env", ""), field("ENV", "")}, `field "ENV" appears twice`},
		{"EmptyName", []askonce.QuestionField{field("env", ""), field("  ", "")}, "field 2 has no name"},
		{"UnknownType", []askonce.QuestionField{field("env", ""), field("size", "SLIDER")}, `field "size": type "SLIDER" is not one of`},
		{"NameWithColon", []askonce.QuestionField{field("env", ""), field("a:b", "")}, `field "a:b": a name has only`},
		{"SelectOneWithoutOptions", []askonce.QuestionField{field("env", askonce.QuestionSelectOne), field("b", "")}, `field "env": a SELECT_ONE question needs at least two options`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			q := askonce.Question{Text: "Some things", Fields: tc.fields}
			err := q.Normalize()
			var ae *askonce.Error
			if !asError(err, &ae) || ae.Code != askonce.EINVALID || !strings.Contains(ae.Message, tc.want) {
				t.Fatalf("normalize: %v; want EINVALID with %q", err, tc.want)
			}
		})
	}
}

// Rule 7: a question with fields reads as one FREE_TEXT question whose
// text lists every field, for a channel that cannot show a form.
func TestRule7_QuestionWithFieldsReadsAsOneTextQuestion(t *testing.T) {
	t.Parallel()
	q := normalized(t, deployQuestion())
	if q.Type != askonce.QuestionFreeText || q.Options != nil || len(q.Fields) != 3 {
		t.Fatalf("question %+v", q)
	}
	for _, want := range []string{"A few things", "- environment: Which environment? (one of staging, production)", "- replicas: How many replicas? (default 2; optional)", "- migrate: Run the migrations? (yes or no)", "name: value"} {
		if !strings.Contains(q.Text, want) {
			t.Fatalf("text %q lacks %q", q.Text, want)
		}
	}
	if q.Intro() != "A few things before I plan the deploy." {
		t.Fatalf("intro %q", q.Intro())
	}
	again := q.Clone()
	if err := again.Normalize(); err != nil || again.Text != q.Text {
		t.Fatalf("normalising twice changed the text: %q, %v", again.Text, err)
	}
}

// Rule 7: a question of one field is the plain question of that field, so
// every channel shows it as today.
func TestRule7_OneFieldQuestionIsThePlainQuestion(t *testing.T) {
	t.Parallel()
	q := normalized(t, askonce.Question{Fields: []askonce.QuestionField{{Name: "environment", Type: askonce.QuestionSelectOne, Text: "Which environment?", Options: []string{"staging", "production"}, Default: "staging"}}})
	want := askonce.Question{Type: askonce.QuestionSelectOne, Text: "Which environment?", Options: []string{"staging", "production"}, Default: "staging"}
	if q.Type != want.Type || q.Text != want.Text || !slices.Equal(q.Options, want.Options) || q.Default != want.Default || q.Fields != nil {
		t.Fatalf("question %+v, want %+v", q, want)
	}
	if a, err := askonce.ValidateAnswer(&q, askonce.TextAnswer("prod")); err != nil || a.String() != "production" {
		t.Fatalf("plain answer %q, %v", a, err)
	}
}

// Rule 7: an answer to a question with fields is one object of field
// values (JSON, or one name: value line per field), each validated against
// its field; defaults fill optional fields left out.
func TestRule7_FieldsAnswerIsValidatedPerFieldAndDefaultsFill(t *testing.T) {
	t.Parallel()
	q := normalized(t, deployQuestion())
	for _, answer := range []askonce.Answer{
		mustJSON(`{"environment": "STAG", "migrate": true}`),
		mustJSON(`{"environment": "staging", "migrate": "yes", "replicas": null}`),
		askonce.TextAnswer("environment: staging\nmigrate: y"),
	} {
		a, err := askonce.ValidateAnswer(&q, answer)
		if err != nil || string(a.JSON()) != `{"environment":"staging","replicas":"2","migrate":true}` {
			t.Fatalf("answer %s: %s, %v", answer.JSON(), a.JSON(), err)
		}
	}
	a, err := askonce.ValidateAnswer(&q, mustJSON(`{"environment":"production","replicas":"3","migrate":false}`))
	if err != nil || string(a.JSON()) != `{"environment":"production","replicas":"3","migrate":false}` {
		t.Fatalf("answer with false: %s, %v", a.JSON(), err)
	}
	a, err = askonce.ValidateAnswer(&q, askonce.TextAnswer("environment: staging\nmigrate: no\nreplicas: three, one per zone\nand a spare"))
	if err != nil || string(a.JSON()) != `{"environment":"staging","replicas":"three, one per zone\nand a spare","migrate":false}` {
		t.Fatalf("lines with a continued value: %s, %v", a.JSON(), err)
	}
}

// Rule 7: a bad answer is EINVALID listing every bad field (unknown names,
// missing required fields, values not allowed, values of the wrong type)
// with its allowed values.
func TestRule7_FieldsAnswerErrorListsEveryBadField(t *testing.T) {
	t.Parallel()
	q := normalized(t, deployQuestion())
	_, err := askonce.ValidateAnswer(&q, mustJSON(`{"environment":"qa","migrate":3,"colour":"red"}`))
	var ae *askonce.Error
	if !asError(err, &ae) || ae.Code != askonce.EINVALID {
		t.Fatalf("answer: %v", err)
	}
	got := map[string]askonce.FieldError{}
	for _, f := range ae.Fields {
		got[f.Name] = f
	}
	if len(got) != 3 || !slices.Equal(got["environment"].Allowed, []string{"staging", "production"}) ||
		!strings.Contains(got["migrate"].Message, "number") || !slices.Equal(got["migrate"].Allowed, []string{"yes", "no"}) ||
		!slices.Equal(got["colour"].Allowed, []string{"environment", "replicas", "migrate"}) {
		t.Fatalf("fields %+v", ae.Fields)
	}
	for _, want := range []string{"environment:", "migrate:", "colour:", "allowed: staging, production"} {
		if !strings.Contains(ae.Message, want) {
			t.Fatalf("message %q lacks %q", ae.Message, want)
		}
	}
	_, err = askonce.ValidateAnswer(&q, mustJSON(`{"replicas":"4"}`))
	if !asError(err, &ae) || len(ae.Fields) != 2 || ae.Fields[0].Name != "environment" || ae.Fields[0].Message != "is required" || ae.Fields[1].Name != "migrate" {
		t.Fatalf("missing required fields: %v %+v", err, ae)
	}
	for _, bad := range []string{"staging", `{"environment":`, "[1]", ""} {
		if _, err := askonce.ValidateAnswer(&q, askonce.TextAnswer(bad)); askonce.ErrorCode(err) != askonce.EINVALID || !strings.Contains(askonce.ErrorMessage(err), "environment") {
			t.Fatalf("answer %q: %v; want EINVALID naming the fields", bad, err)
		}
	}
}

// Rule 7: the fields' defaults, when they answer the question, are its
// default, applied on timeout or decline like any other.
func TestRule7_FieldDefaultsAreTheQuestionsDefault(t *testing.T) {
	t.Parallel()
	q := deployQuestion()
	q.Fields[0].Default, q.Fields[2].Default = "staging", "no"
	q = normalized(t, q)
	if d, ok := q.DefaultAnswer(); !ok || string(d.JSON()) != `{"environment":"staging","replicas":"2","migrate":false}` {
		t.Fatalf("default %s, %v", d.JSON(), ok)
	}
	if q = normalized(t, deployQuestion()); q.Default != "" {
		t.Fatalf("default %q of a question whose required fields have none", q.Default)
	}
	if d, ok := q.DefaultAnswer(); ok {
		t.Fatalf("default answer %s of a question whose required fields have none", d.JSON())
	}
}

// askFields asks deployQuestion.
func askFields(t *testing.T) string {
	t.Helper()
	b, err := json.Marshal(map[string]any{"question": deployQuestion()})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Rules 2, 4 and 7: a question with fields is one question (one asked
// event, stored with its fields); a bad answer changes nothing; the answer
// is one object, and the resolved prompt lists one name: value line per
// field.
func TestRule4_FieldsAnswerResolvesToOneLinePerField(t *testing.T) {
	t.Parallel()
	s := scripted(reply(askFields(t), u1), reply(planRaw, u1))
	e := newEngine(t, s)
	j := create(t, e, "deploy the shop")
	if j.Status != askonce.StatusPending || j.Question == nil || len(j.Question.Fields) != 3 {
		t.Fatalf("create: status %s question %+v", j.Status, j.Question)
	}
	stored, err := e.Get(ctx, "", j.ID)
	if err != nil || !slices.EqualFunc(stored.Question.Fields, j.Question.Fields, func(a, b askonce.QuestionField) bool {
		return a.Name == b.Name && a.Type == b.Type && slices.Equal(a.Options, b.Options) && a.Default == b.Default && a.Required == b.Required
	}) {
		t.Fatalf("stored question %+v, %v", stored.Question, err)
	}
	if _, _, err := e.Act(ctx, askonce.Act{Do: askonce.ActAnswer, ID: j.ID, Answer: mustJSON(`{"environment":"qa"}`)}); askonce.ErrorCode(err) != askonce.EINVALID {
		t.Fatalf("bad answer: %v", err)
	}
	if after, err := e.Get(ctx, "", j.ID); err != nil || after.Version != j.Version || after.Status != askonce.StatusPending {
		t.Fatalf("a bad answer changed the job: %+v, %v", after, err)
	}
	j, _, err = e.Act(ctx, askonce.Act{Do: askonce.ActAnswer, ID: j.ID, Answer: mustJSON(`{"environment":"production","migrate":true}`)})
	if err != nil {
		t.Fatalf("answer: %v", err)
	}
	const prompt = "deploy the shop\n\nClarification Answer: environment: production\nreplicas: 2\nmigrate: yes"
	if j.Status != askonce.StatusSuccess || j.ResolvedPrompt != prompt || string(j.Answer.JSON()) != `{"environment":"production","replicas":"2","migrate":true}` {
		t.Fatalf("job: status %s answer %q prompt %q", j.Status, j.Answer, j.ResolvedPrompt)
	}
	if reqs := s.requests(); len(reqs) != 2 || reqs[1].Prompt != prompt {
		t.Fatalf("interpreter requests %+v", reqs)
	}
	if n := count(eventTypes(t, e, j), askonce.EventAsked); n != 1 {
		t.Fatalf("%d asked events, want 1", n)
	}
}

// Rule 7: the pages, Slack and email show the answer of a question with
// fields as "name: value" in the fields' order, never the stored object;
// any other answer reads as it is.
func TestRule7_AnAnswerWithFieldsReadsAsNameValuePairs(t *testing.T) {
	q := normalized(t, deployQuestion())
	a, err := askonce.ValidateAnswer(&q, mustJSON(`{"migrate":"yes","environment":"staging","replicas":"3"}`))
	if err != nil {
		t.Fatal(err)
	}
	j := &askonce.Job{Question: &q, Answer: a}
	if got, want := j.AnswerText(), "environment: staging; replicas: 3; migrate: yes"; got != want {
		t.Errorf("AnswerText = %q, want %q", got, want)
	}
	plain := &askonce.Job{Question: &askonce.Question{Type: askonce.QuestionSelectOne, Text: "Hot or frozen?", Options: []string{"hot", "frozen"}}, Answer: askonce.TextAnswer("hot")}
	if got := plain.AnswerText(); got != "hot" {
		t.Errorf("AnswerText of a plain question = %q, want hot", got)
	}
}

// mustJSON is the answer raw, a JSON answer.
func mustJSON(raw string) askonce.Answer {
	a, err := askonce.ParseAnswerJSON([]byte(raw))
	if err != nil {
		panic(err)
	}
	return a
}
