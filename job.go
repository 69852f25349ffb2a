package askonce

import (
	"encoding/json"
	"slices"
	"time"
)

// DefaultTenant is the tenant of every job until API keys map callers to
// tenants of their own.
const DefaultTenant = "default"

// Status is where a job is in its life. The values are those of
// docs/protocol.md "States".
type Status string

const (
	StatusPlanning        Status = "planning"         // an interpreter (or the gate agent) is working
	StatusPending         Status = "pending"          // one question is waiting for its answer
	StatusSuccess         Status = "success"          // a validated plan exists; dispatch was queued
	StatusValidationError Status = "validation_error" // every attempt produced invalid output
	StatusFailed          Status = "failed"           // interpreter error or hard cap
	StatusCancelled       Status = "cancelled"
	StatusExpired         Status = "expired" // the question timed out with no default
)

// Terminal reports whether no further transition can leave s.
func (s Status) Terminal() bool {
	switch s {
	case StatusPlanning, StatusPending:
		return false
	}
	return true
}

// Statuses lists every job status, in the order of the job's life. It is
// the one list behind Valid, the API's enum and its error messages; do not
// modify it.
var Statuses = []Status{StatusPlanning, StatusPending, StatusSuccess, StatusValidationError, StatusFailed, StatusCancelled, StatusExpired}

// Valid reports whether s is one of the defined statuses.
func (s Status) Valid() bool { return slices.Contains(Statuses, s) }

// ClarificationStatus is where a job is in its one clarification
// (docs/protocol.md "States"). It only moves forward:
// none -> asked -> answered, or none -> skipped, or none -> answered.
type ClarificationStatus string

const (
	ClarificationNone     ClarificationStatus = "none"
	ClarificationAsked    ClarificationStatus = "asked"
	ClarificationAnswered ClarificationStatus = "answered"
	ClarificationSkipped  ClarificationStatus = "skipped"
)

// ClarificationStatuses lists every clarification status; do not modify
// it.
var ClarificationStatuses = []ClarificationStatus{ClarificationNone, ClarificationAsked, ClarificationAnswered, ClarificationSkipped}

// Rank orders clarification statuses so that "never backwards" is a
// comparison. asked, answered and skipped are all past none; answered is
// past asked. skipped and answered are both final.
func (c ClarificationStatus) Rank() int {
	switch c {
	case ClarificationNone:
		return 0
	case ClarificationAsked:
		return 1
	case ClarificationAnswered, ClarificationSkipped:
		return 2
	}
	return -1
}

// Source says who answered the job's question.
type Source string

const (
	SourceUser     Source = "user"     // a human answered
	SourceHistory  Source = "history"  // the repeat guard applied a stored answer
	SourceResolver Source = "resolver" // the goal itself held the answer
	SourceDefault  Source = "default"  // the user declined; the question's default (or nothing) was used
	SourceTimeout  Source = "timeout"  // the question expired and had a default
)

// Mode says who calls the interpreter.
type Mode string

const (
	// ModeManaged: askonce calls its Interpreter itself.
	ModeManaged Mode = "managed"
	// ModeGate: an external agent is the interpreter and reports each
	// outcome; askonce answers with what the agent must do.
	ModeGate Mode = "gate"
)

// HardCap is the policy for an interpreter that asks after the job's one
// clarification was used.
type HardCap string

const (
	// HardCapFallback re-runs once with FallbackDirective, then fails.
	HardCapFallback HardCap = "fallback"
	// HardCapFail fails the job at once.
	HardCapFail HardCap = "fail"
)

// FallbackDirective is sent to the interpreter when the hard cap applies.
// The text is fixed (docs/protocol.md "Exact strings").
const FallbackDirective = "Previous clarification was already provided. You MUST proceed with available information. Make reasonable assumptions and document them. Do not request further clarification."

// GatingDirective is sent when a gating policy lets a job proceed instead of
// asking about a cosmetic contradiction.
const GatingDirective = "Do not request clarification about cosmetic details. Functional instructions take priority; make reasonable assumptions about appearance and document them."

// HardCapMessage is the error of a job that asked again after its one
// clarification. The text is fixed (docs/protocol.md "Exact strings").
const HardCapMessage = "Clarification did not resolve ambiguity. Please rephrase."

// DispatchStatus is the builder delivery state of a successful job.
type DispatchStatus string

const (
	DispatchNone      DispatchStatus = ""
	DispatchQueued    DispatchStatus = "queued"
	DispatchDelivered DispatchStatus = "delivered"
	DispatchFailed    DispatchStatus = "failed"
	// DispatchNoBuilder is a success that nothing delivers (Engine.NoBuilder,
	// askonce serve --builder none): builders poll GET /jobs?status=success.
	DispatchNoBuilder DispatchStatus = "none"
)

