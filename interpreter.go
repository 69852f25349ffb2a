package askonce

import (
	"context"
	"encoding/json"
	"time"
)

// Interpreter turns a prompt into exactly one outcome. Implementations:
// rules (embedded, deterministic, offline), openai, exec.
//
// Interpret returns the raw output, which must be the JSON that ParseOutcome
// reads ({"plan": ...} or {"question": ...}), and what the call cost. The
// engine parses and validates it (or checks and validates the outcome
// handed over with it, Response.Outcome), so an interpreter never needs to
// check its own output. An error means the call itself failed (timeout, network,
// process crash); it is recorded on the attempt and fails the job. Raw may
// be set alongside an error to keep what was received.
type Interpreter interface {
	Interpret(ctx context.Context, req *Request) (*Response, error)
}

// Fast is implemented by an interpreter that runs in the engine's process
// and returns within microseconds, with no I/O that can hang (the rules
// interpreter). For an interpreter whose Fast reports true the engine runs
// the planning a change leads to before writing anything, and commits the
// change with its outcome in one transaction: a new job with its plan or
// question (Store.CreateJob), an answer's compare-and-set with the plan it
// leads to (Store.UpdateJob). Nothing is acknowledged before that
// transaction commits, and of concurrent answers still only one commits.
// For every other interpreter the job's state is stored before each call,
// so that a crash during a long call leaves a row to resume
// (docs/protocol.md rules 1 and 13). A wrapper that embeds a fast
// interpreter but makes its calls slow must override Fast.
type Fast interface {
	Fast() bool
}

// InterpreterFunc adapts a function to the Interpreter interface.
type InterpreterFunc func(ctx context.Context, req *Request) (*Response, error)

// Interpret calls f.
func (f InterpreterFunc) Interpret(ctx context.Context, req *Request) (*Response, error) {
	return f(ctx, req)
}

// Request is one interpreter call.
type Request struct {
	JobID string `json:"jobId"`
	Goal  string `json:"goal"`
	// Prompt is what to interpret: the goal, or the resolved prompt
	// (goal + "\n\nClarification Answer: " + answer) after an answer.
	Prompt string `json:"prompt"`
	// Answer is the answer in the prompt, typed (Answer.JSON): a value,
	// or an object of a value per field, a number a JSON number. Set
	// when Prompt is the resolved prompt.
	Answer  json.RawMessage `json:"answer,omitempty"`
	Profile string          `json:"profile,omitempty"`
	Files   []string        `json:"files,omitempty"`
	// Candidates are the names of the things besides files the builder
	// can act on (Job.Candidates). A reference in the goal that matches
	// two or more of them, and none exactly, may be asked about.
	Candidates []string `json:"candidates,omitempty"`
	// Attempt counts from 1 within this interpretation.
	Attempt int           `json:"attempt"`
	Reason  AttemptReason `json:"reason"`
	// Feedback lists the previous attempt's parse or validation errors.
	Feedback []string `json:"feedback,omitempty"`
	// Directive, when set, must be obeyed: FallbackDirective or
	// GatingDirective. The interpreter must not ask.
	Directive  string `json:"directive,omitempty"`
	SpecSchema []byte `json:"specSchema,omitempty"`
}

// Response is an interpreter's raw output and what producing it cost.
type Response struct {
	Raw   []byte
	Usage Usage
	// Outcome, when set, is Raw already parsed: an in-process
	// interpreter that makes Raw by marshalling its outcome hands the
	// outcome over too, and the engine takes it instead of parsing Raw
	// back. The engine checks it (Outcome.Check) and validates its plan
	// as it would a parsed one, and keeps it: the interpreter must not
	// touch it after returning. It must be what ParseOutcome(Raw)
	// returns.
	Outcome *Outcome
}

// AttemptReason says why an interpreter call was made (docs/protocol.md rule 9).
type AttemptReason string

const (
	ReasonInitial             AttemptReason = "initial"
	ReasonRetryParseError     AttemptReason = "retry_parse_error"
	ReasonRetryValidation     AttemptReason = "retry_validation"
	ReasonClarificationAnswer AttemptReason = "clarification_answer"
	ReasonFallback            AttemptReason = "fallback"
	// ReasonReport is a gate-mode attempt: the agent reported an outcome.
	ReasonReport AttemptReason = "report"
)

// AttemptOutcome is what one interpreter call produced.
type AttemptOutcome string

const (
	AttemptPlan     AttemptOutcome = "plan"
	AttemptQuestion AttemptOutcome = "question"
	AttemptInvalid  AttemptOutcome = "invalid" // parse or validation error
	AttemptError    AttemptOutcome = "error"   // the call failed
)

// Attempt is the record of one interpreter call. Every attempt is persisted.
type Attempt struct {
	// N numbers the job's attempts from 1, across interpretations.
	N         int            `json:"n"`
	Reason    AttemptReason  `json:"reason"`
	StartedAt time.Time      `json:"startedAt"`
	Duration  time.Duration  `json:"durationNs"`
	Outcome   AttemptOutcome `json:"outcome"`
	// Raw is the output, capped at the engine's MaxRaw bytes.
	Raw string `json:"raw,omitempty"`
	// Error holds the parse or validation errors, or the call's error.
	Error string `json:"error,omitempty"`
	Usage Usage  `json:"usage"`
}
