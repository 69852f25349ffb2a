// Package jobview is the one mapping of a job to the shapes the agent
// channels (mcp, a2a) hand to agents: the job, its typed question, its
// plan, the form a question is answered with and the answer read back out
// of that form. A channel wraps these in its protocol's envelope; what a
// question or a plan looks like to an agent is written once, here.
package jobview

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
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
	// AnswerValue is the answer typed, as JSON (askonce.Answer.JSON): a
	// string, number, boolean or list of options, or an object of
	// field values.
	AnswerValue  any    `json:"answerValue,omitempty" jsonschema:"the answer typed, as JSON: a string, number, boolean or list of options, or an object of field values"`
	AnswerSource string `json:"answerSource,omitempty"`
	// AnsweredFrom says which remembered answer resolved the question:
	// "answered from project memory, 3 days ago, job …".
	AnsweredFrom string             `json:"answeredFrom,omitempty"`
	Memory       *askonce.MemoryRef `json:"memory,omitempty" jsonschema:"the remembered answer that resolved the question"`
	AnswerURL    string             `json:"answerUrl,omitempty" jsonschema:"where a person answers the pending question"`
	Plan         *Plan              `json:"plan,omitempty"`
	Error        string             `json:"error,omitempty"`

	// ExpiryNote says plainly that nobody answered the question in time
	// and what became of it (askonce.Job.ExpiryNote).
	ExpiryNote string `json:"expiryNote,omitempty" jsonschema:"when nobody answered in time: whether a default was used or the job expired"`
}

// Question is a job's question.
type Question struct {
	Type       string   `json:"type"`
	Text       string   `json:"text"`
	Options    []string `json:"options,omitempty"`
	AllowOther bool     `json:"allowOther,omitempty"`
	// Constraints narrow the answer beyond the type: option titles, a
	// number's bounds, how many options, a text's format and length.
	askonce.Constraints
	Default   string `json:"default,omitempty"`
	ExpiresAt string `json:"expiresAt,omitempty"`
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
	r := &Question{Type: string(q.Type), Text: q.Text, Options: q.Options, AllowOther: q.AllowOther, Constraints: q.Constraints, Default: q.Default, Fields: q.Fields}
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
		AnswerValue:         answerValue(j.Answer),
		AnswerSource:        string(j.AnswerSource),
		AnsweredFrom:        j.MemoryNote(time.Now()),
		Memory:              j.AnswerMemory,
		AnswerURL:           answerURL,
		Plan:                PlanOf(j.Plan),
		Error:               j.Error,
		ExpiryNote:          j.ExpiryNote(),
	}
}

