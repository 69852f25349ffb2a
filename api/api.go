// Package api holds the request and response bodies of askonce's HTTP
// API: the JSON that the server (package server) writes and reads and the
// Go client (package client) sends and decodes. It imports the domain
// (package askonce) and the standard library only, so that a program that
// speaks the API links no server.
//
// The JSON tags are the wire names, and the server's OpenAPI document
// (GET /openapi.json) is generated from these types by reflection: a
// field without omitempty is required.
package api

import (
	"bytes"
	"encoding/json"
	"time"

	"github.com/askonce/askonce"
)

// CreateJobRequest is the body of POST /jobs.
type CreateJobRequest struct {
	// Goal is the natural-language goal. Required (or Prompt).
	Goal string `json:"goal,omitempty"`
	// Prompt is the older name of Goal, still accepted.
	Prompt    string   `json:"prompt,omitempty"`
	SessionID string   `json:"sessionId,omitempty"`
	Profile   string   `json:"profile,omitempty"`
	Files     []string `json:"files,omitempty"`
	// Candidates are the names of the things besides files the goal may
	// refer to (objects in a room, environments, branches, tables): at
	// most askonce.MaxCandidates, each at most askonce.MaxCandidateBytes
	// of visible text.
	Candidates []string `json:"candidates,omitempty"`
	// HardCap is fallback (default) or fail.
	HardCap askonce.HardCap `json:"hardCap,omitempty"`
	// Mode is managed (default) or gate.
	Mode askonce.Mode `json:"mode,omitempty"`
	// SpecSchema is a JSON Schema the plan's spec must meet.
	SpecSchema json.RawMessage `json:"specSchema,omitempty"`
	// Notify names who is asked the job's question on Slack and by
	// email (docs/notifications.md); absent: the server's defaults.
	Notify *askonce.Recipients `json:"notify,omitempty"`
	// Memory widens where the job's question is looked up and its answer
	// remembered: scope session (the default), project (with project) or
	// tenant; ttl how long a project or tenant answer is kept ("720h");
	// fresh asks not to be answered from memory.
	Memory *askonce.Memory `json:"memory,omitempty"`
}

// AnswerRequest is the body of POST /jobs/{id}/clarification.
type AnswerRequest struct {
	// Answer is a value of the question's type (a string spelling one
	// is read as it), or, for a question with fields, an object of a
	// value per field ({"environment": "staging", "replicas": 3}).
	Answer Answer `json:"answer"`
	// DontRemember keeps the answer out of the job's project and tenant
	// memory (the session's repeat guard still has it).
	DontRemember bool `json:"dontRemember,omitempty"`
}

// Answer is the answer of POST /jobs/{id}/clarification, as JSON: a
// value (a string, a number, a boolean, a list of options), or, for a
// question with fields, an object of a value per field. The engine reads
// it once (askonce.ParseAnswerJSON) and checks it against the question;
// a string answers any question by spelling a value of its type.
type Answer json.RawMessage

// TextAnswer is the answer of text s.
func TextAnswer(s string) Answer {
	b, _ := json.Marshal(s)
	return b
}

// MarshalJSON writes a; no answer is null.
func (a Answer) MarshalJSON() ([]byte, error) {
	if len(a) == 0 {
		return []byte("null"), nil
	}
	return a, nil
}

// UnmarshalJSON keeps b as it is: the engine reads it.
func (a *Answer) UnmarshalJSON(b []byte) error {
	*a = append((*a)[:0], b...)
	return nil
}

// Parse reads a as the engine's answer: no answer for null or none.
func (a Answer) Parse() (askonce.Answer, error) {
	if len(a) == 0 || string(bytes.TrimSpace(a)) == "null" {
		return askonce.Answer{}, nil
	}
	return askonce.ParseAnswerJSON(a)
}

// EmptyRequest is the optional body of cancel and decline: nothing, or {}.
type EmptyRequest struct{}

// ReportRequest is the body of POST /jobs/{id}/report: a gate-mode agent's
// outcome, exactly one of question, plan or error.
type ReportRequest struct {
	Question *askonce.Question `json:"question,omitempty"`
	Plan     *askonce.Plan     `json:"plan,omitempty"`
	Error    string            `json:"error,omitempty"`
	Title    string            `json:"title,omitempty"`
	// Raw is the agent's own output, kept on the attempt.
	Raw   string         `json:"raw,omitempty"`
	Usage *askonce.Usage `json:"usage,omitempty"`
}

