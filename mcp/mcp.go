// Package mcp is askonce's Model Context Protocol server: tools through
// which a coding agent plans a goal with at most one question to its user
// (plan), or asks its user one question per job while planning itself
// (ask_user, gate mode), and the resource template askonce://jobs/{id}.
//
// It is built on the official Go SDK and serves both eras of the
// protocol. A job's question reaches the user through the client:
//
//   - MCP 2026-07-28 clients get a Multi Round-Trip result: input_required
//     with the question as an elicitation in inputRequests and an opaque,
//     signed requestState naming the job; they call again with
//     inputResponses.
//   - Older clients (2025-11-25) get the same elicitation as a
//     server-initiated elicitation/create, which the SDK sends on the
//     tool's behalf (and this package, for the second and third round).
//   - A client that only takes URL-mode elicitation gets the job's answer
//     link (askonce's web answer page), and the call returns when the job
//     has left pending.
//   - A client without elicitation gets the pending job (jobId, question,
//     answerUrl) as the result, to answer with the answer tool.
//
// The form's requestedSchema types each answer as MCP elicitation does
// (internal/jobview.AnswerSchema), and accepted form content is the
// answer, each value of the type it came in (jobview.AnswerFrom),
// validated once by the engine; decline declines (the question's
// default or the fallback directive applies), cancel cancels the job. An
// accepted answer the question does not take is asked again, for the same
// question, at most twice; then the job stays pending.
//
// The package talks to askonce through the embedded Engine
// (Config.Engine) or a running server's HTTP API (Config.Client). The
// tenant of a request is the one its API key maps to (see Handler), or
// Config.Tenant.
package mcp

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/client"
	"github.com/askonce/askonce/metrics"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Defaults of Config's zero values.
const (
	DefaultMaxArguments = 1 << 20
	DefaultPollInterval = 250 * time.Millisecond
	// MaxReElicit is how many times an accepted answer that the question
	// does not take is asked again before the job is left pending.
	MaxReElicit = 2
)

// Config configures the MCP server. Engine or Client is required.
type Config struct {
	// Engine runs the tools in this process; PublicURL is the base of
	// its answer links, as in server.Config.
	Engine    *askonce.Engine
	PublicURL string
	// Client runs the tools on a running askonce over its HTTP API
	// (askonce mcp --server), in place of Engine: the tenant is its API
	// key's, and its answer links are the server's.
	Client *client.Client
	// Tenant is the tenant of requests that carry none (stdio, or HTTP
	// without keys). Default askonce.DefaultTenant.
	Tenant string
	// StateSecret signs requestState. Empty: a random key per process,
	// so a requestState does not survive a restart. Use the engine's
	// LinkSecret to keep them valid across restarts and processes.
	StateSecret []byte
	// Metrics receives the elicitation counter. Nil: none.
	Metrics *metrics.Registry
	// MaxArguments is the largest tool arguments object, in bytes.
	// Default 1 MiB, the HTTP API's body limit.
	MaxArguments int
	// PollInterval is how often a URL-mode call looks at its job while
	// the user answers in the browser. Default 250ms.
	PollInterval time.Duration
	// Version is reported as the server's version.
	Version string
	// Logger receives warnings. Nil discards.
	Logger *slog.Logger
}

// srv holds the tools' state; its methods are the tool handlers.
type srv struct {
	b        backend
	tenant   string
	secret   []byte
	obs      *metrics.Observer
	maxArgs  int
	poll     time.Duration
	process  string // the session of a connection without one (stdio)
	log      *slog.Logger
	attachMu sync.Mutex // one ask_user at a time finds or opens a session's job
	// proceeded holds the gate jobs told to proceed, for backends whose
	// jobs do not show the fallback flags (clientBackend).
	proceeded sync.Map
}

