package askonce_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/askonce/askonce"
)

// fieldsAsker is an interpreter (the stand-in for an LLM) that asks its
// question until the prompt carries an answer, then plans.
type fieldsAsker struct{ question string }

func (a fieldsAsker) Interpret(_ context.Context, req *askonce.Request) (*askonce.Response, error) {
	if strings.Contains(req.Prompt, "Clarification Answer:") || req.Directive != "" {
		return &askonce.Response{Raw: []byte(planRaw)}, nil
	}
	return &askonce.Response{Raw: []byte(`{"question":` + a.question + `}`)}, nil
}

const (
	// deployQ asks three fields.
	deployQ = `{"text":"Before the deploy:","fields":[
		{"name":"environment","type":"SELECT_ONE","text":"Which environment?","options":["staging","production"],"required":true},
		{"name":"replicas","text":"How many replicas?","required":true},
		{"name":"migrate","type":"CONFIRM","text":"Run the migrations?","required":true}]}`
	// rolloutQ asks two of deployQ's fields (by their text) and a new one.
	rolloutQ = `{"text":"Before the rollout:","fields":[
		{"name":"env","type":"SELECT_ONE","text":"Which environment?","options":["staging","production"],"required":true},
		{"name":"region","type":"SELECT_ONE","text":"Which region?","options":["eu","us"],"required":true},
		{"name":"migrations","type":"CONFIRM","text":"Run the migrations?","required":true}]}`
	// restartQ asks only fields deployQ asked, under another intro.
	restartQ = `{"text":"Before the restart:","fields":[
		{"name":"environment","type":"SELECT_ONE","text":"Which environment?","options":["staging","production"],"required":true},
		{"name":"migrate","type":"CONFIRM","text":"Run the migrations?","required":true}]}`
)

// fieldsEngine is an engine asking question on a real SQLite file at
// path.
func fieldsEngine(t *testing.T, path, question string) *askonce.Engine {
	t.Helper()
	return &askonce.Engine{Store: openStore(t, path), Interpreter: fieldsAsker{question}}
}

// deployed has a person answer deployQ in session s1 of e's store.
func deployed(t *testing.T, path string) {
	t.Helper()
	e := fieldsEngine(t, path, deployQ)
	j := create(t, e, "deploy the shop")
	if j.Status != askonce.StatusPending || len(j.Question.Fields) != 3 {
		t.Fatalf("first job: status %s, question %+v; want pending with three fields", j.Status, j.Question)
	}
	if _, _, err := e.Act(ctx, askonce.Act{Do: askonce.ActAnswer, ID: j.ID, Answer: mustJSON(`{"environment":"production","replicas":"3","migrate":true}`)}); err != nil {
		t.Fatalf("answer the first job: %v", err)
	}
}

func TestRule5_EachFieldOfAnAnswerIsRememberedOnItsOwn(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "askonce.db")
	deployed(t, path)
	e := fieldsEngine(t, path, `{"type":"SELECT_ONE","text":"Which environment","options":["staging","production"]}`)
	h, err := e.History(ctx, "", "s1")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, x := range h {
		got[x.Question] = x.Answer
	}
	if got["Which environment?"] != "production" || got["How many replicas?"] != "3" || got["Run the migrations?"] != "yes" {
		t.Fatalf("history %v: want each field's answer under its own text", got)
	}
	// A later plain question with a field's text is answered from it.
	j := create(t, e, "deploy the api")
	if j.Status != askonce.StatusSuccess || j.AnswerSource != askonce.SourceHistory || j.Answer.String() != "production" {
		t.Fatalf("later job: status %s, source %s, answer %q; want success from history with production", j.Status, j.AnswerSource, j.Answer)
	}
}

func TestRule5_AllFieldsAnsweredEarlierInTheSessionAsksNobody(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "askonce.db")
	deployed(t, path)
	e := fieldsEngine(t, path, restartQ)
	j := create(t, e, "restart the shop")
	if j.Status != askonce.StatusSuccess || j.AnswerSource != askonce.SourceHistory || string(j.Answer.JSON()) != `{"environment":"production","migrate":true}` {
		t.Fatalf("job: status %s, source %s, answer %q; want success from history with every field", j.Status, j.AnswerSource, j.Answer)
	}
	if want := "restart the shop\n\nClarification Answer: environment: production\nmigrate: yes"; j.ResolvedPrompt != want {
		t.Fatalf("resolved prompt %q, want %q", j.ResolvedPrompt, want)
	}
	types := eventTypes(t, e, j)
	if count(types, askonce.EventAsked) != 0 || count(types, askonce.EventAutoResolved) != 1 {
		t.Fatalf("events %v: want one auto_resolved and no asked", types)
	}
}