// Job is one attempt to turn a goal into a plan. Its ID (a UUIDv7) exists
// before any interpreter runs. Jobs are changed only through Step, and
// written only with a compare-and-set on Version.
type Job struct {
	ID        string `json:"jobId"`
	TenantID  string `json:"tenantId"`
	SessionID string `json:"sessionId"`
	Mode      Mode   `json:"mode"`

	Goal    string   `json:"goal"`
	Profile string   `json:"profile,omitempty"`
	Files   []string `json:"files,omitempty"`
	// Candidates names the things besides files the builder can act on
	// (objects in a room, environments, branches, tables): a reference in
	// the goal that matches two or more of them is worth one question.
	Candidates []string `json:"candidates,omitempty"`
	HardCap    HardCap  `json:"hardCap"`
	// Notify names who is asked the job's question on Slack and by
	// email; nil: no one.
	Notify *Recipients `json:"notify,omitempty"`
	// SpecSchema is an optional JSON Schema that the plan's spec must meet.
	SpecSchema json.RawMessage `json:"specSchema,omitempty"`
	// Memory is where the repeat guard looks and a person's answer is
	// remembered (rule 5); nil is the session, the default.
	Memory *Memory `json:"memory,omitempty"`

	Title  string `json:"title"`
	Status Status `json:"status"`

	ClarificationStatus ClarificationStatus `json:"clarificationStatus"`
	Question            *Question           `json:"question,omitempty"`
	// Answer is the answer to the question, typed and validated
	// (ValidateAnswer); zero until the question is answered.
	Answer       Answer     `json:"clarificationAnswer,omitzero"`
	AnswerSource Source     `json:"clarificationSource,omitempty"`
	AnsweredAt   *time.Time `json:"clarificationAnsweredAt,omitempty"`
	// AnswerMemory says which remembered answer resolved the question,
	// when AnswerSource is history.
	AnswerMemory   *MemoryRef `json:"clarificationMemory,omitempty"`
	ResolvedPrompt string     `json:"resolvedPrompt,omitempty"`
	// AnsweredVia and AnsweredBy are who answered or declined the
	// question (Answerer): the channel and, when known, an identity.
	// Empty when no person did (history, resolver, timeout).
	AnsweredVia string `json:"answeredVia,omitempty"`
	AnsweredBy  string `json:"answeredBy,omitempty"`
	// FallbackUsed is set once the hard cap's single fallback run was
	// granted; a second request for clarification then fails the job.
	FallbackUsed bool `json:"fallbackUsed,omitempty"`
	// AnswerDelivered (gate mode) is set once the agent was told to resume
	// with the answer; asking after that is the hard cap.
	AnswerDelivered bool `json:"answerDelivered,omitempty"`

	Plan *Plan `json:"plan,omitempty"`
	// Result holds raw interpreter output kept for debugging: the output
	// that asked, from the moment the job went pending,
	// and the last invalid output of a validation_error job.
	Result string `json:"result,omitempty"`
	// Error is the failure message of a failed, expired or invalid job.
	Error string `json:"error,omitempty"`

	Usage        Usage          `json:"usage"`
	AttemptCount int            `json:"attemptCount"`
	Dispatch     DispatchStatus `json:"dispatchStatus,omitempty"`
	// DeliveryAttempts and DeliveryError record the builder's delivery:
	// how many tries so far and the last one's error.
	DeliveryAttempts int    `json:"deliveryAttempts,omitempty"`
	DeliveryError    string `json:"deliveryError,omitempty"`

	// Lease is the planning lease of a managed job in planning (rule 13):
	// the engine's to set, not part of the API. Step carries it over
	// unchanged.
	Lease Lease `json:"-"`

	// Version increases with every write; UpdateJob compares it.
	Version   int64     `json:"version"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// ClarificationUsed is a derived flag: the job's one question was asked.
func (j *Job) ClarificationUsed() bool {
	return j.ClarificationStatus == ClarificationAsked || j.ClarificationStatus == ClarificationAnswered
}

// ClarificationResolved is a derived flag: the job's question has an answer.
func (j *Job) ClarificationResolved() bool {
	return j.ClarificationStatus == ClarificationAnswered
}

// Clone returns a deep copy of j, so that a transition never aliases the
// state it was computed from.
func (j *Job) Clone() *Job {
	if j == nil {
		return nil
	}
	c := *j
	c.Files = slices.Clone(j.Files)
	c.Candidates = slices.Clone(j.Candidates)
	c.SpecSchema = slices.Clone(j.SpecSchema)
	c.Notify = j.Notify.Clone()
	if j.Question != nil {
		q := j.Question.Clone()
		c.Question = &q
	}
	if j.Memory != nil {
		m := *j.Memory
		c.Memory = &m
	}
	if j.AnswerMemory != nil {
		r := *j.AnswerMemory
		c.AnswerMemory = &r
	}
	if j.AnsweredAt != nil {
		t := *j.AnsweredAt
		c.AnsweredAt = &t
	}
	c.Answer = j.Answer.Clone()
	if j.Plan != nil {
		p := j.Plan.Clone()
		c.Plan = &p
	}
	return &c
}

// Prompt is what the job's interpreter works on now: the resolved prompt
// once the job has an answer, else the goal (a declined question without a
// default leaves no answer).
func (j *Job) Prompt() string {
	if j.ClarificationStatus == ClarificationAnswered && !j.Answer.IsZero() {
		return j.ResolvedPrompt
	}
	return j.Goal
}

// ResolvedPrompt builds docs/protocol.md rule 4's prompt: the goal followed by the
// answer section that interpreters treat as the authority.
func ResolvedPrompt(goal, answer string) string {
	return goal + AnswerMarker + answer
}

// AnswerMarker separates the goal from the answer in a resolved prompt
// (docs/protocol.md rule 4); interpreters split the prompt at its last
// occurrence.
const AnswerMarker = "\n\nClarification Answer: "

// Usage is what interpreter calls cost. It adds up over every attempt of a
// job, resumed ones included.
type Usage struct {
	PromptTokens     int64   `json:"promptTokens"`
	CompletionTokens int64   `json:"completionTokens"`
	CostUSD          float64 `json:"costUsd"`
}

// Add returns the sum of u and v.
func (u Usage) Add(v Usage) Usage {
	return Usage{
		PromptTokens:     u.PromptTokens + v.PromptTokens,
		CompletionTokens: u.CompletionTokens + v.CompletionTokens,
		CostUSD:          u.CostUSD + v.CostUSD,
	}
}

// AnswerText is the job's answer as a person reads it (Answer.String):
// the answer of a question with fields reads "name: value; name: value"
// in the fields' order.
func (j *Job) AnswerText() string { return j.Answer.String() }
