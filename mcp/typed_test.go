package mcp_test

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/mcp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// typedAnswer is the answer the tests give "ask typed", as it is stored.
var typedAnswer = askonce.FieldsAnswer(
	askonce.FieldValue{Name: "replicas", Value: askonce.IntValue(3)},
	askonce.FieldValue{Name: "db", Value: askonce.OptionValue("postgres")},
	askonce.FieldValue{Name: "zones", Value: askonce.OptionsValue("eu", "us")},
	askonce.FieldValue{Name: "start", Value: askonce.TextValue("2026-12-01")},
	askonce.FieldValue{Name: "migrate", Value: askonce.BoolValue(true)},
)

// The form plan elicits carries each field's type as MCP elicitation
// schemas do (an integer with bounds, a titled single select, a
// multi-select with maxItems, string formats, a boolean), and the
// accepted content arrives typed: the number a number, the second of two
// options differing only in case that option, the picks a list.
func TestPlan_ElicitedFormIsTypedAndItsContentArrivesTyped(t *testing.T) {
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			e := newEnv(t)
			el := &elicitor{answers: []func(*sdk.ElicitParams) *sdk.ElicitResult{
				func(*sdk.ElicitParams) *sdk.ElicitResult {
					return &sdk.ElicitResult{Action: "accept", Content: map[string]any{
						"replicas": 3, "db": "postgres", "zones": []any{"us", "eu"},
						"start": "2026-12-01", "migrate": true}}
				},
			}}
			cs := e.connect(clientOptions{version: v, elicit: el})
			var job mcp.JobResult
			call(t, cs, mcp.ToolPlan, map[string]any{"goal": "ask typed"}, &job)
			if job.Status != "success" {
				t.Fatalf("job %+v; want success", job)
			}
			b, _ := json.Marshal(el.asked[0].RequestedSchema)
			var schema struct {
				Properties map[string]struct {
					Type     string   `json:"type"`
					Format   string   `json:"format"`
					Minimum  *float64 `json:"minimum"`
					Maximum  *float64 `json:"maximum"`
					MaxItems int      `json:"maxItems"`
					OneOf    []struct{ Const, Title string }
					Items    struct {
						AnyOf []struct{ Const, Title string }
					}
				}
			}
			if err := json.Unmarshal(b, &schema); err != nil {
				t.Fatal(err)
			}
			p := schema.Properties
			if r := p["replicas"]; r.Type != "integer" || r.Minimum == nil || *r.Minimum != 1 || r.Maximum == nil || *r.Maximum != 10 {
				t.Errorf("replicas %+v; want an integer from 1 to 10", r)
			}
			if d := p["db"]; d.Type != "string" || len(d.OneOf) != 2 || d.OneOf[0].Const != "Postgres" || d.OneOf[1].Title != "postgres (ours)" {
				t.Errorf("db %+v; want a titled single select of both spellings", d)
			}
			if z := p["zones"]; z.Type != "array" || z.MaxItems != 2 || len(z.Items.AnyOf) != 3 {
				t.Errorf("zones %+v; want a multi-select of 3, at most 2", z)
			}
			if p["start"].Type != "string" || p["start"].Format != "date" || p["migrate"].Type != "boolean" {
				t.Errorf("start %+v, migrate %+v; want a date, a boolean", p["start"], p["migrate"])
			}
			j, err := e.engine.Get(context.Background(), "", job.JobID)
			if err != nil {
				t.Fatal(err)
			}
			if !j.Answer.Equal(typedAnswer) {
				t.Fatalf("stored %s; want %s", j.Answer.JSON(), typedAnswer.JSON())
			}
			var want any
			if err := json.Unmarshal(typedAnswer.JSON(), &want); err != nil || !reflect.DeepEqual(job.AnswerValue, want) {
				t.Fatalf("answerValue %v; want %s", job.AnswerValue, typedAnswer.JSON())
			}
		})
	}
}

// The answer tool takes a typed object; a bad one is a tool error
// (isError) naming each bad field, and the question stays pending; the
// good one arrives typed.
func TestAnswer_BadTypedAnswerIsAToolErrorNamingEachField(t *testing.T) {
	e := newEnv(t)
	cs := e.connect(clientOptions{version: versions[1]})
	var job mcp.JobResult
	call(t, cs, mcp.ToolPlan, map[string]any{"goal": "ask typed"}, &job)
	if job.Status != "pending" {
		t.Fatalf("job %+v; want pending", job)
	}
	bad := map[string]any{"replicas": 11, "db": "POSTGRES", "zones": []any{"eu", "us", "ap"}, "start": "tomorrow", "migrate": "maybe", "bogus": "x"}
	msg := toolError(t, cs, mcp.ToolAnswer, map[string]any{"jobId": job.JobID, "answer": bad})
	for _, field := range []string{"replicas", "db", "zones", "start", "migrate", "bogus"} {
		if !strings.Contains(msg, field+":") {
			t.Errorf("tool error %q does not name %s", msg, field)
		}
	}
	for _, other := range []any{
		map[string]any{"replicas": 2.5},
		map[string]any{"replicas": "three"},
		map[string]any{"replicas": map[string]any{"n": []any{1, 2}}},
		map[string]any{"replicas": 3, "REPLICAS": 4},
	} {
		toolError(t, cs, mcp.ToolAnswer, map[string]any{"jobId": job.JobID, "answer": other})
	}
	j, err := e.engine.Get(context.Background(), "", job.JobID)
	if err != nil || j.Status != askonce.StatusPending || !j.Answer.IsZero() {
		t.Fatalf("after bad answers: %v %+v; want pending, no answer", err, j)
	}
	good := map[string]any{"replicas": 3, "db": "postgres", "zones": []any{"us", "eu"}, "start": "2026-12-01", "migrate": true}
	call(t, cs, mcp.ToolAnswer, map[string]any{"jobId": job.JobID, "answer": good}, &job)
	j, err = e.engine.Get(context.Background(), "", job.JobID)
	if err != nil {
		t.Fatal(err)
	}
	if !j.Answer.Equal(typedAnswer) {
		t.Fatalf("stored %s; want %s", j.Answer.JSON(), typedAnswer.JSON())
	}
}