// answerValue is a's typed JSON, nil for no answer.
func answerValue(a askonce.Answer) any {
	if a.IsZero() {
		return nil
	}
	return a.JSON()
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

// AnswerSchema is the form a question is answered with, as a JSON Schema
// of the shapes an MCP elicitation's requestedSchema may take: one
// property, "answer", typed by the question, plus "other" for an
// allowOther SELECT_ONE question; for a question with fields, one
// property per field, named after it, plus "<name>:other" for an
// allowOther field (":" is in no field's name). A property carries its
// type's constraints: a string's format and length, a number's bounds
// ("integer" for a whole one), a boolean for CONFIRM, options as
// oneOf const/title (one) or an array of anyOf const/title (several,
// minItems/maxItems). MCP elicits it; A2A sends it with an
// input-required task. AnswerFrom reads the filled-in form back.
func AnswerSchema(q *askonce.Question) map[string]any {
	if len(q.Fields) > 0 {
		return fieldsSchema(q)
	}
	answer := answerProperty(q)
	answer["title"] = "Answer"
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
	for i := range q.Fields {
		f := &q.Fields[i]
		fq := f.AsQuestion()
		p := answerProperty(&fq)
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

// answerProperty is the property that answers q (a question without
// fields, or a field's): its type, constraints, what it accepts in words
// and its default as a value of its type.
func answerProperty(q *askonce.Question) map[string]any {
	p := map[string]any{"description": q.Accepts()}
	titled := func() []any {
		one := make([]any, 0, len(q.Options))
		for i, o := range q.Options {
			one = append(one, map[string]any{"const": o, "title": q.OptionTitle(i)})
		}
		return one
	}
	switch q.Type {
	case askonce.QuestionConfirm:
		p["type"] = "boolean"
	case askonce.QuestionSelectOne:
		p["type"] = "string"
		p["oneOf"] = titled()
	case askonce.QuestionSelectMany:
		p["type"] = "array"
		p["items"] = map[string]any{"anyOf": titled()}
		if q.MinItems > 0 {
			p["minItems"] = q.MinItems
		}
		if q.MaxItems > 0 {
			p["maxItems"] = q.MaxItems
		}
	case askonce.QuestionNumber:
		p["type"] = "number"
		if q.Integer {
			p["type"] = "integer"
		}
		if q.Minimum != nil {
			p["minimum"] = *q.Minimum
		}
		if q.Maximum != nil {
			p["maximum"] = *q.Maximum
		}
	case askonce.QuestionTargetFile:
		p["type"] = "string"
		if len(q.Options) > 0 {
			p["oneOf"] = titled()
		} else {
			p["maxLength"] = askonce.MaxPath
		}
	default:
		p["type"] = "string"
		if q.Format != "" {
			p["format"] = string(q.Format)
		}
		if q.MinLength > 0 {
			p["minLength"] = q.MinLength
		}
		p["maxLength"] = askonce.MaxFreeText
		if q.MaxLength > 0 {
			p["maxLength"] = q.MaxLength
		}
	}
	if q.Default != "" {
		if a, err := askonce.ValidateAnswer(q, askonce.TextAnswer(q.Default)); err == nil {
			p["default"] = a.Value.JSON()
		}
	}
	return p
}

func otherProperty(title string) map[string]any {
	return map[string]any{"type": "string", "title": title, "maxLength": askonce.MaxFreeText}
}

// AnswerFrom reads the answer to q out of content, the form AnswerSchema
// describes filled in (an MCP elicitation's content, an A2A data part),
// each value as the type it came in: a string is text (an option's value
// exactly is that option), a number a number, a boolean a boolean, a
// list of strings the options picked. An answer of one's own ("other")
// wins over a choice. For a question with fields every property is a
// field by its name, unknown names included, so that validation names
// each bad one; an empty value leaves its field out (its default
// applies). Nothing is checked here: the engine validates the answer
// once (askonce.ValidateAnswer).
func AnswerFrom(q *askonce.Question, content map[string]any) askonce.Answer {
	if q == nil || len(q.Fields) == 0 {
		var base askonce.Question
		if q != nil {
			base = *q
		}
		if o, ok := content["other"].(string); ok && strings.TrimSpace(o) != "" && base.AllowOther {
			return askonce.AnswerOf(askonce.TextValue(o))
		}
		x, ok := content["answer"]
		if !ok || x == nil {
			return askonce.Answer{}
		}
		return askonce.AnswerOf(valueOf(&base, x))
	}
	names := make([]string, 0, len(content))
	for name := range content {
		names = append(names, name)
	}
	sort.Strings(names)
	a := askonce.Answer{Fields: []askonce.FieldValue{}}
	for _, name := range names {
		x := content[name]
		if x == nil {
			continue
		}
		if base, ok := strings.CutSuffix(name, OtherSuffix); ok {
			if f := field(q, base); f != nil && f.AllowOther {
				continue // read with its field
			}
		}
		fq := askonce.Question{Type: askonce.QuestionFreeText}
		if f := field(q, name); f != nil {
			fq = f.AsQuestion()
			if o, ok := content[name+OtherSuffix].(string); ok && f.AllowOther && strings.TrimSpace(o) != "" {
				x = o
			}
		}
		a.Fields = append(a.Fields, askonce.FieldValue{Name: name, Value: valueOf(&fq, x)})
	}
	for i := range q.Fields {
		f := &q.Fields[i]
		o, ok := content[f.Name+OtherSuffix].(string)
		if _, named := content[f.Name]; !named && ok && f.AllowOther && strings.TrimSpace(o) != "" {
			a.Fields = append(a.Fields, askonce.FieldValue{Name: f.Name, Value: askonce.TextValue(o)})
		}
	}
	return a
}

// field is q's field called name, nil for none.
func field(q *askonce.Question, name string) *askonce.QuestionField {
	for i := range q.Fields {
		if q.Fields[i].Name == name {
			return &q.Fields[i]
		}
	}
	return nil
}

// valueOf is x, a decoded JSON value answering q, as a typed value: a
// string that is one of q's options exactly is that option; anything
// else keeps its JSON type (askonce.Value's UnmarshalJSON), for
// validation to accept or refuse.
func valueOf(q *askonce.Question, x any) askonce.Value {
	if s, ok := x.(string); ok {
		if slices.Contains(q.Options, s) {
			switch q.Type {
			case askonce.QuestionSelectOne:
				return askonce.OptionValue(s)
			case askonce.QuestionTargetFile:
				return askonce.PathValue(s)
			}
		}
		return askonce.TextValue(s)
	}
	if l, ok := x.([]any); ok && q.Type == askonce.QuestionSelectMany {
		picks := make([]string, 0, len(l))
		for _, e := range l {
			s, ok := e.(string)
			if !ok {
				picks = nil
				break
			}
			picks = append(picks, s)
		}
		if picks != nil {
			return askonce.OptionsValue(picks...)
		}
	}
	var v askonce.Value
	b, err := json.Marshal(x)
	if err != nil || v.UnmarshalJSON(b) != nil {
		_ = v.UnmarshalJSON([]byte("{}")) // no value at all; validation says so
	}
	return v
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
