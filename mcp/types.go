package mcp

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/askonce/askonce"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// This file maps MCP's shapes to askonce's domain and back: tool
// arguments and results, questions as elicitation schemas, elicitation
// content as answers. Tool input and output schemas are generated from
// these types by the SDK.

// PlanArgs are the arguments of the plan tool.
type PlanArgs struct {
	Goal      string   `json:"goal" jsonschema:"the natural-language goal to turn into a plan"`
	SessionID string   `json:"sessionId,omitempty" jsonschema:"groups jobs for the repeat guard; default: this MCP session"`
	Profile   string   `json:"profile,omitempty" jsonschema:"the interpreter profile"`
	Files     []string `json:"files,omitempty" jsonschema:"candidate files the goal may refer to"`
	HardCap   string   `json:"hardCap,omitempty" jsonschema:"what happens if the planner asks a second time: fallback (default) or fail"`
}

// AskArgs are the arguments of the ask_user tool.
type AskArgs struct {
	Question   string   `json:"question" jsonschema:"the one question to put to the user"`
	Type       string   `json:"type,omitempty" jsonschema:"CONFIRM, SELECT_ONE, TARGET_FILE or FREE_TEXT (default)"`
	Options    []string `json:"options,omitempty" jsonschema:"the choices of a SELECT_ONE or TARGET_FILE question"`
	Default    string   `json:"default,omitempty" jsonschema:"the safe answer used if the user declines"`
	AllowOther bool     `json:"allowOther,omitempty" jsonschema:"a SELECT_ONE question also takes an answer of the user's own"`
	SessionID  string   `json:"sessionId,omitempty" jsonschema:"the session; default: this MCP session"`
	JobID      string   `json:"jobId,omitempty" jsonschema:"the job this question belongs to; default: the session's open job"`
	Task       string   `json:"task,omitempty" jsonschema:"a key for the task you work on; a new key starts a new job with its own question"`
}

// ReportPlanArgs are the arguments of the report_plan tool.
type ReportPlanArgs struct {
	JobID string    `json:"jobId" jsonschema:"the job from ask_user"`
	Plan  PlanInput `json:"plan" jsonschema:"the plan you made"`
}

// PlanInput is a plan as an agent reports it.
type PlanInput struct {
	Title       string      `json:"title,omitempty"`
	Tasks       []TaskInput `json:"tasks" jsonschema:"the tasks, a DAG by dependsOn"`
	Assumptions []string    `json:"assumptions,omitempty" jsonschema:"assumptions made instead of asking"`
	Spec        any         `json:"spec,omitempty" jsonschema:"an optional structured spec"`
}

// TaskInput is one task of a reported plan.
type TaskInput struct {
	ID          string   `json:"id"`
	Title       string   `json:"title"`
	Instruction string   `json:"instruction,omitempty"`
	DependsOn   []string `json:"dependsOn,omitempty"`
}

// AnswerArgs are the arguments of the answer tool.
type AnswerArgs struct {
	JobID  string `json:"jobId"`
	Answer string `json:"answer" jsonschema:"the user's answer to the job's pending question"`
}

// JobArgs are the arguments of get_job.
type JobArgs struct {
	JobID string `json:"jobId"`
}

// ListArgs are the arguments of list_pending.
type ListArgs struct {
	SessionID string `json:"sessionId,omitempty" jsonschema:"only this session's jobs"`
}

// JobResult is a job as the tools return it.
type JobResult struct {
	JobID               string          `json:"jobId"`
	Status              string          `json:"status"`
	Title               string          `json:"title"`
	Mode                string          `json:"mode"`
	SessionID           string          `json:"sessionId"`
	Goal                string          `json:"goal"`
	ClarificationStatus string          `json:"clarificationStatus"`
	Question            *QuestionResult `json:"question,omitempty"`
	Answer              string          `json:"answer,omitempty"`
	AnswerSource        string          `json:"answerSource,omitempty"`
	AnswerURL           string          `json:"answerUrl,omitempty" jsonschema:"where a person answers the pending question"`
	Plan                *PlanResult     `json:"plan,omitempty"`
	Error               string          `json:"error,omitempty"`
}

// QuestionResult is a job's question.
type QuestionResult struct {
	Type       string   `json:"type"`
	Text       string   `json:"text"`
	Options    []string `json:"options,omitempty"`
	AllowOther bool     `json:"allowOther,omitempty"`
	Default    string   `json:"default,omitempty"`
	ExpiresAt  string   `json:"expiresAt,omitempty"`
}

// PlanResult is a job's plan.
type PlanResult struct {
	Title       string       `json:"title,omitempty"`
	Tasks       []TaskResult `json:"tasks"`
	Assumptions []string     `json:"assumptions,omitempty"`
	Spec        any          `json:"spec,omitempty"`
}

// TaskResult is one task of a plan.
type TaskResult struct {
	ID          string   `json:"id"`
	Title       string   `json:"title"`
	Instruction string   `json:"instruction,omitempty"`
	DependsOn   []string `json:"dependsOn"`
}

// AskResult is ask_user's answer: what the agent does next.
type AskResult struct {
	Action         string          `json:"action" jsonschema:"ask, wait, resume, proceed, done or fail"`
	JobID          string          `json:"jobId"`
	Question       *QuestionResult `json:"question,omitempty"`
	Answer         string          `json:"answer,omitempty"`
	ResolvedPrompt string          `json:"resolvedPrompt,omitempty"`
	Directive      string          `json:"directive,omitempty"`
	Default        string          `json:"default,omitempty"`
	AnswerURL      string          `json:"answerUrl,omitempty"`
	Job            JobResult       `json:"job"`
}