// New returns the MCP server with askonce's tools and resource template.
// Serve it over stdio with its Run method and Stdio, or over
// HTTP with Handler.
func New(cfg Config) *sdk.Server {
	s := &srv{tenant: cfg.Tenant, secret: cfg.StateSecret, maxArgs: cfg.MaxArguments, poll: cfg.PollInterval, log: cfg.Logger}
	switch {
	case cfg.Engine != nil && cfg.Client != nil:
		panic("mcp: Config.Engine and Config.Client are both set; set one")
	case cfg.Client != nil:
		s.b = &clientBackend{client: cfg.Client}
	case cfg.Engine != nil:
		s.b = &engineBackend{engine: cfg.Engine, publicURL: cfg.PublicURL}
	default:
		panic("mcp: Config.Engine or Config.Client is required")
	}
	if s.tenant == "" {
		s.tenant = askonce.DefaultTenant
	}
	if len(s.secret) == 0 {
		s.secret = make([]byte, 32)
		rand.Read(s.secret)
	}
	if s.maxArgs <= 0 {
		s.maxArgs = DefaultMaxArguments
	}
	if s.poll <= 0 {
		s.poll = DefaultPollInterval
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if cfg.Metrics != nil {
		s.obs = metrics.NewObserver(cfg.Metrics)
	}
	s.process = "mcp-" + randomID()
	version := cfg.Version
	if version == "" {
		version = "dev"
	}
	server := sdk.NewServer(&sdk.Implementation{Name: "askonce", Title: "askonce", Version: version}, &sdk.ServerOptions{
		Instructions: instructions,
		Logger:       cfg.Logger,
	})
	server.AddReceivingMiddleware(s.limitArguments)
	s.addTools(server)
	return server
}

const instructions = `askonce turns a goal into a validated plan and asks the user at most one clarifying question per job.
Use plan to have askonce plan a goal. If you plan yourself, use ask_user for the one question you may ask, then report_plan with your plan.`

func randomID() string {
	b := make([]byte, 12)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// limitArguments refuses tool calls whose arguments exceed MaxArguments,
// as the HTTP API refuses oversized bodies, before they are decoded.
func (s *srv) limitArguments(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		if method == "tools/call" {
			if p, ok := req.GetParams().(*sdk.CallToolParamsRaw); ok && len(p.Arguments) > s.maxArgs {
				res := &sdk.CallToolResult{}
				res.SetError(fmt.Errorf("the arguments are %d bytes; the limit is %d", len(p.Arguments), s.maxArgs))
				return res, nil
			}
		}
		return next(ctx, method, req)
	}
}

// tenantOf is the tenant of a request: the one its API key maps to over
// HTTP (Handler puts it in the token info), else the configured one.
func (s *srv) tenantOf(req *sdk.CallToolRequest) string {
	if req.Extra != nil && req.Extra.TokenInfo != nil && req.Extra.TokenInfo.UserID != "" {
		return req.Extra.TokenInfo.UserID
	}
	return s.tenant
}

// callerOf is who the request's API key authenticates (Handler puts it
// in the token info); without keys, the configured tenant, unnamed and
// unrestricted.
func callerOf(req sdk.Request) askonce.Caller {
	if x := req.GetExtra(); x != nil && x.TokenInfo != nil {
		if c, ok := x.TokenInfo.Extra["caller"].(askonce.Caller); ok {
			return c
		}
	}
	return askonce.Caller{}
}

// sessionOf is the askonce session of a call: the sessionId argument, else
// the MCP session, else (sessionless HTTP) the client's name under its
// API key's tenant, else (stdio) this process.
// memoryOf is the memory of a job a tool creates: the project the call
// names shares answers across sessions and agents (scope project);
// without one, the name of the client's first root folder, if it sends
// roots, is the project under the server's default scope.
func (s *srv) memoryOf(ctx context.Context, req *sdk.CallToolRequest, project string) askonce.Memory {
	if p := strings.TrimSpace(project); p != "" {
		return askonce.Memory{Scope: askonce.MemoryProject, Project: p}
	}
	return askonce.Memory{Project: rootProject(ctx, req)}
}

// rootProject is the base name of the client's first root folder, or ""
// when it declares no roots or does not list them within a second.
func rootProject(ctx context.Context, req *sdk.CallToolRequest) string {
	caps := clientCaps(req)
	//lint:ignore SA1019 roots are deprecated from protocol 2026-07-28 but still how today's clients name their project
	if caps == nil || caps.RootsV2 == nil || req.Session == nil {
		return ""
	}
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	//lint:ignore SA1019 see above: roots stay supported through their deprecation window
	res, err := req.Session.ListRoots(ctx, nil)
	if err != nil || len(res.Roots) == 0 {
		return ""
	}
	u, err := url.Parse(res.Roots[0].URI)
	if err != nil {
		return ""
	}
	name := path.Base(u.Path)
	if name == "/" || name == "." || askonce.ValidateProject("project", name) != nil {
		return ""
	}
	return name
}

func (s *srv) sessionOf(req *sdk.CallToolRequest, arg string) string {
	if arg = strings.TrimSpace(arg); arg != "" {
		return arg
	}
	if id := req.Session.ID(); id != "" {
		return "mcp-" + id
	}
	if req.Extra != nil && req.Extra.Header != nil {
		name := "unknown"
		if ip := req.Session.InitializeParams(); ip != nil && ip.ClientInfo != nil && ip.ClientInfo.Name != "" {
			name = ip.ClientInfo.Name
		}
		return "mcp-client-" + name
	}
	return s.process
}

// clientCaps are the client's capabilities: those sent with the request
// (2026-07-28), else those of its initialization.
func clientCaps(req *sdk.CallToolRequest) *sdk.ClientCapabilities {
	if raw, ok := req.Params.Meta[sdk.MetaKeyClientCapabilities]; ok {
		var c sdk.ClientCapabilities
		if b, err := json.Marshal(raw); err == nil && json.Unmarshal(b, &c) == nil {
			return &c
		}
	}
	if ip := req.Session.InitializeParams(); ip != nil {
		return ip.Capabilities
	}
	return nil
}

// Elicitation modes.
const (
	modeNone = ""
	modeForm = "form"
	modeURL  = "url"
)

// elicitMode is how this client can put a question to its user: form,
// url (URL-mode only), or not at all. A client that declares elicitation
// without modes takes forms (2025-06-18 and before).
func elicitMode(req *sdk.CallToolRequest) string {
	c := clientCaps(req)
	if c == nil || c.Elicitation == nil {
		return modeNone
	}
	if c.Elicitation.Form != nil || c.Elicitation.URL == nil {
		return modeForm
	}
	return modeURL
}

// multiRoundTrip reports whether the client speaks 2026-07-28 (input
// requests in results) rather than answering elicitation/create.
func multiRoundTrip(req *sdk.CallToolRequest) bool {
	v, _ := req.Params.Meta[sdk.MetaKeyProtocolVersion].(string)
	if v == "" {
		if ip := req.Session.InitializeParams(); ip != nil {
			v = ip.ProtocolVersion
		}
	}
	return v >= "2026-07-28"
}

// state is what a requestState carries between rounds: the job, how many
// accepted answers were refused so far, and the elicitation's mode.
type state struct {
	Job   string `json:"j"`
	Tries int    `json:"n"`
	Mode  string `json:"m"`
}

// encodeState signs st for tenant: the requestState of an input_required
// result.
func (s *srv) encodeState(tenant string, st state) string {
	b, _ := json.Marshal(st)
	payload := base64.RawURLEncoding.EncodeToString(b)
	return payload + "." + base64.RawURLEncoding.EncodeToString(s.mac(tenant, payload))
}

func (s *srv) mac(tenant, payload string) []byte {
	m := hmac.New(sha256.New, s.secret)
	m.Write([]byte("askonce-mcp-state\x00" + tenant + "\x00" + payload))
	return m.Sum(nil)
}

// errBadState is the answer to a requestState this server did not issue
// to this tenant.
var errBadState = &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "requestState does not name a job of this tenant"}

