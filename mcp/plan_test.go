package mcp_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/mcp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Each question type is elicited as its typed form and the accepted value
// answers the job's one question, in both protocol eras.
func TestPlan_AcceptedElicitationAnswersTheOneQuestion(t *testing.T) {
	cases := []struct {
		goal   string
		files  []string
		answer map[string]any
		want   string // the answer the plan names
		schema func(props map[string]any) error
	}{
		{"ask select", nil, map[string]any{"answer": "invoices"}, "invoices", oneOf("billing", "invoices")},
		{"ask other", nil, map[string]any{"answer": "billing", "other": "payroll"}, "payroll", func(p map[string]any) error {
			if o, _ := p["other"].(map[string]any); o["maxLength"] != float64(askonce.MaxFreeText) {
				return fmt.Errorf("no free-text other field: %v", p)
			}
			return oneOf("billing", "invoices")(p)
		}},
		{"ask confirm", nil, map[string]any{"answer": true}, "yes", func(p map[string]any) error {
			if a := p["answer"].(map[string]any); a["type"] != "boolean" || a["default"] != false {
				return fmt.Errorf("not a boolean with its default marked: %v", a)
			}
			return nil
		}},
		{"ask file", []string{"a.md", "docs/b.md"}, map[string]any{"answer": "docs/b.md"}, "docs/b.md", oneOf("a.md", "docs/b.md")},
		{"ask text", nil, map[string]any{"answer": "teal"}, "teal", func(p map[string]any) error {
			if a := p["answer"].(map[string]any); a["type"] != "string" || a["maxLength"] != float64(4096) {
				return fmt.Errorf("free text is not a string of at most 4096: %v", a)
			}
			return nil
		}},
	}
	for _, v := range versions {
		for _, tc := range cases {
			t.Run(v+"/"+tc.goal, func(t *testing.T) {
				e := newEnv(t)
				el := &elicitor{answers: []func(*sdk.ElicitParams) *sdk.ElicitResult{func(*sdk.ElicitParams) *sdk.ElicitResult {
					return &sdk.ElicitResult{Action: "accept", Content: tc.answer}
				}}}
				cs := e.connect(clientOptions{version: v, elicit: el})
				var job mcp.JobResult
				res := call(t, cs, mcp.ToolPlan, map[string]any{"goal": tc.goal, "files": tc.files}, &job)
				if job.Status != "success" || job.Plan == nil || job.Plan.Tasks[0].Title != "Use "+tc.want {
					t.Fatalf("job %+v, want a plan using %q", job, tc.want)
				}
				if !strings.Contains(text(res), "Use "+tc.want) {
					t.Fatalf("summary %q does not show the plan", text(res))
				}
				if el.count() != 1 {
					t.Fatalf("elicited %d times, want 1", el.count())
				}
				p := el.asked[0]
				if p.Mode != "form" {
					t.Fatalf("mode %q", p.Mode)
				}
				schema := p.RequestedSchema.(map[string]any)
				if err := tc.schema(schema["properties"].(map[string]any)); err != nil {
					t.Fatal(err)
				}
				if n := e.eventCount("", job.JobID, askonce.EventAsked); n != 1 {
					t.Fatalf("%d asked events", n)
				}
				if !e.metric(`askonce_mcp_elicitations_total{mode="form",outcome="accept"} 1`) {
					t.Fatal("the elicitation was not counted")
				}
			})
		}
	}
}

func oneOf(values ...string) func(map[string]any) error {
	return func(p map[string]any) error {
		a, _ := p["answer"].(map[string]any)
		one, _ := a["oneOf"].([]any)
		if len(one) != len(values) {
			return fmt.Errorf("answer is not a single-select of %v: %v", values, a)
		}
		for i, o := range one {
			m := o.(map[string]any)
			if m["const"] != values[i] || m["title"] == "" {
				return fmt.Errorf("option %d is %v, want %q with a title", i, m, values[i])
			}
		}
		return nil
	}
}

// decline applies the question's default; cancel cancels the job.
func TestPlan_DeclineAppliesTheDefaultAndCancelCancels(t *testing.T) {
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			e := newEnv(t)
			el := &elicitor{answers: []func(*sdk.ElicitParams) *sdk.ElicitResult{action("decline"), action("cancel")}}
			cs := e.connect(clientOptions{version: v, elicit: el})
			var job mcp.JobResult
			call(t, cs, mcp.ToolPlan, map[string]any{"goal": "ask default"}, &job)
			if job.Status != "success" || job.Answer != "no" || job.AnswerSource != "default" {
				t.Fatalf("declined: %+v, want the default no", job)
			}
			call(t, cs, mcp.ToolPlan, map[string]any{"goal": "ask select"}, &job)
			if job.Status != "cancelled" {
				t.Fatalf("cancelled: %+v", job)
			}
			if el.count() != 2 {
				t.Fatalf("elicited %d times, want 2", el.count())
			}
			if !e.metric(`askonce_mcp_elicitations_total{mode="form",outcome="decline"} 1`) || !e.metric(`askonce_mcp_elicitations_total{mode="form",outcome="cancel"} 1`) {
				t.Fatal("decline and cancel were not counted")
			}
		})
	}
}