func TestRule5_AFieldAnsweredEarlierInTheSessionIsFilledAndNotShown(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "askonce.db")
	deployed(t, path)
	e := fieldsEngine(t, path, rolloutQ)
	j := create(t, e, "roll out the shop")
	// Two of three fields are known: the one left is a plain question.
	if j.Status != askonce.StatusPending || j.Question.Type != askonce.QuestionSelectOne || j.Question.Text != "Which region?" || len(j.Question.Fields) != 0 {
		t.Fatalf("job: status %s, question %+v; want pending asking only the region", j.Status, j.Question)
	}
	evs, err := e.Events(ctx, "", j.ID, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range evs {
		if ev.Type != askonce.EventAsked {
			continue
		}
		var d struct {
			Filled map[string]struct{ Value, Source string }
		}
		if err := json.Unmarshal(ev.Data, &d); err != nil || d.Filled["env"].Value != "production" || d.Filled["env"].Source != "history" || d.Filled["migrations"].Value != "yes" {
			t.Fatalf("asked event %s: want the filled fields with their source", ev.Data)
		}
	}
	// The filled values are kept in the store: another engine on the
	// same file merges them into the person's answer.
	other := fieldsEngine(t, path, rolloutQ)
	done, _, err := other.Act(ctx, askonce.Act{Do: askonce.ActAnswer, ID: j.ID, Answer: askonce.TextAnswer("eu")})
	if err != nil {
		t.Fatalf("answer: %v", err)
	}
	if done.Status != askonce.StatusSuccess || done.AnswerSource != askonce.SourceUser || string(done.Answer.JSON()) != `{"env":"production","region":"eu","migrations":true}` {
		t.Fatalf("answered: status %s, source %s, answer %q; want every field, in order", done.Status, done.AnswerSource, done.Answer)
	}
	if want := "roll out the shop\n\nClarification Answer: env: production\nregion: eu\nmigrations: yes"; done.ResolvedPrompt != want {
		t.Fatalf("resolved prompt %q, want %q", done.ResolvedPrompt, want)
	}
}

func TestRule6_EveryFieldTheGoalAnswersAsksNobody(t *testing.T) {
	t.Parallel()
	e := fieldsEngine(t, filepath.Join(t.TempDir(), "askonce.db"), restartQ)
	j := create(t, e, "restart the shop on staging. yes")
	if j.Status != askonce.StatusSuccess || j.AnswerSource != askonce.SourceResolver || string(j.Answer.JSON()) != `{"environment":"staging","migrate":true}` {
		t.Fatalf("job: status %s, source %s, answer %q; want success from the resolver", j.Status, j.AnswerSource, j.Answer)
	}
	// A goal that answers one field leaves the other to ask, alone.
	j = create(t, e, "restart the shop on staging")
	if j.Status != askonce.StatusPending || j.Question.Type != askonce.QuestionConfirm || j.Question.Text != "Run the migrations?" {
		t.Fatalf("job: status %s, question %+v; want the migrations asked alone", j.Status, j.Question)
	}
	done, _, err := e.Act(ctx, askonce.Act{Do: askonce.ActAnswer, ID: j.ID, Answer: askonce.TextAnswer("no")})
	if err != nil || string(done.Answer.JSON()) != `{"environment":"staging","migrate":false}` {
		t.Fatalf("answer: %v, %q", err, done.Answer)
	}
}

