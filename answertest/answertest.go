// Package answertest holds what every channel's answer tests share.
//
// It draws typed questions and valid answers to them (pgregory.net/rapid)
// and stores them through a real engine, for the property that an answer
// reads back the same on every channel: each channel's test renders the
// stored job as the channel shows it and reads the answer back out of
// that rendering (Check).
//
// Its CountingStore counts a store's reads of jobs, for the tests that
// pin that each channel's answer reads its job once (AskedElsewhere sets
// one up).
package answertest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"pgregory.net/rapid"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/client"
	"github.com/askonce/askonce/server"
)

// Question draws a question of any type, with option titles, two options
// that differ only in case, bounds, formats, or two to three fields. It
// is as an interpreter asks it (not normalised).
func Question(t *rapid.T) askonce.Question {
	if rapid.IntRange(0, 3).Draw(t, "withFields") == 0 {
		names := rapid.Permutation([]string{"environment", "replicas", "owner", "zones", "migrate"}).Draw(t, "names")
		n := rapid.IntRange(2, 3).Draw(t, "fields")
		q := askonce.Question{Text: "Before the deploy:"}
		for i := range n {
			p := plain(t, fmt.Sprintf("field%d.", i))
			q.Fields = append(q.Fields, askonce.QuestionField{Name: names[i], Type: p.Type, Text: "What " + names[i] + "?", Options: p.Options, Constraints: p.Constraints, Required: true})
		}
		return q
	}
	return plain(t, "")
}

func plain(t *rapid.T, label string) askonce.Question {
	opts := rapid.SliceOfNDistinct(rapid.StringMatching(`[A-Za-z][A-Za-z ]{0,6}[a-z]`), 2, 4, func(s string) string { return s }).Draw(t, label+"options")
	if lower := strings.ToLower(opts[0]); lower != opts[0] && !contains(opts, lower) {
		opts = append(opts, lower) // options that differ only in case
	}
	q := askonce.Question{Text: "Which?", Type: rapid.SampledFrom(askonce.QuestionTypes).Draw(t, label+"type")}
	switch q.Type {
	case askonce.QuestionSelectOne, askonce.QuestionSelectMany:
		q.Options = opts
		if rapid.Bool().Draw(t, label+"titled") {
			for i, o := range opts {
				q.OptionTitles = append(q.OptionTitles, fmt.Sprintf("%s (%d)", o, i+1))
			}
		}
		if q.Type == askonce.QuestionSelectMany {
			q.MaxItems = rapid.IntRange(1, len(opts)).Draw(t, label+"maxItems")
		}
	case askonce.QuestionNumber:
		q.Integer = rapid.Bool().Draw(t, label+"integer")
		lo := float64(rapid.IntRange(-1000, 1000).Draw(t, label+"min"))
		hi := lo + float64(rapid.IntRange(0, 1000).Draw(t, label+"span"))
		q.Minimum, q.Maximum = &lo, &hi
	case askonce.QuestionTargetFile:
		q.Options = []string{"a.go", "docs/x.md"}
	case askonce.QuestionFreeText:
		q.Format = rapid.SampledFrom([]askonce.TextFormat{"", "", askonce.FormatEmail, askonce.FormatDate}).Draw(t, label+"format")
	}
	return q
}

func contains(s []string, x string) bool {
	for _, e := range s {
		if e == x {
			return true
		}
	}
	return false
}

// Answer draws a valid answer to q (as asked) and returns it as the
// engine stores it: validated against q normalised.
func Answer(t *rapid.T, q askonce.Question) askonce.Answer {
	n := q.Clone()
	if err := n.Normalize(); err != nil {
		t.Fatalf("normalize %+v: %v", q, err)
	}
	var a askonce.Answer
	if len(n.Fields) == 0 {
		a = askonce.AnswerOf(value(t, &n, ""))
	} else {
		for i, f := range n.Fields {
			fq := askonce.Question{Type: f.Type, Options: f.Options, Constraints: f.Constraints}
			a.Fields = append(a.Fields, askonce.FieldValue{Name: f.Name, Value: value(t, &fq, fmt.Sprintf("field%d.", i))})
		}
	}
	v, err := askonce.ValidateAnswer(&n, a)
	if err != nil {
		t.Fatalf("drew an invalid answer %s to %+v: %v", a.JSON(), n, err)
	}
	return v
}

