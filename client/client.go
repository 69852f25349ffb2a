// Package client is a Go client of the askonce HTTP API (see the server
// package): create, get, list, answer, cancel, decline, report, events
// (JSON or a live Server-Sent Events stream), session history and answer
// memory (list and forget).
//
// Every non-2xx response is returned as an *Error carrying the server's
// status, code, message and, for an invalid answer, the allowed values:
//
//	j, err := c.Answer(ctx, id, "tepid")
//	var e *client.Error
//	if errors.As(err, &e) && e.Code == "invalid" {
//		fmt.Println(e.Message, e.Allowed)
//	}
//
// A Client talks to a server at a base URL, or, with NewHandler, to an
// http.Handler in the same process (askonce's embedded mode) without a
// network.
package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/api"
)

// The wire types are those of package api, which the server writes and
// reads too.
type (
	CreateRequest  = api.CreateJobRequest
	JobView        = api.JobView
	JobDetail      = api.JobDetail
	JobList        = api.JobList
	ReportRequest  = api.ReportRequest
	ReportResponse = api.ReportResponse
	EventList      = api.EventList
	HistoryList    = api.HistoryList
	MemoryList     = api.MemoryList
	Forgotten      = api.Forgotten
	AnswerRequest  = api.AnswerRequest
	Answer         = api.Answer
	ErrorResponse  = api.ErrorResponse
)

// TextAnswer is the answer of text s (api.TextAnswer).
func TextAnswer(s string) Answer { return api.TextAnswer(s) }

// Error codes the server sends (see the server package documentation).
const (
	CodeInvalid      = askonce.EINVALID
	CodeNotFound     = askonce.ENOTFOUND
	CodeConflict     = askonce.ECONFLICT
	CodeInternal     = askonce.EINTERNAL
	CodeBadRequest   = api.CodeBadRequest
	CodeUnauthorized = api.CodeUnauthorized
)

// Error is a non-2xx response of the API.
type Error struct {
	// Status is the HTTP status code.
	Status int
	// Code is the server's machine-readable code (invalid, not_found,
	// conflict, bad_request, unauthorized, ...).
	Code string
	// Message is the server's message, meant for a human.
	Message string
	// Allowed lists the values an invalid answer could have been.
	Allowed []string
	// Fields lists every bad field of an invalid answer to a question
	// with fields, each with its allowed values.
	Fields []askonce.FieldError
	// Job is the job's current state on a conflict, when the server sent it.
	Job *JobView
}

func (e *Error) Error() string {
	msg := e.Message
	if msg == "" {
		msg = http.StatusText(e.Status)
	}
	if len(e.Allowed) > 0 && !strings.Contains(msg, e.Allowed[0]) {
		msg += " (allowed: " + strings.Join(e.Allowed, ", ") + ")"
	}
	return msg
}

// IsNotFound, IsConflict and IsInvalid classify an error of this package.
func IsNotFound(err error) bool { return hasCode(err, CodeNotFound) }
func IsConflict(err error) bool { return hasCode(err, CodeConflict) }
func IsInvalid(err error) bool  { return hasCode(err, CodeInvalid) }

func hasCode(err error, code string) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == code
}

// Client calls one askonce server. Its methods are safe for concurrent use.
type Client struct {
	base   string
	apiKey string
	hc     *http.Client
}

// Option configures a Client.
type Option func(*Client)

// WithAPIKey sends key as "Authorization: Bearer <key>".
func WithAPIKey(key string) Option { return func(c *Client) { c.apiKey = key } }

// WithHTTPClient uses hc instead of a client without a timeout (event
// streams are long-lived; give calls a context deadline instead).
func WithHTTPClient(hc *http.Client) Option { return func(c *Client) { c.hc = hc } }

