package mcp

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/internal/jobview"
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
	// Candidates' limits are askonce.MaxCandidates and
	// askonce.MaxCandidateBytes (a test keeps the description equal).
	Candidates []string            `json:"candidates,omitempty" jsonschema:"names of the things besides files the goal may refer to (objects in a room, environments, branches, tables, models): at most 1000, each at most 256 bytes of visible text"`
	HardCap    string              `json:"hardCap,omitempty" jsonschema:"what happens if the planner asks a second time: fallback (default) or fail"`
	Project    string              `json:"project,omitempty" jsonschema:"the project whose remembered answers this job shares with other sessions and agents (at most 128 bytes); default: the name of the client's first root folder, if it sends roots"`
	Notify     *askonce.Recipients `json:"notify,omitempty" jsonschema:"who the question is also sent to on Slack and by email, as on POST /jobs; default: the server's recipients"`
}

// AskArgs are the arguments of the ask_user tool.
type AskArgs struct {
	Question   string   `json:"question" jsonschema:"the one question to put to the user"`
	Type       string   `json:"type,omitempty" jsonschema:"CONFIRM, SELECT_ONE, TARGET_FILE or FREE_TEXT (default)"`
	Options    []string `json:"options,omitempty" jsonschema:"the choices of a SELECT_ONE or TARGET_FILE question"`
	Default    string   `json:"default,omitempty" jsonschema:"the safe answer used if the user declines"`
	AllowOther bool     `json:"allowOther,omitempty" jsonschema:"a SELECT_ONE question also takes an answer of the user's own"`
	// Fields make one question ask for several things at once
	// (askonce.Question.Fields).
	Fields    []askonce.QuestionField `json:"fields,omitempty" jsonschema:"up to 5 named fields, each {name, type, text, options, default, allowOther, required}, asked together in one form; the question is then the form's heading and the answer an object of field values"`
	SessionID string                  `json:"sessionId,omitempty" jsonschema:"the session; default: this MCP session"`
	JobID     string                  `json:"jobId,omitempty" jsonschema:"the job this question belongs to; default: the session's open job"`
	Task      string                  `json:"task,omitempty" jsonschema:"a key for the task you work on; a new key starts a new job with its own question"`
	Project   string                  `json:"project,omitempty" jsonschema:"the project whose remembered answers this job shares with other sessions and agents (at most 128 bytes); default: the name of the client's first root folder, if it sends roots"`
	Notify    *askonce.Recipients     `json:"notify,omitempty" jsonschema:"who a new job's question is also sent to on Slack and by email, as on POST /jobs; default: the server's recipients"`
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
	Answer any    `json:"answer" jsonschema:"the user's answer to the job's pending question: text, a number, true or false, a list of options, or for a question with fields an object of field values"`
}

// answer is the tool's answer as the typed answer it gives: text is the
// user's words (for a question with fields, one \"name: value\" line per
// field); any other JSON value is read as the HTTP API reads it
// (askonce.ParseAnswerJSON), each value of its JSON type.
func (a AnswerArgs) answer() (askonce.Answer, error) {
	if s, ok := a.Answer.(string); ok {
		return askonce.TextAnswer(s), nil
	}
	if a.Answer == nil {
		return askonce.Answer{}, askonce.Errorf(askonce.EINVALID, "answer is empty")
	}
	b, err := json.Marshal(a.Answer)
	if err != nil {
		return askonce.Answer{}, askonce.Errorf(askonce.EINVALID, "answer is not a JSON value: %v", err)
	}
	return askonce.ParseAnswerJSON(b)
}

// JobArgs are the arguments of get_job.
type JobArgs struct {
	JobID string `json:"jobId"`
}

// ListArgs are the arguments of list_pending.
type ListArgs struct {
	SessionID string `json:"sessionId,omitempty" jsonschema:"only this session's jobs"`
}

// The job, question and plan as the tools return them: the same views the
// A2A endpoint sends (internal/jobview).
type (
	JobResult      = jobview.Job
	QuestionResult = jobview.Question
	PlanResult     = jobview.Plan
	TaskResult     = jobview.Task
)

// AskResult is ask_user's answer: what the agent does next.
type AskResult struct {
	Action         string          `json:"action" jsonschema:"ask, wait, resume, proceed, done or fail"`
	JobID          string          `json:"jobId"`
	Question       *QuestionResult `json:"question,omitempty"`
	Answer         string          `json:"answer,omitempty" jsonschema:"the answer as a person reads it"`
	Value          any             `json:"value,omitempty" jsonschema:"the answer typed, as JSON: a string, number, boolean or list of options, or an object of field values"`
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
	return askonce.Question{Type: t, Text: a.Question, Options: a.Options, Default: a.Default, AllowOther: a.AllowOther, Fields: a.Fields}
}

// summary is the short readable text of a job result.
func summary(j *askonce.Job, answerURL string) string {
	switch j.Status {
	case askonce.StatusSuccess:
		if note := j.MemoryNote(time.Now()); note != "" {
			return "The question was " + note + ".\n" + jobview.PlanText(j.Title, j.Plan)
		}
		if note := j.ExpiryNote(); note != "" {
			return note + "\n" + jobview.PlanText(j.Title, j.Plan)
		}
		return jobview.PlanText(j.Title, j.Plan)
	case askonce.StatusPending:
		s := fmt.Sprintf("Job %s waits for an answer to: %s", j.ID, jobview.QuestionText(j.Question))
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
		if note := j.ExpiryNote(); note != "" {
			return msg + ".\n" + note
		}
		return msg + "."
	}
}

// formRequest is the form elicitation of j's question; problem, when set,
// says why the previous answer was refused.
func formRequest(j *askonce.Job, problem string) *sdk.ElicitParams {
	q := j.Question
	msg := q.Intro() // a question with fields: the form lists them
	if msg == "" {
		msg = "Please answer:"
	}
	if problem != "" {
		msg = "Your answer was not accepted: " + problem + "\n\n" + msg
	}
	return &sdk.ElicitParams{Mode: "form", Message: msg, RequestedSchema: jobview.AnswerSchema(q)}
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