func value(t *rapid.T, q *askonce.Question, label string) askonce.Value {
	switch q.Type {
	case askonce.QuestionConfirm:
		return askonce.BoolValue(rapid.Bool().Draw(t, label+"yes"))
	case askonce.QuestionSelectOne:
		return askonce.OptionValue(rapid.SampledFrom(q.Options).Draw(t, label+"pick"))
	case askonce.QuestionSelectMany:
		most := q.MaxItems
		if most == 0 {
			most = len(q.Options)
		}
		k := rapid.IntRange(max(q.MinItems, 1), most).Draw(t, label+"n")
		return askonce.OptionsValue(rapid.Permutation(q.Options).Draw(t, label+"picks")[:k]...)
	case askonce.QuestionNumber:
		if q.Integer {
			return askonce.IntValue(int64(rapid.IntRange(int(*q.Minimum), int(*q.Maximum)).Draw(t, label+"n")))
		}
		return askonce.FloatValue(rapid.Float64Range(*q.Minimum, *q.Maximum).Draw(t, label+"x"))
	case askonce.QuestionTargetFile:
		return askonce.PathValue(rapid.SampledFrom([]string{"a.go", "docs/x.md", "src/new file.go"}).Draw(t, label+"path"))
	}
	switch q.Format {
	case askonce.FormatEmail:
		return askonce.TextValue(rapid.StringMatching(`[a-z]{1,8}@[a-z]{1,8}\.(com|org)`).Draw(t, label+"email"))
	case askonce.FormatDate:
		return askonce.TextValue(fmt.Sprintf("20%02d-%02d-%02d", rapid.IntRange(0, 99).Draw(t, label+"y"), rapid.IntRange(1, 12).Draw(t, label+"m"), rapid.IntRange(1, 28).Draw(t, label+"d")))
	}
	return askonce.TextValue(rapid.StringMatching(`[\p{L}\p{N}][\p{L}\p{N}\p{P} <>&*_~]{0,40}[\p{L}\p{N}]`).Draw(t, label+"text"))
}

// Env is an engine on a real SQLite file whose interpreter asks each
// goal's question, and plans once it has an answer; its HTTP API serves
// the views the Go client (and the terminal) read.
type Env struct {
	Engine *askonce.Engine
	Client *client.Client
	asks   sync.Map // goal → question JSON
	n      atomic.Int64
}

// New opens an Env for the test.
func New(t testing.TB) *Env {
	t.Helper()
	e := &Env{}
	e.Engine = &askonce.Engine{Store: openSQLite(t), Interpreter: askonce.InterpreterFunc(e.interpret)}
	t.Cleanup(func() { e.Engine.Drain(context.Background()) })
	api := httptest.NewServer(server.New(server.Config{Engine: e.Engine}))
	t.Cleanup(api.Close)
	var err error
	if e.Client, err = client.New(api.URL); err != nil {
		t.Fatal(err)
	}
	return e
}

func (e *Env) interpret(_ context.Context, req *askonce.Request) (*askonce.Response, error) {
	if strings.Contains(req.Prompt, askonce.AnswerMarker) {
		return &askonce.Response{Raw: []byte(`{"title":"Planned","plan":{"tasks":[{"id":"t1","title":"Do it","dependsOn":[]}]}}`)}, nil
	}
	q, ok := e.asks.Load(req.Goal)
	if !ok {
		return nil, fmt.Errorf("no question for %q", req.Goal)
	}
	return &askonce.Response{Raw: q.([]byte)}, nil
}

// Stored asks q in a new job, answers it with a over the engine, and
// returns the job as the store reads it back; the stored answer must be
// a.
func (e *Env) Stored(t *rapid.T, q askonce.Question, a askonce.Answer) *askonce.Job {
	ctx := context.Background()
	raw, err := json.Marshal(map[string]any{"question": q})
	if err != nil {
		t.Fatal(err)
	}
	goal := fmt.Sprintf("goal %d", e.n.Add(1))
	e.asks.Store(goal, raw)
	j, err := e.Engine.Create(ctx, askonce.CreateRequest{SessionID: goal, Goal: goal})
	if err != nil || j.Status != askonce.StatusPending {
		t.Fatalf("create: %v %+v", err, j)
	}
	if _, _, err := e.Engine.Act(ctx, askonce.Act{Do: askonce.ActAnswer, TenantID: j.TenantID, ID: j.ID, Answer: a}); err != nil {
		t.Fatalf("reply %s: %v", a.JSON(), err)
	}
	if j, err = e.Engine.Get(ctx, j.TenantID, j.ID); err != nil {
		t.Fatal(err)
	}
	if !j.Answer.Equal(a) {
		t.Fatalf("stored %s; want %s", j.Answer.JSON(), a.JSON())
	}
	return j
}

// Check is the property each channel's test states: for any question
// and valid answer (Question, Answer), stored through a new Env and read
// back (Stored), the channel's rendering of the job j holds the answer a
// unchanged; each checks that.
func Check(t *testing.T, each func(t *rapid.T, env *Env, j *askonce.Job, a askonce.Answer)) {
	t.Helper()
	env := New(t)
	rapid.Check(t, func(t *rapid.T) {
		q := Question(t)
		a := Answer(t, q)
		each(t, env, env.Stored(t, q, a), a)
	})
}