// decodeState checks a requestState's signature for tenant and loads its
// job.
func (s *srv) decodeState(ctx context.Context, tenant, raw string) (state, *askonce.Job, error) {
	var st state
	payload, sig, ok := strings.Cut(raw, ".")
	got, err := base64.RawURLEncoding.DecodeString(sig)
	if !ok || err != nil || !hmac.Equal(got, s.mac(tenant, payload)) {
		return st, nil, errBadState
	}
	b, err := base64.RawURLEncoding.DecodeString(payload)
	if err != nil || json.Unmarshal(b, &st) != nil || st.Job == "" {
		return st, nil, errBadState
	}
	j, err := s.b.Get(ctx, tenant, st.Job)
	if askonce.ErrorCode(err) == askonce.ENOTFOUND {
		return st, nil, errBadState
	}
	return st, j, err
}

// inputResponse is the client's answer to the round's elicitation.
func inputResponse(req *sdk.CallToolRequest) (*sdk.ElicitResult, error) {
	r, ok := req.Params.InputResponses["answer"].(*sdk.ElicitResult)
	if !ok {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: `inputResponses must carry the elicitation result "answer" with the requestState`}
	}
	return r, nil
}

// inputRequired is the result that puts p to the user: for 2026-07-28
// clients it goes out as input_required; for older ones the SDK (or
// rounds) sends it as elicitation/create.
func (s *srv) inputRequired(tenant string, st state, p *sdk.ElicitParams) *sdk.CallToolResult {
	return &sdk.CallToolResult{
		InputRequests: sdk.InputRequestMap{"answer": p},
		RequestState:  s.encodeState(tenant, st),
	}
}