// New returns a client of the server at baseURL, such as
// "http://127.0.0.1:8080".
func New(baseURL string, opts ...Option) (*Client, error) {
	u, err := url.Parse(strings.TrimRight(baseURL, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("server URL %q: want http(s)://host[:port]", baseURL)
	}
	c := &Client{base: u.String(), hc: &http.Client{}}
	for _, o := range opts {
		o(c)
	}
	return c, nil
}

// NewHandler returns a client that serves its requests with h in this
// process, with no network (embedded mode); streams work too.
func NewHandler(h http.Handler, opts ...Option) *Client {
	c := &Client{base: "http://askonce.local", hc: &http.Client{Transport: handlerTransport{h}}}
	for _, o := range opts {
		o(c)
	}
	return c
}

// BaseURL is the server's base URL.
func (c *Client) BaseURL() string { return c.base }

// Create creates a job: in managed mode the response is its plan, its one
// question (NeedsClarification) or its failure.
func (c *Client) Create(ctx context.Context, req CreateRequest) (*JobView, error) {
	var v JobView
	return &v, c.do(ctx, http.MethodPost, "/jobs", nil, req, &v)
}

// CreateAsync creates a job with Prefer: respond-async: the server
// answers at once, usually with the job still planning (follow it with
// WaitJob); a job that settled at once comes back settled.
func (c *Client) CreateAsync(ctx context.Context, req CreateRequest) (*JobView, error) {
	var v JobView
	return &v, c.doPrefer(ctx, http.MethodPost, "/jobs", req, &v)
}

// Get returns a job with its attempts.
func (c *Client) Get(ctx context.Context, id string) (*JobDetail, error) {
	var v JobDetail
	return &v, c.do(ctx, http.MethodGet, "/jobs/"+url.PathEscape(id), nil, nil, &v)
}

// ListOptions filters List; zero values are no filter.
type ListOptions struct {
	Status    askonce.Status
	SessionID string
	Cursor    string
	Limit     int
}

// List returns one page of jobs, newest first.
func (c *Client) List(ctx context.Context, o ListOptions) (*JobList, error) {
	q := url.Values{}
	if o.Status != "" {
		q.Set("status", string(o.Status))
	}
	if o.SessionID != "" {
		q.Set("sessionId", o.SessionID)
	}
	if o.Cursor != "" {
		q.Set("cursor", o.Cursor)
	}
	if o.Limit > 0 {
		q.Set("limit", strconv.Itoa(o.Limit))
	}
	var v JobList
	return &v, c.do(ctx, http.MethodGet, "/jobs", q, nil, &v)
}

// Answer answers the job's pending question. An invalid answer is an
// *Error with Code "invalid" and Allowed; a job that is not pending is
// Code "conflict".
func (c *Client) Answer(ctx context.Context, id, answer string) (*JobView, error) {
	var v JobView
	return &v, c.do(ctx, http.MethodPost, "/jobs/"+url.PathEscape(id)+"/clarification", nil, AnswerRequest{Answer: TextAnswer(answer)}, &v)
}

// AnswerAsync is Answer with Prefer: respond-async: the answer is
// validated and committed (errors as with Answer), and the server answers
// with the job still planning its resolved prompt. Follow it with WaitJob.
func (c *Client) AnswerAsync(ctx context.Context, id, answer string) (*JobView, error) {
	var v JobView
	return &v, c.doPrefer(ctx, http.MethodPost, "/jobs/"+url.PathEscape(id)+"/clarification", AnswerRequest{Answer: TextAnswer(answer)}, &v)
}

// Reply is Answer with the person's choices (AnswerRequest: the answer,
// and dontRemember to keep it out of the project and tenant memory).
func (c *Client) Reply(ctx context.Context, id string, r AnswerRequest) (*JobView, error) {
	var v JobView
	return &v, c.do(ctx, http.MethodPost, "/jobs/"+url.PathEscape(id)+"/clarification", nil, r, &v)
}

// ReplyAsync is Reply with Prefer: respond-async (see AnswerAsync).
func (c *Client) ReplyAsync(ctx context.Context, id string, r AnswerRequest) (*JobView, error) {
	var v JobView
	return &v, c.doPrefer(ctx, http.MethodPost, "/jobs/"+url.PathEscape(id)+"/clarification", r, &v)
}

// MemoryQuery names remembered answers: the scope (session, project or
// tenant) and the session or project it belongs to.
type MemoryQuery struct {
	Scope   askonce.MemoryScope
	Project string
	Session string
}

func (m MemoryQuery) values() url.Values {
	q := url.Values{"scope": {string(m.Scope)}}
	if m.Project != "" {
		q.Set("project", m.Project)
	}
	if m.Session != "" {
		q.Set("session", m.Session)
	}
	return q
}

// Memory lists the answers remembered in a project (Scope project) or
// in the tenant (Scope tenant), newest first.
func (c *Client) Memory(ctx context.Context, m MemoryQuery) (*MemoryList, error) {
	var v MemoryList
	return &v, c.do(ctx, http.MethodGet, "/memory", m.values(), nil, &v)
}

// Forget forgets the remembered answer to the question with hash (an
// entry's questionHash) in m's scope; not found is an *Error with Code
// "not_found".
func (c *Client) Forget(ctx context.Context, hash string, m MemoryQuery) (*Forgotten, error) {
	var v Forgotten
	return &v, c.do(ctx, http.MethodDelete, "/memory/"+url.PathEscape(hash), m.values(), nil, &v)
}

// DeclineAsync is Decline with Prefer: respond-async.
func (c *Client) DeclineAsync(ctx context.Context, id string) (*JobView, error) {
	var v JobView
	return &v, c.doPrefer(ctx, http.MethodPost, "/jobs/"+url.PathEscape(id)+"/decline", struct{}{}, &v)
}

// Cancel cancels a planning or pending job.
func (c *Client) Cancel(ctx context.Context, id string) (*JobView, error) {
	var v JobView
	return &v, c.do(ctx, http.MethodPost, "/jobs/"+url.PathEscape(id)+"/cancel", nil, struct{}{}, &v)
}

// Decline declines the job's question: its default applies, or the job
// proceeds under the fallback directive.
func (c *Client) Decline(ctx context.Context, id string) (*JobView, error) {
	var v JobView
	return &v, c.do(ctx, http.MethodPost, "/jobs/"+url.PathEscape(id)+"/decline", nil, struct{}{}, &v)
}

// Report reports a gate-mode agent's outcome; the response says what the
// agent must do.
func (c *Client) Report(ctx context.Context, id string, r ReportRequest) (*ReportResponse, error) {
	var v ReportResponse
	return &v, c.do(ctx, http.MethodPost, "/jobs/"+url.PathEscape(id)+"/report", nil, r, &v)
}

// Events returns the job's events with an id greater than after (at most
// 1000).
func (c *Client) Events(ctx context.Context, id string, after int64) (*EventList, error) {
	q := url.Values{}
	if after > 0 {
		q.Set("after", strconv.FormatInt(after, 10))
	}
	var v EventList
	return &v, c.do(ctx, http.MethodGet, "/jobs/"+url.PathEscape(id)+"/events", q, nil, &v)
}

// History returns the session's answered questions, oldest first.
func (c *Client) History(ctx context.Context, session string) (*HistoryList, error) {
	var v HistoryList
	return &v, c.do(ctx, http.MethodGet, "/sessions/"+url.PathEscape(session)+"/history", nil, nil, &v)
}

// Stream follows the job's events as Server-Sent Events, calling fn for
// each event after the given id, until the server ends the stream (the
// job is settled and every event was sent), ctx is done, or fn returns an
// error (which Stream returns). It returns the id of the last event seen,
// from which a caller may resume.
func (c *Client) Stream(ctx context.Context, id string, after int64, fn func(askonce.Event) error) (int64, error) {
	req, err := c.request(ctx, http.MethodGet, "/jobs/"+url.PathEscape(id)+"/events", nil, nil)
	if err != nil {
		return after, err
	}
	req.Header.Set("Accept", "text/event-stream")
	if after > 0 {
		req.Header.Set("Last-Event-ID", strconv.FormatInt(after, 10))
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return after, err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return after, decodeError(resp)
	}
	sc := newLineScanner(resp.Body)
	var data bytes.Buffer
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if data.Len() == 0 {
				continue
			}
			var ev askonce.Event
			if err := json.Unmarshal(data.Bytes(), &ev); err != nil {
				return after, fmt.Errorf("event stream: %w", err)
			}
			data.Reset()
			after = max(after, ev.ID)
			if err := fn(ev); err != nil {
				return after, err
			}
		case strings.HasPrefix(line, "data:"):
			if data.Len() > 0 {
				data.WriteByte('\n')
			}
			data.WriteString(strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
		}
		// id:, event:, retry: and comments are implied by the data.
	}
	if err := sc.Err(); err != nil && ctx.Err() == nil {
		return after, fmt.Errorf("event stream: %w", err)
	}
	return after, ctx.Err()
}

