// Package jobview is the one mapping of a job to the shapes the agent
// channels (mcp, a2a) hand to agents: the job, its typed question, its
// plan, the form a question is answered with and the answer read back out
// of that form. A channel wraps these in its protocol's envelope; what a
// question or a plan looks like to an agent is written once, here.
package jobview

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/askonce/askonce"
)

// Job is a job as agents see it.
type Job struct {
	JobID               string    `json:"jobId"`
	Status              string    `json:"status"`
	Title               string    `json:"title"`
	Mode                string    `json:"mode"`
	SessionID           string    `json:"sessionId"`
	Goal                string    `json:"goal"`
	ClarificationStatus string    `json:"clarificationStatus"`
	Question            *Question `json:"question,omitempty"`
	Answer              string    `json:"answer,omitempty"`
	AnswerSource        string    `json:"answerSource,omitempty"`
	// AnsweredFrom says which remembered answer resolved the question:
	// "answered from project memory, 3 days ago, job …".
	AnsweredFrom string             `json:"answeredFrom,omitempty"`
	Memory       *askonce.MemoryRef `json:"memory,omitempty" jsonschema:"the remembered answer that resolved the question"`
	AnswerURL    string             `json:"answerUrl,omitempty" jsonschema:"where a person answers the pending question"`
	Plan         *Plan              `json:"plan,omitempty"`
	Error        string             `json:"error,omitempty"`
}

// Question is a job's question.
type Question struct {
	Type       string   `json:"type"`
	Text       string   `json:"text"`
	Options    []string `json:"options,omitempty"`
	AllowOther bool     `json:"allowOther,omitempty"`
	Default    string   `json:"default,omitempty"`
	ExpiresAt  string   `json:"expiresAt,omitempty"`
}

// Plan is a job's plan.
type Plan struct {
	Title       string   `json:"title,omitempty"`
	Tasks       []Task   `json:"tasks"`
	Assumptions []string `json:"assumptions,omitempty"`
	Spec        any      `json:"spec,omitempty"`
}

// Task is one task of a plan.
type Task struct {
	ID          string   `json:"id"`
	Title       string   `json:"title"`
	Instruction string   `json:"instruction,omitempty"`
	DependsOn   []string `json:"dependsOn"`
}

// QuestionOf is q as agents see it; nil for nil.
func QuestionOf(q *askonce.Question) *Question {
	if q == nil {
		return nil
	}
	r := &Question{Type: string(q.Type), Text: q.Text, Options: q.Options, AllowOther: q.AllowOther, Default: q.Default}
	if q.ExpiresAt != nil {
		r.ExpiresAt = q.ExpiresAt.UTC().Format(time.RFC3339)
	}
	return r
}

// PlanOf is p as agents see it; nil for nil. Dependencies are never null.
func PlanOf(p *askonce.Plan) *Plan {
	if p == nil {
		return nil
	}
	pr := &Plan{Title: p.Title, Assumptions: p.Assumptions, Tasks: []Task{}}
	for _, t := range p.Tasks {
		deps := t.DependsOn
		if deps == nil {
			deps = []string{}
		}
		pr.Tasks = append(pr.Tasks, Task{ID: t.ID, Title: t.Title, Instruction: t.Instruction, DependsOn: deps})
	}
	if len(p.Spec) > 0 {
		_ = json.Unmarshal(p.Spec, &pr.Spec)
	}
	return pr
}

// JobOf is j as agents see it, with answerURL, its answer link ("" for
// none).
func JobOf(j *askonce.Job, answerURL string) Job {
	return Job{
		JobID:               j.ID,
		Status:              string(j.Status),
		Title:               j.Title,
		Mode:                string(j.Mode),
		SessionID:           j.SessionID,
		Goal:                j.Goal,
		ClarificationStatus: string(j.ClarificationStatus),
		Question:            QuestionOf(j.Question),
		Answer:              j.Answer,
		AnswerSource:        string(j.AnswerSource),
		AnsweredFrom:        j.MemoryNote(time.Now()),
		Memory:              j.AnswerMemory,
		AnswerURL:           answerURL,
		Plan:                PlanOf(j.Plan),
		Error:               j.Error,
	}
}

// PlanText is a plan's readable summary: title, tasks with their
// dependencies, assumptions.
func PlanText(title string, p *askonce.Plan) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Planned %q: %s.", title, Tasks(len(p.Tasks)))
	for _, t := range p.Tasks {
		fmt.Fprintf(&b, "\n- %s: %s", t.ID, t.Title)
		if len(t.DependsOn) > 0 {
			fmt.Fprintf(&b, " (after %s)", strings.Join(t.DependsOn, ", "))
		}
	}
	for _, a := range p.Assumptions {
		fmt.Fprintf(&b, "\nAssumed: %s", a)
	}
	return b.String()
}

// Tasks counts a plan's tasks in words: "1 task", "3 tasks".
func Tasks(n int) string {
	if n == 1 {
		return "1 task"
	}
	return strconv.Itoa(n) + " tasks"
}

// QuestionText is a question's readable line: its text and its choices.
func QuestionText(q *askonce.Question) string {
	s := q.Text
	if len(q.Options) > 0 {
		s += " (" + strings.Join(q.Options, " / ") + ")"
	}
	return s
}

// AnswerSchema is the form a question is answered with, as a JSON Schema:
// one property, "answer", typed by the question, plus "other" for an
// allowOther SELECT_ONE question. MCP elicits it; A2A sends it with an
// input-required task.
func AnswerSchema(q *askonce.Question) map[string]any {
	answer := map[string]any{"type": "string", "title": "Answer"}
	choices := func(opts []string, titles func(string) string) {
		one := make([]any, 0, len(opts))
		for _, o := range opts {
			one = append(one, map[string]any{"const": o, "title": titles(o)})
		}
		answer["oneOf"] = one
	}
	same := func(s string) string { return s }
	props := map[string]any{"answer": answer}
	required := []string{"answer"}
	switch q.Type {
	case askonce.QuestionSelectOne:
		choices(q.Options, same)
		if q.AllowOther {
			props["other"] = map[string]any{"type": "string", "title": "Other (your own answer)", "maxLength": askonce.MaxFreeText}
			required = nil
		}
	case askonce.QuestionConfirm:
		choices([]string{"yes", "no"}, func(s string) string { return strings.ToUpper(s[:1]) + s[1:] })
	case askonce.QuestionTargetFile:
		if len(q.Options) > 0 {
			choices(q.Options, same)
		} else {
			answer["maxLength"] = askonce.MaxPath
		}
	default:
		answer["maxLength"] = askonce.MaxFreeText
	}
	if q.Default != "" {
		answer["default"] = q.Default
	}
	s := map[string]any{"type": "object", "properties": props}
	if required != nil {
		s["required"] = required
	}
	return s
}

// AnswerOf reads the answer out of content filled in by AnswerSchema:
// "other" when it is filled in, else "answer" (a boolean is yes or no).
func AnswerOf(content map[string]any) string {
	if o, ok := content["other"].(string); ok && strings.TrimSpace(o) != "" {
		return o
	}
	switch v := content["answer"].(type) {
	case string:
		return v
	case bool:
		if v {
			return "yes"
		}
		return "no"
	case nil:
		return ""
	default:
		return fmt.Sprint(v)
	}
}