func TestAFieldInProjectMemoryIsFilledAndALaterAgentIsAskedOnlyWhatIsNew(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "askonce.db")
	e := fieldsEngine(t, path, deployQ)
	first, err := e.Create(ctx, askonce.CreateRequest{Goal: "deploy the shop", TenantID: "acme", SessionID: "agent-a", Memory: shop})
	if err != nil || first.Status != askonce.StatusPending {
		t.Fatalf("first agent: %v %+v", err, first)
	}
	if _, _, err := e.Act(ctx, askonce.Act{Do: askonce.ActAnswer, TenantID: "acme", ID: first.ID, Answer: askonce.TextAnswer("environment: production\nreplicas: 3\nmigrate: no")}); err != nil {
		t.Fatal(err)
	}
	e2 := fieldsEngine(t, path, rolloutQ)
	second, err := e2.Create(ctx, askonce.CreateRequest{Goal: "roll out", TenantID: "acme", SessionID: "agent-b", Memory: shop})
	if err != nil || second.Status != askonce.StatusPending || second.Question.Text != "Which region?" {
		t.Fatalf("second agent: %v, status %s, question %+v; want only the region asked", err, second.Status, second.Question)
	}
	done, _, err := e2.Act(ctx, askonce.Act{Do: askonce.ActAnswer, TenantID: "acme", ID: second.ID, Answer: askonce.TextAnswer("us")})
	if err != nil || string(done.Answer.JSON()) != `{"env":"production","region":"us","migrations":false}` {
		t.Fatalf("answer: %v, %q", err, done.Answer)
	}
	// Another session outside the project is asked every field.
	third, err := e2.Create(ctx, askonce.CreateRequest{Goal: "roll out", TenantID: "acme", SessionID: "agent-c"})
	if err != nil || third.Status != askonce.StatusPending || len(third.Question.Fields) != 3 {
		t.Fatalf("third agent: %v, status %s, question %+v; want every field asked", err, third.Status, third.Question)
	}
}

func TestRule5_AFieldWithOptionsIsFoundByItsNameAndOptionsInOtherWords(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "askonce.db")
	deployed(t, path)
	// The same choice asked in other words, beside a field without
	// options whose name was answered under another text: only the
	// choice is filled.
	e := fieldsEngine(t, path, `{"text":"Before the restart:","fields":[
		{"name":"environment","type":"SELECT_ONE","text":"Where to?","options":["staging","production"],"required":true},
		{"name":"replicas","text":"How many copies?","required":true}]}`)
	j := create(t, e, "restart the shop")
	if j.Status != askonce.StatusPending || j.Question.Text != "How many copies?" || len(j.Question.Fields) != 0 {
		t.Fatalf("job: status %s, question %+v; want only the copies asked", j.Status, j.Question)
	}
	done, _, err := e.Act(ctx, askonce.Act{Do: askonce.ActAnswer, ID: j.ID, Answer: askonce.TextAnswer("5")})
	if err != nil || string(done.Answer.JSON()) != `{"environment":"production","replicas":"5"}` {
		t.Fatalf("answer: %v, %q", err, done.Answer)
	}
}

// Rule 5: a remembered answer fills a field only when it validates
// against the field as it is now: replicas "3" remembered as text does
// not fill a field that now asks for a whole number up to 2, which is
// asked; it fills one that takes it, as the number 3.
func TestRule5_ARememberedAnswerFillsAFieldOnlyIfTheFieldAsItIsNowTakesIt(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "askonce.db")
	deployed(t, path) // replicas "3", a FREE_TEXT field then
	narrow := `{"text":"Before the restart:","fields":[
		{"name":"environment","type":"SELECT_ONE","text":"Which environment?","options":["staging","production"],"required":true},
		{"name":"replicas","type":"NUMBER","text":"How many replicas?","integer":true,"maximum":2,"required":true}]}`
	j := create(t, fieldsEngine(t, path, narrow), "restart the shop")
	if j.Status != askonce.StatusPending || j.Question.Type != askonce.QuestionNumber || j.Question.Filled == nil {
		t.Fatalf("job %s question %+v; want the replicas asked, the environment filled", j.Status, j.Question)
	}
	wide := strings.Replace(narrow, `"maximum":2`, `"maximum":5`, 1)
	j = create(t, fieldsEngine(t, path, wide), "restart the shop")
	if j.Status != askonce.StatusSuccess || string(j.Answer.JSON()) != `{"environment":"production","replicas":3}` {
		t.Fatalf("job %s answer %s; want both filled, replicas the number 3", j.Status, j.Answer.JSON())
	}
}