// Health reports whether the server and its store answer.
func (c *Client) Health(ctx context.Context) error {
	var v api.Health
	return c.do(ctx, http.MethodGet, "/healthz", nil, nil, &v)
}

func (c *Client) request(ctx context.Context, method, path string, q url.Values, body any) (*http.Request, error) {
	u := c.base + path
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, r)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	if c.apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.apiKey)
	}
	return req, nil
}

func (c *Client) do(ctx context.Context, method, path string, q url.Values, body, out any) error {
	req, err := c.request(ctx, method, path, q, body)
	if err != nil {
		return err
	}
	return c.send(req, out)
}

// doPrefer sends a POST that may plan with Prefer: respond-async.
func (c *Client) doPrefer(ctx context.Context, method, path string, body, out any) error {
	req, err := c.request(ctx, method, path, nil, body)
	if err != nil {
		return err
	}
	req.Header.Set("Prefer", "respond-async")
	return c.send(req, out)
}

func (c *Client) send(req *http.Request, out any) error {
	method, path := req.Method, req.URL.Path
	resp, err := c.hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return decodeError(resp)
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("%s %s: decode response: %w", method, path, err)
	}
	return nil
}

func decodeError(resp *http.Response) error {
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	e := &Error{Status: resp.StatusCode}
	var body ErrorResponse
	if json.Unmarshal(raw, &body) == nil && body.Code != "" {
		e.Code, e.Message, e.Allowed, e.Fields, e.Job = body.Code, body.Error, body.Allowed, body.Fields, body.Job
		return e
	}
	e.Code = "http_" + strconv.Itoa(resp.StatusCode)
	e.Message = strings.TrimSpace(string(raw))
	if len(e.Message) > 200 {
		e.Message = e.Message[:200] + "..."
	}
	if e.Message == "" {
		e.Message = resp.Status
	}
	return e
}

