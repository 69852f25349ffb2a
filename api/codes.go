package api

import "github.com/askonce/askonce"

// Error codes of the API, beyond the askonce ones (invalid, not_found,
// conflict, internal). The server package's documentation has the table
// of codes and statuses.
const (
	CodeBadRequest          = "bad_request"
	CodeTooLarge            = "too_large"
	CodeUnsupportedMedia    = "unsupported_media_type"
	CodeUnauthorized        = "unauthorized"
	CodeMethodNotAllowed    = "method_not_allowed"
	CodeIdempotencyMismatch = "idempotency_mismatch"
	CodeTooManyRequests     = "too_many_requests"
	// CodeUnavailable is askonce's EUNAVAILABLE, which the server also
	// answers for a request cancelled or timed out.
	CodeUnavailable = askonce.EUNAVAILABLE
)

// ErrorCodes lists every code an error response carries: askonce's own
// (invalid, not_found, conflict, internal) and the API's. The OpenAPI
// document's enum of ErrorResponse.code is this list.
var ErrorCodes = []string{
	askonce.EINVALID, askonce.ENOTFOUND, askonce.ECONFLICT, askonce.EINTERNAL,
	CodeBadRequest, CodeTooLarge, CodeUnsupportedMedia, CodeUnauthorized,
	CodeMethodNotAllowed, CodeIdempotencyMismatch, CodeUnavailable,
	CodeTooManyRequests,
}