// rounds fulfils, for a client of the older era, the rounds after the
// first (which the SDK fulfils before calling the tool again): while next
// asks for input, it elicits and resumes.
func (s *srv) rounds(ctx context.Context, req *sdk.CallToolRequest, tenant string, res *sdk.CallToolResult, resume func(state, *askonce.Job, *sdk.ElicitResult) (*sdk.CallToolResult, error)) (*sdk.CallToolResult, error) {
	for res != nil && res.InputRequests != nil && req.Params.InputResponses != nil && !multiRoundTrip(req) {
		p := res.InputRequests["answer"].(*sdk.ElicitParams)
		st, j, err := s.decodeState(ctx, tenant, res.RequestState)
		if err != nil {
			return nil, err
		}
		er, err := req.Session.Elicit(ctx, p)
		if err != nil {
			s.observe(p.Mode, "error")
			return nil, fmt.Errorf("elicitation failed: %w", err)
		}
		if res, err = resume(st, j, er); err != nil {
			return nil, err
		}
	}
	return res, nil
}

func (s *srv) observe(mode, outcome string) {
	s.obs.ObserveElicitation(mode, outcome)
}

// waitWhile polls the job until more says it is done waiting or ctx ends,
// and returns the job as last seen.
func (s *srv) waitWhile(ctx context.Context, tenant string, j *askonce.Job, more func(*askonce.Job) bool) (*askonce.Job, error) {
	t := time.NewTicker(s.poll)
	defer t.Stop()
	var changed <-chan struct{} // nil: poll alone
	if w, ok := s.b.(watcher); ok {
		var unwatch func()
		changed, unwatch = w.Watch(tenant, j.ID)
		defer unwatch()
	}
	for more(j) {
		select {
		case <-ctx.Done():
			return j, nil
		case <-t.C:
		case <-changed:
		}
		cur, err := s.b.Get(ctx, tenant, j.ID)
		if err != nil {
			if ctx.Err() != nil {
				return j, nil
			}
			return nil, err
		}
		j = cur
	}
	return j, nil
}

func pendingOrPlanning(j *askonce.Job) bool {
	return j.Status == askonce.StatusPending || j.Status == askonce.StatusPlanning
}

func isPending(j *askonce.Job) bool { return j.Status == askonce.StatusPending }

// toolError turns an askonce error into the tool error the model reads:
// the caller-safe message, with the allowed answers of an invalid one.
func toolError(err error) error {
	var je *jsonrpc.Error
	if errors.As(err, &je) {
		return je
	}
	msg := askonce.ErrorMessage(err)
	switch askonce.ErrorCode(err) {
	case askonce.EINTERNAL:
		msg = err.Error()
	case askonce.EUNAVAILABLE:
		return errors.New(unavailable(err))
	}
	var ae *askonce.Error
	if errors.As(err, &ae) && len(ae.Allowed) > 0 && !strings.Contains(msg, ae.Allowed[0]) {
		msg += " (allowed: " + strings.Join(ae.Allowed, ", ") + ")"
	}
	return errors.New(msg)
}

// unavailable is the text of an EUNAVAILABLE: askonce's store cannot be
// reached now, nothing in the call was wrong, and the same call may be
// retried (the message names a job that may have been created).
func unavailable(err error) string {
	return "unavailable (retryable): " + askonce.ErrorMessage(err) + ". Nothing in the call was wrong: retry the same call in a few seconds."
}

// problem is the text shown to the user with a re-asked question.
func problem(err error) string {
	msg := askonce.ErrorMessage(err)
	var ae *askonce.Error
	if errors.As(err, &ae) && len(ae.Allowed) > 0 && !strings.Contains(msg, ae.Allowed[0]) {
		msg += " Allowed: " + strings.Join(ae.Allowed, ", ") + "."
	}
	return msg
}
