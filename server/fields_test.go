package server_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
)

// askFields is an interpreter's question with three fields.
const askFields = `{"question":{"text":"Before the deploy:","fields":[
	{"name":"environment","type":"SELECT_ONE","text":"Which environment?","options":["staging","production"],"required":true},
	{"name":"replicas","type":"FREE_TEXT","text":"How many replicas?","default":"2"},
	{"name":"migrate","type":"CONFIRM","text":"Run the migrations?","required":true}]}}`

// TestFields: a question with fields over HTTP (docs/protocol.md rule 7).
func TestFields(t *testing.T) {
	t.Parallel()
	t.Run("JobViewListsThemAndAnObjectAnswersThem", testFieldsJobViewListsThemAndAnObjectAnswersThem)
	t.Run("InvalidAnswerIs422ListingEveryBadField", testFieldsInvalidAnswerIs422ListingEveryBadField)
	t.Run("OneFieldQuestionKeepsTheSingleFieldShape", testFieldsOneFieldQuestionKeepsTheSingleFieldShape)
	t.Run("TypedAnswerIsCheckedAtTheDoor", testFieldsTypedAnswerIsCheckedAtTheDoor)
}

// askTyped asks a bounded whole number and one of two options that
// differ only in case.
const askTyped = `{"question":{"text":"Before the deploy:","fields":[
	{"name":"replicas","type":"NUMBER","integer":true,"minimum":1,"maximum":10,"required":true},
	{"name":"db","type":"SELECT_ONE","options":["Postgres","postgres"],"optionTitles":["PostgreSQL (managed)","PostgreSQL (self-hosted)"],"required":true}]}}`

// Over HTTP an answer of the wrong type, out of bounds, not an option,
// or under two names for one field is 422 listing each
// bad field and what it accepts (a body that is not UTF-8 is 400); nothing
// is stored and the question
// stays pending. A string that spells a value is that value, and a pick
// is the option itself: options differing in case stay distinct.
func testFieldsTypedAnswerIsCheckedAtTheDoor(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{interp: questioner{askTyped}})
	j := e.create(map[string]any{"goal": "deploy the shop"})
	id := str(j, "jobId")
	fields, _ := j["clarificationFields"].([]any)
	if len(fields) != 2 || str(fields[0].(map[string]any), "type") != "NUMBER" || fields[0].(map[string]any)["maximum"] != 10.0 ||
		!slices.Equal(strs(fields[1].(map[string]any)["optionTitles"]), []string{"PostgreSQL (managed)", "PostgreSQL (self-hosted)"}) {
		t.Fatalf("fields: %v", fields)
	}
	for _, c := range []struct{ name, body, field, msg, accepts string }{
		{"OutOfRange", `{"answer":{"replicas":500,"db":"postgres"}}`, "replicas", "500 is out of range", "a whole number from 1 to 10"},
		{"WordsForANumber", `{"answer":{"replicas":"three","db":"postgres"}}`, "replicas", `"three" is not a number`, "a whole number from 1 to 10"},
		{"PastFloat64", `{"answer":{"replicas":1e400,"db":"postgres"}}`, "replicas", "past the largest whole number", "a whole number from 1 to 10"},
		{"NotAnOption", `{"answer":{"replicas":3,"db":"mysql"}}`, "db", `"mysql" is not one of the options`, "one of: Postgres, postgres"},
		{"AmbiguousCase", `{"answer":{"replicas":3,"db":"POSTGRES"}}`, "db", `"POSTGRES" is not one of the options`, "one of: Postgres, postgres"},
		{"ListForOneValue", `{"answer":{"replicas":3,"db":["postgres"]}}`, "db", "a list where one value is expected", "one of: Postgres, postgres"},
		{"BooleanForANumber", `{"answer":{"replicas":true,"db":"postgres"}}`, "replicas", "is true or false", "a whole number from 1 to 10"},
		{"TwoNamesDifferingInCase", `{"answer":{"replicas":3,"REPLICAS":4,"db":"postgres"}}`, "replicas", "given twice", ""},
		{"UnknownName", `{"answer":{"replicas":3,"db":"postgres","bogus":"x"}}`, "bogus", "not a field", "the fields replicas, db"},
	} {
		r := e.do("POST", "/jobs/"+id+"/clarification", c.body)
		wantError(t, r, http.StatusUnprocessableEntity, "invalid", c.msg)
		var got map[string]any
		for _, f := range r.body["fields"].([]any) {
			if fe := f.(map[string]any); str(fe, "name") == c.field {
				got = fe
			}
		}
		if got == nil || !strings.Contains(str(got, "message"), c.msg) || str(got, "accepts") != c.accepts {
			t.Fatalf("%s: fields %v; want %s: %q accepting %q", c.name, r.body["fields"], c.field, c.msg, c.accepts)
		}
	}
	r := e.do("POST", "/jobs/"+id+"/clarification", "{\"answer\":{\"replicas\":3,\"db\":\"post\xffgres\"}}")
	wantError(t, r, http.StatusBadRequest, "bad_request", "not valid UTF-8")
	if g := e.do("GET", "/jobs/"+id, nil); str(g.body, "status") != "pending" || g.body["clarificationValue"] != nil {
		t.Fatalf("after the refused answers: %s; want still pending with no answer", g.raw)
	}
	a := e.do("POST", "/jobs/"+id+"/clarification", `{"answer":{"replicas":"3","db":"postgres"}}`)
	if a.status != http.StatusOK || str(a.body, "status") != "success" || a.body["clarificationValue"].(map[string]any)["replicas"] != 3.0 ||
		a.body["clarificationValue"].(map[string]any)["db"] != "postgres" || str(a.body, "clarificationAnswer") != "replicas: 3; db: postgres" {
		t.Fatalf("answer: %d %s; want replicas the number 3 and the lower-case option", a.status, a.raw)
	}
}