// ListResult is list_pending's answer.
type ListResult struct {
	Jobs []JobResult `json:"jobs"`
}

func questionResult(q *askonce.Question) *QuestionResult {
	if q == nil {
		return nil
	}
	r := &QuestionResult{Type: string(q.Type), Text: q.Text, Options: q.Options, AllowOther: q.AllowOther, Default: q.Default}
	if q.ExpiresAt != nil {
		r.ExpiresAt = q.ExpiresAt.UTC().Format(time.RFC3339)
	}
	return r
}

func jobResult(j *askonce.Job, answerURL string) JobResult {
	r := JobResult{
		JobID:               j.ID,
		Status:              string(j.Status),
		Title:               j.Title,
		Mode:                string(j.Mode),
		SessionID:           j.SessionID,
		Goal:                j.Goal,
		ClarificationStatus: string(j.ClarificationStatus),
		Question:            questionResult(j.Question),
		Answer:              j.Answer,
		AnswerSource:        string(j.AnswerSource),
		AnswerURL:           answerURL,
		Error:               j.Error,
	}
	if p := j.Plan; p != nil {
		pr := &PlanResult{Title: p.Title, Assumptions: p.Assumptions, Tasks: []TaskResult{}}
		for _, t := range p.Tasks {
			deps := t.DependsOn
			if deps == nil {
				deps = []string{}
			}
			pr.Tasks = append(pr.Tasks, TaskResult{ID: t.ID, Title: t.Title, Instruction: t.Instruction, DependsOn: deps})
		}
		if len(p.Spec) > 0 {
			_ = json.Unmarshal(p.Spec, &pr.Spec)
		}
		r.Plan = pr
	}
	return r
}

func (p PlanInput) plan() (*askonce.Plan, error) {
	out := &askonce.Plan{Title: p.Title, Assumptions: p.Assumptions, Tasks: []askonce.Task{}}
	for _, t := range p.Tasks {
		deps := t.DependsOn
		if deps == nil {
			deps = []string{}
		}
		out.Tasks = append(out.Tasks, askonce.Task{ID: t.ID, Title: t.Title, Instruction: t.Instruction, DependsOn: deps})
	}
	if p.Spec != nil {
		b, err := json.Marshal(p.Spec)
		if err != nil {
			return nil, askonce.Errorf(askonce.EINVALID, "plan.spec: %v", err)
		}
		out.Spec = b
	}
	return out, nil
}

func (a AskArgs) question() askonce.Question {
	t := askonce.QuestionType(strings.ToUpper(strings.TrimSpace(a.Type)))
	if t == "" {
		t = askonce.QuestionFreeText
	}
	return askonce.Question{Type: t, Text: a.Question, Options: a.Options, Default: a.Default, AllowOther: a.AllowOther}
}

// summary is the short readable text of a job result.
func summary(j *askonce.Job, answerURL string) string {
	switch j.Status {
	case askonce.StatusSuccess:
		var b strings.Builder
		fmt.Fprintf(&b, "Planned %q: %d tasks.", j.Title, len(j.Plan.Tasks))
		for _, t := range j.Plan.Tasks {
			fmt.Fprintf(&b, "\n- %s: %s", t.ID, t.Title)
			if len(t.DependsOn) > 0 {
				fmt.Fprintf(&b, " (after %s)", strings.Join(t.DependsOn, ", "))
			}
		}
		for _, a := range j.Plan.Assumptions {
			fmt.Fprintf(&b, "\nAssumed: %s", a)
		}
		return b.String()
	case askonce.StatusPending:
		s := fmt.Sprintf("Job %s waits for an answer to: %s", j.ID, j.Question.Text)
		if len(j.Question.Options) > 0 {
			s += " (" + strings.Join(j.Question.Options, " / ") + ")"
		}
		if answerURL != "" {
			s += "\nThe user can answer at " + answerURL
		}
		return s + "\nAsk the user and pass the reply to the answer tool; do not ask anything else."
	case askonce.StatusPlanning:
		return fmt.Sprintf("Job %s is still planning; call get_job later.", j.ID)
	default:
		msg := fmt.Sprintf("Job %s is %s", j.ID, j.Status)
		if j.Error != "" {
			msg += ": " + j.Error
		}
		return msg + "."
	}
}

// elicitSchema is the form a question is asked with: one property,
// "answer", typed by the question, plus "other" for an allowOther
// SELECT_ONE question.
func elicitSchema(q *askonce.Question) map[string]any {
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

// elicitAnswer reads the answer out of accepted form content: "other"
// when it is filled in, else "answer".
func elicitAnswer(content map[string]any) string {
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

// formRequest is the form elicitation of j's question; problem, when set,
// says why the previous answer was refused.
func formRequest(j *askonce.Job, problem string) *sdk.ElicitParams {
	q := j.Question
	msg := q.Text
	if problem != "" {
		msg = "Your answer was not accepted: " + problem + "\n\n" + msg
	}
	return &sdk.ElicitParams{Mode: "form", Message: msg, RequestedSchema: elicitSchema(q)}
}

// urlRequest is the URL elicitation of j's question: its answer link.
func urlRequest(j *askonce.Job, url string) *sdk.ElicitParams {
	return &sdk.ElicitParams{
		Mode:          "url",
		Message:       "Please answer this question in your browser: " + j.Question.Text,
		URL:           url,
		ElicitationID: j.ID,
	}
}