// JobView is a job as the API shows it (docs/protocol.md "HTTP"): the job's
// fields in camelCase plus the derived clarification flags.
type JobView struct {
	// Success is false for failed, validation_error, expired and cancelled
	// jobs, true otherwise.
	Success bool           `json:"success"`
	JobID   string         `json:"jobId"`
	Status  askonce.Status `json:"status"`
	// NeedsClarification is present only in the response of POST /jobs,
	// and true only when that job is pending with its one question.
	NeedsClarification *bool           `json:"needsClarification,omitempty"`
	Title              string          `json:"title"`
	Goal               string          `json:"goal"`
	SessionID          string          `json:"sessionId"`
	Mode               askonce.Mode    `json:"mode"`
	Profile            string          `json:"profile,omitempty"`
	Files              []string        `json:"files,omitempty"`
	Candidates         []string        `json:"candidates,omitempty"`
	HardCap            askonce.HardCap `json:"hardCap"`
	// Notify is who is asked the job's question on Slack and by email.
	Notify *askonce.Recipients `json:"notify,omitempty"`

	ClarificationStatus   askonce.ClarificationStatus `json:"clarificationStatus"`
	ClarificationQuestion string                      `json:"clarificationQuestion,omitempty"`
	ClarificationType     askonce.QuestionType        `json:"clarificationType,omitempty"`
	ClarificationOptions  []string                    `json:"clarificationOptions,omitempty"`
	// ClarificationAllowOther is true when the question (always a
	// SELECT_ONE) also takes an answer outside its options: any visible
	// text of at most askonce.MaxFreeText bytes.
	ClarificationAllowOther bool `json:"clarificationAllowOther,omitempty"`
	// ClarificationFields are the fields of a question that asks for
	// several things at once (absent for a one-field question, which
	// keeps the shape above). Such a question's type is FREE_TEXT and its
	// text lists every field, for clients that know only one field; its
	// answer is an object of field values.
	ClarificationFields    []askonce.QuestionField `json:"clarificationFields,omitempty"`
	ClarificationReason    string                  `json:"clarificationReason,omitempty"`
	ClarificationDefault   string                  `json:"clarificationDefault,omitempty"`
	ClarificationExpiresAt *time.Time              `json:"clarificationExpiresAt,omitempty"`
	// ClarificationConstraints narrow what the question accepts: a
	// NUMBER's bounds, a SELECT_MANY's counts, a FREE_TEXT's format and
	// lengths, the options' titles.
	ClarificationConstraints *askonce.Constraints `json:"clarificationConstraints,omitempty"`
	// ClarificationAnswer is the answer as a person reads it ("name:
	// value; ..." for a question with fields); ClarificationValue is the
	// answer itself, typed: a string, number, boolean or list of
	// options, or an object of a value per field.
	ClarificationAnswer     string          `json:"clarificationAnswer,omitempty"`
	ClarificationValue      json.RawMessage `json:"clarificationValue,omitempty"`
	ClarificationAnsweredAt *time.Time      `json:"clarificationAnsweredAt,omitempty"`
	ClarificationSource     askonce.Source  `json:"clarificationSource,omitempty"`
	// AnsweredVia is the channel the question was answered or declined
	// through (http, web, email-link, slack, mcp, a2a, terminal), and
	// AnsweredBy who, when the channel knows (a Slack user id, an MCP
	// client's name). Absent when no person answered.
	AnsweredVia string `json:"answeredVia,omitempty"`
	AnsweredBy  string `json:"answeredBy,omitempty"`
	// ClarificationMemory says which remembered answer resolved the
	// question (clarificationSource history): its scope, project, the job
	// whose person gave it and when.
	ClarificationMemory *askonce.MemoryRef `json:"clarificationMemory,omitempty"`
	// Memory is the job's memory scope, when it is not the default
	// session.
	Memory *askonce.Memory `json:"memory,omitempty"`
	// ExpiryNote says plainly what became of a question nobody
	// answered in time (askonce.Job.ExpiryNote): "Nobody answered within
	// 24h; the default “no” was used." (clarificationSource timeout), or
	// "Nobody answered within 24h, and the question had no default; the
	// job expired." Absent otherwise.
	ExpiryNote string `json:"expiryNote,omitempty"`
	// AnswerURL is the answer link of a pending question: an absolute
	// URL (from the server's public URL) that opens the answer page with
	// no API key; the link is the credential, so hand it only to whoever
	// should answer. Present only while the job is pending.
	AnswerURL string `json:"answerUrl,omitempty"`
	// ClarificationUsed and ClarificationResolved are derived flags:
	// status in {asked, answered}, and status = answered.
	ClarificationUsed     bool   `json:"clarificationUsed"`
	ClarificationResolved bool   `json:"clarificationResolved"`
	ResolvedPrompt        string `json:"resolvedPrompt,omitempty"`

	Plan *askonce.Plan `json:"plan,omitempty"`
	// Result is raw interpreter output kept for debugging: the last invalid
	// output of a validation_error job. A pending job has none (its
	// question says everything; the output that asked is in its attempt
	// record).
	Result string `json:"result,omitempty"`
	// Error is the failure message of a failed, expired or invalid job,
	// such as askonce.HardCapMessage.
	Error string `json:"error,omitempty"`

	Usage        askonce.Usage `json:"usage"`
	AttemptCount int           `json:"attemptCount"`
	// DispatchStatus is the builder's delivery of a successful job:
	// queued, delivered or failed, or none when no builder takes plans
	// (--builder none).
	DispatchStatus   askonce.DispatchStatus `json:"dispatchStatus,omitempty"`
	DeliveryAttempts int                    `json:"deliveryAttempts,omitempty"`
	DeliveryError    string                 `json:"deliveryError,omitempty"`
	CreatedAt        time.Time              `json:"createdAt"`
	UpdatedAt        time.Time              `json:"updatedAt"`
}

