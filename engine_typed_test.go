package askonce_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/askonce/askonce"
)

// The answer reaches the builder exactly: a specSchema's bounded integer
// is asked as a NUMBER, an answer it does not take is refused at the door
// with the question still pending (the one question is not spent), and
// the plan's spec carries the answer as a JSON integer.
func TestRule7_ASpecIntegerIsAskedAsANumberCheckedAtTheDoorAndReachesTheSpecAsAnInteger(t *testing.T) {
	t.Parallel()
	e := newEngine(t, rulesInterpreter(t))
	schema := `{"type":"object","required":["replicas","regions"],"properties":{
		"replicas":{"type":"integer","minimum":1,"maximum":10,"title":"How many replicas should run?"},
		"regions":{"type":"array","items":{"enum":["eu","us","EU"]},"minItems":1}}}`
	j, err := e.Create(ctx, askonce.CreateRequest{Goal: "scale the web service", SessionID: "typed", SpecSchema: json.RawMessage(schema)})
	if err != nil {
		t.Fatal(err)
	}
	q := j.Question
	if j.Status != askonce.StatusPending || q == nil || len(q.Fields) != 2 {
		t.Fatalf("job %s question %+v; want the two fields asked", j.Status, q)
	}
	replicas, regions := q.Fields[0], q.Fields[1]
	if replicas.Type != askonce.QuestionNumber || !replicas.Integer || *replicas.Minimum != 1 || *replicas.Maximum != 10 || replicas.Text != "How many replicas should run?" {
		t.Fatalf("replicas field %+v; want a whole NUMBER from 1 to 10 asked in the schema's words", replicas)
	}
	if regions.Type != askonce.QuestionSelectMany || regions.MinItems != 1 || len(regions.Options) != 3 {
		t.Fatalf("regions field %+v; want SELECT_MANY of its items' enum", regions)
	}
	for _, bad := range []string{
		`{"replicas":"three","regions":["eu"]}`,
		`{"replicas":500,"regions":["eu"]}`,
		`{"replicas":3,"regions":["eu","eu"]}`,
		`{"replicas":3,"regions":"eu","REPLICAS":4}`,
		`{"replicas":1e400,"regions":["eu"]}`,
	} {
		_, _, err := e.Act(ctx, askonce.Act{Do: askonce.ActAnswer, ID: j.ID, Answer: mustJSON(bad)})
		var ae *askonce.Error
		if !asError(err, &ae) || ae.Code != askonce.EINVALID || len(ae.Fields) == 0 {
			t.Fatalf("answer %s: %v; want EINVALID listing the bad fields", bad, err)
		}
		if got, _ := e.Get(ctx, "", j.ID); got.Status != askonce.StatusPending || !got.Answer.IsZero() {
			t.Fatalf("after answer %s: job %s answer %s; want still pending, nothing stored", bad, got.Status, got.Answer.JSON())
		}
	}
	done, _, err := e.Act(ctx, askonce.Act{Do: askonce.ActAnswer, ID: j.ID, Answer: mustJSON(`{"replicas":"3","regions":["EU","eu"]}`)})
	if err != nil {
		t.Fatal(err)
	}
	if done.Status != askonce.StatusSuccess || string(done.Answer.JSON()) != `{"replicas":3,"regions":["eu","EU"]}` {
		t.Fatalf("job %s answer %s; want success with the typed answer", done.Status, done.Answer.JSON())
	}
	spec := string(done.Plan.Spec)
	if !strings.Contains(spec, `"replicas":3,`) || !strings.Contains(spec, `"regions":["eu","EU"]`) {
		t.Fatalf("spec %s; want replicas the integer 3 and both regions, told apart by case", spec)
	}
}

// Rule 4: after the answer, the interpreter gets it typed beside the
// resolved prompt: a number is a JSON number.
func TestRule4_TheInterpreterGetsTheAnswerTyped(t *testing.T) {
	t.Parallel()
	var got json.RawMessage
	e := newEngine(t, scripted(
		func(*askonce.Request) (*askonce.Response, error) {
			return &askonce.Response{Raw: []byte(`{"question":{"type":"NUMBER","text":"How many?","integer":true,"maximum":10}}`)}, nil
		},
		func(r *askonce.Request) (*askonce.Response, error) {
			got = r.Answer
			return &askonce.Response{Raw: []byte(`{"plan":{"title":"t","tasks":[{"id":"a","title":"a","dependsOn":[]}]}}`)}, nil
		},
	))
	j := create(t, e, "scale it")
	if _, _, err := e.Act(ctx, askonce.Act{Do: askonce.ActAnswer, ID: j.ID, Answer: askonce.TextAnswer(" 3 ")}); err != nil {
		t.Fatal(err)
	}
	if string(got) != `3` {
		t.Fatalf("the interpreter got answer %s, want the number 3", got)
	}
}
