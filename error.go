package askonce

import (
	"errors"
	"fmt"
	"time"
)

// Error codes. They are machine-readable, stable, and mapped to HTTP status
// codes in exactly one place (the HTTP server).
const (
	// EINVALID: the request is malformed or violates a rule (bad goal,
	// invalid answer, invalid plan). HTTP 422 / 400.
	EINVALID = "invalid"
	// ENOTFOUND: no such job (or it belongs to another tenant). HTTP 404.
	ENOTFOUND = "not_found"
	// ECONFLICT: the job is not in a state that allows the operation, or a
	// concurrent change won a compare-and-set. HTTP 409.
	ECONFLICT = "conflict"
	// EUNAVAILABLE: the store cannot be reached (its server is down or
	// restarting, the connection broke, the disk failed); nothing the
	// caller sent is wrong, and the same request may succeed once the
	// store is back. HTTP 503 with Retry-After. A change that failed
	// with it may or may not have committed when the connection broke
	// during its commit; the job id tells (GET /jobs/{id}).
	EUNAVAILABLE = "unavailable"
	// EINTERNAL: anything else; the message is not meant for end users.
	EINTERNAL = "internal"
)

// Error is askonce's application error. Code is one of the E* constants;
// Message is safe to show to the caller.
type Error struct {
	Code    string
	Message string
	// Allowed lists the values an invalid answer could have been, when the
	// question offers a fixed set.
	Allowed []string
	// Fields lists every bad field of an invalid answer to a question
	// with fields.
	Fields []FieldError
	// Job is the job's current state on ECONFLICT, so a caller that lost a
	// race sees what won.
	Job *Job
	// Err is the cause, for logs (an EUNAVAILABLE's connection error);
	// never shown to the caller.
	Err error
}

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("askonce: %s: %s: %v", e.Code, e.Message, e.Err)
	}
	return fmt.Sprintf("askonce: %s: %s", e.Code, e.Message)
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Unavailable returns the EUNAVAILABLE of a store that could not be
// reached, err its cause: what a store returns for a connection error.
func Unavailable(err error) *Error {
	return &Error{Code: EUNAVAILABLE, Message: "the database cannot be reached; retry shortly", Err: err}
}

// Errorf returns an *Error with the given code and a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ErrorCode returns the code of the first *Error in err's chain, EINTERNAL
// for any other non-nil error, and "" for nil.
// (errors.AsType, unlike errors.As, does not move e to the heap: the
// engine asks for the code of every write's error, nil or not.)
func ErrorCode(err error) string {
	if err == nil {
		return ""
	}
	if e, ok := errors.AsType[*Error](err); ok {
		return e.Code
	}
	return EINTERNAL
}

// ErrorMessage returns the caller-safe message of err: the *Error's message,
// or "internal error" for anything else.
func ErrorMessage(err error) string {
	if err == nil {
		return ""
	}
	if e, ok := errors.AsType[*Error](err); ok {
		return e.Message
	}
	return "internal error"
}

// conflict builds the ECONFLICT returned when job j is not in a state that
// allows op.
func conflict(j *Job, op string) *Error {
	e := Errorf(ECONFLICT, "cannot %s job %s: status is %s, clarification is %s", op, j.ID, j.Status, j.ClarificationStatus)
	cp := j.Clone()
	e.Job = cp
	return e
}

// expired builds the ECONFLICT returned when op answers job j after its
// question expired.
func expired(j *Job, op string) *Error {
	e := Errorf(ECONFLICT, "cannot %s job %s: its question expired at %s", op, j.ID, j.Question.ExpiresAt.UTC().Format(time.RFC3339))
	e.Job = j.Clone()
	return e
}
