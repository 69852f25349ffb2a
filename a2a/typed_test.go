package a2a_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	sdk "github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	"github.com/askonce/askonce"
	"github.com/askonce/askonce/a2a"
)

// askTyped is a goal the test interpreter asks a question of typed
// fields about: a pick, a bounded whole number, text, two options that
// differ only in case and a multi-select.
const askTyped = "deploy the shop with typed fields"

func typedReply(req *askonce.Request) *askonce.Response {
	if strings.Contains(req.Prompt, askonce.AnswerMarker) {
		return &askonce.Response{Raw: []byte(`{"title":"Deploy","plan":{"tasks":[{"id":"t1","title":"Deploy","dependsOn":[]}]}}`)}
	}
	return &askonce.Response{Raw: []byte(`{"question":{"text":"Before the deploy:","fields":[
		{"name":"environment","type":"SELECT_ONE","options":["staging","production"],"required":true},
		{"name":"replicas","type":"NUMBER","integer":true,"minimum":1,"maximum":10},
		{"name":"region","type":"FREE_TEXT"},
		{"name":"db","type":"SELECT_ONE","options":["Postgres","postgres"],"optionTitles":["Postgres (managed)","postgres (ours)"]},
		{"name":"zones","type":"SELECT_MANY","options":["eu","us","ap"],"maxItems":2}]}}`)}
}

// dataMessage is a message on task carrying data as its one data part.
func dataMessage(task *sdk.Task, data map[string]any) *sdk.SendMessageRequest {
	m := sdk.NewMessage(sdk.MessageRoleUser, sdk.NewDataPart(data))
	m.ContextID, m.TaskID = task.ContextID, task.ID
	return &sdk.SendMessageRequest{Message: m}
}

// Over every interface of the card (A2A 1.0 and 0.3, JSON-RPC and REST),
// a data part answering a question with fields is checked as the HTTP API
// checks it: an object where a number goes, a boolean for text and an
// unknown name are refused with an error naming each, the task stays
// input-required and nothing is stored; a valid answer, as the field
// values or as {"answer": {...}}, arrives typed: the number a number, the
// second of two options differing in case that option, the picks a list.
func TestADataPartAnswerIsCheckedAtTheDoorAndArrivesTyped(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, iface := range []struct {
		version sdk.ProtocolVersion
		binding sdk.TransportProtocol
	}{
		{sdk.Version, sdk.TransportProtocolJSONRPC},
		{sdk.Version, sdk.TransportProtocolHTTPJSON},
		{a2av0.Version, sdk.TransportProtocolJSONRPC},
		{a2av0.Version, sdk.TransportProtocolHTTPJSON},
	} {
		for _, wrapped := range []bool{false, true} {
			name := string(iface.version) + "/" + string(iface.binding)
			if wrapped {
				name += "/answer-object"
			}
			t.Run(name, func(t *testing.T) {
				c := e.clientOver(keyA, iface.version, iface.binding)
				task := send(t, c, userText("", "", askTyped))
				if task.Status.State != sdk.TaskStateInputRequired {
					t.Fatalf("state %s; want input-required", task.Status.State)
				}
				wrap := func(d map[string]any) map[string]any {
					if wrapped {
						return map[string]any{"answer": d}
					}
					return d
				}
				// The SDK's 0.3 HTTP+JSON client reads every error as "server
				// error" (see TestEveryInterfaceOfTheCard...): there, any
				// error is the refusal, and the raw body is read below.
				lossy := iface.version == a2av0.Version && iface.binding == sdk.TransportProtocolHTTPJSON
				refused := func(err error) bool { return errors.Is(err, sdk.ErrInvalidParams) || (lossy && err != nil) }
				bad := wrap(map[string]any{"environment": "staging", "replicas": map[string]any{"n": []any{1, 2}}, "region": true, "bogus": "x"})
				_, err := c.SendMessage(context.Background(), dataMessage(task, bad))
				if !refused(err) {
					t.Fatalf("bad answer: %v; want invalid params", err)
				}
				msg := err.Error()
				if lossy {
					body, _ := json.Marshal(bad)
					_, out := post(t, e.base, a2a.RESTPath+a2av0.RESTPathPrefix+"/message:send", "",
						`{"message":{"messageId":"m-bad","role":"ROLE_USER","taskId":"`+string(task.ID)+`","contextId":"`+task.ContextID+`","content":[{"data":{"data":`+string(body)+`}}]}}`)
					b, _ := json.Marshal(out)
					msg = string(b)
				}
				for _, field := range []string{"replicas", "region", "bogus"} {
					if !strings.Contains(msg, field) {
						t.Errorf("error %q does not name %s", msg, field)
					}
				}
				if strings.Contains(msg, "map[") {
					t.Errorf("error %q prints a Go map", msg)
				}
				for _, d := range []map[string]any{
					{"environment": "staging", "replicas": 11},
					{"environment": "staging", "replicas": 2.5},
					{"environment": "staging", "replicas": "three"},
					{"environment": "staging", "zones": []any{"eu", "us", "ap"}},
					{"environment": "staging", "ENVIRONMENT": "production"},
				} {
					if _, err := c.SendMessage(context.Background(), dataMessage(task, wrap(d))); !refused(err) {
						t.Errorf("answer %v: %v; want invalid params", d, err)
					}
				}
				j, err := e.eng.Get(context.Background(), "tenant-a", string(task.ID))
				if err != nil {
					t.Fatal(err)
				}
				if j.Status != askonce.StatusPending || !j.Answer.IsZero() {
					t.Fatalf("after refused answers: status %s, answer %v; want pending with none", j.Status, j.Answer)
				}
				good := wrap(map[string]any{"environment": "production", "replicas": 3, "region": "eu-west", "db": "postgres", "zones": []any{"us", "eu"}})
				done := send(t, c, dataMessage(task, good))
				if done.Status.State != sdk.TaskStateCompleted {
					t.Fatalf("state %s; want completed", done.Status.State)
				}
				j, err = e.eng.Get(context.Background(), "tenant-a", string(task.ID))
				if err != nil {
					t.Fatal(err)
				}
				want := askonce.FieldsAnswer(
					askonce.FieldValue{Name: "environment", Value: askonce.OptionValue("production")},
					askonce.FieldValue{Name: "replicas", Value: askonce.IntValue(3)},
					askonce.FieldValue{Name: "region", Value: askonce.TextValue("eu-west")},
					askonce.FieldValue{Name: "db", Value: askonce.OptionValue("postgres")},
					askonce.FieldValue{Name: "zones", Value: askonce.OptionsValue("eu", "us")},
				)
				if !j.Answer.Equal(want) {
					t.Fatalf("stored answer %s; want %s", j.Answer.JSON(), want.JSON())
				}
			})
		}
	}
}

