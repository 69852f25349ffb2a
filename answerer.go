package askonce

import "context"

// The channels an answer comes through (Job.AnsweredVia).
const (
	ViaHTTP      = "http"       // POST /jobs/{id}/clarification or /decline
	ViaWeb       = "web"        // the answer page or the inbox
	ViaEmailLink = "email-link" // the answer page, opened from an option link of a question email
	ViaSlack     = "slack"
	ViaMCP       = "mcp"
	ViaA2A       = "a2a"
	ViaTerminal  = "terminal" // askonce run, repl or jobs answer on the embedded engine
)

// Answerer is who answered a job's question and where: the channel
// (Via, one of the Via constants) and, when the channel knows it, an
// identity (By: a Slack user id, an MCP client's name). The engine
// records it on the job (AnsweredVia, AnsweredBy) and in the answered
// event.
type Answerer struct {
	Via string
	By  string
	// SignedIn is set by a channel whose person signed in (the inbox's
	// OpenID sign-in); Email is then the address the provider verified,
	// or "" when it verified none. MayAnswer holds a signed-in person to
	// the job's answerers by that address.
	SignedIn bool
	Email    string
}

// maxAnswerer caps the Via and By a job keeps: an MCP client names
// itself.
const maxAnswerer = 256

type answererKey struct{}

// WithAnswerer returns ctx carrying a: the Engine's Answer, Decline and
// their Start and ByToken forms record it with the answer. A channel
// sets it once per request, before calling the engine.
func WithAnswerer(ctx context.Context, a Answerer) context.Context {
	return context.WithValue(ctx, answererKey{}, a)
}

// AnswererFrom returns the Answerer ctx carries, or the zero Answerer.
func AnswererFrom(ctx context.Context) Answerer {
	a, _ := ctx.Value(answererKey{}).(Answerer)
	return a
}
