package mcp_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/mcp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// plan elicits a question with fields as one form with a property per
// field (and one for an allowOther field's own answer); the accepted
// content is the answer object; a bad value is elicited again naming the
// field.
func TestPlan_QuestionWithFieldsIsOneFormWithAPropertyPerField(t *testing.T) {
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			e := newEnv(t)
			el := &elicitor{answers: []func(*sdk.ElicitParams) *sdk.ElicitResult{
				func(*sdk.ElicitParams) *sdk.ElicitResult {
					return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"environment:other": "\u200b", "migrate": true}}
				},
				func(*sdk.ElicitParams) *sdk.ElicitResult {
					return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"environment": "staging", "environment:other": "canary", "migrate": false}}
				},
			}}
			cs := e.connect(clientOptions{version: v, elicit: el})
			var job mcp.JobResult
			call(t, cs, mcp.ToolPlan, map[string]any{"goal": "ask fields"}, &job)
			want := "Use environment: canary\nreplicas: 2\nmigrate: no"
			if job.Status != "success" || job.Plan == nil || job.Plan.Tasks[0].Title != want {
				t.Fatalf("job %+v, want a plan using %q", job, want)
			}
			if el.count() != 2 {
				t.Fatalf("elicited %d times, want 2", el.count())
			}
			first := el.asked[0]
			if first.Mode != "form" || first.Message != "Before the deploy:" {
				t.Fatalf("form %q %q", first.Mode, first.Message)
			}
			schema := first.RequestedSchema.(map[string]any)
			props := schema["properties"].(map[string]any)
			if len(props) != 4 || props["environment:other"] == nil || props["replicas"].(map[string]any)["default"] != "2" ||
				props["migrate"].(map[string]any)["title"] != "Run the migrations?" {
				t.Fatalf("properties %v", props)
			}
			if req, _ := schema["required"].([]any); !slices.Equal(req, []any{"migrate"}) {
				t.Fatalf("required %v, want migrate only (environment takes an answer of one's own, replicas has a default)", schema["required"])
			}
			if again := el.asked[1].Message; !strings.Contains(again, "environment: ") || !strings.Contains(again, "staging, production") {
				t.Fatalf("the second elicitation does not name the bad field: %q", again)
			}
			if n := e.eventCount("", job.JobID, askonce.EventAsked); n != 1 {
				t.Fatalf("%d asked events", n)
			}
		})
	}
}

// ask_user takes fields: one question, asked once, answered by an object.
func TestAskUser_AcceptsFields(t *testing.T) {
	e := newEnv(t)
	cs := e.connect(clientOptions{version: versions[1]})
	args := map[string]any{"question": "Before the deploy:", "fields": []any{
		map[string]any{"name": "environment", "type": "SELECT_ONE", "options": []string{"staging", "production"}, "required": true},
		map[string]any{"name": "notes", "type": "FREE_TEXT"},
	}}
	var r mcp.AskResult
	call(t, cs, mcp.ToolAskUser, args, &r)
	if r.Action != "ask" || r.Question == nil || len(r.Question.Fields) != 2 || !strings.Contains(r.Question.Text, "- environment:") {
		t.Fatalf("first: %+v", r)
	}
	call(t, cs, mcp.ToolAnswer, map[string]any{"jobId": r.JobID, "answer": map[string]any{"environment": "prod"}}, nil)
	call(t, cs, mcp.ToolAskUser, args, &r)
	if r.Action != "resume" || r.Answer != "environment: production" || fmt.Sprint(r.Value) != "map[environment:production]" || !strings.HasSuffix(r.ResolvedPrompt, "Clarification Answer: environment: production") {
		t.Fatalf("resume: %+v", r)
	}
	bad := map[string]any{"question": "x", "fields": []any{map[string]any{"name": "a"}, map[string]any{"name": "A"}}}
	if msg := toolError(t, cs, mcp.ToolAskUser, bad); !strings.Contains(msg, `field "A" appears twice`) {
		t.Fatalf("duplicate names: %q", msg)
	}
}