// The input-required task's schema types each field as MCP elicitation
// does: an integer with its bounds, options with their titles, a list of
// picks with its bounds.
func TestTheQuestionSchemaTypesEachField(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.client(keyA)
	task := send(t, c, userText("", "", askTyped))
	q := dataPart(t, task.Status.Message.Parts)
	b, _ := json.Marshal(q["schema"].(map[string]any)["properties"])
	var props map[string]struct {
		Type     string  `json:"type"`
		Minimum  float64 `json:"minimum"`
		Maximum  float64 `json:"maximum"`
		MaxItems int     `json:"maxItems"`
		OneOf    []struct {
			Const string `json:"const"`
			Title string `json:"title"`
		} `json:"oneOf"`
	}
	if err := json.Unmarshal(b, &props); err != nil {
		t.Fatal(err)
	}
	if r := props["replicas"]; r.Type != "integer" || r.Minimum != 1 || r.Maximum != 10 {
		t.Errorf("replicas %+v; want an integer from 1 to 10", r)
	}
	if d := props["db"]; d.Type != "string" || len(d.OneOf) != 2 || d.OneOf[1].Const != "postgres" || d.OneOf[1].Title != "postgres (ours)" {
		t.Errorf("db %+v; want two titled options", d)
	}
	if z := props["zones"]; z.Type != "array" || z.MaxItems != 2 {
		t.Errorf("zones %+v; want an array of at most 2", z)
	}
}

// A number past float64 (1e400) in a data part is refused, as the HTTP
// API refuses it, naming the number, and the question stays pending.
func TestANumberPastFloat64InADataPartIsRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.client(keyA)
	task := send(t, c, userText("", "", askTyped))
	_, out := post(t, e.base, a2a.Path, "1.0", `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","taskId":"`+
		string(task.ID)+`","contextId":"`+task.ContextID+`","parts":[{"data":{"environment":"staging","replicas":1e400}}]}}}`)
	// The SDK decodes a data part's numbers as float64, so 1e400 is
	// refused as it is read, by an error that names the number (not yet
	// the field, as HTTP's does).
	if rpcCode(out) != -32602 || !strings.Contains(fmt.Sprint(out), "1e400") {
		t.Fatalf("1e400: %v; want invalid params", out)
	}
	j, err := e.eng.Get(context.Background(), "tenant-a", string(task.ID))
	if err != nil || j.Status != askonce.StatusPending || !j.Answer.IsZero() {
		t.Fatalf("after 1e400: %v %+v; want pending with no answer", err, j)
	}
}