// An accepted value the question does not take is asked again for the
// same question, with the reason; a valid one then answers it.
func TestPlan_InvalidAcceptedValueIsElicitedAgainForTheSameQuestion(t *testing.T) {
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			e := newEnv(t)
			el := &elicitor{answers: []func(*sdk.ElicitParams) *sdk.ElicitResult{accept("   "), accept("teal")}}
			cs := e.connect(clientOptions{version: v, elicit: el})
			var job mcp.JobResult
			call(t, cs, mcp.ToolPlan, map[string]any{"goal": "ask text"}, &job)
			if job.Status != "success" || job.Answer != "teal" {
				t.Fatalf("job %+v, want answered teal", job)
			}
			if el.count() != 2 || !strings.Contains(el.asked[1].Message, "not accepted") || !strings.Contains(el.asked[1].Message, "Which colour?") {
				t.Fatalf("elicitations %d, second %q", el.count(), el.asked[len(el.asked)-1].Message)
			}
			if n := e.eventCount("", job.JobID, askonce.EventAsked); n != 1 {
				t.Fatalf("%d asked events, want 1", n)
			}
		})
	}
}

// After the first elicitation and two more of the same question, an
// invalid value leaves the job pending.
func TestPlan_ThreeInvalidValuesLeaveTheJobPending(t *testing.T) {
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			e := newEnv(t)
			el := &elicitor{answers: []func(*sdk.ElicitParams) *sdk.ElicitResult{accept(" "), accept(" "), accept(" "), accept("never")}}
			cs := e.connect(clientOptions{version: v, elicit: el})
			var job mcp.JobResult
			res := call(t, cs, mcp.ToolPlan, map[string]any{"goal": "ask text"}, &job)
			if job.Status != "pending" || job.AnswerURL == "" || !strings.Contains(text(res), "stays pending") {
				t.Fatalf("job %+v (%s), want pending", job, text(res))
			}
			if el.count() != 1+mcp.MaxReElicit {
				t.Fatalf("elicited %d times, want %d", el.count(), 1+mcp.MaxReElicit)
			}
			if !e.metric(`askonce_mcp_elicitations_total{mode="form",outcome="invalid"} 3`) {
				t.Fatal("invalid answers were not counted")
			}
		})
	}
}

// A client without elicitation gets the pending job, and answers it with
// the answer tool.
func TestPlan_ClientWithoutElicitationGetsThePendingJob(t *testing.T) {
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			e := newEnv(t)
			cs := e.connect(clientOptions{version: v})
			var job mcp.JobResult
			res := call(t, cs, mcp.ToolPlan, map[string]any{"goal": "ask select"}, &job)
			if job.Status != "pending" || job.Question == nil || job.Question.Text != "Which module?" || !strings.HasPrefix(job.AnswerURL, "http://askonce.test/a/") {
				t.Fatalf("job %+v", job)
			}
			if !strings.Contains(text(res), "answer tool") {
				t.Fatalf("summary %q does not say how to answer", text(res))
			}
			msg := toolError(t, cs, mcp.ToolAnswer, map[string]any{"jobId": job.JobID, "answer": "payroll"})
			if !strings.Contains(msg, "billing") || !strings.Contains(msg, "invoices") {
				t.Fatalf("invalid answer: %q does not list the allowed values", msg)
			}
			call(t, cs, mcp.ToolAnswer, map[string]any{"jobId": job.JobID, "answer": "billing"}, &job)
			if job.Status != "success" || job.Plan.Tasks[0].Title != "Use billing" {
				t.Fatalf("answered: %+v", job)
			}
		})
	}
}

// A client with URL-mode elicitation only gets the job's answer link; the
// call returns once the job has left pending (here answered through the
// link, as the web page does).
func TestPlan_URLOnlyClientGetsTheAnswerLinkAndWaits(t *testing.T) {
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			e := newEnv(t)
			el := &elicitor{}
			el.answers = []func(*sdk.ElicitParams) *sdk.ElicitResult{func(p *sdk.ElicitParams) *sdk.ElicitResult {
				token := p.URL[strings.LastIndex(p.URL, "/")+1:]
				go func() {
					if _, _, err := e.engine.Act(t.Context(), askonce.Act{Do: askonce.ActAnswer, Token: token, Answer: askonce.TextAnswer("invoices"), Background: true}); err != nil {
						t.Errorf("answer by link: %v", err)
					}
				}()
				return &sdk.ElicitResult{Action: "accept"}
			}}
			cs := e.connect(clientOptions{version: v, elicit: el, urlOnly: true})
			var job mcp.JobResult
			call(t, cs, mcp.ToolPlan, map[string]any{"goal": "ask select"}, &job)
			if job.Status != "success" || job.Answer != "invoices" {
				t.Fatalf("job %+v, want planned with the link's answer", job)
			}
			if el.count() != 1 || el.asked[0].Mode != "url" || !strings.HasPrefix(el.asked[0].URL, "http://askonce.test/a/") || el.asked[0].ElicitationID != job.JobID {
				t.Fatalf("elicitations: %+v", el.asked)
			}
			if !e.metric(`askonce_mcp_elicitations_total{mode="url",outcome="accept"} 1`) {
				t.Fatal("the URL elicitation was not counted")
			}
		})
	}
}
