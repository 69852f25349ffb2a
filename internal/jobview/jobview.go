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
	// Fields are the fields of a question that asks for several things
	// at once; its answer is an object of field values.
	Fields []askonce.QuestionField `json:"fields,omitempty"`
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
	r := &Question{Type: string(q.Type), Text: q.Text, Options: q.Options, AllowOther: q.AllowOther, Default: q.Default, Fields: q.Fields}
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
		Answer:              j.Answer.String(),
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
// allowOther SELECT_ONE question; for a question with fields, one
// property per field, named after it, plus "<name>:other" for an
// allowOther field (":" is in no field's name). MCP elicits it; A2A
// sends it with an input-required task.
func AnswerSchema(q *askonce.Question) map[string]any {
	if len(q.Fields) > 0 {
		return fieldsSchema(q)
	}
	answer := answerProperty(q.Type, q.Options, q.Default)
	props := map[string]any{"answer": answer}
	required := []string{"answer"}
	if q.Type == askonce.QuestionSelectOne && q.AllowOther {
		props["other"] = otherProperty("Other (your own answer)")
		required = nil
	}
	s := map[string]any{"type": "object", "properties": props}
	if required != nil {
		s["required"] = required
	}
	return s
}

// OtherSuffix ends the property of a field's answer of one's own.
const OtherSuffix = ":other"

// fieldsSchema is AnswerSchema of a question with fields: a field is
// required when the question requires it and it has no default and no
// answer of one's own.
func fieldsSchema(q *askonce.Question) map[string]any {
	props := map[string]any{}
	var required []string
	for _, f := range q.Fields {
		p := answerProperty(f.Type, f.Options, f.Default)
		p["title"] = f.Text
		props[f.Name] = p
		other := f.Type == askonce.QuestionSelectOne && f.AllowOther
		if other {
			props[f.Name+OtherSuffix] = otherProperty(f.Text + " (your own answer)")
		}
		if f.Required && f.Default == "" && !other {
			required = append(required, f.Name)
		}
	}
	s := map[string]any{"type": "object", "properties": props}
	if required != nil {
		s["required"] = required
	}
	return s
}

// answerProperty is the property that answers a question of type t.
func answerProperty(t askonce.QuestionType, options []string, def string) map[string]any {
	answer := map[string]any{"type": "string", "title": "Answer"}
	choices := func(opts []string, titles func(string) string) {
		one := make([]any, 0, len(opts))
		for _, o := range opts {
			one = append(one, map[string]any{"const": o, "title": titles(o)})
		}
		answer["oneOf"] = one
	}
	same := func(s string) string { return s }
	switch t {
	case askonce.QuestionSelectOne:
		choices(options, same)
	case askonce.QuestionConfirm:
		choices([]string{"yes", "no"}, func(s string) string { return strings.ToUpper(s[:1]) + s[1:] })
	case askonce.QuestionTargetFile:
		if len(options) > 0 {
			choices(options, same)
		} else {
			answer["maxLength"] = askonce.MaxPath
		}
	default:
		answer["maxLength"] = askonce.MaxFreeText
	}
	if def != "" {
		answer["default"] = def
	}
	return answer
}

func otherProperty(title string) map[string]any {
	return map[string]any{"type": "string", "title": title, "maxLength": askonce.MaxFreeText}
}

// AnswerFor reads the answer to q out of content filled in by
// AnswerSchema. For a question with fields it is one "name: value" line per
// field (an answer of one's own winning over a choice; empty
// ones left out, so that defaults apply), which the engine validates;
// content that names no field is read as AnswerOf reads it (text, or
// name: value lines). For any other question it is AnswerOf(content).
func AnswerFor(q *askonce.Question, content map[string]any) string {
	if q == nil || len(q.Fields) == 0 {
		return AnswerOf(content)
	}
	var lines []string
	named := false
	for _, f := range q.Fields {
		v, ok := content[f.Name]
		o, hasOther := content[f.Name+OtherSuffix]
		named = named || ok || hasOther
		a := valueText(v)
		if s, _ := o.(string); strings.TrimSpace(s) != "" {
			a = s
		}
		if strings.TrimSpace(a) != "" {
			lines = append(lines, f.Name+": "+a)
		}
	}
	if !named {
		return AnswerOf(content)
	}
	// Read by the engine as one "name: value" line per field
	// (askonce.FieldLinesAnswer).
	return strings.Join(lines, "\n")
}

// valueText is a form value as answer text: a boolean is yes or no.
func valueText(v any) string {
	switch v := v.(type) {
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

// AnswerOf reads the answer out of content filled in by AnswerSchema:
// "other" when it is filled in, else "answer" (a boolean is yes or no).
func AnswerOf(content map[string]any) string {
	if o, ok := content["other"].(string); ok && strings.TrimSpace(o) != "" {
		return o
	}
	return valueText(content["answer"])
}

// Kind says in a person's words what a question of type t asks for: the
// pages and the terminal show this, and the type's code stays in the API.
func Kind(t askonce.QuestionType) string {
	switch t {
	case askonce.QuestionSelectOne:
		return "Pick one"
	case askonce.QuestionTargetFile:
		return "Which file?"
	case askonce.QuestionConfirm:
		return "Yes or no"
	case askonce.QuestionSelectMany:
		return "Pick one or more"
	case askonce.QuestionNumber:
		return "A number"
	}
	return "In your own words"
}
