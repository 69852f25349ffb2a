package a2a_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	sdk "github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/askonce/askonce"
)

// askFields is a goal the test interpreter asks a question with fields
// about, and plans with the answer's lines as its one task's title.
const askFields = "deploy the shop with fields"

func fieldsReply(req *askonce.Request) *askonce.Response {
	if i := strings.LastIndex(req.Prompt, askonce.AnswerMarker); i >= 0 {
		plan := map[string]any{"title": "Deploy", "plan": map[string]any{"tasks": []any{
			map[string]any{"id": "t1", "title": req.Prompt[i+len(askonce.AnswerMarker):], "dependsOn": []string{}}}}}
		b, _ := json.Marshal(plan)
		return &askonce.Response{Raw: b}
	}
	return &askonce.Response{Raw: []byte(`{"question":{"text":"Before the deploy:","fields":[
		{"name":"environment","type":"SELECT_ONE","options":["staging","production"],"required":true},
		{"name":"migrate","type":"CONFIRM","required":true}]}}`)}
}

// A question with fields is an input-required task whose data part has
// the fields and a schema with a property per field; a data part of field
// values answers it, and one with a bad value is refused naming the field.
func TestQuestionWithFieldsIsAnsweredByADataPartOfFieldValues(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.client(keyA)
	task := send(t, c, userText("", "", askFields))
	if task.Status.State != sdk.TaskStateInputRequired {
		t.Fatalf("state %s; want input-required", task.Status.State)
	}
	q := dataPart(t, task.Status.Message.Parts)
	fields, _ := q["fields"].([]any)
	props, _ := q["schema"].(map[string]any)["properties"].(map[string]any)
	if len(fields) != 2 || props["environment"] == nil || props["migrate"] == nil {
		t.Fatalf("question %v; want two fields and a property for each", q)
	}
	answer := func(values map[string]any) *sdk.SendMessageRequest {
		m := sdk.NewMessage(sdk.MessageRoleUser, sdk.NewDataPart(values))
		m.ContextID, m.TaskID = task.ContextID, task.ID
		return &sdk.SendMessageRequest{Message: m}
	}
	_, err := c.SendMessage(context.Background(), answer(map[string]any{"environment": "qa", "migrate": true}))
	if !errors.Is(err, sdk.ErrInvalidParams) || !strings.Contains(err.Error(), "environment") {
		t.Fatalf("bad value: %v; want invalid params naming environment", err)
	}
	done := send(t, c, answer(map[string]any{"environment": "prod", "migrate": false}))
	if done.Status.State != sdk.TaskStateCompleted {
		t.Fatalf("state %s; want completed", done.Status.State)
	}
	plan := dataPart(t, done.Artifacts[0].Parts)
	if title := plan["tasks"].([]any)[0].(map[string]any)["title"]; title != "environment: production\nmigrate: no" {
		t.Fatalf("plan task %q; want the answer's lines", title)
	}
}