// Wait polls the job until it is no longer planning, or ctx is done.
//
// Deprecated: use WaitJob, which follows the job's event stream instead
// of polling.
func (c *Client) Wait(ctx context.Context, id string, every time.Duration) (*JobDetail, error) {
	for {
		j, err := c.Get(ctx, id)
		if err != nil || j.Status != askonce.StatusPlanning {
			return j, err
		}
		select {
		case <-ctx.Done():
			return j, ctx.Err()
		case <-time.After(every):
		}
	}
}

// WaitJob waits until the job leaves planning (it is pending with its
// question, or settled) and returns it, or until ctx is done. It follows
// the job's event stream, so it returns as soon as the change is
// committed; if the stream ends early it reconnects, and between tries it
// reads the job.
func (c *Client) WaitJob(ctx context.Context, id string) (*JobDetail, error) {
	return c.WaitJobProgress(ctx, id, nil)
}

// WaitJobProgress is WaitJob that also calls progress, when set, with
// every event of the job in order (from the first, so that a caller can
// show the live stage: attempts, retries, answers).
func (c *Client) WaitJobProgress(ctx context.Context, id string, progress func(askonce.Event)) (*JobDetail, error) {
	var after int64
	for {
		j, err := c.Get(ctx, id)
		if err != nil && ctx.Err() != nil {
			return j, ctx.Err() // the wait ended with its context, not a failed read
		}
		if err != nil || j.Status != askonce.StatusPlanning {
			return j, err
		}
		var left *JobDetail
		after, err = c.Stream(ctx, id, after, func(ev askonce.Event) error {
			if progress != nil {
				progress(ev)
			}
			if ev.Type == askonce.EventAttempt || ev.Type == askonce.EventCreated {
				return nil // still planning
			}
			d, err := c.Get(ctx, id)
			if err != nil {
				return err
			}
			if d.Status != askonce.StatusPlanning {
				left = d
				return errLeftPlanning
			}
			return nil
		})
		switch {
		case left != nil:
			return left, nil
		case ctx.Err() != nil:
			return j, ctx.Err()
		case err != nil && !errors.Is(err, errLeftPlanning):
			var ce *Error
			if errors.As(err, &ce) {
				return j, err // the server refused: not found, unauthorized
			}
			// A broken stream: read the job again, then reconnect.
			select {
			case <-ctx.Done():
				return j, ctx.Err()
			case <-time.After(250 * time.Millisecond):
			}
		}
	}
}

var errLeftPlanning = errors.New("job left planning")