// A question with fields is one pending question whose view adds
// clarificationFields beside the single-field shape (a FREE_TEXT text
// listing every field); an object answer resolves it, one name: value
// line per field.
func testFieldsJobViewListsThemAndAnObjectAnswersThem(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{interp: questioner{askFields}})
	j := e.create(map[string]any{"goal": "deploy the shop"})
	id := str(j, "jobId")
	fields, _ := j["clarificationFields"].([]any)
	if str(j, "status") != "pending" || len(fields) != 3 || str(j, "clarificationType") != "FREE_TEXT" ||
		!strings.Contains(str(j, "clarificationQuestion"), "- environment: Which environment? (one of staging, production)") {
		t.Fatalf("create: %v", j)
	}
	env := fields[0].(map[string]any)
	if str(env, "name") != "environment" || str(env, "type") != "SELECT_ONE" || !slices.Equal(strs(env["options"]), []string{"staging", "production"}) || env["required"] != true {
		t.Fatalf("field: %v", env)
	}
	if g := e.do("GET", "/jobs/"+id, nil); len(g.body["clarificationFields"].([]any)) != 3 {
		t.Fatalf("GET: %s", g.raw)
	}
	a := e.do("POST", "/jobs/"+id+"/clarification", map[string]any{"answer": map[string]any{"environment": "production", "migrate": true}})
	if a.status != http.StatusOK || str(a.body, "status") != "success" ||
		str(a.body, "resolvedPrompt") != "deploy the shop\n\nClarification Answer: environment: production\nreplicas: 2\nmigrate: yes" {
		t.Fatalf("answer: %d %s", a.status, a.raw)
	}
}

