package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/api"
)

// RetryAfter is the Retry-After, in seconds, of every 503: a store that
// restarts is usually back within seconds.
const RetryAfter = 2

// requestError is an error the server itself finds in a request, before
// (or instead of) the engine: malformed JSON, a body over the limit, a
// missing key. It carries its status and code.
type requestError struct {
	status  int
	code    string
	message string
}

func (e *requestError) Error() string { return e.message }

func reqErrorf(status int, code, format string, args ...any) *requestError {
	return &requestError{status: status, code: code, message: fmt.Sprintf(format, args...)}
}

func badRequest(format string, args ...any) *requestError {
	return reqErrorf(http.StatusBadRequest, api.CodeBadRequest, format, args...)
}

// errorResponse is the one place that maps an error to an HTTP status and
// body:
//
//	server's own request errors  their status and code (400 bad_request,
//	                             401 unauthorized, 404 not_found, 405,
//	                             409 conflict, 413 too_large, 415,
//	                             422 idempotency_mismatch, 429
//	                             too_many_requests)
//	askonce EINVALID             422 invalid (+ allowed, fields)
//	askonce ENOTFOUND            404 not_found
//	askonce ECONFLICT            409 conflict (+ job)
//	askonce EUNAVAILABLE         503 unavailable (store unreachable)
//	cancelled or timed out       503 unavailable
//	(every 503 carries Retry-After: RetryAfter seconds)
//	anything else                500 internal, with a generic message
//
// internal reports whether the error is the server's fault, to be logged
// at Error level with its underlying message.
func (s *Server) errorResponse(err error) (status int, body api.ErrorResponse, internal bool) {
	body = api.ErrorResponse{Success: false}
	var re *requestError
	var ae *askonce.Error
	switch {
	case errors.As(err, &re):
		status, body.Code, body.Error = re.status, re.code, re.message
	case errors.As(err, &ae) && ae.Code == askonce.EINVALID:
		status, body.Code, body.Error = http.StatusUnprocessableEntity, askonce.EINVALID, ae.Message
		body.Allowed, body.Fields = ae.Allowed, ae.Fields
	case errors.As(err, &ae) && ae.Code == askonce.ENOTFOUND:
		status, body.Code, body.Error = http.StatusNotFound, askonce.ENOTFOUND, ae.Message
	case errors.As(err, &ae) && ae.Code == askonce.ECONFLICT:
		status, body.Code, body.Error = http.StatusConflict, askonce.ECONFLICT, ae.Message
		if ae.Job != nil {
			v := s.viewOf(ae.Job)
			body.Job = &v
		}
	case errors.As(err, &ae) && ae.Code == askonce.EUNAVAILABLE:
		status, body.Code, body.Error = http.StatusServiceUnavailable, api.CodeUnavailable, ae.Message
		internal = true
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		status, body.Code, body.Error = http.StatusServiceUnavailable, api.CodeUnavailable, "the request was cancelled or timed out; retry it"
		internal = true
	default:
		status, body.Code, body.Error = http.StatusInternalServerError, askonce.EINTERNAL, "internal error; the server log has the details"
		internal = true
	}
	return status, body, internal
}