// JobDetail is GET /jobs/{id}: the job and every interpreter attempt.
type JobDetail struct {
	JobView
	Attempts []askonce.Attempt `json:"attempts"`
}

// JobList is one page of GET /jobs, newest first.
type JobList struct {
	Jobs []JobView `json:"jobs"`
	// NextCursor is the cursor of the next page; empty on the last page.
	NextCursor string `json:"nextCursor"`
}

// ReportResponse is gate mode's answer to a report: what the agent must do.
type ReportResponse struct {
	Action askonce.Action `json:"action"`
	// Question is set for ask and wait.
	Question *askonce.Question `json:"question,omitempty"`
	// Answer (as a person reads it), Value (the answer, typed) and
	// ResolvedPrompt are set for resume.
	Answer         string          `json:"answer,omitempty"`
	Value          json.RawMessage `json:"value,omitempty"`
	ResolvedPrompt string          `json:"resolvedPrompt,omitempty"`
	// Directive is set for proceed (and for resume after a decline).
	Directive string `json:"directive,omitempty"`
	// Default, with proceed, is the default of the question asked past
	// the hard cap: use it as the answer.
	Default string  `json:"default,omitempty"`
	Job     JobView `json:"job"`
}

// EventList is GET /jobs/{id}/events as JSON.
type EventList struct {
	Events []askonce.Event `json:"events"`
}

// MemoryList is GET /memory: the remembered answers of a project or of
// the tenant, newest first.
type MemoryList struct {
	Entries []askonce.HistoryEntry `json:"entries"`
}

// Forgotten is DELETE /memory/{hash}: the entry that was forgotten.
type Forgotten struct {
	Scope        askonce.MemoryScope `json:"scope"`
	QuestionHash string              `json:"questionHash"`
}

// HistoryList is GET /sessions/{id}/history.
type HistoryList struct {
	Entries []askonce.HistoryEntry `json:"entries"`
}

// Health is GET /healthz.
type Health struct {
	OK bool `json:"ok"`
	// Version is the server's version (askonce version).
	Version string `json:"version,omitempty"`
	Error   string `json:"error,omitempty"`
}

// ErrorResponse is the body of every error response.
type ErrorResponse struct {
	// Success is always false.
	Success bool `json:"success"`
	// Error is a message meant for the caller.
	Error string `json:"error"`
	// Code is the machine-readable code: one of ErrorCodes.
	Code string `json:"code"`
	// Allowed lists the values an invalid answer could have been.
	Allowed []string `json:"allowed,omitempty"`
	// Fields lists every bad field of an invalid answer to a question
	// with fields, each with its allowed values.
	Fields []askonce.FieldError `json:"fields,omitempty"`
	// Job is the job's current state on a conflict.
	Job *JobView `json:"job,omitempty"`
}