// An invalid object answer is 422 listing every bad field with its
// allowed values, and the job stays pending; an answer that is neither a
// string nor an object is 400.
func testFieldsInvalidAnswerIs422ListingEveryBadField(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{interp: questioner{askFields}})
	id := str(e.create(map[string]any{"goal": "deploy the shop"}), "jobId")
	r := e.do("POST", "/jobs/"+id+"/clarification", map[string]any{"answer": map[string]any{"environment": "qa", "colour": "red"}})
	wantError(t, r, http.StatusUnprocessableEntity, "invalid", "3 bad field(s)")
	got := map[string][]string{}
	for _, f := range r.body["fields"].([]any) {
		f := f.(map[string]any)
		got[str(f, "name")] = strs(f["allowed"])
	}
	if len(got) != 3 || !slices.Equal(got["environment"], []string{"staging", "production"}) || !slices.Equal(got["migrate"], []string{"yes", "no"}) ||
		!slices.Equal(got["colour"], []string{"environment", "replicas", "migrate"}) {
		t.Fatalf("fields: %s", r.raw)
	}
	wantError(t, e.do("POST", "/jobs/"+id+"/clarification", map[string]any{"answer": 3}), http.StatusUnprocessableEntity, "invalid", "answer each field by name")
	if g := e.do("GET", "/jobs/"+id, nil); str(g.body, "status") != "pending" {
		t.Fatalf("the job moved: %s", g.raw)
	}
}

// A question of one field keeps today's wire shape exactly: its type,
// text and options, and no clarificationFields.
func testFieldsOneFieldQuestionKeepsTheSingleFieldShape(t *testing.T) {
	t.Parallel()
	one := `{"question":{"fields":[{"name":"environment","type":"SELECT_ONE","text":"Which environment?","options":["staging","production"]}]}}`
	e := newEnv(t, envOptions{interp: questioner{one}})
	j := e.create(map[string]any{"goal": "deploy the shop"})
	if _, ok := j["clarificationFields"]; ok || str(j, "clarificationType") != "SELECT_ONE" || str(j, "clarificationQuestion") != "Which environment?" ||
		!slices.Equal(strs(j["clarificationOptions"]), []string{"staging", "production"}) {
		t.Fatalf("create: %v", j)
	}
	a := e.do("POST", "/jobs/"+str(j, "jobId")+"/clarification", map[string]any{"answer": "staging"})
	if a.status != http.StatusOK || str(a.body, "resolvedPrompt") != "deploy the shop\n\nClarification Answer: staging" {
		t.Fatalf("answer: %d %s", a.status, a.raw)
	}
}

// Gate mode: an agent may report a question with fields; it is asked
// once, answered with an object, and resumed with the lines; a second
// question gets the fallback directive as always.
func TestGateMode_ReportAcceptsAQuestionWithFields(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	id := str(e.create(map[string]any{"goal": "deploy the shop", "mode": "gate"}), "jobId")
	q := map[string]any{"text": "Before the deploy:", "fields": []any{
		map[string]any{"name": "environment", "type": "SELECT_ONE", "options": []string{"staging", "production"}, "required": true},
		map[string]any{"name": "notes", "type": "FREE_TEXT"},
	}}
	r := e.do("POST", "/jobs/"+id+"/report", map[string]any{"question": q})
	if r.status != http.StatusOK || str(r.body, "action") != "ask" || len(obj(r.body, "question")["fields"].([]any)) != 2 ||
		len(obj(r.body, "job")["clarificationFields"].([]any)) != 2 {
		t.Fatalf("report: %d %s", r.status, r.raw)
	}
	if a := e.do("POST", "/jobs/"+id+"/clarification", map[string]any{"answer": map[string]any{"environment": "staging"}}); a.status != http.StatusOK {
		t.Fatalf("answer: %d %s", a.status, a.raw)
	}
	r = e.do("POST", "/jobs/"+id+"/report", map[string]any{"question": q})
	if str(r.body, "action") != "resume" || str(r.body, "resolvedPrompt") != "deploy the shop\n\nClarification Answer: environment: staging" {
		t.Fatalf("resume: %d %s", r.status, r.raw)
	}
	if r = e.do("POST", "/jobs/"+id+"/report", map[string]any{"question": q}); str(r.body, "action") != "proceed" {
		t.Fatalf("second question: %d %s", r.status, r.raw)
	}
	bad := map[string]any{"fields": []any{map[string]any{"name": "a"}, map[string]any{"name": "a"}}}
	id2 := str(e.create(map[string]any{"goal": "deploy the shop", "mode": "gate"}), "jobId")
	wantError(t, e.do("POST", "/jobs/"+id2+"/report", map[string]any{"question": bad}), http.StatusUnprocessableEntity, "invalid", `field "a" appears twice`)
}
